"""Bit helpers on card masks: the one home of popcount, lowest card and prefetch.

``popcount`` and ``lowest_card`` compile to single instructions (``popcnt``,
``tzcnt``) through LLVM intrinsics; every kernel that counts or scans a mask uses
these (``cards.popcount`` is the plain-Python twin for the validating layer).  The
intrinsics live in ``numba_internals``; where one cannot be used, the plain version
here is (``nth_card_loop`` for ``pdep``, a no-op for ``prefetch``).
"""

import numpy as np

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.numba_internals import PROBES, ctpop, trailing_zeros
from belote_sim.kernels.numba_internals import pdep as _pdep
from belote_sim.kernels.numba_internals import prefetch as _prefetch


@kernel
def prefetch_noop(arr, row):
    """``prefetch`` where numba cannot emit ``llvm.prefetch``: nothing (a hint only)."""


#: Prefetch the cache line of ``arr[row, 0]`` (a 2-d array) for reading.
prefetch = _prefetch if PROBES["prefetch"].ok else prefetch_noop


@kernel
def popcount(mask):
    """Number of set bits of a 32-bit mask (number of cards)."""
    return ctpop(mask & 0xFFFFFFFF)


@kernel
def lowest_card(mask):
    """Index of the lowest set bit of a non-zero mask (one ``tzcnt`` instruction)."""
    return trailing_zeros(mask)


@kernel
def nth_card_loop(mask, n):
    """Index of the n-th (0-based, lowest first) set bit of a mask: clear n bits."""
    for _ in range(n):
        mask &= mask - 1
    return lowest_card(mask)


@kernel
def nth_card_pdep(mask, n):
    """``nth_card_loop`` in two instructions (``pdep``, ``tzcnt``): no loop and no
    mispredicted branch; only for CPUs with BMI2."""
    return trailing_zeros(_pdep(np.int64(1) << n, mask))


#: Whether the CPU numba compiles for has a fast ``pdep`` (BMI2: Intel from Haswell,
#: AMD from Zen 3) and numba lets us emit it (``numba_internals.PROBES["pdep"]``).
FAST_PDEP = PROBES["pdep"].ok

#: Index of the n-th (0-based, lowest first) set bit of a mask (a random legal card is
#: ``nth_card(legal, random_below(state, popcount(legal)))``).
nth_card = nth_card_pdep if FAST_PDEP else nth_card_loop


__all__ = [
    "FAST_PDEP",
    "lowest_card",
    "nth_card",
    "nth_card_loop",
    "nth_card_pdep",
    "popcount",
    "prefetch",
    "prefetch_noop",
]
