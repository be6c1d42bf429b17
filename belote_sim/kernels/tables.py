"""Lookup tables and integer codes shared by every kernel.

Card layout (docs/rules.md section 1): card index ``c = 8 * suit + rank`` with suits
C D H S = 0..3 and ranks 7 8 9 T J Q K A = 0..7.  A hand is a 32-bit mask with bit
``c`` set for each card held, so suit ``s`` is the byte ``(hand >> 8*s) & 0xFF`` and a
declaration run (sequence order A K Q J T 9 8 7) is a run of adjacent bits in a byte.

Everything here is a plain numpy array or int: numba freezes module-level arrays
into compiled kernels as constants.  These tables live inside ``kernels/`` on
purpose: the kernel cache is keyed on the source of this package, so editing a
table can never leave a stale compiled kernel behind.
"""

import numpy as np

# --- sizes -------------------------------------------------------------------
NUM_SUITS = 4
NUM_STRAINS = 6
NUM_RANKS = 8
NUM_CARDS = 32
NUM_SEATS = 4
HAND_SIZE = 8
NUM_TRICKS = 8

# --- ranks (bit position inside a suit byte) -----------------------------------
RANK_7, RANK_8, RANK_9, RANK_T, RANK_J, RANK_Q, RANK_K, RANK_A = range(8)
RANK_CHARS = "789TJQKA"
SUIT_CHARS = "CDHS"

# --- strains -----------------------------------------------------------------
STRAIN_C, STRAIN_D, STRAIN_H, STRAIN_S, STRAIN_NT, STRAIN_AT = range(6)
STRAIN_NAMES = ("C", "D", "H", "S", "NT", "AT")

# --- outcome codes -------------------------------------------------------------
OUTCOME_MADE, OUTCOME_INSIDE, OUTCOME_HANGING, OUTCOME_THROWN_IN = range(4)
OUTCOME_NAMES = ("made", "inside", "hanging", "thrown_in")

# --- rules array: index of each option in the int64 array kernels take ---------
R_RAISE_OVER_PARTNER = 0
R_UNDERTRUMP = 1
R_CARD_IN_ONE_DECLARATION = 2
R_BELOTE_ON_DISCARD = 3
R_NT_FOUR_ACES = 4
R_DECLARATIONS_COMPARE = 5  # 0 best_run, 1 best_declaration
R_DECLARATIONS_NEED_TRICK = 6
R_NT_DOUBLE_RAW = 7
R_SCORING = 8  # 0 mp, 1 french
R_VALAT_NT_DOUBLE = 9
R_CAPOT_POINTS = 10
R_KIRTIK = 11
R_FRENCH_ALLOW_NT_AT = 12
R_THIRD_DOUBLE = 13
R_AT_DOUBLE_ENDS_AUCTION = 14
R_DEALER_MUST_TAKE = 15
R_DEALING = 16  # 0 shuffle, 1 cut
R_REVOKE_PENALTY = 17
R_GAME_TARGET = 18
R_PLAYERS = 19
R_BIDDING = 20  # 0 auction, 1 two_round, 2 take_or_pass
R_DOUBLING = 21
R_VARIANT = 22  # 0 standard, 1 open (open belot)
NUM_RULE_FIELDS = 23

# Codes of the choice options in the rules array (``rules.py`` maps the names to them).
COMPARE_BEST_RUN, COMPARE_BEST_DECLARATION = 0, 1
SCORING_MP, SCORING_FRENCH = 0, 1
DEALING_SHUFFLE, DEALING_CUT = 0, 1
BIDDING_AUCTION, BIDDING_TWO_ROUND, BIDDING_TAKE_OR_PASS = 0, 1, 2
VARIANT_STANDARD, VARIANT_OPEN = 0, 1

#: The 24-card deck of the 2- and 3-player games: ranks 9 T J Q K A of every suit.
DECK24_MASK = 0xFCFCFCFC
#: ``announce_mask`` with every seat's bit set: all four seats announce.
ALL_SEATS_MASK = 0b1111

# --- per-rank tables (index = rank 0..7 = 7 8 9 T J Q K A) ---------------------
#: Trump order strength, higher wins: J 9 A T K Q 8 7.
TRUMP_STRENGTH = np.array([0, 1, 6, 4, 7, 2, 3, 5], dtype=np.int64)
#: Plain order strength, higher wins: A T K Q J 9 8 7.
PLAIN_STRENGTH = np.array([0, 1, 2, 6, 3, 4, 5, 7], dtype=np.int64)
#: Card points (docs/rules.md section 2).
TRUMP_POINTS = np.array([0, 0, 14, 10, 20, 3, 4, 11], dtype=np.int64)
PLAIN_POINTS = np.array([0, 0, 0, 10, 2, 3, 4, 11], dtype=np.int64)
#: Bonus to the team that takes the last trick (raw points, docs/rules.md section 7).
LAST_TRICK_BONUS = 10
#: King and queen of trumps announced together (raw points, docs/rules.md section 6.1).
BELOTE_POINTS = 20
#: Carré points by rank; four 7s or 8s count nothing (section 6.1).
CARRE_POINTS = np.array([0, 0, 150, 100, 200, 100, 100, 100], dtype=np.int64)
#: Four aces in NT with the ``nt_four_aces`` option (raw points, 14.7).
NT_FOUR_ACES_POINTS = 200


def _higher_bytes(strength):
    out = np.zeros(8, dtype=np.int64)
    for r in range(8):
        for q in range(8):
            if strength[q] > strength[r]:
                out[r] |= 1 << q
    return out


#: HIGHER_TRUMP_BYTE[r] / HIGHER_PLAIN_BYTE[r]: ranks (as a suit byte) that beat rank r
#: in trump / plain order.
HIGHER_TRUMP_BYTE = _higher_bytes(TRUMP_STRENGTH)
HIGHER_PLAIN_BYTE = _higher_bytes(PLAIN_STRENGTH)


def _card_tables():
    """Per strain x card: points and trick-winning key.

    ``WIN_KEY[strain, card]`` is 16 + trump strength for a trump, else the strength
    in the order its suit is ranked in (trump order in AT, plain elsewhere).  A card
    that is neither trump nor of the led suit cannot win; kernels test that apart.
    """
    points = np.zeros((6, 32), dtype=np.int64)
    key = np.zeros((6, 32), dtype=np.int64)
    for strain in range(6):
        for card in range(32):
            suit, rank = card >> 3, card & 7
            if strain == STRAIN_AT:
                points[strain, card] = TRUMP_POINTS[rank]
                key[strain, card] = TRUMP_STRENGTH[rank]
            elif strain == STRAIN_NT or suit != strain:
                points[strain, card] = PLAIN_POINTS[rank]
                key[strain, card] = PLAIN_STRENGTH[rank]
            else:
                points[strain, card] = TRUMP_POINTS[rank]
                key[strain, card] = 16 + TRUMP_STRENGTH[rank]
    return points, key


CARD_POINTS, WIN_KEY = _card_tables()


def _beater_tables():
    """Masks derived from ``WIN_KEY``: ``HIGHER_IN_SUIT[strain, card]``, the cards of
    ``card``'s suit that rank above it; ``BEATERS[strain, led_suit, win_card]``, the
    cards that beat ``win_card`` in a trick led in ``led_suit`` (``core.beats`` as a
    mask: led suit or trump, and a higher key)."""
    cards = np.arange(32)
    suit = cards >> 3
    higher = np.zeros((6, 32), dtype=np.int64)
    beaters = np.zeros((6, 4, 32), dtype=np.int64)
    for strain in range(6):
        key = WIN_KEY[strain]
        for card in range(32):
            above = key > key[card]
            higher[strain, card] = np.sum(np.int64(1) << cards[above & (suit == suit[card])])
            for led in range(4):
                can_win = (suit == led) | (key >= 16)
                beaters[strain, led, card] = np.sum(np.int64(1) << cards[above & can_win])
    return higher, beaters


HIGHER_IN_SUIT, BEATERS = _beater_tables()

#: Card total of a deal per strain, last-trick 10 included (162 / 130 NT / 258 AT).
DEAL_CARD_TOTAL = CARD_POINTS.sum(axis=1) + LAST_TRICK_BONUS
#: Card total of a suit contract (162): the total that ``capot_points`` replaces (10).
SUIT_DEAL_CARD_TOTAL = int(DEAL_CARD_TOTAL[STRAIN_C])
#: Match-point rounding limit per strain (section 8.2): 6 suit, 5 NT, 4 AT.
ROUNDING_LIMIT = np.array([6, 6, 6, 6, 5, 4], dtype=np.int64)

# --- declaration tables over one suit byte -------------------------------------
RUN_LENGTH_POINTS = np.array([0, 0, 0, 20, 50, 100, 100, 100, 120], dtype=np.int64)


def _run_tables():
    """For each suit byte: run points, declared run cards and the best run key.

    A maximal run of 3/4/5 adjacent ranks is a tierce/quarte/quinte; a run of 6 or 7
    is one quinte of its five highest cards; a run of 8 is a quinte A-T plus a tierce
    9-7 (section 6.1, 14.3).  The best-run key is ``points * 256 + top_rank * 2``,
    which orders runs by length then top card (section 6.3); kernels add 1 for a run
    in trump and 128 for a carré when they need the french order.
    """
    points = np.zeros(256, dtype=np.int64)
    cards = np.zeros(256, dtype=np.int64)
    best = np.zeros(256, dtype=np.int64)
    for byte in range(256):
        r = 0
        while r < 8:
            if not (byte >> r) & 1:
                r += 1
                continue
            start = r
            while r < 8 and (byte >> r) & 1:
                r += 1
            length = r - start
            top = r - 1
            if length < 3:
                continue
            points[byte] += RUN_LENGTH_POINTS[length]
            if length <= 5:
                declared = ((1 << length) - 1) << start
                key = RUN_LENGTH_POINTS[length] * 256 + top * 2
            elif length < 8:
                declared = 0x1F << (top - 4)
                key = 100 * 256 + top * 2
            else:
                declared = 0xFF
                key = 100 * 256 + top * 2
            cards[byte] |= declared
            best[byte] = max(best[byte], key)
    return points, cards, best


RUN_POINTS_BYTE, RUN_CARDS_BYTE, RUN_BEST_KEY_BYTE = _run_tables()

#: Key bits added to a run key (see _run_tables).
KEY_TRUMP_BIT = 1
KEY_CARRE_BIT = 128

#: Popcount of a byte.
POPCOUNT_BYTE = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)

#: De Bruijn multiply table: index of the single set bit of a 32-bit value.
DEBRUIJN32 = 0x077CB531
DEBRUIJN_INDEX = np.zeros(32, dtype=np.int64)
for _i in range(32):
    DEBRUIJN_INDEX[((DEBRUIJN32 << _i) & 0xFFFFFFFF) >> 27] = _i
del _i


__all__ = [
    "ALL_SEATS_MASK",
    "BEATERS",
    "BELOTE_POINTS",
    "BIDDING_AUCTION",
    "BIDDING_TAKE_OR_PASS",
    "BIDDING_TWO_ROUND",
    "CARD_POINTS",
    "CARRE_POINTS",
    "COMPARE_BEST_DECLARATION",
    "COMPARE_BEST_RUN",
    "DEALING_CUT",
    "DEALING_SHUFFLE",
    "DEAL_CARD_TOTAL",
    "DEBRUIJN32",
    "DEBRUIJN_INDEX",
    "DECK24_MASK",
    "HAND_SIZE",
    "HIGHER_IN_SUIT",
    "HIGHER_PLAIN_BYTE",
    "HIGHER_TRUMP_BYTE",
    "KEY_CARRE_BIT",
    "KEY_TRUMP_BIT",
    "LAST_TRICK_BONUS",
    "NT_FOUR_ACES_POINTS",
    "NUM_CARDS",
    "NUM_RANKS",
    "NUM_RULE_FIELDS",
    "NUM_SEATS",
    "NUM_STRAINS",
    "NUM_SUITS",
    "NUM_TRICKS",
    "OUTCOME_HANGING",
    "OUTCOME_INSIDE",
    "OUTCOME_MADE",
    "OUTCOME_NAMES",
    "OUTCOME_THROWN_IN",
    "PLAIN_POINTS",
    "PLAIN_STRENGTH",
    "POPCOUNT_BYTE",
    "RANK_7",
    "RANK_8",
    "RANK_9",
    "RANK_A",
    "RANK_CHARS",
    "RANK_J",
    "RANK_K",
    "RANK_Q",
    "RANK_T",
    "ROUNDING_LIMIT",
    "RUN_BEST_KEY_BYTE",
    "RUN_CARDS_BYTE",
    "RUN_LENGTH_POINTS",
    "RUN_POINTS_BYTE",
    "R_AT_DOUBLE_ENDS_AUCTION",
    "R_BELOTE_ON_DISCARD",
    "R_BIDDING",
    "R_CAPOT_POINTS",
    "R_CARD_IN_ONE_DECLARATION",
    "R_DEALER_MUST_TAKE",
    "R_DEALING",
    "R_DECLARATIONS_COMPARE",
    "R_DECLARATIONS_NEED_TRICK",
    "R_DOUBLING",
    "R_FRENCH_ALLOW_NT_AT",
    "R_GAME_TARGET",
    "R_KIRTIK",
    "R_NT_DOUBLE_RAW",
    "R_NT_FOUR_ACES",
    "R_PLAYERS",
    "R_RAISE_OVER_PARTNER",
    "R_REVOKE_PENALTY",
    "R_SCORING",
    "R_THIRD_DOUBLE",
    "R_UNDERTRUMP",
    "R_VALAT_NT_DOUBLE",
    "R_VARIANT",
    "SCORING_FRENCH",
    "SCORING_MP",
    "STRAIN_AT",
    "STRAIN_C",
    "STRAIN_D",
    "STRAIN_H",
    "STRAIN_NAMES",
    "STRAIN_NT",
    "STRAIN_S",
    "SUIT_CHARS",
    "SUIT_DEAL_CARD_TOTAL",
    "TRUMP_POINTS",
    "TRUMP_STRENGTH",
    "VARIANT_OPEN",
    "VARIANT_STANDARD",
    "WIN_KEY",
]
