"""A record taken from a record array a kernel made itself (``records.keep_alive``)."""

import numpy as np

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.records import DEAL, deal_record, keep_alive

_WORDS = DEAL.itemsize // 8 + 2  # an allocation the size of the freed record array


@kernel
def _record_after_allocations():
    """Write through the record of a ``DEAL`` array made here, allocate arrays of its
    size filled with 7, read the record back (``deals`` held by ``keep_alive``)."""
    deals = deal_record()
    deal = deals[0]
    deal.n_given = 3
    deal.cards[5] = 11
    fills = 0
    for _ in range(8):
        other = np.empty(_WORDS, dtype=np.int64)
        other[:] = 7
        fills += other[0]
    got = (deal.n_given, deal.cards[5], fills)
    keep_alive(deals)
    return got


def test_a_record_array_held_by_keep_alive_is_not_reused():
    """Without a use of ``deals`` after the record's last use, numba frees the array
    there and the allocations after it may take its memory (the record then reads 7:
    a use-after-free, seen in ``expert_data.label_decisions``); with ``keep_alive``
    the record keeps what was written through it."""
    assert _record_after_allocations() == (3, 11, 56)
