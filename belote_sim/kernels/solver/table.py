"""Transposition table: position keys, bucket slots and the entry layout.

``tt`` (``stack.new_tt``) is an ``(N, 3)`` int64 array, ``N`` a power of two, of 2-way
buckets (entries ``slot`` and ``slot + 1``, ``slot`` even).  An entry:

- ``tt[e, 0]``: key word 0, hands 0 and 1 (``h0 | h1 << 32``, ``tt_keys``);
- ``tt[e, 1]``: key word 1, hands 2 and 3;
- ``tt[e, 2]``: the data word -- bits 0-9 ``tt_meta`` (leader, strain, maximising team,
  play options and an "in use" bit: part of the key), bits 16-31 a lower and bits
  32-47 an upper bound on the points still to come (card points, last-trick 10
  included, for the maximising team), bits 48-55 the best card + 1 (0: none), bits
  56-59 the depth (cards in the leader's hand), bits 60-63 the generation
  (``stack.G_GEN``).

The key is the complete position, all checked, so there are no false hits.  The
probe and the store are written out in ``search.alpha_beta``: a call that passes the
table takes a reference to it (two atomic operations per probe), and so does an
``inline="always"`` helper (a ``_tt_find(tt, ...)`` inlined at both probes added 2
``NRT_incref`` and 6 ``NRT_decref`` calls to ``alpha_beta``'s LLVM IR).  The helpers
here take and return scalars only.
"""

import numpy as np

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.solver.suit_tables import is_trump_suit
from belote_sim.kernels.tables import R_RAISE_OVER_PARTNER, R_UNDERTRUMP

HASH_M0 = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64
HASH_M1 = -4417276706812531889  # 0xC2B2AE3D27D4EB4F as int64


@lean_kernel
def tt_meta(leader, strain, max_team, rules):
    """Low 10 bits of a data word: the part of the key that is not the hands (bit 9 set:
    the entry is in use)."""
    options = rules[R_RAISE_OVER_PARTNER] | (rules[R_UNDERTRUMP] << 1)
    return (1 << 9) | leader | (strain << 2) | (max_team << 5) | (options << 6)


def _pack_bits():
    """PACK[z, b]: the bits of ``b`` (a subset of ``z``, 3 bits) moved onto the lowest
    bits, in order (bit j: the j-th set bit of ``z``)."""
    out = np.zeros((8, 8), dtype=np.int64)
    for z in range(8):
        pos = [r for r in range(3) if (z >> r) & 1]
        for b in range(8):
            out[z, b] = sum(1 << j for j, r in enumerate(pos) if (b >> r) & 1)
    return out


PACK = _pack_bits()


@kernel(inline="always")
def tt_keys(h0, h1, h2, h3, strain):
    """Table key words of a position at a trick boundary.

    The zero-point cards of each suit (7 8 9 plain, 7 8 trump) lie below every other
    card of their suit, so only their order matters: they are renumbered onto the
    lowest ranks (owners and order kept; ``PACK``) before the hands are packed.
    """
    allc = h0 | h1 | h2 | h3
    for suit in range(4):
        shift = 8 * suit
        zero = 0x3 if is_trump_suit(suit, strain) else 0x7
        z = (allc >> shift) & zero
        if z & (z + 1) == 0:
            continue  # none, or already packed at the bottom
        keep = ~(zero << shift)
        h0 = (h0 & keep) | (PACK[z, (h0 >> shift) & zero] << shift)
        h1 = (h1 & keep) | (PACK[z, (h1 >> shift) & zero] << shift)
        h2 = (h2 & keep) | (PACK[z, (h2 >> shift) & zero] << shift)
        h3 = (h3 & keep) | (PACK[z, (h3 >> shift) & zero] << shift)
    return h0 | (h1 << 32), h2 | (h3 << 32)


@kernel
def tt_slot(k0, k1, meta, tt_mask):
    """First entry of the 2-way bucket of a position."""
    hh = k0 * HASH_M0 + k1 * HASH_M1 + meta
    hh ^= hh >> 32
    hh *= HASH_M1
    hh ^= hh >> 29
    return hh & tt_mask & ~1


@kernel
def tt_word(meta, lo, hi, card, depth, gen):
    """The data word of an entry: ``meta``, bounds ``lo <= value <= hi`` on the points
    still to come, best ``card`` (-1: none), ``depth`` and generation ``gen``."""
    return meta | (lo << 16) | (hi << 32) | ((card + 1) << 48) | (depth << 56) | (gen << 60)


@kernel
def tt_lower(d):
    """Lower bound on the points still to come, from a data word."""
    return (d >> 16) & 0xFFFF


@kernel
def tt_upper(d):
    """Upper bound on the points still to come, from a data word."""
    return (d >> 32) & 0xFFFF


@kernel
def tt_card(d):
    """Best card of a data word (-1: none)."""
    return ((d >> 48) & 0xFF) - 1


@kernel
def tt_depth(d):
    """Depth of a data word (cards in the leader's hand)."""
    return (d >> 56) & 0xF


@kernel
def tt_gen(d):
    """Generation of a data word."""
    return (d >> 60) & 0xF


__all__ = [
    "HASH_M0",
    "HASH_M1",
    "PACK",
    "tt_card",
    "tt_depth",
    "tt_gen",
    "tt_keys",
    "tt_lower",
    "tt_meta",
    "tt_slot",
    "tt_upper",
    "tt_word",
]
