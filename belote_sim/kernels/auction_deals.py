"""Deals consistent with an auction so far, and the auction continued after each call.

``auction_answers`` is the kernel half of ``belote_sim.auction_answer``: given each
candidate deal's bidding cards (dealt by the engine's own dealing, our seat's five
cards predealt), it replays the calls heard so far (``prefix``) through the bidding
policies of the model -- the calls of our seat forced to those given, every other
seat asked through the switchboard (``bid_call``) -- and rejects the deal at the first
call that differs from the one heard.  An accepted deal is then bid again once for
every candidate call of our seat (``ours``): the prefix, our call forced, and from
there every seat (ours included) calling as the model does, until the auction ends
(section 4.1: ``auction.open_auction``'s own rules of the end, replayed with
``auction.after_call``).  Each continuation's contract is written per deal and call,
so the calls are compared on the same deals (paired).

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

#: ``forced_auction``'s ``n_calls`` when a seat of the model called otherwise than the
#: auction heard (the deal is not consistent with it), and when a policy gave no call.
REJECTED = -2
FAILED = -1
#: ``contracts[i, k]`` fields: the final strain (-1: thrown in), the taker, the doubling
#: level, the number of calls of the whole auction.
K_STRAIN, K_TAKER, K_DOUBLING, K_CALLS = range(4)
NUM_CONTRACT_FIELDS = 4


@lean_kernel(inline="always")
def strain_of_call(call):
    """The strain (0..5) of a bid's call code, -1 for a pass or a double."""
    bid = -1
    for strain in range(STRAIN_CALLS.shape[0]):
        if call == STRAIN_CALLS[strain]:
            bid = strain
    return bid


@lean_kernel
def forced_auction(bid_cards, dealer, rules, policies, atlas, given, n_given, seat0, stop, out):
    """One auction of section 4.1 in which the first ``n_given`` calls are ``given``:
    ``seat0``'s among them forced, every other seat's asked and compared (a different
    call: ``REJECTED``).  With ``stop`` it ends after the given calls; otherwise the
    model's policies call on until the auction ends.  Writes the calls to ``out``
    (MAX_CALLS,) and returns ``(strain, taker, doubling, n_calls)`` (strain -1 when
    thrown in or stopped; ``n_calls`` ``REJECTED`` or ``FAILED`` as above)."""
    bid_ids, bid_params, menu = policies
    max_level = 3 if rules[R_THIRD_DOUBLE] else 2
    current = -1
    bidder = -1
    level = 0
    passes = 0
    n_calls = 0
    heard = 0
    seat = (dealer + 1) & 3
    while n_calls < MAX_CALLS:
        if stop and n_calls == n_given:
            return -1, -1, 0, n_calls
        if n_calls < n_given and seat == seat0:
            call = given[n_calls]
            bid = strain_of_call(call)
        else:
            must_bid = rules[R_DEALER_MUST_TAKE] != 0 and current < 0 and n_calls == 3
            turn = BidTurn(
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
            call, bid = bid_call(menu, bid_ids[seat], bid_params[seat], turn, rules, atlas)
            if call == CALL_NONE:
                return -1, -1, 0, FAILED
            if n_calls < n_given and call != given[n_calls]:
                return -1, -1, 0, REJECTED
        out[n_calls] = call
        n_calls += 1
        current, bidder, level, heard = after_call(call, bid, seat, current, bidder, level, heard)
        if call == CALL_PASS:
            passes += 1
            if (current < 0 and passes == 4) or (current >= 0 and passes == 3):
                break
        else:
            passes = 0
            if (
                bid < 0
                and current == STRAIN_AT
                and (level == max_level or (level == 1 and rules[R_AT_DOUBLE_ENDS_AUCTION]))
            ):
                break
        seat = (seat + 1) & 3
    if current < 0:
        return -1, -1, 0, n_calls
    return current, bidder, level, n_calls


@kernel(parallel=True)
def auction_answers(
    bid_cards, dealers, seat0, prefix, ours, rules, policies, atlas, accepted, contracts, calls,
    keep_calls,
):  # fmt: skip
    """For each candidate deal ``i`` (``bid_cards`` (n, 4) masks, ``dealers`` (n,)):
    ``accepted[i]`` 1 when the model's seats other than ``seat0`` make the calls of
    ``prefix`` (uint8 call codes), else 0; for an accepted deal and each call ``ours[k]``
    of ``seat0``, ``contracts[i, k]`` (``K_*`` fields) of the auction continued by the
    model after it, and with ``keep_calls`` its calls in ``calls[i, k]`` (else ``calls``
    may be (1, 1, MAX_CALLS)).  ``policies = (bid_ids (4,), bid_params (4, k), menu)``;
    ``atlas``: the bidding tables (``Study.atlas_arrays``).  Returns the number of deals
    in which a policy gave no call (their rows are left unaccepted)."""
    n = bid_cards.shape[0]
    n_ours = ours.shape[0]
    n_prefix = prefix.shape[0]
    n_blocks = min(n, 256)
    failed = np.zeros(max(n_blocks, 1), dtype=np.int64)
    for b in prange(n_blocks):
        given = np.zeros(n_prefix + 1, dtype=np.uint8)
        for t in range(n_prefix):
            given[t] = prefix[t]
        out = np.zeros(MAX_CALLS, dtype=np.uint8)
        start = b * n // n_blocks
        stop = (b + 1) * n // n_blocks
        for i in range(start, stop):
            accepted[i] = 0
            for k in range(n_ours):
                contracts[i, k, K_STRAIN] = -1
                contracts[i, k, K_TAKER] = -1
                contracts[i, k, K_DOUBLING] = 0
                contracts[i, k, K_CALLS] = 0
            _, _, _, n_calls = forced_auction(
                bid_cards[i], dealers[i], rules, policies, atlas, given, n_prefix, seat0, True,
                out,
            )  # fmt: skip
            if n_calls == FAILED:
                failed[b] += 1
                continue
            if n_calls == REJECTED:
                continue
            bad = False
            for k in range(n_ours):
                given[n_prefix] = ours[k]
                strain, taker, doubling, n_calls = forced_auction(
                    bid_cards[i], dealers[i], rules, policies, atlas, given, n_prefix + 1,
                    seat0, False, out,
                )  # fmt: skip
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
    "NUM_CONTRACT_FIELDS",
    "REJECTED",
    "auction_answers",
    "forced_auction",
    "strain_of_call",
]
