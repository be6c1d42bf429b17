"""The atomic counter that hands out blocks of deals to the threads of a kernel."""

import numba
import numpy as np
from numba import prange

from belote_sim.kernels.atomics import fetch_add


@numba.njit(parallel=True, cache=False)
def _take_all(n_items, n_loops, counter, taken):
    """Every loop iteration takes items from the counter until none is left, as the
    simulation kernels take blocks; ``taken[i]`` counts how often item i was taken."""
    for _ in prange(n_loops):
        item = fetch_add(counter, 0, 1)
        while item < n_items:
            taken[item] += 1
            item = fetch_add(counter, 0, 1)


def test_each_item_is_handed_out_exactly_once_across_threads():
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for n_items, n_loops in ((1, 4), (1000, 2), (200_000, 64)):
        counter = np.zeros(1, np.int64)
        taken = np.zeros(n_items, np.int64)
        _take_all(n_items, n_loops, counter, taken)
        assert taken.min() == 1 and taken.max() == 1, n_items
        # every loop that found the counter spent still added one to it
        assert counter[0] == n_items + n_loops


@numba.njit(cache=False)
def _add(counter, index, value):
    return fetch_add(counter, index, value)


def test_returns_the_old_value_and_adds():
    counter = np.array([5, 40], np.int64)
    assert _add(counter, 1, 3) == 40
    assert _add(counter, 1, -10) == 43
    assert counter.tolist() == [5, 33]
