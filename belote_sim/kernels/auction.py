"""The bidding of a deal (docs/rules.md section 4): who takes which contract.

``run_auction`` runs the bidding the rules name -- the auction of 4.1, the french two
rounds of 4.2 or take-or-pass of 4.3 (the games where every player is alone) -- and
asks each seat's bidding policy for its call through the switchboard
(``switchboard.bid_call``).  The calls are written one character per call
(``bidding.CALL_*``).  A ``CALL_FIXED`` (the ``fixed`` policy) ends the bidding at
once with the contract of the calling policy's parameters ``[seat, strain,
doubling]``.  A policy that gives no call (an id with no policy) stops the bidding:
``n_calls`` comes back -1.
"""

import numpy as np

from belote_sim.kernels._jit import lean_kernel
from belote_sim.kernels.bidding import (
    CALL_FIXED,
    CALL_NONE,
    CALL_PASS,
    FIXED_DOUBLING,
    FIXED_SEAT,
    MAX_CALLS,
    STRAIN_CALLS,
    packed_score,
)
from belote_sim.kernels.records import (
    BID_AUCTION,
    BID_FRENCH_ROUND1,
    BID_FRENCH_ROUND2,
    BID_TAKE_OR_PASS,
    HEARD_BITS,
    BidTurn,
)
from belote_sim.kernels.suit_symmetry import random_suit_perm
from belote_sim.kernels.switchboard import bid_call
from belote_sim.kernels.tables import (
    BIDDING_TAKE_OR_PASS,
    BIDDING_TWO_ROUND,
    R_AT_DOUBLE_ENDS_AUCTION,
    R_BIDDING,
    R_DEALER_MUST_TAKE,
    R_PLAYERS,
    R_THIRD_DOUBLE,
    STRAIN_AT,
)

#: ``n_calls`` of a bidding stopped by a policy that gave no call.
FAILED = -1


@lean_kernel(inline="always")
def run_auction(bid_cards, dealer, turned, rules, policies, out_calls, atlas, state):
    """The bidding of one deal.

    ``bid_cards`` (P,): the cards each seat sees while bidding (masks); ``turned``:
    the french turned card (-1 otherwise); ``policies = (bid_ids (4,), bid_params
    (4, k), menu)`` (``switchboard.policy_menu``); ``atlas``: the ``atlas`` policy's
    lookup arrays (tiny ones when no seat uses it).  Writes the calls to
    ``out_calls`` (uint8, MAX_CALLS, zeros after the last) and returns ``(strain,
    taker, doubling, n_calls)``, strain -1 when the deal is thrown in.  ``state``: the
    deal's generator (the french rounds draw their random suit order from it,
    ``BidTurn.suit_order``).
    """
    for k in range(MAX_CALLS):
        out_calls[k] = 0
    bidding = rules[R_BIDDING]
    if bidding == BIDDING_TWO_ROUND:
        order = random_suit_perm(state)
        return french_rounds(bid_cards, dealer, turned, rules, policies, out_calls, atlas, order)
    if bidding == BIDDING_TAKE_OR_PASS:
        return take_or_pass(bid_cards, dealer, rules, policies, out_calls, atlas)
    return open_auction(bid_cards, dealer, rules, policies, out_calls, atlas)


@lean_kernel
def fixed_contract(params, strain, n_calls):
    """The contract a ``CALL_FIXED`` names: ``(strain, seat, doubling, n_calls)``."""
    return strain, np.int64(params[FIXED_SEAT]), np.int64(params[FIXED_DOUBLING]), n_calls


@lean_kernel(inline="always")
def after_call(call, bid, seat, current, bidder, level, heard):
    """The auction's state ``(current, bidder, level, heard)`` after ``seat``'s call
    (``bid``: the strain of a bid, else -1): a bid holds the contract at level 0 and is
    heard (``BidTurn.heard``); a double, redouble or third double raises the level; a
    pass changes nothing."""
    if bid >= 0:
        return bid, seat, 0, heard | (np.int64(1) << (HEARD_BITS * seat + bid))
    if call != CALL_PASS:
        return current, bidder, level + 1, heard
    return current, bidder, level, heard


@lean_kernel
def open_auction(bid_cards, dealer, rules, policies, out_calls, atlas):
    """The auction of section 4.1 (``run_auction``'s arguments and result)."""
    bid_ids, bid_params, menu = policies
    # Every seat's six strain scores, packed: no array, no allocation.
    packed0 = packed_score(bid_cards[0])
    packed1 = packed_score(bid_cards[1])
    packed2 = packed_score(bid_cards[2])
    packed3 = packed_score(bid_cards[3])
    max_level = 3 if rules[R_THIRD_DOUBLE] else 2
    current = -1
    bidder = -1
    level = 0
    passes = 0
    n_calls = 0
    heard = 0
    seat = (dealer + 1) & 3
    while n_calls < MAX_CALLS:
        packed = (
            packed0 if seat == 0 else packed1 if seat == 1 else packed2 if seat == 2 else packed3
        )
        must_bid = rules[R_DEALER_MUST_TAKE] != 0 and current < 0 and n_calls == 3
        turn = BidTurn(
            BID_AUCTION,
            seat,
            dealer,
            4,
            bid_cards[seat],
            packed,
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
        out_calls[n_calls] = call
        n_calls += 1
        if call == CALL_FIXED:
            return fixed_contract(bid_params[seat], bid, n_calls)
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


@lean_kernel
def auction_turn_at(bid_cards, dealer, rules, calls, t):
    """The ``BidTurn`` of call ``t`` (0-based) of an auction of section 4.1 whose calls
    are ``calls`` (``open_auction``'s ``out_calls``), replayed with the auction's own
    ``after_call``: who holds which strain at which level, the strains heard, and the
    caller's cards -- what ``open_auction`` showed the seat that made call ``t``."""
    current = -1
    bidder = -1
    level = 0
    heard = 0
    seat = (dealer + 1) & 3
    for k in range(t):
        call = calls[k]
        bid = -1
        for strain in range(STRAIN_CALLS.shape[0]):
            if call == STRAIN_CALLS[strain]:
                bid = strain
        current, bidder, level, heard = after_call(call, bid, seat, current, bidder, level, heard)
        seat = (seat + 1) & 3
    must_bid = rules[R_DEALER_MUST_TAKE] != 0 and current < 0 and t == 3
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
        t,
        must_bid,
        -1,
        0,
        heard,
    )


@lean_kernel
def french_rounds(bid_cards, dealer, turned, rules, policies, out_calls, atlas, suit_order):
    """The french two rounds of section 4.2: in round one a seat takes the turned suit
    or passes, in round two it names another strain or passes; the first to take
    ends the bidding (``run_auction``'s arguments and result; never doubled); the
    second round's suits are visited in ``suit_order`` (``BidTurn.suit_order``)."""
    bid_ids, bid_params, menu = policies
    n_calls = 0
    for kind in (BID_FRENCH_ROUND1, BID_FRENCH_ROUND2):
        for i in range(4):
            seat = (dealer + 1 + i) & 3
            turn = BidTurn(
                kind,
                seat,
                dealer,
                4,
                bid_cards[seat],
                0,
                -1,
                -1,
                0,
                n_calls,
                False,
                turned,
                suit_order,
                0,
            )
            call, bid = bid_call(menu, bid_ids[seat], bid_params[seat], turn, rules, atlas)
            if call == CALL_NONE:
                return -1, -1, 0, FAILED
            out_calls[n_calls] = call
            n_calls += 1
            if call == CALL_FIXED:
                return fixed_contract(bid_params[seat], bid, n_calls)
            if bid >= 0:
                return bid, seat, 0, n_calls
    return -1, -1, 0, n_calls


@lean_kernel
def take_or_pass(bid_cards, dealer, rules, policies, out_calls, atlas):
    """Take-or-pass of section 4.3 (every player alone): from dealer + 1 each player
    passes or names a strain higher than the current one; the bidding ends when every
    other player has passed after a bid, or when all pass (``run_auction``'s
    arguments and result; never doubled)."""
    bid_ids, bid_params, menu = policies
    n_players = rules[R_PLAYERS]
    current = -1
    bidder = -1
    passes = 0
    n_calls = 0
    heard = 0
    seat = (dealer + 1) % n_players
    while n_calls < MAX_CALLS:
        turn = BidTurn(
            BID_TAKE_OR_PASS,
            seat,
            dealer,
            n_players,
            bid_cards[seat],
            packed_score(bid_cards[seat]),
            current,
            bidder,
            0,
            n_calls,
            False,
            -1,
            0,
            heard,
        )
        call, bid = bid_call(menu, bid_ids[seat], bid_params[seat], turn, rules, atlas)
        if call == CALL_NONE:
            return -1, -1, 0, FAILED
        out_calls[n_calls] = call
        n_calls += 1
        if call == CALL_FIXED:
            return fixed_contract(bid_params[seat], bid, n_calls)
        if bid >= 0:
            current = bid
            bidder = seat
            passes = 0
            heard |= np.int64(1) << (HEARD_BITS * seat + bid)
        else:
            passes += 1
        if (current < 0 and passes == n_players) or (current >= 0 and passes == n_players - 1):
            break
        seat = (seat + 1) % n_players
    if current < 0:
        return -1, -1, 0, n_calls
    return current, bidder, 0, n_calls


__all__ = [
    "FAILED",
    "after_call",
    "auction_turn_at",
    "fixed_contract",
    "french_rounds",
    "open_auction",
    "run_auction",
    "take_or_pass",
]
