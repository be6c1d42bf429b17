"""Imperfect information: inferred voids, uniformly sampled consistent deals, PIMC.

Perfect-information Monte Carlo: deal the cards the mover cannot see many times,
uniformly among the deals consistent with what he knows (hand sizes, declared cards,
the voids shown in play), solve each deal exactly for every legal card
(``search.dd_card_values``) and play the best card on average.
"""

import numpy as np

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.bits import lowest_card, popcount
from belote_sim.kernels.core import advance_trick, beats
from belote_sim.kernels.rng import next_random, seed_state
from belote_sim.kernels.solver.search import dd_card_values
from belote_sim.kernels.tables import (
    HIGHER_TRUMP_BYTE,
    R_RAISE_OVER_PARTNER,
    R_UNDERTRUMP,
    STRAIN_AT,
    STRAIN_NT,
)


@lean_kernel
def infer_forbidden(plays, n_plays, first_leader, strain, rules, out):
    """Cards each seat cannot hold, as shown by the cards it played (docs/rules.md 5).

    ``plays``: the cards of the deal in playing order (``n_plays`` of them), the first
    trick led by ``first_leader``.  ``out`` (4,) receives, per seat, the mask of the
    cards it is known not to hold: a seat that did not follow suit holds no card of
    the led suit; one that did not raise (trump led) holds no card of that suit above
    the winning card; one that had to trump and discarded holds no trump (or, when an
    opponent's trump was winning and undertrumping is not required, none above it);
    one that trumped or undertrumped under an opponent's trump without beating it
    holds no higher trump.  Returns ``(leader, n_trick)`` of the trick in progress.
    """
    for s in range(4):
        out[s] = 0
    leader, n, _, _, _ = infer_forbidden_from(
        plays, 0, n_plays, first_leader, 0, -1, -1, -1, strain, rules, out
    )
    return leader, n


@lean_kernel(inline="always")
def infer_forbidden_from(plays, start, n_plays, leader, n, led, wc, wp, strain, rules, out):
    """``infer_forbidden``'s walk through ``plays[start:n_plays]``, from the state it had
    after ``plays[:start]``: ``out`` (4,) its masks then, the trick in progress led by
    ``leader`` with ``n`` cards, its led suit, winning card and position (``led``,
    ``wc``, ``wp``; -1 when ``n`` is 0).  Updates ``out`` and returns the state after
    ``plays[:n_plays]``: ``(leader, n, led, wc, wp)``."""
    for i in range(start, n_plays):
        card = plays[i]
        seat = (leader + n) & 3
        suit = card >> 3
        if n > 0:
            partner_winning = n >= 2 and wp == n - 2
            lshift = 8 * led
            if strain == STRAIN_AT or led == strain:
                if suit != led:
                    out[seat] |= 0xFF << lshift
                elif (not partner_winning or rules[R_RAISE_OVER_PARTNER]) and not beats(
                    card, wc, led, strain
                ):
                    out[seat] |= HIGHER_TRUMP_BYTE[wc & 7] << lshift
            elif suit != led:
                out[seat] |= 0xFF << lshift
                if strain < STRAIN_NT and not partner_winning:
                    tshift = 8 * strain
                    trump_winning = (wc >> 3) == strain
                    if suit == strain:
                        if trump_winning and not beats(card, wc, led, strain):
                            out[seat] |= HIGHER_TRUMP_BYTE[wc & 7] << tshift
                    elif trump_winning and not rules[R_UNDERTRUMP]:
                        out[seat] |= HIGHER_TRUMP_BYTE[wc & 7] << tshift
                    else:
                        out[seat] |= 0xFF << tshift
        n, led, wc, wp, leader = advance_trick(card, n, led, wc, wp, leader, strain)
    return leader, n, led, wc, wp


@kernel
def _deal_counts(cards, n_cards, seats, need, allowed, ways):
    """ways[i, a, b]: number of ways to deal ``cards[i:]`` so that seats[0] gets ``a``
    more, seats[1] ``b`` more and seats[2] the rest, each card to a seat allowed it."""
    for i in range(n_cards + 1):
        for a in range(9):
            for b in range(9):
                ways[i, a, b] = 0
    ways[n_cards, 0, 0] = 1
    for i in range(n_cards - 1, -1, -1):
        bit = 1 << cards[i]
        left = n_cards - i
        for a in range(min(need[0], left) + 1):
            for b in range(min(need[1], left - a) + 1):
                c = left - a - b
                if c > need[2]:
                    continue
                w = 0
                if a > 0 and allowed[seats[0]] & bit:
                    w += ways[i + 1, a - 1, b]
                if b > 0 and allowed[seats[1]] & bit:
                    w += ways[i + 1, a, b - 1]
                if c > 0 and allowed[seats[2]] & bit:
                    w += ways[i + 1, a, b]
                ways[i, a, b] = w


@kernel
def _random_below_big(state, n):
    """Uniform integer in [0, n) for n < 2**40 (62 random bits, modulo bias < 2**-22)."""
    x = (next_random(state) << 30) ^ next_random(state)
    return (x & ((1 << 62) - 1)) % n


@kernel
def _deal_sample(cards, n_cards, seats, need, allowed, ways, state, out):
    """Draw one deal uniformly among those counted by ``ways``: ``out[seat]`` |= cards."""
    a = need[0]
    b = need[1]
    for i in range(n_cards):
        bit = 1 << cards[i]
        left = n_cards - i
        c = left - a - b
        w0 = ways[i + 1, a - 1, b] if a > 0 and allowed[seats[0]] & bit else 0
        w1 = ways[i + 1, a, b - 1] if b > 0 and allowed[seats[1]] & bit else 0
        w2 = ways[i + 1, a, b] if c > 0 and allowed[seats[2]] & bit else 0
        r = _random_below_big(state, w0 + w1 + w2)
        if r < w0:
            out[seats[0]] |= bit
            a -= 1
        elif r < w0 + w1:
            out[seats[1]] |= bit
            b -= 1
        else:
            out[seats[2]] |= bit


@kernel
def sample_deals(fixed, unseen, need, allowed, n_samples, seed, out):
    """Deal the ``unseen`` cards to the seats uniformly at random among the deals
    consistent with the constraints, ``n_samples`` times.

    ``fixed`` (4,): cards known in each hand; ``need`` (4,): how many unseen cards each
    seat still gets (their sum is the number of unseen cards); ``allowed`` (4,): the
    cards each seat may get.  At most three seats may need cards.  ``out`` (n, 4)
    receives the hands.  Exact uniform sampling: the number of completions is counted
    card by card (a small dynamic programme over the cards still to place in the
    three hands), then each card goes to a seat with probability proportional to the
    completions that remain (exact integer counts; a draw takes 62 random bits modulo
    the count).  Returns the number of consistent deals (0: none, the constraints
    contradict each other; ``out`` is then left unchanged).
    """
    cards = np.zeros(32, dtype=np.int64)
    n_cards = 0
    m = unseen
    while m:
        cards[n_cards] = lowest_card(m)
        m &= m - 1
        n_cards += 1
    seats = np.zeros(3, dtype=np.int64)
    sneed = np.zeros(3, dtype=np.int64)
    k = 0
    for s in range(4):
        if need[s] > 0:
            if k == 3:
                return 0
            seats[k] = s
            sneed[k] = need[s]
            k += 1
    while k < 3:  # pad with a seat that takes nothing
        for s in range(4):
            if need[s] == 0:
                seats[k] = s
                break
        sneed[k] = 0
        k += 1
    if sneed[0] + sneed[1] + sneed[2] != n_cards:
        return 0
    ways = np.zeros((n_cards + 1, 9, 9), dtype=np.int64)
    _deal_counts(cards, n_cards, seats, sneed, allowed, ways)
    total = ways[0, sneed[0], sneed[1]]
    if total <= 0:
        return 0
    state = seed_state(seed)
    for i in range(n_samples):
        for s in range(4):
            out[i, s] = fixed[s]
        _deal_sample(cards, n_cards, seats, sneed, allowed, ways, state, out[i])
    return total


@kernel
def pimc_values(deals, leader, trick, n_trick, strain, max_team, rules, tt, ws, moves, out_sum):
    """Sum over the sampled ``deals`` (n, 4) of the exact value (points of
    ``max_team`` from here on) after each legal card of the player to move.

    The legal cards depend only on the mover's hand, which is the same in every deal;
    ``out_sum[card]`` accumulates (other cards stay 0).  Returns the legal mask.
    """
    vals = np.zeros(32, dtype=np.int64)
    hands = np.zeros(4, dtype=np.int64)
    for c in range(32):
        out_sum[c] = 0
    legal = 0
    for i in range(deals.shape[0]):
        for s in range(4):
            hands[s] = deals[i, s]
        legal = dd_card_values(
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
            vals,
        )
        m = legal
        while m:
            c = lowest_card(m)
            m &= m - 1
            out_sum[c] += vals[c]
    return legal


@kernel
def pimc_deals(hand, fixed, plays, n_plays, first_leader, strain, rules, seed, deals, trick):
    """Deal the cards the player to move has not seen, ``deals.shape[0]`` times.

    ``hand``: his cards; ``fixed`` (4,): cards known to be in other hands (e.g. from
    declarations; the mover's entry is ignored); ``plays``/``n_plays``: every card of
    the deal played so far, in order, the first trick led by ``first_leader``.  The
    deals (rows of ``deals`` (n, 4)) are uniform among those consistent with the hand
    sizes, ``fixed`` and the voids shown in play (``infer_forbidden``; if those
    contradict ``fixed`` they are dropped).  ``trick`` (4,) receives the cards of the
    trick in progress.  Returns ``(ok, leader, n_trick)``: ok is False when no deal
    fits the hand sizes.
    """
    forbidden = np.zeros(4, dtype=np.int64)
    leader, n_trick = infer_forbidden(plays, n_plays, first_leader, strain, rules, forbidden)
    seat = (leader + n_trick) & 3
    played = 0
    for i in range(n_plays):
        played |= 1 << plays[i]
    for i in range(n_trick):
        trick[i] = plays[n_plays - n_trick + i]
    fx = np.zeros(4, dtype=np.int64)
    known = hand
    for s in range(4):
        if s != seat:
            fx[s] = fixed[s] & ~played & ~hand
            known |= fx[s]
    fx[seat] = hand
    unseen = 0xFFFFFFFF & ~played & ~known
    my_count = popcount(hand)
    need = np.zeros(4, dtype=np.int64)
    allowed = np.zeros(4, dtype=np.int64)
    for s in range(4):
        if s == seat:
            continue
        size = my_count - (1 if ((s - leader) & 3) < n_trick else 0)
        need[s] = size - popcount(fx[s])
        if need[s] < 0:
            return False, leader, n_trick
        allowed[s] = unseen & ~forbidden[s]
    n_samples = deals.shape[0]
    total = sample_deals(fx, unseen, need, allowed, n_samples, seed, deals)
    if total <= 0:
        for s in range(4):
            if s != seat:
                allowed[s] = unseen
        total = sample_deals(fx, unseen, need, allowed, n_samples, seed, deals)
        if total <= 0:
            return False, leader, n_trick
    return True, leader, n_trick


@kernel
def pimc_scores(
    hand,
    fixed,
    plays,
    n_plays,
    first_leader,
    strain,
    rules,
    n_samples,
    seed,
    tt,
    ws,
    moves,
    out_sum,
):
    """Perfect-information Monte Carlo for the player to move: ``n_samples`` deals of
    ``pimc_deals`` (same arguments), each solved exactly for every legal card;
    ``out_sum[card]`` receives the sum over the deals of the points the mover's team
    wins from here on after that card.  Returns ``(legal, n_deals)``: the legal mask
    and the number of deals used (0 if no deal fits the hand sizes).
    """
    deals = np.zeros((n_samples, 4), dtype=np.int64)
    trick = np.zeros(4, dtype=np.int64)
    ok, leader, n_trick = pimc_deals(
        hand, fixed, plays, n_plays, first_leader, strain, rules, seed, deals,
        trick,
    )  # fmt: skip
    if not ok:
        return 0, 0
    seat = (leader + n_trick) & 3
    legal = pimc_values(
        deals,
        leader,
        trick,
        n_trick,
        strain,
        seat & 1,
        rules,
        tt,
        ws,
        moves,
        out_sum,
    )
    return legal, n_samples


@kernel
def pimc_best_card(
    hand,
    fixed,
    plays,
    n_plays,
    first_leader,
    strain,
    rules,
    n_samples,
    seed,
    tt,
    ws,
    moves,
):
    """The PIMC card (best average over ``n_samples`` consistent deals, ties to the
    lowest card index) for the player to move; -1 if no consistent deal exists."""
    sums = np.zeros(32, dtype=np.int64)
    legal, n = pimc_scores(
        hand,
        fixed,
        plays,
        n_plays,
        first_leader,
        strain,
        rules,
        n_samples,
        seed,
        tt,
        ws,
        moves,
        sums,
    )
    if n == 0:
        return -1
    best = -1
    m = legal
    while m:
        c = lowest_card(m)
        m &= m - 1
        if best < 0 or sums[c] > sums[best]:
            best = c
    return best


__all__ = [
    "infer_forbidden",
    "infer_forbidden_from",
    "pimc_best_card",
    "pimc_deals",
    "pimc_scores",
    "pimc_values",
    "sample_deals",
]
