"""The exact search (``alpha_beta``) and its drivers: values of positions and of cards.

``solve_position`` is the value of one position, ``dd_card_values`` the value after
each legal card, ``dd_best_card`` the best card; ``solve_batch`` and
``random_positions`` serve tests and benchmarks.  The algorithm is described in the
package docstring; the stack layout in ``stack``.
"""

import numpy as np

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.bits import lowest_card, popcount
from belote_sim.kernels.bits import prefetch as _prefetch
from belote_sim.kernels.core import advance_trick, beats, legal_mask, trick_state
from belote_sim.kernels.dealing import shuffle_deal
from belote_sim.kernels.rng import random_below, seed_state
from belote_sim.kernels.solver.bounds import cheap_bounds, last_trick, two_tricks
from belote_sim.kernels.solver.moves import order_moves, reduce_dominated, reduce_equivalent
from belote_sim.kernels.solver.stack import (
    F_A,
    F_A0,
    F_ACC,
    F_B,
    F_B0,
    F_BC,
    F_BEST,
    F_CARD,
    F_CNT,
    F_I,
    F_K0,
    F_K1,
    F_LAZY,
    F_LEAD,
    F_LED,
    F_N,
    F_NULL,
    F_REM,
    F_RS,
    F_SLOT,
    F_TM,
    F_TP,
    F_WC,
    F_WP,
    G_GEN,
    G_KILLER,
    G_NODES,
    INF,
    MAX_PLY,
    NUM_FIELDS,
)
from belote_sim.kernels.solver.table import (
    tt_card,
    tt_depth,
    tt_gen,
    tt_keys,
    tt_lower,
    tt_meta,
    tt_slot,
    tt_upper,
    tt_word,
)
from belote_sim.kernels.tables import CARD_POINTS, LAST_TRICK_BONUS


@kernel
def alpha_beta(
    hands,
    leader,
    trick,
    n_trick,
    strain,
    max_team,
    rules,
    alpha0,
    beta0,
    tt,
    ws,
    moves,
):
    """Fail-soft alpha-beta from a position; returns ``(value, best_card)``.

    ``hands`` (4,) masks of the cards still held (modified during the search and
    restored), ``leader`` the seat that led the trick in progress, ``trick`` its
    first ``n_trick`` cards.  ``value`` is the points (last-trick 10 included) of
    the remaining tricks -- trick in progress included -- won by ``max_team``,
    exact if inside ``(alpha0, beta0)``, else a bound on the failing side.
    ``best_card`` is the root's best card (-1 if the root was cut without search).

    One loop over the stack ``ws``/``moves`` (fields in ``stack``), in four steps:

    1. *enter* the node of frame ``sp``: decide it at once if it can be (window,
       endgame, cheap bounds, table), else list its cards (``moves[sp]``);
    2. or *take back* the card whose child just returned ``ret``: update the
       node's best value and window (or re-search after a null-window test);
    3. *play the next card*: push the child's frame and enter it;
    4. with no card left or a cut: *leave* the node -- store it in the table,
       return its value to the parent frame (or to the caller at the root).
    """
    tt_mask = tt.shape[0] - 1
    gen = ws[MAX_PLY, G_GEN] & 0x7
    # --- the root frame -----------------------------------------------------------------
    led, wc, wp = trick_state(trick, n_trick, strain)
    tp = 0
    tm = 0
    for i in range(n_trick):
        tp += CARD_POINTS[strain, trick[i]]
        tm |= 1 << trick[i]
    if n_trick == 0 and hands[0] | hands[1] | hands[2] | hands[3] == 0:
        return 0, -1
    sp = 0
    ws[0, F_LEAD] = leader
    ws[0, F_N] = n_trick
    ws[0, F_LED] = led
    ws[0, F_WC] = wc
    ws[0, F_WP] = wp
    ws[0, F_TP] = tp
    ws[0, F_TM] = tm
    ws[0, F_ACC] = 0
    ws[0, F_REM] = remaining_points(hands, trick, n_trick, strain)
    ws[0, F_A] = alpha0
    ws[0, F_B] = beta0
    entering = True
    ret = 0
    while True:
        if entering:
            # --- 1. enter the node: decide it at once, or list its cards ------------------
            ws[MAX_PLY, G_NODES] += 1
            n = ws[sp, F_N]
            lead = ws[sp, F_LEAD]
            seat = (lead + n) & 3
            acc = ws[sp, F_ACC]
            a = ws[sp, F_A]
            b = ws[sp, F_B]
            cut = False
            if acc >= b:
                ret = acc
                cut = True
            elif acc + ws[sp, F_REM] <= a:
                ret = acc + ws[sp, F_REM]
                cut = True
            ttbest = -1
            ws[sp, F_SLOT] = -1
            if not cut and n == 0:
                h = hands[seat]
                if popcount(h) == 2:
                    ret = acc + two_tricks(hands, lead, strain, max_team, rules, a - acc, b - acc)
                    cut = True
                elif h & (h - 1) == 0:
                    ret = acc + last_trick(hands, lead, strain, max_team)
                    cut = True
                else:
                    # Cheap bounds, then the transposition table if they do not cut.  The
                    # slot is prefetched first: its cache line loads meanwhile.
                    k0, k1 = tt_keys(hands[0], hands[1], hands[2], hands[3], strain)
                    meta = tt_meta(lead, strain, max_team, rules)
                    slot = tt_slot(k0, k1, meta, tt_mask)
                    _prefetch(tt, slot)
                    lo, hi = cheap_bounds(hands, lead, strain, max_team, ws[sp, F_REM])
                    lo += acc
                    hi += acc
                    if lo < b and hi > a and lo < hi:
                        ws[sp, F_SLOT] = slot
                        ws[sp, F_K0] = k0
                        ws[sp, F_K1] = k1
                        # the table probe, written out (a call would take a reference to
                        # the table: two atomic operations)
                        e = -1
                        if (
                            tt[slot, 0] == k0
                            and tt[slot, 1] == k1
                            and (tt[slot, 2] & 0x3FF) == meta
                        ):
                            e = slot
                        elif (
                            tt[slot + 1, 0] == k0
                            and tt[slot + 1, 1] == k1
                            and (tt[slot + 1, 2] & 0x3FF) == meta
                        ):
                            e = slot + 1
                        if e >= 0:
                            d = tt[e, 2]
                            if tt_lower(d) + acc > lo:
                                lo = tt_lower(d) + acc
                            if tt_upper(d) + acc < hi:
                                hi = tt_upper(d) + acc
                            ttbest = tt_card(d)
                    if lo >= b:
                        ret = lo
                        cut = True
                    elif hi <= a:
                        ret = hi
                        cut = True
                    elif lo >= hi:
                        ret = lo
                        cut = True
                    else:
                        if lo > a:
                            a = lo
                            ws[sp, F_A] = a
                        if hi < b:
                            b = hi
                            ws[sp, F_B] = b
            if cut:
                if sp == 0:
                    return ret, -1
                sp -= 1
                entering = False
                continue
            # The cards to search: legal, less equivalent and dominated ones, best first.
            legal = legal_mask(
                hands[seat],
                ws[sp, F_LED],
                n,
                ws[sp, F_WC],
                ws[sp, F_WP],
                strain,
                rules,
            )
            others = ((hands[0] | hands[1] | hands[2] | hands[3]) & ~hands[seat]) | ws[sp, F_TM]
            cand = reduce_equivalent(legal, others, strain)
            if cand & (cand - 1):
                cand = reduce_dominated(
                    cand,
                    others & ~ws[sp, F_TM],
                    hands,
                    seat,
                    n,
                    ws[sp, F_LED],
                    ws[sp, F_WC],
                    ws[sp, F_WP],
                    strain,
                    rules,
                )
            ws[sp, F_LAZY] = 0
            if cand & (cand - 1) == 0:
                moves[sp, 0] = lowest_card(cand)
                ws[sp, F_CNT] = 1
            elif ttbest >= 0 and (cand >> ttbest) & 1:
                # the table's card first; order the others only if it does not cut
                moves[sp, 0] = ttbest
                ws[sp, F_CNT] = 1
                ws[sp, F_LAZY] = cand & ~(1 << ttbest)
            else:
                killer = ws[MAX_PLY, G_KILLER + popcount(hands[seat])] - 1 if n == 0 else -1
                ws[sp, F_CNT] = order_moves(
                    cand,
                    hands,
                    seat,
                    n,
                    ws[sp, F_LED],
                    ws[sp, F_WC],
                    ws[sp, F_WP],
                    ws[sp, F_TM],
                    strain,
                    killer,
                    moves,
                    sp,
                    0,
                )
            ws[sp, F_I] = 0
            ws[sp, F_A0] = a
            ws[sp, F_B0] = b
            ws[sp, F_BEST] = -INF if (seat & 1) == max_team else INF
            ws[sp, F_BC] = -1
            ws[sp, F_RS] = 0
        else:
            # --- 2. take back the card whose child returned ret -------------------------
            n = ws[sp, F_N]
            seat = (ws[sp, F_LEAD] + n) & 3
            card = ws[sp, F_CARD]
            hands[seat] |= 1 << card
            if ws[sp, F_NULL] and ws[sp, F_A] < ret < ws[sp, F_B]:
                # PVS: the null-window test says this card may beat the best: re-search
                ws[sp, F_I] -= 1
                ws[sp, F_RS] = 1
            elif (seat & 1) == max_team:
                if ret > ws[sp, F_BEST]:
                    ws[sp, F_BEST] = ret
                    ws[sp, F_BC] = card
                    if ret > ws[sp, F_A]:
                        ws[sp, F_A] = ret
            else:
                if ret < ws[sp, F_BEST]:
                    ws[sp, F_BEST] = ret
                    ws[sp, F_BC] = card
                    if ret < ws[sp, F_B]:
                        ws[sp, F_B] = ret
        # --- 3. play the next card: push the child's frame and enter it -----------------
        if ws[sp, F_LAZY] and ws[sp, F_I] == ws[sp, F_CNT] and ws[sp, F_A] < ws[sp, F_B]:
            # the table's card did not cut: order the others now
            n = ws[sp, F_N]
            ws[sp, F_CNT] += order_moves(
                ws[sp, F_LAZY],
                hands,
                (ws[sp, F_LEAD] + n) & 3,
                n,
                ws[sp, F_LED],
                ws[sp, F_WC],
                ws[sp, F_WP],
                ws[sp, F_TM],
                strain,
                -1,
                moves,
                sp,
                ws[sp, F_CNT],
            )
            ws[sp, F_LAZY] = 0
        if ws[sp, F_A] < ws[sp, F_B] and ws[sp, F_I] < ws[sp, F_CNT]:
            n = ws[sp, F_N]
            lead = ws[sp, F_LEAD]
            seat = (lead + n) & 3
            card = moves[sp, ws[sp, F_I]]
            ws[sp, F_I] += 1
            ws[sp, F_CARD] = card
            hands[seat] &= ~(1 << card)
            tp = ws[sp, F_TP] + CARD_POINTS[strain, card]
            if n == 0:
                led = card >> 3
                wc = card
                wp = 0
            else:
                led = ws[sp, F_LED]
                wc = ws[sp, F_WC]
                wp = ws[sp, F_WP]
                if beats(card, wc, led, strain):
                    wc = card
                    wp = n
            # the child's window: the node's, or a null window above the best so far
            # (PVS: every card after the first, unless it is being re-searched)
            c1 = sp + 1
            ca = ws[sp, F_A]
            cb = ws[sp, F_B]
            if ws[sp, F_I] > 1 and cb - ca > 1 and ws[sp, F_RS] == 0:
                ws[sp, F_NULL] = 1
                if (seat & 1) == max_team:
                    cb = ca + 1
                else:
                    ca = cb - 1
            else:
                ws[sp, F_NULL] = 0
            ws[sp, F_RS] = 0
            ws[c1, F_A] = ca
            ws[c1, F_B] = cb
            if n == 3:
                # the card ends the trick: its winner banks it and leads the next one
                winner = (lead + wp) & 3
                if hands[winner] == 0:
                    tp += LAST_TRICK_BONUS
                acc = ws[sp, F_ACC] + (tp if (winner & 1) == max_team else 0)
                if hands[winner] == 0:
                    ret = acc  # that was the last trick: a leaf, back to step 2
                    ws[sp, F_NULL] = 0
                    entering = False
                    continue
                ws[c1, F_LEAD] = winner
                ws[c1, F_N] = 0
                ws[c1, F_LED] = -1
                ws[c1, F_WC] = -1
                ws[c1, F_WP] = -1
                ws[c1, F_TP] = 0
                ws[c1, F_TM] = 0
                ws[c1, F_ACC] = acc
                ws[c1, F_REM] = ws[sp, F_REM] - tp
            else:
                ws[c1, F_LEAD] = lead
                ws[c1, F_N] = n + 1
                ws[c1, F_LED] = led
                ws[c1, F_WC] = wc
                ws[c1, F_WP] = wp
                ws[c1, F_TP] = tp
                ws[c1, F_TM] = ws[sp, F_TM] | (1 << card)
                ws[c1, F_ACC] = ws[sp, F_ACC]
                ws[c1, F_REM] = ws[sp, F_REM]
            sp = c1
            entering = True
            continue
        # --- 4. leave the node: store it in the table, return its value -----------------
        best = ws[sp, F_BEST]
        if ws[sp, F_N] == 0 and ws[sp, F_A] >= ws[sp, F_B]:
            # killer lead: the card that cut, tried first at the next lead this deep
            ws[MAX_PLY, G_KILLER + popcount(hands[ws[sp, F_LEAD]])] = ws[sp, F_BC] + 1
        slot = ws[sp, F_SLOT]
        if slot >= 0:
            acc = ws[sp, F_ACC]
            rel = best - acc
            lo = 0
            hi = ws[sp, F_REM]
            a = ws[sp, F_A0]
            b = ws[sp, F_B0]
            # best <= a: fail low (upper bound); best >= b: fail high (lower bound).
            if best <= a:
                hi = rel
            elif best >= b:
                lo = rel
            else:
                lo = rel
                hi = rel
            k0 = ws[sp, F_K0]
            k1 = ws[sp, F_K1]
            meta = tt_meta(ws[sp, F_LEAD], strain, max_team, rules)
            depth = popcount(hands[ws[sp, F_LEAD]])
            bc = ws[sp, F_BC]
            e = -1  # the table probe, written out
            if tt[slot, 0] == k0 and tt[slot, 1] == k1 and (tt[slot, 2] & 0x3FF) == meta:
                e = slot
            elif (
                tt[slot + 1, 0] == k0
                and tt[slot + 1, 1] == k1
                and (tt[slot + 1, 2] & 0x3FF) == meta
            ):
                e = slot + 1
            if e >= 0:
                # the same position from an earlier search: intersect the bounds
                d = tt[e, 2]
                if tt_lower(d) > lo:
                    lo = tt_lower(d)
                if tt_upper(d) < hi:
                    hi = tt_upper(d)
                if best <= a:  # fail low: keep the previous best card
                    bc = tt_card(d)
            else:
                # depth-preferred first way, always-replace second way
                e = slot
                d0 = tt[slot, 2]
                if tt_depth(d0) > depth and tt_gen(d0) == gen:
                    e = slot + 1
            tt[e, 0] = k0
            tt[e, 1] = k1
            tt[e, 2] = tt_word(meta, lo, hi, bc, depth, gen)
        if sp == 0:
            return best, ws[0, F_BC]
        ret = best
        sp -= 1
        entering = False


@kernel
def remaining_points(hands, trick, n_trick, strain):
    """Points still to be won: cards in hands and in the trick, plus the last-trick 10."""
    total = LAST_TRICK_BONUS
    for i in range(n_trick):
        total += CARD_POINTS[strain, trick[i]]
    for s in range(4):
        m = hands[s]
        while m:
            c = lowest_card(m)
            m &= m - 1
            total += CARD_POINTS[strain, c]
    return total


@kernel
def solve_position(
    hands,
    leader,
    trick,
    n_trick,
    strain,
    max_team,
    rules,
    tt,
    ws,
    moves,
    mode,
    guess,
):
    """Exact value of a position (points ``max_team`` wins from here on).

    ``hands`` (4,) masks of the cards still held (restored on return), ``leader``
    the seat that led the trick in progress (or leads next), ``trick`` its first
    ``n_trick`` cards; ``tt``/``ws``/``moves`` from ``new_tt``/``new_workspace``.
    ``mode`` 0: one full-window principal-variation search (the fastest here);
    1: MTD(f) null-window tests from ``guess`` (-1: half the points still to play);
    2: bisection of the value interval with null-window tests.  All modes return
    the same exact value.
    """
    if n_trick == 0 and hands[0] | hands[1] | hands[2] | hands[3] == 0:
        return 0
    ws[MAX_PLY, G_GEN] = (ws[MAX_PLY, G_GEN] + 1) & 0x7
    total = remaining_points(hands, trick, n_trick, strain)
    if mode == 0:
        v, _ = alpha_beta(
            hands,
            leader,
            trick,
            n_trick,
            strain,
            max_team,
            rules,
            -1,
            total + 1,
            tt,
            ws,
            moves,
        )
        return v
    lower = 0
    upper = total
    g = guess if guess >= 0 else total // 2
    while lower < upper:
        if mode == 1:
            beta = g if g > lower else lower + 1
            if beta > upper:
                beta = upper
        else:
            beta = (lower + upper + 1) // 2
        v, _ = alpha_beta(
            hands,
            leader,
            trick,
            n_trick,
            strain,
            max_team,
            rules,
            beta - 1,
            beta,
            tt,
            ws,
            moves,
        )
        if v >= beta:
            lower = v
        else:
            upper = v
        g = v
    return lower


@kernel
def _play_child(hands, leader, trick, n_trick, card, strain, child_trick):
    """Play ``card`` for the player to move: removes it from his hand.

    Returns ``(child_leader, child_n, banked_points, banked_team)``; ``child_trick``
    receives the child's trick.  When the card completes the trick, the child starts
    a new trick led by the winner, who banks ``banked_points`` (the last-trick 10
    included when the hands are then empty).
    """
    seat = (leader + n_trick) & 3
    hands[seat] &= ~(1 << card)
    for i in range(n_trick):
        child_trick[i] = trick[i]
    child_trick[n_trick] = card
    if n_trick < 3:
        return leader, n_trick + 1, 0, -1
    _, _, wp = trick_state(child_trick, 4, strain)
    winner = (leader + wp) & 3
    pts = 0
    for i in range(4):
        pts += CARD_POINTS[strain, child_trick[i]]
    if hands[winner] == 0:
        pts += LAST_TRICK_BONUS
    return winner, 0, pts, winner & 1


@kernel
def legal_of_position(hands, leader, trick, n_trick, strain, rules):
    """Legal cards of the player to move."""
    led, wc, wp = trick_state(trick, n_trick, strain)
    return legal_mask(hands[(leader + n_trick) & 3], led, n_trick, wc, wp, strain, rules)


@kernel(inline="always")
def others_in_play(hands, seat, trick, n_trick):
    """The cards still in play but not in ``seat``'s hand: the other hands and the trick's
    first ``n_trick`` cards (what separates two of his cards in rank)."""
    others = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hands[seat]
    for i in range(n_trick):
        others |= 1 << trick[i]
    return others


@kernel
def dd_card_values(hands, leader, trick, n_trick, strain, max_team, rules, tt, ws, moves, out):
    """Exact value (points of ``max_team`` from here, the current trick included) after
    each legal card of the player to move: ``out[card]``, -1 for other cards."""
    legal = legal_of_position(hands, leader, trick, n_trick, strain, rules)
    seat = (leader + n_trick) & 3
    child_trick = np.zeros(4, dtype=np.int64)
    for c in range(32):
        out[c] = -1
    # Equivalent zero-point cards (no card still in play ranks between them) have the
    # same value: only the lowest of each group is searched, the others copy the value
    # of the card below them in their suit (the legal card before them).
    searched = reduce_equivalent(legal, others_in_play(hands, seat, trick, n_trick), strain)
    prev = -1
    m = legal
    while m:
        card = lowest_card(m)
        m &= m - 1
        if (searched >> card) & 1:
            cl, cn, pts, team = _play_child(
                hands, leader, trick, n_trick, card, strain, child_trick
            )
            v = solve_position(
                hands, cl, child_trick, cn, strain, max_team, rules, tt, ws, moves, 0, -1
            )
            out[card] = v + (pts if team == max_team else 0)
            hands[seat] |= 1 << card
        else:
            out[card] = out[prev]
        prev = card
    return legal


@kernel
def dd_best_card(hands, leader, trick, n_trick, strain, rules, tt, ws, moves):
    """Best card of the player to move with all hands visible, and its value.

    Searches for the mover's own team (the value is the points his team wins from
    here on, current trick included).  The first card (by move ordering) is solved
    exactly, every other one by a null-window test "better than the best so far?"
    and solved exactly only when it is.  Ties go to the earlier card in the order.
    Returns ``(card, value)``.
    """
    seat = (leader + n_trick) & 3
    me = seat & 1
    legal = legal_of_position(hands, leader, trick, n_trick, strain, rules)
    led, wc, wp = trick_state(trick, n_trick, strain)
    tm = 0
    for i in range(n_trick):
        tm |= 1 << trick[i]
    cand = reduce_equivalent(legal, others_in_play(hands, seat, trick, n_trick), strain)
    row = np.zeros((1, 16), dtype=np.int64)
    cnt = order_moves(cand, hands, seat, n_trick, led, wc, wp, tm, strain, -1, row, 0, 0)
    child_trick = np.zeros(4, dtype=np.int64)
    best_card = -1
    best_v = -1
    for i in range(cnt):
        card = row[0, i]
        cl, cn, pts, team = _play_child(hands, leader, trick, n_trick, card, strain, child_trick)
        bank = pts if team == me else 0
        # the first card is solved exactly; another one only if a null-window test
        # says it beats the best so far (or the points it banks alone do)
        exact = best_card < 0
        if not exact:
            target = best_v - bank  # is the child's value > target ?
            exact = target < 0
            if not exact:
                t, _ = alpha_beta(
                    hands, cl, child_trick, cn, strain, me, rules,
                    target, target + 1, tt, ws, moves,
                )  # fmt: skip
                exact = t > target
        if exact:
            v = bank + solve_position(
                hands, cl, child_trick, cn, strain, me, rules, tt, ws, moves,
                0, -1,
            )  # fmt: skip
            if best_card < 0 or v > best_v:
                best_v = v
                best_card = card
        hands[seat] |= 1 << card
    return best_card, best_v


@kernel
def solve_batch(hands, leaders, tricks, n_tricks, strains, max_teams, rules, tt, mode, out):
    """``solve_position`` over arrays of positions (tests and benchmarks)."""
    ws = np.zeros((MAX_PLY + 1, NUM_FIELDS), dtype=np.int64)
    moves = np.zeros((MAX_PLY, 16), dtype=np.int64)
    h = np.zeros(4, dtype=np.int64)
    for i in range(hands.shape[0]):
        for s in range(4):
            h[s] = hands[i, s]
        out[i] = solve_position(
            h,
            leaders[i],
            tricks[i],
            n_tricks[i],
            strains[i],
            max_teams[i],
            rules,
            tt,
            ws,
            moves,
            mode,
            -1,
        )


@kernel
def random_positions(
    seed,
    n,
    min_played,
    max_played,
    strain,
    rules,
    out_hands,
    out_leader,
    out_trick,
    out_n,
    out_strain,
):
    """Positions reached by random legal play from uniform deals (tests, benchmarks).

    Position i: a uniform deal, strain ``strain`` (or uniform 0..5 if -1), a uniform
    first leader, then uniformly random legal cards until between ``min_played`` and
    ``max_played`` cards (uniform) are played.  Writes the hands still held, the
    leader and cards of the trick in progress and the strain.
    """
    state = seed_state(seed)
    hands = np.zeros(4, dtype=np.int64)
    trick = np.zeros(4, dtype=np.int64)
    for i in range(n):
        shuffle_deal(state, hands)
        st = strain if strain >= 0 else random_below(state, 6)
        leader = random_below(state, 4)
        target = min_played + random_below(state, max_played - min_played + 1)
        n_trick = 0
        led = -1
        wc = -1
        wp = -1
        for _ in range(target):
            seat = (leader + n_trick) & 3
            legal = legal_mask(hands[seat], led, n_trick, wc, wp, st, rules)
            card = lowest_card(legal)
            k = random_below(state, popcount(legal))
            mm = legal
            for _ in range(k):
                mm &= mm - 1
            card = lowest_card(mm)
            hands[seat] &= ~(1 << card)
            trick[n_trick] = card
            n_trick, led, wc, wp, leader = advance_trick(card, n_trick, led, wc, wp, leader, st)
        for s in range(4):
            out_hands[i, s] = hands[s]
        out_leader[i] = leader
        for k in range(4):
            out_trick[i, k] = trick[k] if k < n_trick else 0
        out_n[i] = n_trick
        out_strain[i] = st


__all__ = [
    "alpha_beta",
    "dd_best_card",
    "dd_card_values",
    "legal_of_position",
    "others_in_play",
    "random_positions",
    "remaining_points",
    "solve_batch",
    "solve_position",
]
