"""The compiled seed generator equals numpy's SeedSequence.generate_state exactly."""

import numpy as np
import pytest

from belote_sim.kernels.rng import seed_sequence_words
from belote_sim.simulation.runner import make_study


@pytest.mark.parametrize(
    ("entropy", "key", "n"),
    [(0, 0, 1), (12345, 7, 4099), (2**70 + 3, 2**31 - 1, 1001), (5, 3, 0), (2**64 - 1, 0, 17)],
)
def test_seed_sequence_words_is_generate_state(entropy, key, n):
    ss = np.random.SeedSequence(entropy, spawn_key=(key,))
    out = np.empty(n, dtype=np.uint64)
    seed_sequence_words(ss.pool, out)
    assert np.array_equal(out, ss.generate_state(n, dtype=np.uint64))


def test_chunk_seeds_are_the_seed_sequence_children():
    study = make_study("common", seed=99, chunk_size=500)
    expected = np.random.SeedSequence(99, spawn_key=(3,)).generate_state(500, dtype=np.uint64)
    assert np.array_equal(study.chunk_seeds(3, 500), expected)
