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

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.core import lowest_card
from belote_sim.kernels.tables import (
    NUM_CARDS,
    NUM_STRAINS,
    PLAIN_POINTS,
    R_AT_DOUBLE_ENDS_AUCTION,
    R_DEALER_MUST_TAKE,
    R_FRENCH_ALLOW_NT_AT,
    R_THIRD_DOUBLE,
    RANK_A,
    RANK_J,
    STRAIN_AT,
    STRAIN_NT,
    TRUMP_POINTS,
)

BID_THRESHOLD = 0
BID_FIXED = 1
BID_TAKE = 2
BID_ATLAS = 3
THRESHOLD_DEFAULTS = (50.0, 52.0, 75.0, 60.0, 60.0)
TAKE_DEFAULTS = (50.0, 55.0, 60.0, 80.0)
#: Parameter indices of each bidding policy (``belote_sim.policies.BID_POLICIES`` names).
THRESHOLD_SUIT, THRESHOLD_NT, THRESHOLD_AT, THRESHOLD_DOUBLE, THRESHOLD_REDOUBLE = range(5)
TAKE_ROUND1, TAKE_ROUND2, TAKE_NT, TAKE_AT = range(4)
FIXED_SEAT, FIXED_STRAIN, FIXED_DOUBLING = range(3)
#: A third double needs this many score points above the redouble threshold.
THIRD_DOUBLE_MARGIN = 20

MAX_CALLS = 40
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


@kernel
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
    permutation of the interchangeable suits maps one onto the other.
    """
    b = np.empty(4, dtype=np.int64)
    for suit in range(4):
        b[suit] = (hand >> (8 * suit)) & 0xFF
    if strain < STRAIN_NT:
        others = np.empty(3, dtype=np.int64)
        k = 0
        for suit in range(4):
            if suit != strain:
                others[k] = b[suit]
                k += 1
        x, y, z = _sort3(others[0], others[1], others[2])
        return (b[strain] << 24) | (x << 16) | (y << 8) | z
    b.sort()
    return (b[3] << 24) | (b[2] << 16) | (b[1] << 8) | b[0]


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

    ``atlas = (keys (2, K), values (3, K, 4, 4))``: values by strain kind (suit, NT,
    AT), class row, taker's position (0 = first after the dealer .. 3 = dealer) and
    field.  Returns -1e9 when the class is missing (never in a complete atlas).
    """
    keys, values = atlas
    row = atlas_row(keys, hand, strain)
    if row < 0:
        return -1e9
    kind = 0 if strain < STRAIN_NT else strain - STRAIN_NT + 1
    return values[kind, row, (seat - dealer - 1) & 3, field]


@kernel
def atlas_call(hand, seat, dealer, current, bidder, level, forced, atlas):
    """The ``atlas`` policy's call in the auction: ``(call, strain)`` (strain -1 if none)."""
    opponents_hold = current >= 0 and (bidder & 1) != (seat & 1)
    if (
        opponents_hold
        and level == 0
        and atlas_value(atlas, hand, current, seat, dealer, A_NET1) > 0
    ):
        return CALL_DOUBLE, -1
    if (
        current >= 0
        and not opponents_hold
        and level == 1
        and atlas_value(atlas, hand, current, seat, dealer, A_NET4)
        > atlas_value(atlas, hand, current, seat, dealer, A_NET2)
    ):
        return CALL_REDOUBLE, -1
    if current < 0 or opponents_hold:
        best = -1
        best_value = 0.0
        for strain in range(current + 1, 6):
            value = atlas_value(atlas, hand, strain, seat, dealer, A_NET1)
            if (value > 0 or forced) and (best < 0 or value > best_value):
                best = strain
                best_value = value
        if best >= 0:
            return STRAIN_CALLS[best], best
    return CALL_PASS, -1


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
def _packed_score(cards):
    """The six strain scores of a set of cards packed as in ``SCORE_PACKED``."""
    packed = 0
    while cards:
        packed += SCORE_PACKED[lowest_card(cards)]
        cards &= cards - 1
    return packed


@kernel
def _field(packed, strain):
    """One strain's score out of a ``_packed_score``."""
    return (packed >> (SCORE_BITS * strain)) & ((1 << SCORE_BITS) - 1)


@kernel
def _threshold(params, strain):
    if strain == STRAIN_NT:
        return params[THRESHOLD_NT]
    if strain == STRAIN_AT:
        return params[THRESHOLD_AT]
    return params[THRESHOLD_SUIT]


@lean_kernel
def run_auction(bid_cards, dealer, rules, bid_ids, bid_params, out_calls, atlas):
    """Auction (section 4.1): each seat calls by its policy, ``threshold`` or ``atlas``.

    ``bid_cards``: (4,) masks of the five cards each seat sees; ``atlas``: see
    ``atlas_value`` (tiny arrays when no seat uses it).  Writes the calls to
    ``out_calls`` (uint8, MAX_CALLS) and returns ``(strain, taker, doubling, n_calls)``
    with strain -1 when the deal is thrown in.
    """
    # Every seat's six strain scores, packed (SCORE_PACKED): no array, no allocation.
    packed0 = _packed_score(bid_cards[0])
    packed1 = _packed_score(bid_cards[1])
    packed2 = _packed_score(bid_cards[2])
    packed3 = _packed_score(bid_cards[3])
    max_level = 3 if rules[R_THIRD_DOUBLE] else 2
    current = -1
    bidder = -1
    level = 0
    passes = 0
    n_calls = 0
    seat = (dealer + 1) & 3
    while n_calls < MAX_CALLS:
        params = bid_params[seat]
        packed = (
            packed0 if seat == 0 else packed1 if seat == 1 else packed2 if seat == 2 else packed3
        )
        opponents_hold = current >= 0 and (bidder & 1) != (seat & 1)
        call = CALL_PASS
        bid = -1
        if bid_ids[seat] == BID_ATLAS:
            forced = rules[R_DEALER_MUST_TAKE] and current < 0 and n_calls == 3
            call, bid = atlas_call(
                bid_cards[seat], seat, dealer, current, bidder, level, forced, atlas
            )
        elif opponents_hold and level == 0 and _field(packed, current) >= params[THRESHOLD_DOUBLE]:
            call = CALL_DOUBLE
        elif (
            current >= 0
            and not opponents_hold
            and level == 1
            and _field(packed, current) >= params[THRESHOLD_REDOUBLE]
        ):
            call = CALL_REDOUBLE
        elif (
            opponents_hold
            and level == 2
            and max_level == 3
            and _field(packed, current) >= params[THRESHOLD_REDOUBLE] + THIRD_DOUBLE_MARGIN
        ):
            call = CALL_THIRD
        elif current < 0 or opponents_hold:
            best_margin = 0.0
            forced = rules[R_DEALER_MUST_TAKE] and current < 0 and n_calls == 3
            for strain in range(current + 1, NUM_STRAINS):
                margin = _field(packed, strain) - _threshold(params, strain)
                if (margin >= 0 or forced) and (bid < 0 or margin > best_margin):
                    bid = strain
                    best_margin = margin
            if bid >= 0:
                call = STRAIN_CALLS[bid]
        out_calls[n_calls] = call
        n_calls += 1
        if call == CALL_PASS:
            passes += 1
            if (current < 0 and passes == 4) or (current >= 0 and passes == 3):
                break
        elif bid >= 0:
            current = bid
            bidder = seat
            level = 0
            passes = 0
        else:
            level += 1
            passes = 0
            if current == STRAIN_AT and (
                level == max_level or (level == 1 and rules[R_AT_DOUBLE_ENDS_AUCTION])
            ):
                break
        seat = (seat + 1) & 3
    if current < 0:
        return -1, -1, 0, n_calls
    return current, bidder, level, n_calls


@lean_kernel
def french_take(bid_cards, turned, dealer, rules, bid_ids, bid_params, out_calls, atlas):
    """French two-round bidding (section 4.2) with the ``take`` or ``atlas`` policy.

    Returns ``(strain, taker, n_calls)``, strain -1 when all pass twice.
    """
    turned_suit = turned >> 3
    n_calls = 0
    for i in range(4):
        seat = (dealer + 1 + i) & 3
        cards = bid_cards[seat] | (1 << turned)
        if bid_ids[seat] == BID_ATLAS:
            take = atlas_value(atlas, bid_cards[seat], turned_suit, seat, dealer, A_NET1) > 0
        else:
            take = strain_score(cards, turned_suit) >= bid_params[seat, TAKE_ROUND1]
        if take:
            out_calls[n_calls] = STRAIN_CALLS[turned_suit]
            return turned_suit, seat, n_calls + 1
        out_calls[n_calls] = CALL_PASS
        n_calls += 1
    last = NUM_STRAINS if rules[R_FRENCH_ALLOW_NT_AT] else STRAIN_NT
    for i in range(4):
        seat = (dealer + 1 + i) & 3
        cards = bid_cards[seat] | (1 << turned)
        best = -1
        best_margin = 0.0
        for strain in range(last):
            if strain == turned_suit:
                continue
            if bid_ids[seat] == BID_ATLAS:
                margin = atlas_value(atlas, bid_cards[seat], strain, seat, dealer, A_NET1)
                if margin > 0 and (best < 0 or margin > best_margin):
                    best = strain
                    best_margin = margin
                continue
            threshold = bid_params[seat, TAKE_ROUND2]
            if strain == STRAIN_NT:
                threshold = bid_params[seat, TAKE_NT]
            elif strain == STRAIN_AT:
                threshold = bid_params[seat, TAKE_AT]
            margin = strain_score(cards, strain) - threshold
            if margin >= 0 and (best < 0 or margin > best_margin):
                best = strain
                best_margin = margin
        if best >= 0:
            out_calls[n_calls] = STRAIN_CALLS[best]
            return best, seat, n_calls + 1
        out_calls[n_calls] = CALL_PASS
        n_calls += 1
    return -1, -1, n_calls


@lean_kernel
def take_or_pass(bid_cards, dealer, n_players, bid_params, out_calls):
    """Take-or-pass bidding (section 4.3) with the ``threshold`` policy for every player.

    From dealer + 1 each player passes or names a strain higher than the current one;
    the bidding ends when every other player has passed after a bid, or when all pass
    (thrown in).  ``bid_cards``: (P,) masks of the cards each player sees.  Writes
    the calls to ``out_calls`` and returns ``(strain, taker, n_calls)``, strain -1 when
    the deal is thrown in.
    """
    current = -1
    bidder = -1
    passes = 0
    n_calls = 0
    seat = (dealer + 1) % n_players
    while n_calls < MAX_CALLS:
        params = bid_params[seat]
        bid = -1
        if seat != bidder:
            best_margin = 0.0
            for strain in range(current + 1, NUM_STRAINS):
                margin = strain_score(bid_cards[seat], strain) - _threshold(params, strain)
                if margin >= 0 and (bid < 0 or margin > best_margin):
                    bid = strain
                    best_margin = margin
        if bid >= 0:
            out_calls[n_calls] = STRAIN_CALLS[bid]
            current = bid
            bidder = seat
            passes = 0
        else:
            out_calls[n_calls] = CALL_PASS
            passes += 1
        n_calls += 1
        if (current < 0 and passes == n_players) or (current >= 0 and passes == n_players - 1):
            break
        seat = (seat + 1) % n_players
    if current < 0:
        return -1, -1, n_calls
    return current, bidder, n_calls
