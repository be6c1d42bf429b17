"""Deals consistent with an auction so far, and the auction continued after each call.

``auction_answers`` is the kernel half of ``belote_sim.auction_answer``: given each
candidate deal's bidding cards (dealt by the engine's own dealing, our seat's five
cards predealt), it checks the calls heard so far (``prefix``) against the bidding
policies of the model at the other seats, asked through the switchboard
(``bid_call``), and rejects the deal at the first call that differs from the one
heard.  Under the hypothesis that the deal is consistent, the state of the auction
before each call of the prefix (who holds which strain, the level, the strains heard)
is the prefix's own, whatever the cards: ``prefix_states`` computes it once, and the
calls can be checked in any order (``order``: the rarest first rejects soonest) -- a
deal is kept when every one matches, so the order changes only the speed.

A kept deal is then bid on once for every candidate call of our seat (``ours``): from
the prefix's end state, our call forced, then every seat (ours included) calling as
the model does until the auction ends (section 4.1: ``auction.open_auction``'s rules
of the end, the state kept by ``auction.after_call``).  Each continuation's contract is
written per deal and call, so the calls are compared on the same deals (paired).

Only the auction of section 4.1 (4 players); a deal is a pure function of its row, so
the result does not depend on the thread count.
"""

import numpy as np
from numba import prange

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.auction import after_call
from belote_sim.kernels.bidding import (
    CALL_NONE,
    CALL_PASS,
    MAX_CALLS,
    STRAIN_CALLS,
    packed_score,
)
from belote_sim.kernels.records import BID_AUCTION, BidTurn
from belote_sim.kernels.switchboard import bid_call
from belote_sim.kernels.tables import (
    R_AT_DOUBLE_ENDS_AUCTION,
    R_DEALER_MUST_TAKE,
    R_THIRD_DOUBLE,
    STRAIN_AT,
)

#: ``continue_auction``'s ``n_calls`` when a policy gave no call.
FAILED = -1
#: ``contracts[i, k]`` fields: the final strain (-1: thrown in), the taker, the doubling
#: level, the number of calls of the whole auction.
K_STRAIN, K_TAKER, K_DOUBLING, K_CALLS = range(4)
NUM_CONTRACT_FIELDS = 4
#: ``prefix_states`` columns: the state of the auction before call t (its seat, the
#: strain held, its bidder, the doubling level, the strains heard, the passes in a row,
#: whether the dealer must bid), and after the last call (row ``len(prefix)``).
P_SEAT, P_CURRENT, P_BIDDER, P_LEVEL, P_HEARD, P_PASSES, P_MUST_BID = range(7)
NUM_STATE_FIELDS = 7
#: The multiplier of ``prefix_heard``'s memo slots (Knuth's multiplicative hash).
MEMO_HASH = 2654435761
#: log2 of the memo's slots per checked call (``prefix_heard``): 1 MiB each.
MEMO_BITS = 17


@lean_kernel(inline="always")
def strain_of_call(call):
    """The strain (0..5) of a bid's call code, -1 for a pass or a double."""
    bid = -1
    for strain in range(STRAIN_CALLS.shape[0]):
        if call == STRAIN_CALLS[strain]:
            bid = strain
    return bid


@lean_kernel(inline="always")
def auction_ends(call, bid, current, level, passes, rules):
    """Whether the auction of section 4.1 ends with this call (``after_call``'s state
    after it, ``passes`` in a row counted): four passes, three passes after a bid, or a
    double of all trumps at the last level (or at once with ``at_double_ends_auction``)."""
    if call == CALL_PASS:
        return (current < 0 and passes == 4) or (current >= 0 and passes == 3)
    max_level = 3 if rules[R_THIRD_DOUBLE] else 2
    return (
        bid < 0
        and current == STRAIN_AT
        and (level == max_level or (level == 1 and rules[R_AT_DOUBLE_ENDS_AUCTION] != 0))
    )


@lean_kernel
def prefix_states(prefix, dealer, rules, states):
    """The state of the auction before each call of ``prefix`` and after the last
    (``states`` (len(prefix) + 1, NUM_STATE_FIELDS), columns ``P_*``)."""
    current = -1
    bidder = -1
    level = 0
    heard = 0
    passes = 0
    seat = (dealer + 1) & 3
    for t in range(prefix.shape[0] + 1):
        states[t, P_SEAT] = seat
        states[t, P_CURRENT] = current
        states[t, P_BIDDER] = bidder
        states[t, P_LEVEL] = level
        states[t, P_HEARD] = heard
        states[t, P_PASSES] = passes
        states[t, P_MUST_BID] = (
            1 if rules[R_DEALER_MUST_TAKE] != 0 and current < 0 and t == 3 else 0
        )
        if t == prefix.shape[0]:
            break
        call = prefix[t]
        bid = strain_of_call(call)
        current, bidder, level, heard = after_call(call, bid, seat, current, bidder, level, heard)
        passes = passes + 1 if call == CALL_PASS else 0
        seat = (seat + 1) & 3


@lean_kernel(inline="always")
def turn_of(bid_cards, dealer, seat, current, bidder, level, n_calls, must_bid, heard):
    """The ``BidTurn`` of ``seat`` in the auction of section 4.1 (as ``open_auction``)."""
    return BidTurn(
        BID_AUCTION,
        seat,
        dealer,
        4,
        bid_cards[seat],
        packed_score(bid_cards[seat]),
        current,
        bidder,
        level,
        n_calls,
        must_bid,
        -1,
        0,
        heard,
    )


@lean_kernel
def continue_auction(bid_cards, dealer, rules, policies, atlas, states, n_prefix, first, out):
    """The auction from the end of a prefix (``states[n_prefix]``, ``prefix_states``):
    the call ``first`` forced (the seat to speak's), then every seat's policy asked until
    the auction ends.  Writes the calls from ``out[n_prefix]`` on and returns ``(strain,
    taker, doubling, n_calls)`` (strain -1 when thrown in; ``n_calls`` ``FAILED`` when a
    policy gave no call)."""
    bid_ids, bid_params, menu = policies
    seat = states[n_prefix, P_SEAT]
    current = states[n_prefix, P_CURRENT]
    bidder = states[n_prefix, P_BIDDER]
    level = states[n_prefix, P_LEVEL]
    heard = states[n_prefix, P_HEARD]
    passes = states[n_prefix, P_PASSES]
    n_calls = n_prefix
    while n_calls < MAX_CALLS:
        if n_calls == n_prefix:
            call = first
            bid = strain_of_call(call)
        else:
            must_bid = rules[R_DEALER_MUST_TAKE] != 0 and current < 0 and n_calls == 3
            turn = turn_of(
                bid_cards, dealer, seat, current, bidder, level, n_calls, must_bid, heard
            )
            call, bid = bid_call(menu, bid_ids[seat], bid_params[seat], turn, rules, atlas)
            if call == CALL_NONE:
                return -1, -1, 0, FAILED
        out[n_calls] = call
        n_calls += 1
        current, bidder, level, heard = after_call(call, bid, seat, current, bidder, level, heard)
        passes = passes + 1 if call == CALL_PASS else 0
        if auction_ends(call, bid, current, level, passes, rules):
            break
        seat = (seat + 1) & 3
    if current < 0:
        return -1, -1, 0, n_calls
    return current, bidder, level, n_calls


@lean_kernel
def prefix_heard(bid_cards, dealer, rules, policies, atlas, prefix, states, order, memo):
    """Whether the model's seats make the calls of ``prefix`` with these cards: the calls
    at the indices ``order`` (the other seats'), each asked in the prefix's state before
    it, in that order; 1 when all match, 0 at the first that differs, ``FAILED`` when a
    policy gave no call.

    ``memo`` (len(order), 2**k) int64, zeros at first, shared by every deal and thread:
    the call ``order[j]``'s seat made with some five cards, as ``cards << 8 | call`` in
    slot ``hash(cards)`` of row ``j`` (the state before that call is the prefix's, so
    the call depends on the five cards alone; bidding policies are deterministic).  A
    slot is read only when it holds the same cards; threads that write one slot at once
    each write a true entry (one aligned 8-byte store), so the result never depends on
    who wrote it."""
    bid_ids, bid_params, menu = policies
    slots = memo.shape[1]
    for j in range(order.shape[0]):
        t = order[j]
        seat = states[t, P_SEAT]
        cards = bid_cards[seat]
        slot = ((cards * MEMO_HASH) >> 20) & (slots - 1)
        entry = memo[j, slot]
        if entry != 0 and (entry >> 8) == cards:
            call = entry & 0xFF
        else:
            turn = turn_of(
                bid_cards, dealer, seat, states[t, P_CURRENT], states[t, P_BIDDER],
                states[t, P_LEVEL], t, states[t, P_MUST_BID] != 0, states[t, P_HEARD],
            )  # fmt: skip
            code, _ = bid_call(menu, bid_ids[seat], bid_params[seat], turn, rules, atlas)
            if code == CALL_NONE:
                return FAILED
            call = np.int64(code)
            memo[j, slot] = (cards << 8) | call
        if call != prefix[t]:
            return 0
    return 1


@kernel(parallel=True)
def auction_answers(
    bid_cards, dealer, prefix, order, ours, rules, policies, atlas, memo, accepted, contracts,
    calls, keep_calls,
):  # fmt: skip
    """For each candidate deal ``i`` (``bid_cards`` (n, 4) masks; every deal has the same
    ``dealer``): ``accepted[i]`` 1 when the model's seats make the calls of ``prefix``
    (uint8 call codes) at the indices ``order`` (the other seats' calls; any order),
    else 0; for a kept deal and each call ``ours[k]`` of the seat to speak,
    ``contracts[i, k]`` (``K_*`` fields) of the auction continued by the model after it,
    and with ``keep_calls`` the whole auction in ``calls[i, k]`` (else ``calls`` may be
    (1, 1, MAX_CALLS)).  ``policies = (bid_ids (4,), bid_params (4, k), menu)``;
    ``atlas``: the bidding tables (``Study.atlas_arrays``); ``memo``: the calls made so
    far with each hand (``prefix_heard``: (max(len(order), 1), 2**MEMO_BITS) int64, zeros
    at first; keep it for the next candidates of the same question, never for another).
    Returns the number of deals in which a policy gave no call (left unaccepted)."""
    n = bid_cards.shape[0]
    n_ours = ours.shape[0]
    n_prefix = prefix.shape[0]
    states = np.zeros((n_prefix + 1, NUM_STATE_FIELDS), dtype=np.int64)
    prefix_states(prefix, dealer, rules, states)
    n_blocks = min(n, 256)
    failed = np.zeros(max(n_blocks, 1), dtype=np.int64)
    for b in prange(n_blocks):
        out = np.zeros(MAX_CALLS, dtype=np.uint8)
        for t in range(n_prefix):
            out[t] = prefix[t]
        start = b * n // n_blocks
        stop = (b + 1) * n // n_blocks
        for i in range(start, stop):
            accepted[i] = 0
            for k in range(n_ours):
                contracts[i, k, K_STRAIN] = -1
                contracts[i, k, K_TAKER] = -1
                contracts[i, k, K_DOUBLING] = 0
                contracts[i, k, K_CALLS] = 0
            heard = prefix_heard(
                bid_cards[i], dealer, rules, policies, atlas, prefix, states, order, memo
            )
            if heard == FAILED:
                failed[b] += 1
                continue
            if heard == 0:
                continue
            bad = False
            for k in range(n_ours):
                strain, taker, doubling, n_calls = continue_auction(
                    bid_cards[i], dealer, rules, policies, atlas, states, n_prefix, ours[k], out
                )
                if n_calls < 0:
                    bad = True
                    break
                contracts[i, k, K_STRAIN] = strain
                contracts[i, k, K_TAKER] = taker
                contracts[i, k, K_DOUBLING] = doubling
                contracts[i, k, K_CALLS] = n_calls
                if keep_calls:
                    for t in range(MAX_CALLS):
                        calls[i, k, t] = out[t] if t < n_calls else 0
            if bad:
                failed[b] += 1
                continue
            accepted[i] = 1
    return failed.sum()


__all__ = [
    "FAILED",
    "K_CALLS",
    "K_DOUBLING",
    "K_STRAIN",
    "K_TAKER",
    "MEMO_BITS",
    "MEMO_HASH",
    "NUM_CONTRACT_FIELDS",
    "NUM_STATE_FIELDS",
    "auction_answers",
    "auction_ends",
    "continue_auction",
    "prefix_heard",
    "prefix_states",
    "strain_of_call",
    "turn_of",
]
