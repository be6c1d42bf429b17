"""Rules-engine throughput on one thread, printed as one JSON object.

- ``legal_mask_calls_per_s``: legal-card masks computed per second (batch kernel over
  1,000,000 random positions: a hand, 0-3 cards of the trick so far, a strain).
- ``random_playouts_per_s``: full deals per second -- uniform deal, random strain,
  taker and dealer, declarations of all four hands, 32 uniformly random legal cards,
  scoring to match points (``belote_sim.kernels.playouts.random_playouts``).

Timings exclude compilation (a warm-up call first); best of 3 runs.

    python benchmarks/bench_engine.py [--deals N] [--positions N]
"""

import argparse
import json
import os
import platform
import sys
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numba
import numpy as np

from belote_sim import Rules, __version__
from belote_sim.kernels.core import legal_masks_batch
from belote_sim.kernels.playouts import random_playouts


def best_of(fn, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def random_positions(n, seed=0):
    rng = np.random.default_rng(seed)
    perms = np.argsort(rng.random((n, 32)), axis=1)
    hand_size = rng.integers(1, 9, size=n)
    hands = np.zeros(n, dtype=np.int64)
    for k in range(8):
        hands |= np.where(k < hand_size, np.int64(1) << perms[:, k], 0)
    tricks = perms[:, 8:12].astype(np.int64)
    n_played = rng.integers(0, 4, size=n).astype(np.int64)
    strains = rng.integers(0, 6, size=n).astype(np.int64)
    return hands, tricks, n_played, strains


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--positions", type=int, default=1_000_000)
    args = parser.parse_args()

    rules = Rules.preset("common").to_array()
    hands, tricks, n_played, strains = random_positions(args.positions)
    legal_masks_batch(hands[:10], tricks[:10], n_played[:10], strains[:10], rules)
    t_legal = best_of(lambda: legal_masks_batch(hands, tricks, n_played, strains, rules))

    out = np.zeros((args.deals, 8), dtype=np.int64)
    random_playouts(10, 0, rules, out[:10])
    t_play = best_of(lambda: random_playouts(args.deals, 1, rules, out))

    print(
        json.dumps(
            {
                "legal_mask_calls_per_s": round(args.positions / t_legal),
                "random_playouts_per_s": round(args.deals / t_play),
                "random_playout_ns": round(t_play / args.deals * 1e9, 1),
                "threads": 1,
                "numba": numba.__version__,
                "numpy": np.__version__,
                "python": platform.python_version(),
                "belote_sim": __version__,
            }
        )
    )


if __name__ == "__main__":
    main()
