"""The ``rules`` bidding policy: a bidding system written as data (docs/bidding_rules.md).

A rule file (``belote_sim.bid_rules`` reads and checks it) is compiled into four arrays,
the rule book, which reach the kernel as members 2..5 of the bidding tables
(``atlas = (atlas keys, atlas values, sits, rule_rows, conds, thresholds, gains)``, one
flat tuple threaded like the atlas's arrays: numba's parallel loops take no nested
tuple; ``gains`` is the ``atlas_auction`` policy's table):

* ``sits`` (B, NUM_SITUATIONS, 2) int64: for book ``b`` and auction situation
  ``SIT_*``, the range ``[start, stop)`` of its rules in ``rule_rows`` (-1, -1: the
  file does not cover that bidding);
* ``rule_rows`` (R, NUM_RULE_COLS) int64: a rule's conditions ``[RULE_COND_START,
  RULE_COND_STOP)`` in ``conds``, its action ``ACT_*`` and the feature ``RULE_BY``
  that picks among the strains a ``best`` bid may name;
* ``conds`` (C, 3) float64: ``(feature F_*, operator OP_*, value)``;
* ``thresholds`` (B, NUM_SITUATIONS, 3) float64: the suit, NT and AT thresholds of the
  ``margin`` feature in each situation.

A seat's parameter 0 is the index of its book.  On its turn, the policy takes the
rules of its situation in order; the first that fires makes the call; none: pass.

* ``ACT_BEST``: among the strains the seat may name (auction and take-or-pass: above
  the current one; french round one: the turned suit; round two: the other suits, and
  NT and AT with ``french_allow_nt_at``) those whose features meet every condition;
  it bids the one with the largest ``RULE_BY`` feature, the first of equal ones in
  the order the strains are visited (auction: the cheapest; french round two: the
  suits in the deal's random ``BidTurn.suit_order``, then NT, AT), exactly as
  ``threshold`` and ``take`` do.  No strain meets them: the rule does not fire.
* ``ACT_PASS``, ``ACT_DOUBLE``, ``ACT_REDOUBLE``, ``ACT_THIRD``: the call when every
  condition holds, the strain features read for the current contract's strain
  (french round one: the turned suit).  A third double fires only with
  ``third_double``.

No rule fires: pass -- except for a dealer who must take (``dealer_must_take``), who
bids the strain with the best ``margin``.

The features (``F_*``) are computed from the cards the seat sees (in the french rounds
the turned card counts as the bidder's: the taker gets it) and the auction so far;
none names a physical suit, so a call depends on which suits hold which cards only
through what the auction names (the suit-symmetry rule).
"""

import numpy as np

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.bidding import (
    CALL_DOUBLE,
    CALL_PASS,
    CALL_REDOUBLE,
    CALL_THIRD,
    STRAIN_CALLS,
    packed_field,
    packed_score,
    second_round_strain,
)
from belote_sim.kernels.bits import popcount
from belote_sim.kernels.records import (
    BID_FRENCH_ROUND1,
    BID_FRENCH_ROUND2,
    BID_TAKE_OR_PASS,
    HEARD_BITS,
)
from belote_sim.kernels.tables import (
    NUM_STRAINS,
    PLAIN_POINTS,
    R_FRENCH_ALLOW_NT_AT,
    R_THIRD_DOUBLE,
    RANK_9,
    RANK_A,
    RANK_J,
    RANK_T,
    STRAIN_NT,
    TRUMP_POINTS,
)

# --- situations -------------------------------------------------------------------
#: The auction (4.1): nobody has bid; partner's undoubled bid; an opponent's
#: undoubled bid; their bid doubled by us; our bid doubled by them; ours redoubled
#: (by us); theirs redoubled (by them); theirs doubled a third time (by us); ours
#: doubled a third time (by them).
(
    SIT_OPEN,
    SIT_PARTNER_BID,
    SIT_OPPONENT_BID,
    SIT_WE_DOUBLED,
    SIT_THEY_DOUBLED,
    SIT_WE_REDOUBLED,
    SIT_THEY_REDOUBLED,
    SIT_WE_THIRD,
    SIT_THEY_THIRD,
) = range(9)
#: The french rounds (4.2) and take-or-pass (4.3: nobody has bid / another player has).
SIT_ROUND1, SIT_ROUND2, SIT_TOP_OPEN, SIT_TOP_TAKEN = range(9, 13)
NUM_SITUATIONS = 13

# --- actions, operators, rule columns ---------------------------------------------
ACT_PASS, ACT_BEST, ACT_DOUBLE, ACT_REDOUBLE, ACT_THIRD = range(5)
OP_GE, OP_GT, OP_LE, OP_LT, OP_EQ, OP_NE = range(6)
RULE_COND_START, RULE_COND_STOP, RULE_ACTION, RULE_BY = range(4)
NUM_RULE_COLS = 4
COND_FEATURE, COND_OP, COND_VALUE = range(3)

# --- features ---------------------------------------------------------------------
#: Features of a strain (they need one: the candidate of a ``best`` bid, else the
#: current contract's strain) ...
(
    F_SCORE,
    F_MARGIN,
    F_TRUMPS,
    F_TRUMP_JACK,
    F_TRUMP_NINE,
    F_TRUMP_ACE,
    F_TRUMP_TEN,
    F_SIDE_ACES,
    F_IS_SUIT,
    F_IS_NT,
    F_IS_AT,
    F_IS_TURNED,
    F_PARTNER_BID_IT,
    F_OPPONENTS_BID_IT,
    F_I_BID_IT,
    F_IS_CURRENT,
) = range(16)
NUM_STRAIN_FEATURES = 16
#: ... and of the hand and the auction.
(
    F_ACES,
    F_TENS,
    F_JACKS,
    F_NINES,
    F_POINTS,
    F_LONGEST,
    F_POSITION,
    F_N_CALLS,
    F_LEVEL,
    F_CURRENT_KIND,
    F_MUST_BID,
    F_PARTNER_BIDS,
    F_OPPONENT_BIDS,
    F_MY_BIDS,
    F_PARTNER_KIND,
    F_OPPONENT_KIND,
    F_TURNED_POINTS,
    F_CARDS,
) = range(16, 34)
NUM_FEATURES = 34


def _rank_masks():
    masks = np.zeros(8, dtype=np.int64)
    for rank in range(8):
        for suit in range(4):
            masks[rank] |= 1 << (8 * suit + rank)
    return masks


#: RANK_MASKS[r]: the four cards of rank r.
RANK_MASKS = _rank_masks()


@kernel(inline="always")
def flag(condition):
    """1.0 or 0.0."""
    return 1.0 if condition else 0.0


@kernel(inline="always")
def strain_kind(strain):
    """0 for a suit, 1 for NT, 2 for AT (-1 for no strain)."""
    if strain < 0:
        return -1
    if strain < STRAIN_NT:
        return 0
    return strain - STRAIN_NT + 1


@kernel(inline="always")
def heard_of(heard, seat):
    """The strains seat ``seat`` has bid (6 bits) in a ``BidTurn.heard``."""
    return (heard >> (HEARD_BITS * seat)) & ((1 << HEARD_BITS) - 1)


@kernel(inline="always")
def highest_kind(strains):
    """``strain_kind`` of the highest strain in a 6-bit set (-1: empty)."""
    if strains == 0:
        return -1
    top = 0
    for s in range(NUM_STRAINS):
        if (strains >> s) & 1:
            top = s
    return strain_kind(top)


@kernel(inline="always")
def team_heard(turn):
    """``(partner's, the opponents', mine)`` strain sets (6 bits each) of a turn; every
    other player is an opponent when every player is alone."""
    mine = heard_of(turn.heard, turn.seat)
    partner = 0
    opponents = 0
    for s in range(turn.players):
        if s == turn.seat:
            continue
        if turn.players == 4 and s == (turn.seat ^ 2):
            partner = heard_of(turn.heard, s)
        else:
            opponents |= heard_of(turn.heard, s)
    return partner, opponents, mine


@kernel
def feature(f, strain, cards, scores, turn, thresholds, turned_suit):
    """Feature ``f`` (``F_*``) of the bidder's ``cards`` (their strain scores
    ``scores`` packed) for ``strain``; ``thresholds`` (3,): the situation's suit, NT
    and AT thresholds of ``margin``.  Units: score points (``bidding.SCORE``), card
    counts, card points, positions 1..players (1 = first after the dealer)."""
    if f < NUM_STRAIN_FEATURES:
        kind = strain_kind(strain)
        if f == F_SCORE:
            return float(packed_field(scores, strain))
        if f == F_MARGIN:
            return packed_field(scores, strain) - thresholds[kind]
        if f == F_IS_SUIT:
            return flag(kind == 0)
        if f == F_IS_NT:
            return flag(kind == 1)
        if f == F_IS_AT:
            return flag(kind == 2)
        if f == F_IS_TURNED:
            return flag(strain == turned_suit)
        if f == F_IS_CURRENT:
            return flag(strain == turn.current)
        if f in (F_PARTNER_BID_IT, F_OPPONENTS_BID_IT, F_I_BID_IT):
            partner, opponents, mine = team_heard(turn)
            which = partner if f == F_PARTNER_BID_IT else opponents
            if f == F_I_BID_IT:
                which = mine
            return float((which >> strain) & 1)
        suit_mask = np.int64(0xFF) << (8 * strain) if kind == 0 else np.int64(0)
        if f == F_TRUMPS:
            if kind == 0:
                return float(popcount(cards & suit_mask))
            if kind == 2:
                return float(popcount(cards))
            return 0.0
        if f == F_SIDE_ACES:
            return float(popcount(cards & RANK_MASKS[RANK_A] & ~suit_mask))
        rank = RANK_J
        if f == F_TRUMP_NINE:
            rank = RANK_9
        elif f == F_TRUMP_ACE:
            rank = RANK_A
        elif f == F_TRUMP_TEN:
            rank = RANK_T
        if kind == 0:
            return float((cards >> (8 * strain + rank)) & 1)
        return float(popcount(cards & RANK_MASKS[rank]))
    if f == F_ACES:
        return float(popcount(cards & RANK_MASKS[RANK_A]))
    if f == F_TENS:
        return float(popcount(cards & RANK_MASKS[RANK_T]))
    if f == F_JACKS:
        return float(popcount(cards & RANK_MASKS[RANK_J]))
    if f == F_NINES:
        return float(popcount(cards & RANK_MASKS[RANK_9]))
    if f == F_POINTS:
        total = 0
        for rank in range(8):
            total += PLAIN_POINTS[rank] * popcount(cards & RANK_MASKS[rank])
        return float(total)
    if f == F_LONGEST:
        longest = 0
        for suit in range(4):
            n = popcount(cards & (np.int64(0xFF) << (8 * suit)))
            if n > longest:
                longest = n
        return float(longest)
    if f == F_POSITION:
        return float((turn.seat - turn.dealer - 1) % turn.players + 1)
    if f == F_N_CALLS:
        return float(turn.n_calls)
    if f == F_LEVEL:
        return float(turn.level)
    if f == F_CURRENT_KIND:
        return float(strain_kind(turn.current))
    if f == F_MUST_BID:
        return flag(turn.must_bid)
    if f == F_CARDS:
        return float(popcount(cards))
    if f == F_TURNED_POINTS:
        if turn.turned < 0:
            return 0.0
        return float(TRUMP_POINTS[turn.turned & 7])
    partner, opponents, mine = team_heard(turn)
    if f == F_PARTNER_BIDS:
        return float(popcount(partner))
    if f == F_OPPONENT_BIDS:
        return float(popcount(opponents))
    if f == F_MY_BIDS:
        return float(popcount(mine))
    if f == F_PARTNER_KIND:
        return float(highest_kind(partner))
    if f == F_OPPONENT_KIND:
        return float(highest_kind(opponents))
    return np.nan  # an unknown feature: no condition on it holds


@kernel(inline="always")
def compare(x, op, value):
    """``x OP value`` for an operator ``OP_*``."""
    if op == OP_GE:
        return x >= value
    if op == OP_GT:
        return x > value
    if op == OP_LE:
        return x <= value
    if op == OP_LT:
        return x < value
    if op == OP_EQ:
        return x == value
    if op == OP_NE:
        return x != value
    return False


@kernel
def conditions_hold(conds, start, stop, strain, cards, scores, turn, thresholds, turned_suit):
    """Whether every condition ``conds[start:stop]`` holds for ``strain``."""
    for c in range(start, stop):
        x = feature(
            np.int64(conds[c, COND_FEATURE]), strain, cards, scores, turn, thresholds, turned_suit
        )
        if not compare(x, np.int64(conds[c, COND_OP]), conds[c, COND_VALUE]):
            return False
    return True


@kernel(inline="always")
def situation_of(turn):
    """The ``SIT_*`` of a bidding turn."""
    if turn.kind == BID_FRENCH_ROUND1:
        return SIT_ROUND1
    if turn.kind == BID_FRENCH_ROUND2:
        return SIT_ROUND2
    if turn.kind == BID_TAKE_OR_PASS:
        return SIT_TOP_OPEN if turn.current < 0 else SIT_TOP_TAKEN
    if turn.current < 0:
        return SIT_OPEN
    theirs = (turn.bidder & 1) != (turn.seat & 1)
    level = turn.level
    if level == 0:
        return SIT_OPPONENT_BID if theirs else SIT_PARTNER_BID
    if level == 1:
        return SIT_WE_DOUBLED if theirs else SIT_THEY_DOUBLED
    if level == 2:
        return SIT_THEY_REDOUBLED if theirs else SIT_WE_REDOUBLED
    return SIT_WE_THIRD if theirs else SIT_THEY_THIRD


@kernel(inline="always")
def may_name(turn, strain, turned_suit):
    """Whether a ``best`` bid may name ``strain`` at this turn."""
    if turn.kind == BID_FRENCH_ROUND1:
        return strain == turned_suit
    if turn.kind == BID_FRENCH_ROUND2:
        return strain != turned_suit
    if turn.kind == BID_TAKE_OR_PASS and turn.seat == turn.bidder:
        return False
    return strain > turn.current


@kernel
def best_strain(conds, start, stop, by, n_visit, cards, scores, turn, thresholds, turned_suit):
    """The strain a ``best`` call names: of the first ``n_visit`` strains in the
    visiting order (auction: the cheapest first; french round two: the deal's random
    ``BidTurn.suit_order``, then NT, AT) those the seat may name and that meet every
    condition ``conds[start:stop]``, the one with the largest feature ``by`` (the first
    visited of equal ones); -1 if none."""
    french = turn.kind == BID_FRENCH_ROUND1 or turn.kind == BID_FRENCH_ROUND2
    best = -1
    best_value = 0.0
    for i in range(n_visit):
        strain = second_round_strain(turn.suit_order, i) if french else i
        if not may_name(turn, strain, turned_suit):
            continue
        if not conditions_hold(
            conds, start, stop, strain, cards, scores, turn, thresholds, turned_suit
        ):
            continue
        value = feature(by, strain, cards, scores, turn, thresholds, turned_suit)
        if best < 0 or value > best_value:
            best = strain
            best_value = value
    return best


@kernel
def rules_call(params, turn, rules, atlas):
    """The ``rules`` policy's call (module docstring): ``(call, strain)``."""
    sits = atlas[2]
    rule_rows = atlas[3]
    conds = atlas[4]
    all_thresholds = atlas[5]
    book = np.int64(params[0])
    cards = turn.cards
    scores = turn.scores
    turned_suit = -1
    french = turn.kind == BID_FRENCH_ROUND1 or turn.kind == BID_FRENCH_ROUND2
    if french:
        cards = cards | (np.int64(1) << turn.turned)
        scores = packed_score(cards)
        turned_suit = turn.turned >> 3
    sit = situation_of(turn)
    thresholds = all_thresholds[book, sit]
    n_visit = NUM_STRAINS
    if turn.kind == BID_FRENCH_ROUND2 and not rules[R_FRENCH_ALLOW_NT_AT]:
        n_visit = STRAIN_NT
    for r in range(sits[book, sit, 0], sits[book, sit, 1]):
        start = rule_rows[r, RULE_COND_START]
        stop = rule_rows[r, RULE_COND_STOP]
        action = rule_rows[r, RULE_ACTION]
        if action == ACT_BEST:
            by = rule_rows[r, RULE_BY]
            best = best_strain(
                conds, start, stop, by, n_visit, cards, scores, turn, thresholds, turned_suit
            )
            if best >= 0:
                return STRAIN_CALLS[best], best
            continue
        if action == ACT_THIRD and not rules[R_THIRD_DOUBLE]:
            continue
        strain = turned_suit if turn.kind == BID_FRENCH_ROUND1 else turn.current
        if conditions_hold(
            conds, start, stop, strain, cards, scores, turn, thresholds, turned_suit
        ):
            if action == ACT_DOUBLE:
                return CALL_DOUBLE, -1
            if action == ACT_REDOUBLE:
                return CALL_REDOUBLE, -1
            if action == ACT_THIRD:
                return CALL_THIRD, -1
            return CALL_PASS, -1
    if turn.must_bid:  # a dealer who must take and whose rules pass: the best margin
        best = best_strain(
            conds, 0, 0, np.int64(F_MARGIN), NUM_STRAINS, cards, scores, turn, thresholds,
            turned_suit,
        )  # fmt: skip
        if best >= 0:
            return STRAIN_CALLS[best], best
    return CALL_PASS, -1


__all__ = [
    "ACT_BEST",
    "ACT_DOUBLE",
    "ACT_PASS",
    "ACT_REDOUBLE",
    "ACT_THIRD",
    "COND_FEATURE",
    "COND_OP",
    "COND_VALUE",
    "F_ACES",
    "F_CARDS",
    "F_CURRENT_KIND",
    "F_IS_AT",
    "F_IS_CURRENT",
    "F_IS_NT",
    "F_IS_SUIT",
    "F_IS_TURNED",
    "F_I_BID_IT",
    "F_JACKS",
    "F_LEVEL",
    "F_LONGEST",
    "F_MARGIN",
    "F_MUST_BID",
    "F_MY_BIDS",
    "F_NINES",
    "F_N_CALLS",
    "F_OPPONENTS_BID_IT",
    "F_OPPONENT_BIDS",
    "F_OPPONENT_KIND",
    "F_PARTNER_BIDS",
    "F_PARTNER_BID_IT",
    "F_PARTNER_KIND",
    "F_POINTS",
    "F_POSITION",
    "F_SCORE",
    "F_SIDE_ACES",
    "F_TENS",
    "F_TRUMPS",
    "F_TRUMP_ACE",
    "F_TRUMP_JACK",
    "F_TRUMP_NINE",
    "F_TRUMP_TEN",
    "F_TURNED_POINTS",
    "NUM_FEATURES",
    "NUM_RULE_COLS",
    "NUM_SITUATIONS",
    "NUM_STRAIN_FEATURES",
    "OP_EQ",
    "OP_GE",
    "OP_GT",
    "OP_LE",
    "OP_LT",
    "OP_NE",
    "RANK_MASKS",
    "RULE_ACTION",
    "RULE_BY",
    "RULE_COND_START",
    "RULE_COND_STOP",
    "SIT_OPEN",
    "SIT_OPPONENT_BID",
    "SIT_PARTNER_BID",
    "SIT_ROUND1",
    "SIT_ROUND2",
    "SIT_THEY_DOUBLED",
    "SIT_THEY_REDOUBLED",
    "SIT_THEY_THIRD",
    "SIT_TOP_OPEN",
    "SIT_TOP_TAKEN",
    "SIT_WE_DOUBLED",
    "SIT_WE_REDOUBLED",
    "SIT_WE_THIRD",
    "best_strain",
    "compare",
    "conditions_hold",
    "feature",
    "flag",
    "heard_of",
    "highest_kind",
    "may_name",
    "rules_call",
    "situation_of",
    "strain_kind",
    "team_heard",
]
