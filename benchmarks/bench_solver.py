"""Double-dummy solver speed on one thread, printed as one JSON object.

- ``solve_median_ms`` / ``solve_p99_ms``: full deals (8 tricks), one strain, one
  leader, exact card points of team 0 (``belote_sim.deal.solver.solve``): uniform deals,
  strain and first leader uniform, ``common`` play rules (``--rules``).
- ``dd_table_median_ms``: ``dd_table`` (6 strains x 4 leaders) of a full deal.
- ``pimc30_decisions_per_s``: PIMC decisions (``pimc_scores``, 30 samples: the unseen
  cards dealt uniformly among the deals consistent with hand sizes and shown voids,
  every legal card solved exactly in each) per second, for the player to move in
  mid-deal positions (8 to 16 cards played by random legal play).

One ``Solver`` (transposition table) is reused by all calls, as a long study would;
entries are exact positions, so this never changes a value.  Timings exclude
compilation (a warm-up call first).

    python benchmarks/bench_solver.py [--deals 200] [--tables 20] [--decisions 20]
"""

import argparse
import json
import os
import platform
import sys
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np

from belote_sim import __version__
from belote_sim.cards import format_cards
from belote_sim.deal import solver as BS
from belote_sim.deal.playout import random_record
from belote_sim.deal.replay import replay
from belote_sim.kernels import solver as K
from belote_sim.kernels.tables import STRAIN_NAMES
from belote_sim.rules import Rules


def full_deals(n, seed, rules):
    hands = np.zeros((n, 4), np.int64)
    leaders = np.zeros(n, np.int64)
    tricks = np.zeros((n, 4), np.int64)
    n_tricks = np.zeros(n, np.int64)
    strains = np.zeros(n, np.int64)
    K.random_positions(
        seed,
        n,
        0,
        0,
        -1,
        rules.to_array(),
        hands,
        leaders,
        tricks,
        n_tricks,
        strains,
    )
    return hands, leaders, strains


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--decisions", type=int, default=20)
    parser.add_argument("--rules", default="common")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    solver = BS.Solver()

    hands, leaders, strains = full_deals(args.deals, args.seed, rules)
    BS.solve(
        [int(h) for h in hands[0]], int(strains[0]), int(leaders[0]), 0, rules, solver=solver
    )  # compile
    times = []
    for i in range(args.deals):
        h = [int(x) for x in hands[i]]
        start = time.perf_counter()
        BS.solve(h, int(strains[i]), int(leaders[i]), 0, rules, solver=solver)
        times.append(time.perf_counter() - start)
    times_ms = np.array(times) * 1e3

    table_times = []
    thands, _, _ = full_deals(args.tables, args.seed + 1, rules)
    for i in range(args.tables):
        h = [int(x) for x in thands[i]]
        start = time.perf_counter()
        BS.dd_table(h, rules, as_frame=False, solver=solver)
        table_times.append(time.perf_counter() - start)

    observations = []
    rng = np.random.default_rng(args.seed)
    k = 0
    while len(observations) < args.decisions:
        rec = random_record(args.seed + 10_000 + k, rules, n_plays=int(rng.integers(8, 17)))
        k += 1
        r = replay(rec)
        seat = r["to_play"]
        played = set(rec["plays"])
        hand = [c for c in rec["hands"][seat].split() if c not in played]
        observations.append(
            (hand, seat, rec["plays"], (rec["dealer"] + 1) % 4, rec["contract"]["strain"])
        )
    BS.pimc_scores(*observations[0], rules=rules, samples=2, solver=solver)  # compile
    start = time.perf_counter()
    for i, obs in enumerate(observations):
        BS.pimc_scores(*obs, rules=rules, samples=30, seed=i, solver=solver)
    pimc_s = time.perf_counter() - start

    per_strain = {}
    for code, name in enumerate(STRAIN_NAMES):
        sel = strains == code
        if sel.any():
            per_strain[name] = round(float(np.median(times_ms[sel])), 3)
    print(
        json.dumps(
            {
                "solve_median_ms": round(float(np.median(times_ms)), 3),
                "solve_p99_ms": round(float(np.percentile(times_ms, 99)), 3),
                "solve_mean_ms": round(float(times_ms.mean()), 3),
                "solve_median_ms_by_strain": per_strain,
                "dd_table_median_ms": round(float(np.median(table_times)) * 1e3, 3),
                "pimc30_decisions_per_s": round(args.decisions / pimc_s, 3),
                "deals": args.deals,
                "tables": args.tables,
                "decisions": args.decisions,
                "rules": rules.name,
                "threads": 1,
                "example_deal": [" ".join(format_cards(int(h))) for h in hands[0]],
                "version": __version__,
                "machine": platform.machine(),
                "python": platform.python_version(),
            }
        )
    )


if __name__ == "__main__":
    main()
