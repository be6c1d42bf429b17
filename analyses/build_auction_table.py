"""Measure the ``atlas_auction`` policy's gains table (belote_sim/data/auction_<preset>.npz).

Question: in each auction situation (the caller's position, who holds the contract at
which level, the strain kinds, what was heard, the atlas values of the best strain and
of the held one, in bins: ``kernels.auction_atlas``), which call -- pass, bid the best
strain, double, redouble -- scores more than the ``atlas`` bidder's own call, when the
other three players bid as the atlas does?  Every deal is bid and played by four atlas
players, one of its calls drawn at random is replayed every legal way on the same deal
(``kernels.auction_samples``), and a call enters the table where its mean gain is
above ``--z`` standard errors over at least ``--min-n`` deals
(``simulation.auction_table.fit_gains``).  Seed 2026, the default play policy.

    python analyses/build_auction_table.py --ruleset common --deals 4000000 [--threads N]
        [-o PATH] [--samples PATH.npy]

Prints the table's meta as JSON (deals, seconds, cells and actions kept).
"""

import argparse
import json
import sys
import time

import numpy as np

from belote_sim.atlas import play_spec
from belote_sim.policies import DEFAULT_PLAY
from belote_sim.rules import Rules
from belote_sim.simulation.auction_measure import measure
from belote_sim.simulation.auction_table import (
    ACTIONS,
    fit_gains,
    save_auction_table,
    shipped_auction_table,
)
from belote_sim.simulation.output import Output


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ruleset", default="common")
    parser.add_argument("--deals", type=int, default=4_000_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--play", default=DEFAULT_PLAY)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--z", type=float, default=2.5)
    parser.add_argument("--min-n", type=int, default=200)
    parser.add_argument("-o", "--output", default=None)
    parser.add_argument("--samples", default=None, help="also keep the sample rows (.npy)")
    parser.add_argument(
        "--from-samples", default=None, help="fit from sample rows saved by --samples"
    )
    args = parser.parse_args()
    rules = Rules.preset(args.ruleset)
    start = time.perf_counter()
    if args.from_samples:
        samples = np.load(args.from_samples, allow_pickle=False)
    else:
        from tqdm import tqdm

        bar = tqdm(total=args.deals, unit="deal", unit_scale=True, file=sys.stderr, mininterval=10)
        samples = measure(
            rules,
            args.deals,
            seed=args.seed,
            play=args.play,
            threads=args.threads,
            progress=bar.update,
        )
        bar.close()
        if args.samples:  # under the output discipline, as every writer
            with Output(args.samples, what="the sample rows", overwrite=True) as out:
                with open(out.tmp, "wb") as f:
                    np.save(f, samples)
                out.commit()
    fit = fit_gains(samples, z=args.z, min_n=args.min_n)
    kept = fit.gains > 0
    meta = {
        "ruleset": rules.name,
        "options": rules.options(),
        # the full spec: a short one ("expert:0") would name another player once the
        # default parameters change
        "play": play_spec(args.play, rules),
        "deals": len(samples),
        "seed": args.seed,
        "z": args.z,
        "min_n": args.min_n,
        "cells_kept": int(kept.any(axis=1).sum()),
        "kept_by_action": {name: int(kept[:, a].sum()) for a, name in enumerate(ACTIONS)},
    }
    save_auction_table(args.output or shipped_auction_table(rules), fit, meta)
    print(json.dumps({**meta, "wall_seconds": round(time.perf_counter() - start, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
