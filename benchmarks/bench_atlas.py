"""Atlas build throughput against plain ``simulate`` with the same play policy, printed as
one JSON object.

* ``atlas_deals_per_s``: ``kernels.atlas.atlas_cells`` (what ``build_atlas`` runs) on
  ``--cells`` cells drawn from every kind and position, ``--per-cell`` deals each,
  every deal played and scored at x1, x2 and x4;
* ``simulate_deals_per_s``: ``simulate()`` of the same number of deals, default
  (threshold) bidding -- thrown-in deals are not played, which flatters it;
* ``simulate_fixed_deals_per_s``: ``simulate()`` with a fixed contract (every deal
  played, as in the atlas);
* ``ratio``: atlas / simulate.  The runs alternate ``--repeat`` times; best of each.

    python benchmarks/bench_atlas.py [--cells N] [--per-cell N] [--play greedy]
        [--threads N] [--repeat K]

``--play`` defaults to the default play policy (``policies.DEFAULT_PLAY``).
"""

import argparse
import json
import os
import time

import numpy as np

from belote_sim.atlas import AtlasPlay, cell_grid, run_cells
from belote_sim.policies import DEFAULT_PLAY
from belote_sim.simulation.atlas_table import KIND_STRAIN, hand_classes, key_hands
from belote_sim.simulation.runner import make_study, numba_threads, simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cells", type=int, default=4000)
    parser.add_argument("--per-cell", type=int, default=100)
    parser.add_argument("--play", default=DEFAULT_PLAY)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    study = make_study("common", "fixed:0,0,0", args.play, 0)
    kind, row, pos = cell_grid([0, 1, 2], [1, 2, 3, 4], None)
    pick = np.random.default_rng(0).choice(len(kind), args.cells, replace=False)
    kind, row, pos = kind[pick], row[pick], pos[pick]
    hands = np.array([key_hands(hand_classes(k)[0][r : r + 1], k)[0] for k, r in zip(kind, row)])
    strains = np.array(KIND_STRAIN)[kind]
    counts = np.full(len(kind), args.per_cell, dtype=np.int64)
    seeds = np.arange(len(kind), dtype=np.int64)
    play = AtlasPlay.of(study)
    n = int(counts.sum())

    def atlas_run():
        run_cells(hands, strains, pos, counts, seeds, play, args.threads)

    def sim_run():
        simulate(n, play=args.play, seed=1, threads=args.threads)

    def fixed_run():
        simulate(n, bidding="fixed:0,2,0", play=args.play, seed=1, threads=args.threads)

    runs = {"atlas": atlas_run, "simulate": sim_run, "simulate_fixed": fixed_run}
    run_cells(hands[:2], strains[:2], pos[:2], counts[:2], seeds[:2], play)  # compile
    simulate(100, play=args.play)
    simulate(100, bidding="fixed:0,2,0", play=args.play)
    best = {k: float("inf") for k in runs}
    with numba_threads(args.threads) as threads:
        for _ in range(args.repeat):
            for name, run in runs.items():
                start = time.perf_counter()
                run()
                best[name] = min(best[name], time.perf_counter() - start)
    out = {
        "deals": n,
        "play": args.play,
        "threads": threads,
        "atlas_deals_per_s": n / best["atlas"],
        "simulate_deals_per_s": n / best["simulate"],
        "simulate_fixed_deals_per_s": n / best["simulate_fixed"],
        "loadavg": os.getloadavg()[0],
    }
    out["ratio"] = out["atlas_deals_per_s"] / out["simulate_deals_per_s"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
