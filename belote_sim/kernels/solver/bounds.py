"""Cheap bounds on a position's value, and the exact endgame of the last two tricks.

``_sure_trumps`` and ``_quick_points`` bound the points still to come at a trick
boundary from the hands alone (no search; ``cheap_bounds`` combines them);
``two_tricks`` solves the last two tricks outright and ``last_trick`` the forced last
one.  See the package docstring for how the search uses them.
"""

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.bits import lowest_card, popcount
from belote_sim.kernels.core import beats, legal_mask
from belote_sim.kernels.solver.stack import INF
from belote_sim.kernels.solver.suit_tables import (
    ABOVE,
    CHEAP_SUM,
    RANK_BYTE,
    STRENGTH_BYTE,
    SUM_POINTS,
    TOP_RANK,
    is_trump_suit,
)
from belote_sim.kernels.tables import CARD_POINTS, LAST_TRICK_BONUS, STRAIN_NT, WIN_KEY


@kernel
def _sure_trumps(hands, strain):
    """(team, points) of the top trump sequence held by one team (suit contracts).

    Every trump higher than all of the other team's trumps wins its trick or falls
    in a trick won by a higher trump of the same team, so that team surely banks
    these cards' points.  Returns (-1, 0) when no trump is left.  (Suit bytes in
    strength order: the team holding the strongest trump has the larger byte.)
    """
    shift = 8 * strain
    t0 = STRENGTH_BYTE[1, ((hands[0] | hands[2]) >> shift) & 0xFF]
    t1 = STRENGTH_BYTE[1, ((hands[1] | hands[3]) >> shift) & 0xFF]
    if t0 > t1:
        return 0, SUM_POINTS[1, RANK_BYTE[1, t0 & ABOVE[t1]]]
    if t1 > t0:
        return 1, SUM_POINTS[1, RANK_BYTE[1, t1 & ABOVE[t0]]]
    return -1, 0


@kernel(inline="always")
def _quick_points(hands, leader, strain):
    """Points the leader's team surely wins by cashing the leader's top cards.

    In each suit the leader's run of highest remaining cards wins one trick each
    (in a suit contract a side suit only while every opponent holding trumps still
    follows suit); every card the others play in those tricks goes to the leader's
    team, at least the cheapest ``min(length, rounds)`` cards of each player's
    holding in the suit.  Then one more trick: a low lead (his cheapest card) in a
    suit where he has no such run to partner's card above both opponents' cards (in a
    suit contract only in trumps or when no opponent has a trump), with the cheapest
    card of each opponent; the best such suit.  Partner keeps that card while the
    leader cashes (he has more cards than the tricks cashed), and the opponents'
    cards are counted once each (a card they discard goes to the leader's team too).
    Plus the last-trick 10 if these are all the tricks left.
    """
    lh = hands[leader]
    allc = hands[0] | hands[1] | hands[2] | hands[3]
    o1 = hands[(leader + 1) & 3]
    o2 = hands[(leader + 3) & 3]
    suit_contract = strain < STRAIN_NT
    ts = 8 * strain
    o1_trumps = suit_contract and ((o1 >> ts) & 0xFF) != 0
    o2_trumps = suit_contract and ((o2 >> ts) & 0xFF) != 0
    total = 0
    rounds_all = 0
    entry = 0
    for suit in range(4):
        shift = 8 * suit
        mine = (lh >> shift) & 0xFF
        if mine == 0:
            continue
        kind = 1 if is_trump_suit(suit, strain) else 0
        rest = ((allc & ~lh) >> shift) & 0xFF
        # the leader's cards above every other card of the suit (strength order)
        run = STRENGTH_BYTE[kind, mine] & ABOVE[STRENGTH_BYTE[kind, rest]]
        if run == 0:
            if not suit_contract or suit == strain or not (o1_trumps or o2_trumps):
                # a low lead to partner's card above both opponents' cards (that no
                # opponent can ruff)
                pb = (hands[(leader + 2) & 3] >> shift) & 0xFF
                b1 = (o1 >> shift) & 0xFF
                b2 = (o2 >> shift) & 0xFF
                if STRENGTH_BYTE[kind, pb] > STRENGTH_BYTE[kind, b1 | b2]:
                    x = (
                        SUM_POINTS[kind, 1 << TOP_RANK[kind, pb]]
                        + CHEAP_SUM[kind, mine, 1]
                        + CHEAP_SUM[kind, b1, 1]
                        + CHEAP_SUM[kind, b2, 1]
                    )
                    if x > entry:
                        entry = x
            continue
        rounds = popcount(run)
        if suit_contract and suit != strain:
            if o1_trumps:
                x = popcount((o1 >> shift) & 0xFF)
                if x < rounds:
                    rounds = x
            if o2_trumps:
                x = popcount((o2 >> shift) & 0xFF)
                if x < rounds:
                    rounds = x
            if rounds == 0:
                continue
            # the leader's points for the safe rounds only: his strongest cards
            for _ in range(popcount(run) - rounds):
                run &= run - 1
        pts = SUM_POINTS[kind, RANK_BYTE[kind, run]]
        for p in range(1, 4):
            b = (hands[(leader + p) & 3] >> shift) & 0xFF
            x = popcount(b)
            pts += CHEAP_SUM[kind, b, x if x < rounds else rounds]
        total += pts
        rounds_all += rounds
    if entry > 0:
        total += entry
        rounds_all += 1
    if rounds_all == popcount(lh):
        total += LAST_TRICK_BONUS
    return total


@lean_kernel
def two_tricks(hands, lead, strain, max_team, rules, alpha, beta):
    """Points ``max_team`` wins in the last two tricks (two cards per hand): a
    fail-soft alpha-beta over the at most 16 ways to play the first of them (exact
    when inside ``(alpha, beta)``, else a bound on the failing side).  The last
    trick is forced: only its winner is worked out (the highest key among the
    led suit and the trumps); it gets every point the first trick leaves."""
    s1 = (lead + 1) & 3
    s2 = (lead + 2) & 3
    s3 = (lead + 3) & 3
    g0 = hands[lead]
    g1 = hands[s1]
    g2 = hands[s2]
    g3 = hands[s3]
    max0 = (lead & 1) == max_team
    # all the points of the two tricks: the last one gets what the first leaves
    tot = LAST_TRICK_BONUS
    m = g0 | g1 | g2 | g3
    while m:
        tot += CARD_POINTS[strain, lowest_card(m)]
        m &= m - 1
    a0 = alpha
    bt0 = beta
    b0 = -INF if max0 else INF
    m0 = g0
    while m0:
        c0 = lowest_card(m0)
        m0 &= m0 - 1
        led = c0 >> 3
        p0 = CARD_POINTS[strain, c0]
        a1 = a0
        bt1 = bt0
        b1 = INF if max0 else -INF
        m1 = legal_mask(g1, led, 1, c0, 0, strain, rules)
        while m1:
            c1 = lowest_card(m1)
            m1 &= m1 - 1
            p1 = p0 + CARD_POINTS[strain, c1]
            wc1 = c0
            wp1 = 0
            if beats(c1, c0, led, strain):
                wc1 = c1
                wp1 = 1
            a2 = a1
            bt2 = bt1
            b2 = -INF if max0 else INF
            m2 = legal_mask(g2, led, 2, wc1, wp1, strain, rules)
            while m2:
                c2 = lowest_card(m2)
                m2 &= m2 - 1
                p2 = p1 + CARD_POINTS[strain, c2]
                wc2 = wc1
                wp2 = wp1
                if beats(c2, wc1, led, strain):
                    wc2 = c2
                    wp2 = 2
                b3 = INF if max0 else -INF
                m3 = legal_mask(g3, led, 3, wc2, wp2, strain, rules)
                while m3:
                    c3 = lowest_card(m3)
                    m3 &= m3 - 1
                    p3 = p2 + CARD_POINTS[strain, c3]
                    wp3 = wp2
                    if beats(c3, wc2, led, strain):
                        wp3 = 3
                    w = (lead + wp3) & 3
                    v = p3 if (w & 1) == max_team else 0
                    # the last trick, led by w: its winner has the highest key among
                    # the cards of the led suit and the trumps (keys >= 16)
                    x0 = lowest_card(g0 & ~(1 << c0))
                    x1 = lowest_card(g1 & ~(1 << c1))
                    x2 = lowest_card(g2 & ~(1 << c2))
                    x3 = lowest_card(g3 & ~(1 << c3))
                    if wp3 == 0:
                        led2 = x0 >> 3
                    elif wp3 == 1:
                        led2 = x1 >> 3
                    elif wp3 == 2:
                        led2 = x2 >> 3
                    else:
                        led2 = x3 >> 3
                    kb = WIN_KEY[strain, x0]
                    if (x0 >> 3) != led2 and kb < 16:
                        kb = -1
                    lw = 0
                    k = WIN_KEY[strain, x1]
                    if ((x1 >> 3) == led2 or k >= 16) and k > kb:
                        kb = k
                        lw = 1
                    k = WIN_KEY[strain, x2]
                    if ((x2 >> 3) == led2 or k >= 16) and k > kb:
                        kb = k
                        lw = 2
                    k = WIN_KEY[strain, x3]
                    if ((x3 >> 3) == led2 or k >= 16) and k > kb:
                        lw = 3
                    if ((lead + lw) & 1) == max_team:
                        v += tot - p3
                    if max0:  # seat 3 minimises
                        if v < b3:
                            b3 = v
                            if v <= a2:
                                break
                    elif v > b3:
                        b3 = v
                        if v >= bt2:
                            break
                if max0:  # seat 2 maximises
                    if b3 > b2:
                        b2 = b3
                        if b2 > a2:
                            a2 = b2
                            if a2 >= bt2:
                                break
                elif b3 < b2:
                    b2 = b3
                    if b2 < bt2:
                        bt2 = b2
                        if a2 >= bt2:
                            break
            if max0:  # seat 1 minimises
                if b2 < b1:
                    b1 = b2
                    if b1 < bt1:
                        bt1 = b1
                        if a1 >= bt1:
                            break
            elif b2 > b1:
                b1 = b2
                if b1 > a1:
                    a1 = b1
                    if a1 >= bt1:
                        break
        if max0:
            if b1 > b0:
                b0 = b1
                if b0 > a0:
                    a0 = b0
                    if a0 >= bt0:
                        break
        elif b1 < b0:
            b0 = b1
            if b0 < bt0:
                bt0 = b0
                if a0 >= bt0:
                    break
    return b0


@kernel(inline="always")
def last_trick(hands, lead, strain, max_team):
    """Points ``max_team`` wins in the last trick (one card in each hand: play is
    forced), the last-trick 10 included."""
    lc = lowest_card(hands[lead])
    wcard = lc
    wpos = 0
    pts = CARD_POINTS[strain, lc] + LAST_TRICK_BONUS
    for pos in range(1, 4):
        cc = lowest_card(hands[(lead + pos) & 3])
        pts += CARD_POINTS[strain, cc]
        if beats(cc, wcard, lc >> 3, strain):
            wcard = cc
            wpos = pos
    return pts if ((lead + wpos) & 1) == max_team else 0


@kernel(inline="always")
def cheap_bounds(hands, lead, strain, max_team, rem):
    """``(lo, hi)``: bounds, without search, on the points ``max_team`` wins from a
    trick boundary on (``rem`` points still to come): the top trumps held by one team
    (``_sure_trumps``, suit contracts) and the leader's quick points
    (``_quick_points``)."""
    lo = 0
    hi = rem
    if strain < STRAIN_NT:
        st, spts = _sure_trumps(hands, strain)
        if st == max_team:
            lo += spts
        else:
            hi -= spts
    qp = _quick_points(hands, lead, strain)
    if (lead & 1) == max_team:
        if qp > lo:
            lo = qp
    elif rem - qp < hi:
        hi = rem - qp
    return lo, hi


__all__ = [
    "cheap_bounds",
    "last_trick",
    "two_tricks",
]
