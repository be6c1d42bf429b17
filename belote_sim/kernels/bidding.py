"""Bidding policies (docs/rules.md section 4): the auction, the french two rounds, fixed contracts.

Strain scores from the five cards seen during bidding (``cards`` is a mask; the
french turned card is added for its bidding):

- suit X: trump points of the cards of X (J 20, 9 14, A 11, T 10, K 4, Q 3)
  + 10 per card of X + 8 per ace of another suit;
- NT: plain points of all cards (A 11, T 10, K 4, Q 3, J 2) + 5 per ace;
- AT: trump points of all cards + 5 per jack.

``threshold`` (parameters ``[suit, nt, at, double, redouble]``): on its turn a seat
doubles the opponents' undoubled contract when its own score in that strain
reaches ``double``; redoubles its team's doubled contract when its score reaches
``redouble``; otherwise, unless its partner holds the contract, bids the strain
above the current one whose score exceeds its threshold by most; otherwise
passes.  With ``third_double`` it re-doubles a redoubled opponent contract at
``redouble + 20``; with ``dealer_must_take`` a dealer after three passes bids its
best strain whatever the thresholds.

``take`` (french, parameters ``[round1, round2, nt, at]``): in round one a seat
takes the turned card when its score in the turned suit (turned card included)
reaches ``round1``; in round two it names the other suit with the best margin over
``round2`` (and NT / AT over their thresholds when ``french_allow_nt_at``).

Take-or-pass (section 4.3, the games where every player is alone) uses the
``threshold`` parameters ``[suit, nt, at, ...]`` without doubling: on its turn a
player bids the strain above the current one whose score exceeds its threshold by
most, or passes.

``fixed`` (parameters ``[seat, strain, doubling]``): no auction; the seat takes the
strain (0..5 = C D H S NT AT) at that doubling level.

``atlas`` (no parameters; the hand atlas comes in as ``atlas = (keys, values)``, see
``atlas_row``): a seat looks up its own five cards, at its position, for every strain:
the expected net MP of the taker's team (x1, x2, x4) and P(made).  On its turn it
doubles the opponents' undoubled contract when its own hand would make that strain
in expectation (its net MP x1 > 0: it holds their trumps); redoubles its team's
doubled contract when its own entry says x4 pays more than x2; otherwise, unless its
partner holds the contract, bids the strain above the current one with the best
expected net MP x1 when that is positive (passing counts 0); otherwise passes.
French two rounds: takes the turned suit when its net MP there is positive, else
names the other strain with the best positive net MP.

The auction is written as one character per call: ``p`` pass, ``C D H S N A`` a bid
(N = NT, A = AT), ``x`` double, ``r`` redouble, ``t`` third double; ``f`` marks a
fixed contract.
"""

import numpy as np

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.bits import lowest_card
from belote_sim.kernels.records import (
    BID_AUCTION,
    BID_FRENCH_ROUND1,
    BID_FRENCH_ROUND2,
    BID_TAKE_OR_PASS,
)
from belote_sim.kernels.suit_symmetry import SUIT_PERMS
from belote_sim.kernels.tables import (
    NUM_CARDS,
    NUM_STRAINS,
    PLAIN_POINTS,
    R_FRENCH_ALLOW_NT_AT,
    R_THIRD_DOUBLE,
    RANK_A,
    RANK_J,
    STRAIN_AT,
    STRAIN_NT,
    TRUMP_POINTS,
)

THRESHOLD_DEFAULTS = (50.0, 52.0, 75.0, 60.0, 60.0)
TAKE_DEFAULTS = (50.0, 55.0, 60.0, 80.0)
#: Parameter indices of each bidding policy (``belote_sim.policies.BID_POLICIES`` names).
THRESHOLD_SUIT, THRESHOLD_NT, THRESHOLD_AT, THRESHOLD_DOUBLE, THRESHOLD_REDOUBLE = range(5)
TAKE_ROUND1, TAKE_ROUND2, TAKE_NT, TAKE_AT = range(4)
FIXED_SEAT, FIXED_STRAIN, FIXED_DOUBLING = range(3)
#: A third double needs this many score points above the redouble threshold.
THIRD_DOUBLE_MARGIN = 20

MAX_CALLS = 40
CALL_NONE = 0  # no call: the policy failed to call (the switchboard's unknown id)
CALL_PASS = ord("p")
CALL_DOUBLE = ord("x")
CALL_REDOUBLE = ord("r")
CALL_THIRD = ord("t")
CALL_FIXED = ord("f")
STRAIN_CALLS = np.array([ord(c) for c in "CDHSNA"], dtype=np.uint8)


def _score_table():
    """SCORE[strain, card]: what a card adds to a strain's bidding score."""
    table = np.zeros((NUM_STRAINS, NUM_CARDS), dtype=np.int64)
    for strain in range(NUM_STRAINS):
        for card in range(32):
            suit, rank = card >> 3, card & 7
            if strain == STRAIN_NT:
                table[strain, card] = PLAIN_POINTS[rank] + (5 if rank == RANK_A else 0)
            elif strain == STRAIN_AT:
                table[strain, card] = TRUMP_POINTS[rank] + (5 if rank == RANK_J else 0)
            elif suit == strain:
                table[strain, card] = TRUMP_POINTS[rank] + 10
            elif rank == RANK_A:
                table[strain, card] = 8
    return table


SCORE = _score_table()
#: Bits of one strain's field in ``SCORE_PACKED`` (a whole deck scores below 2**10).
SCORE_BITS = 10
assert SCORE.sum(axis=1).max() < 1 << SCORE_BITS
#: SCORE_PACKED[card]: the card's six strain scores in one int (strain s in bits
#: 10s..10s+9): the sum over a hand is its six strain scores at once, without carries.
SCORE_PACKED = (SCORE << (SCORE_BITS * np.arange(NUM_STRAINS))[:, None]).sum(axis=0)


# --- the hand atlas: canonical hand classes and the ``atlas`` policy ----------------
#: Key padding of the atlas key rows (sorts after every real key).
ATLAS_NO_KEY = np.int64(1) << 40
#: Last axis of the atlas values: expected net MP at x1, x2, x4 and P(made).
A_NET1, A_NET2, A_NET4, A_PMADE = range(4)


@kernel(inline="always")
def _sort3(a, b, c):
    """Three values in descending order."""
    if a < b:
        a, b = b, a
    if b < c:
        b, c = c, b
    if a < b:
        a, b = b, a
    return a, b, c


@kernel
def canonical_key(hand, strain):
    """Class key of a hand for a strain under suit symmetry (int64).

    Suit strain (0..3): the trump suit's byte, then the three other suit bytes in
    descending order (the other suits are interchangeable); NT and AT (4, 5): the four
    suit bytes in descending order.  Two hands have the same key exactly when a
    permutation of the interchangeable suits maps one onto the other.  (Scalars only:
    the bidding policies look keys up at every call.)
    """
    b0 = (hand >> 0) & 0xFF
    b1 = (hand >> 8) & 0xFF
    b2 = (hand >> 16) & 0xFF
    b3 = (hand >> 24) & 0xFF
    if strain < STRAIN_NT:
        trump = b0
        if strain == 1:
            trump, b1 = b1, b0
        elif strain == 2:
            trump, b2 = b2, b0
        elif strain == 3:
            trump, b3 = b3, b0
        x, y, z = _sort3(b1, b2, b3)
        return (np.int64(trump) << 24) | (np.int64(x) << 16) | (np.int64(y) << 8) | z
    x, y, z = _sort3(b1, b2, b3)
    # insert b0 into x >= y >= z
    if b0 >= x:
        w, x, y, z = b0, x, y, z
    elif b0 >= y:
        w, x, y, z = x, b0, y, z
    elif b0 >= z:
        w, x, y, z = x, y, b0, z
    else:
        w, x, y, z = x, y, z, b0
    return (np.int64(w) << 24) | (np.int64(x) << 16) | (np.int64(y) << 8) | z


@kernel
def atlas_row(keys, hand, strain):
    """Row of a hand's class in the atlas (-1 if absent).

    ``keys`` (2, K) int64: row 0 the sorted suit-strain keys, row 1 the sorted NT/AT
    keys, padded with ``ATLAS_NO_KEY``.
    """
    row = keys[0] if strain < STRAIN_NT else keys[1]
    key = canonical_key(hand, strain)
    lo = 0
    hi = row.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if row[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < row.shape[0] and row[lo] == key:
        return lo
    return -1


@kernel
def atlas_value(atlas, hand, strain, seat, dealer, field):
    """One atlas figure (``A_*`` field) of a hand as the taker of a strain.

    ``atlas = (keys (2, K), values (3, K, 4, 4), ...)``: values by strain kind (suit,
    NT, AT), class row, taker's position (0 = first after the dealer .. 3 = dealer) and
    field (the bidding tables' other members are the ``rules`` policy's rule books).
    Returns -1e9 when the class is missing (never in a complete atlas).
    """
    keys = atlas[0]
    values = atlas[1]
    row = atlas_row(keys, hand, strain)
    if row < 0:
        return -1e9
    kind = 0 if strain < STRAIN_NT else strain - STRAIN_NT + 1
    return values[kind, row, (seat - dealer - 1) & 3, field]


@kernel
def strain_score(cards, strain):
    """Bidding score of a set of cards for one strain (module docstring formula)."""
    score = 0
    mask = cards
    while mask:
        score += SCORE[strain, lowest_card(mask)]
        mask &= mask - 1
    return score


@kernel
def packed_score(cards):
    """The six strain scores of a set of cards packed as in ``SCORE_PACKED``."""
    packed = 0
    while cards:
        packed += SCORE_PACKED[lowest_card(cards)]
        cards &= cards - 1
    return packed


@kernel(inline="always")
def packed_field(packed, strain):
    """One strain's score out of a ``packed_score``."""
    return (packed >> (SCORE_BITS * strain)) & ((1 << SCORE_BITS) - 1)


@kernel(inline="always")
def second_round_strain(suit_order, i):
    """The i-th strain a policy visits in the french second round: the suits in the
    deal's random ``suit_order`` (``BidTurn.suit_order``), then NT and AT.  A policy
    keeps the first of equally good strains, so a tie between suits falls on a random
    suit, not on the lowest index (the second round's calls are not ranked)."""
    if i < 4:
        return SUIT_PERMS[suit_order, i]
    return i


@kernel(inline="always")
def threshold_of(params, strain):
    """``threshold``'s bidding threshold of a strain (its parameters suit, nt, at)."""
    if strain == STRAIN_NT:
        return params[THRESHOLD_NT]
    if strain == STRAIN_AT:
        return params[THRESHOLD_AT]
    return params[THRESHOLD_SUIT]


@kernel(inline="always")
def best_margin_strain(scores, params, first, must_bid):
    """The strain from ``first`` up whose score (``scores`` packed) clears its
    ``threshold`` by most (-1 if none does; with ``must_bid`` the best one anyway)."""
    bid = -1
    best_margin = 0.0
    for strain in range(first, NUM_STRAINS):
        margin = packed_field(scores, strain) - threshold_of(params, strain)
        if (margin >= 0 or must_bid) and (bid < 0 or margin > best_margin):
            bid = strain
            best_margin = margin
    return bid


@kernel(inline="always")
def threshold_call(params, turn, rules, atlas):
    """The ``threshold`` policy's call (module docstring), in the auction or
    take-or-pass: ``(call, strain)``."""
    current = turn.current
    if turn.kind == BID_TAKE_OR_PASS:
        # every player alone: a strain above the current one, or pass
        if turn.seat != turn.bidder:
            bid = best_margin_strain(turn.scores, params, current + 1, False)
            if bid >= 0:
                return STRAIN_CALLS[bid], bid
        return CALL_PASS, -1
    opponents_hold = current >= 0 and (turn.bidder & 1) != (turn.seat & 1)
    level = turn.level
    if opponents_hold and level == 0:
        if packed_field(turn.scores, current) >= params[THRESHOLD_DOUBLE]:
            return CALL_DOUBLE, -1
    elif current >= 0 and not opponents_hold and level == 1:
        if packed_field(turn.scores, current) >= params[THRESHOLD_REDOUBLE]:
            return CALL_REDOUBLE, -1
    elif opponents_hold and level == 2 and rules[R_THIRD_DOUBLE]:
        if packed_field(turn.scores, current) >= params[THRESHOLD_REDOUBLE] + THIRD_DOUBLE_MARGIN:
            return CALL_THIRD, -1
    if current < 0 or opponents_hold:
        bid = best_margin_strain(turn.scores, params, current + 1, turn.must_bid)
        if bid >= 0:
            return STRAIN_CALLS[bid], bid
    return CALL_PASS, -1


@kernel
def take_call(params, turn, rules, atlas):
    """The ``take`` policy's call in the french two rounds (module docstring)."""
    turned_suit = turn.turned >> 3
    cards = turn.cards | (1 << turn.turned)
    if turn.kind == BID_FRENCH_ROUND1:
        if strain_score(cards, turned_suit) >= params[TAKE_ROUND1]:
            return STRAIN_CALLS[turned_suit], turned_suit
        return CALL_PASS, -1
    last = NUM_STRAINS if rules[R_FRENCH_ALLOW_NT_AT] else STRAIN_NT
    best = -1
    best_margin = 0.0
    for i in range(last):
        strain = second_round_strain(turn.suit_order, i)
        if strain == turned_suit:
            continue
        threshold = params[TAKE_ROUND2]
        if strain == STRAIN_NT:
            threshold = params[TAKE_NT]
        elif strain == STRAIN_AT:
            threshold = params[TAKE_AT]
        margin = strain_score(cards, strain) - threshold
        if margin >= 0 and (best < 0 or margin > best_margin):
            best = strain
            best_margin = margin
    if best >= 0:
        return STRAIN_CALLS[best], best
    return CALL_PASS, -1


@kernel
def atlas_best_strain(atlas, turn):
    """``(best, value)``: the strain above the current one with the best atlas net MP x1
    for the bidder (the first of equal ones; -1 when AT is held) and that value."""
    best = -1
    best_value = 0.0
    for strain in range(turn.current + 1, NUM_STRAINS):
        value = atlas_value(atlas, turn.cards, strain, turn.seat, turn.dealer, A_NET1)
        if best < 0 or value > best_value:
            best = strain
            best_value = value
    return best, best_value


@kernel
def atlas_auction_call(atlas, turn, best, best_value, held_value):
    """The ``atlas`` policy's call in the auction, given its ``atlas_best_strain`` and
    the atlas net MP x1 of the strain held (``held_value``; unused when none is held):
    double the opponents' undoubled contract when ``held_value > 0``; redouble the
    team's doubled contract when x4 pays more than x2 by its own entry; else, unless the
    team holds the contract, bid ``best`` when its value is positive (or the dealer
    must take); else pass."""
    current = turn.current
    seat = turn.seat
    opponents_hold = current >= 0 and (turn.bidder & 1) != (seat & 1)
    level = turn.level
    if opponents_hold and level == 0 and held_value > 0:
        return CALL_DOUBLE, -1
    if (
        current >= 0
        and not opponents_hold
        and level == 1
        and atlas_value(atlas, turn.cards, current, seat, turn.dealer, A_NET4)
        > atlas_value(atlas, turn.cards, current, seat, turn.dealer, A_NET2)
    ):
        return CALL_REDOUBLE, -1
    if (current < 0 or opponents_hold) and best >= 0 and (best_value > 0 or turn.must_bid):
        return STRAIN_CALLS[best], best
    return CALL_PASS, -1


@kernel
def atlas_bid_call(params, turn, rules, atlas):
    """The ``atlas`` policy's call (module docstring): in the auction from the
    expected net MP of its own five cards (``atlas_auction_call``); in the french
    rounds the turned suit when its net MP there is positive, else the other strain
    with the best positive one."""
    hand = turn.cards
    seat = turn.seat
    dealer = turn.dealer
    if turn.kind == BID_AUCTION:
        best, best_value = atlas_best_strain(atlas, turn)
        held_value = 0.0
        if turn.current >= 0 and turn.level == 0 and (turn.bidder & 1) != (seat & 1):
            held_value = atlas_value(atlas, hand, turn.current, seat, dealer, A_NET1)
        return atlas_auction_call(atlas, turn, best, best_value, held_value)
    turned_suit = turn.turned >> 3
    if turn.kind == BID_FRENCH_ROUND1:
        if atlas_value(atlas, hand, turned_suit, seat, dealer, A_NET1) > 0:
            return STRAIN_CALLS[turned_suit], turned_suit
        return CALL_PASS, -1
    if turn.kind == BID_FRENCH_ROUND2:
        last = NUM_STRAINS if rules[R_FRENCH_ALLOW_NT_AT] else STRAIN_NT
        best = -1
        best_value = 0.0
        for i in range(last):
            strain = second_round_strain(turn.suit_order, i)
            if strain == turned_suit:
                continue
            value = atlas_value(atlas, hand, strain, seat, dealer, A_NET1)
            if value > 0 and (best < 0 or value > best_value):
                best = strain
                best_value = value
        if best >= 0:
            return STRAIN_CALLS[best], best
    return CALL_PASS, -1


@kernel(inline="always")
def fixed_call(params, turn, rules, atlas):
    """The ``fixed`` policy: no auction; ``CALL_FIXED`` with its strain ends the
    bidding with the contract ``[seat, strain, doubling]`` of its parameters."""
    return CALL_FIXED, np.int64(params[FIXED_STRAIN])


__all__ = [
    "ATLAS_NO_KEY",
    "A_NET1",
    "A_NET2",
    "A_NET4",
    "A_PMADE",
    "CALL_DOUBLE",
    "CALL_FIXED",
    "CALL_NONE",
    "CALL_PASS",
    "CALL_REDOUBLE",
    "CALL_THIRD",
    "FIXED_DOUBLING",
    "FIXED_SEAT",
    "FIXED_STRAIN",
    "MAX_CALLS",
    "SCORE",
    "SCORE_BITS",
    "SCORE_PACKED",
    "STRAIN_CALLS",
    "TAKE_AT",
    "TAKE_DEFAULTS",
    "TAKE_NT",
    "TAKE_ROUND1",
    "TAKE_ROUND2",
    "THIRD_DOUBLE_MARGIN",
    "THRESHOLD_AT",
    "THRESHOLD_DEFAULTS",
    "THRESHOLD_DOUBLE",
    "THRESHOLD_NT",
    "THRESHOLD_REDOUBLE",
    "THRESHOLD_SUIT",
    "atlas_auction_call",
    "atlas_best_strain",
    "atlas_bid_call",
    "atlas_row",
    "atlas_value",
    "best_margin_strain",
    "canonical_key",
    "fixed_call",
    "packed_field",
    "packed_score",
    "second_round_strain",
    "strain_score",
    "take_call",
    "threshold_call",
    "threshold_of",
]
