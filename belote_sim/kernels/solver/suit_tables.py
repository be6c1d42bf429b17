"""Lookup tables of the solver on suit bytes (one suit of a hand: 8 bits, bit = rank).

Built once at import with plain Python and frozen into the kernels as constants.
"Kind" 0 is a plain suit, 1 a trump suit (``is_trump_suit``); a *strength byte* is a
suit byte with its ranks renumbered by strength (bit k: the card of strength k), in
which "higher" is simply "a higher bit".
"""

import numpy as np

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.tables import (
    HIGHER_PLAIN_BYTE,
    HIGHER_TRUMP_BYTE,
    PLAIN_POINTS,
    PLAIN_STRENGTH,
    STRAIN_AT,
    TRUMP_POINTS,
    TRUMP_STRENGTH,
    WIN_KEY,
)


@kernel
def is_trump_suit(suit, strain):
    """Whether ``suit`` is a trump suit in ``strain`` (every suit in all-trumps)."""
    return strain == STRAIN_AT or suit == strain


@kernel
def higher_byte(rank, trump_suit):
    """The ranks (as a suit byte) that beat ``rank`` in a trump or a plain suit."""
    if trump_suit:
        return HIGHER_TRUMP_BYTE[rank]
    return HIGHER_PLAIN_BYTE[rank]


def _zero_masks():
    """ZERO_MASK (below)."""
    out = np.zeros(6, dtype=np.int64)
    for strain in range(6):
        for suit in range(4):
            trump = strain == STRAIN_AT or suit == strain
            out[strain] |= (0x3 if trump else 0x7) << (8 * suit)
    return out


#: ZERO_MASK[strain]: the zero-point cards (7 8 9 plain, 7 8 trump) of every suit.
ZERO_MASK = _zero_masks()


def _strength_bytes():
    """STRENGTH_BYTE[kind, byte]: a suit byte with its ranks renumbered by strength
    (bit k: the card of strength k; kind 0: plain order, 1: trump order), and
    RANK_BYTE[kind, .]: the inverse."""
    fwd = np.zeros((2, 256), dtype=np.int64)
    inv = np.zeros((2, 256), dtype=np.int64)
    for kind, strength in enumerate((PLAIN_STRENGTH, TRUMP_STRENGTH)):
        for byte in range(256):
            for r in range(8):
                if (byte >> r) & 1:
                    fwd[kind, byte] |= 1 << int(strength[r])
            inv[kind, fwd[kind, byte]] = byte
    return fwd, inv


STRENGTH_BYTE, RANK_BYTE = _strength_bytes()


def _top_ranks():
    """TOP_RANK[kind, byte]: rank of the strongest card of a suit byte (kind 0: plain
    order, 1: trump order), -1 for an empty byte."""
    out = np.full((2, 256), -1, dtype=np.int64)
    for kind, strength in enumerate((PLAIN_STRENGTH, TRUMP_STRENGTH)):
        for byte in range(1, 256):
            out[kind, byte] = max(
                (r for r in range(8) if (byte >> r) & 1), key=lambda r: strength[r]
            )
    return out


TOP_RANK = _top_ranks()


def _beats_masks():
    """BEATS_MASK[strain, led, card]: the cards that beat ``card`` as the winning card
    of a trick led in ``led`` (``core.beats`` for every card at once)."""
    out = np.zeros((6, 4, 32), dtype=np.int64)
    for strain in range(6):
        for led in range(4):
            for w in range(32):
                for c in range(32):
                    key = WIN_KEY[strain, c]
                    if (c >> 3) != led and key < 16:
                        continue
                    if key > WIN_KEY[strain, w]:
                        out[strain, led, w] |= 1 << c
    return out


BEATS_MASK = _beats_masks()


def _run_tables():
    """ABOVE[sbyte]: the bits of a strength byte above its highest bit (all 8 for an
    empty byte); SUM_POINTS[kind, byte]: points of the cards of a suit byte (kind 0:
    plain points, 1: trump points)."""
    above = np.zeros(256, dtype=np.int64)
    for b in range(256):
        above[b] = 0xFF & ~((2 << (b.bit_length() - 1)) - 1) if b else 0xFF
    sums = np.zeros((2, 256), dtype=np.int64)
    for kind, pts in enumerate((PLAIN_POINTS, TRUMP_POINTS)):
        for b in range(256):
            sums[kind, b] = sum(int(pts[r]) for r in range(8) if (b >> r) & 1)
    return above, sums


ABOVE, SUM_POINTS = _run_tables()


def _cheap_sums():
    """CHEAP_SUM[kind, byte, k]: points of the k cheapest cards of a suit byte
    (kind 0: plain points, 1: trump points)."""
    out = np.zeros((2, 256, 9), dtype=np.int64)
    for kind, pts in enumerate((PLAIN_POINTS, TRUMP_POINTS)):
        for byte in range(256):
            vals = sorted(int(pts[r]) for r in range(8) if (byte >> r) & 1)
            for k in range(1, len(vals) + 1):
                out[kind, byte, k] = out[kind, byte, k - 1] + vals[k - 1]
    return out


CHEAP_SUM = _cheap_sums()


__all__ = [
    "ABOVE",
    "BEATS_MASK",
    "CHEAP_SUM",
    "RANK_BYTE",
    "STRENGTH_BYTE",
    "SUM_POINTS",
    "TOP_RANK",
    "ZERO_MASK",
    "higher_byte",
    "is_trump_suit",
]
