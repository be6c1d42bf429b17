"""Rebuild the ``expert`` policy's card model (belote_sim/kernels/expert_weights.py).

Question: which legal card would a strong player choose, from what he sees?  Answer
learned from exact values, in rounds (``--rounds``, default 3):

1. Deals and contracts: ``simulate`` (greedy play, threshold bidding) of each ruleset.
2. Labels: the deals are played again by ``expert`` -- round 0 by its hand-written
   rules, each later round by the model of the round before -- with a share
   ``--explore`` of uniformly random cards for variety; at every decision with two
   legal cards or more the player's observation is kept with the exact double-dummy
   value of each legal card on the real deal (``kernels.expert_data``), in
   ``--workdir``/roundN.npz.
3. Fit: the observations become features (``featurize``); per situation class, a
   ridge regression of the card's value minus the mean value of the decision's legal
   cards on its features minus their mean (only the differences between the cards of
   one decision matter), on this round's and the previous round's rows; then a
   hidden layer (``--hidden`` rectified units, ``--epochs`` passes of Adam, seeded)
   is trained with the linear part on the same target.  Both are fitted on four
   decisions in five (by deal); the fifth is the held-out check it prints.  Writes
   the weights file.

Each round runs in a fresh process (the weights are compiled into the policy).
Seed 2026 by default; deterministic for a given ``--seed`` (``SeedSequence([seed,
round])``, one child per ruleset and worker; rows concatenated in that order; the
hidden layer's float32 sums may differ in the last bits with the BLAS thread count).
About 12-13 minutes per round with the defaults on 2 cores (36 minutes in all).

    python analyses/train_expert.py [--rounds 3] [--deals 36000] [--seed 2026]
    python analyses/train_expert.py --load a.npz,b.npz [--dry-run]   # fit only
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from belote_sim.simulation.expert_training import (
    N_SITUATIONS,
    OBS_DEAL,
    OBS_SEAT,
    class_rows,
    evaluate,
    features,
    fit,
    fit_hidden,
    label,
    stage_table,
    write_weights,
)

OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "output")

RULES_PLAY = "expert:0,0,32,0,0"  # round 0: the hand-written rules
MODEL_PLAY = "expert:0,0,32,0,2"  # later rounds: the network of the round before


def held_out(obs: np.ndarray) -> np.ndarray:
    """The held-out fifth of labelled decisions (by deal and seat): never fitted on,
    used to check the fit."""
    return (obs[:, OBS_DEAL] * 7919 + obs[:, OBS_SEAT]) % 5 == 0


def label_round(args: argparse.Namespace) -> list[tuple[np.ndarray, ...]]:
    """Label the decisions of round ``args.round`` (its own seeds) and save them."""
    play = RULES_PLAY if args.round == 0 else MODEL_PLAY
    rulesets = args.rulesets.split(",")
    root = np.random.SeedSequence([args.seed, args.round])
    children = root.spawn(len(rulesets) * args.workers)
    jobs = [
        (r, children[i * args.workers + w])
        for i, r in enumerate(rulesets)
        for w in range(args.workers)
    ]
    per_job = args.deals // args.workers
    with ThreadPoolExecutor(args.workers) as pool:
        parts = list(pool.map(lambda j: label(per_job, j[0], play, args.explore, j[1]), jobs))
    obs = np.concatenate([p[0] for p in parts])
    values = np.concatenate([p[1] for p in parts])
    cards = np.concatenate([p[2] for p in parts])
    # deal numbers made unique across the parts (for the held-out split)
    offset = np.repeat(np.arange(len(parts)) * 1_000_000, [len(p[0]) for p in parts])
    obs[:, OBS_DEAL] += offset + args.round * 100_000_000
    os.makedirs(args.workdir, exist_ok=True)
    np.savez_compressed(
        os.path.join(args.workdir, f"round{args.round}.npz"), obs=obs, values=values, cards=cards
    )
    return [(obs, values, cards)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="label-and-fit rounds")
    parser.add_argument("--deals", type=int, default=36_000, help="deals per ruleset and round")
    parser.add_argument("--rulesets", default="common,bulgarian")
    parser.add_argument("--explore", type=float, default=0.1)
    parser.add_argument("--ridge", type=float, default=1.0)
    parser.add_argument("--stages", default="4,12,20", help="card indexes where a stage begins")
    parser.add_argument("--hidden", type=int, default=64, help="hidden units of the network")
    parser.add_argument("--epochs", type=int, default=8, help="passes of the hidden layer's fit")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workdir", default=os.path.join(OUTPUT, "expert_training"))
    parser.add_argument("--load", default="", help="only fit, on saved rounds (comma list)")
    parser.add_argument("--dry-run", action="store_true", help="fit and report, keep the weights")
    parser.add_argument("--round", type=int, default=-1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.load and args.round < 0:
        # each round in a fresh process: the model it plays is the weights file the
        # round before wrote (compiled in as a constant)
        for r in range(args.rounds):
            cmd = [sys.executable, os.path.abspath(__file__), "--round", str(r)]
            for name in ("deals", "rulesets", "explore", "ridge", "stages", "hidden", "epochs",
                         "workers", "seed", "workdir"):  # fmt: skip
                cmd += [f"--{name}", str(getattr(args, name))]
            if args.dry_run:
                cmd.append("--dry-run")
            print(f"round {r}:", flush=True)
            subprocess.run(cmd, check=True)
        return
    start = time.perf_counter()
    if args.load:
        paths = args.load.split(",")
        parts = []
    else:
        parts = label_round(args)
        paths = [os.path.join(args.workdir, f"round{args.round - 1}.npz")] if args.round else []
    for path in paths:
        with np.load(path, allow_pickle=False) as z:
            parts.append((z["obs"], z["values"], z["cards"]))
    obs = np.concatenate([p[0] for p in parts])
    values = np.concatenate([p[1] for p in parts])
    cards = np.concatenate([p[2] for p in parts])
    feats, situations = features(obs, cards)
    stages = stage_table([int(b) for b in args.stages.split(",") if b])
    n_stages = int(stages.max()) + 1
    rows = class_rows(situations, obs, stages)
    # held-out check: fit on 80% of the decisions (by deal), evaluate on the rest
    test = held_out(obs)
    linear = fit(feats[~test], values[~test], rows[~test], args.ridge, N_SITUATIONS * n_stages)
    report = {"linear": evaluate(feats[test], values[test], rows[test], linear)}
    net = fit_hidden(
        feats[~test], values[~test], rows[~test], linear, args.hidden, args.epochs,
        args.seed * 1000 + max(args.round, 0),
    )  # fmt: skip
    report["net"] = evaluate(feats[test], values[test], rows[test], net)
    report["seconds"] = round(time.perf_counter() - start, 1)
    print(report, flush=True)
    if not args.dry_run:
        source = args.load or (
            f"round {args.round} of analyses/train_expert.py (seed {args.seed}, "
            f"{args.rulesets}, {args.deals:,} deals each per round, explore {args.explore})"
        )
        header = (
            f"Fitted on {int((~test).sum()):,} decisions (4 in 5; on the 5th, held out, "
            f"card points lost per decision: linear {report['linear']['points_lost']}, "
            f"network {report['net']['points_lost']}):\n{source};\n"
            f"ridge {args.ridge}, stages {args.stages}, {args.hidden} hidden units, "
            f"{args.epochs} passes."
        )
        write_weights(linear, net, stages, header)


if __name__ == "__main__":
    main()
