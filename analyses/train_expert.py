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
   one decision matter), on this round's and the previous round's rows.  Prints a
   held-out check (one decision in five) and writes the weights file.

Each round runs in a fresh process (the weights are compiled into the policy).
Deterministic for a given ``--seed`` (``SeedSequence([seed, round])``, one child per
ruleset and worker; rows concatenated in that order).  About 10 minutes per round
with the defaults on 2 cores.

    python analyses/train_expert.py [--rounds 3] [--deals 24000] [--seed 2026]
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

from belote_sim.kernels.expert_data import (
    OBS_COLUMNS,
    OBS_DEAL,
    OBS_N_PLAYED,
    OBS_SEAT,
    featurize,
    label_decisions,
)
from belote_sim.kernels.expert_model import N_FEATURES, N_SITUATIONS
from belote_sim.kernels.play import search_buffers
from belote_sim.kernels.tables import STRAIN_NAMES
from belote_sim.policies import PLAY_POLICIES, parse_policy
from belote_sim.rules import Rules
from belote_sim.simulation.runner import simulate

OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "output")
WEIGHTS_FILE = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "belote_sim", "kernels", "expert_weights.py"
)


def label(
    n_deals: int, ruleset: str, play: str, explore: float, seed: np.random.SeedSequence
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observations (R, OBS_COLUMNS), values (R, 8), cards (R, 8)) of ``n_deals`` deals."""
    deal_seed, play_seed = seed.spawn(2)
    deals = simulate(n_deals, ruleset, play="greedy", seed=int(deal_seed.generate_state(1)[0]),
                     threads=1)  # fmt: skip
    deals = deals[deals["strain"].notna()]
    hands = deals[[f"hand{s}" for s in range(4)]].to_numpy(np.int64)
    dealers = deals["dealer"].to_numpy(np.int64)
    strains = deals["strain"].map({n: i for i, n in enumerate(STRAIN_NAMES)}).to_numpy(np.int64)
    takers = deals["taker"].to_numpy(np.int64)
    params = np.zeros(8)
    spec = parse_policy(play, PLAY_POLICIES, "play")
    params[: len(spec.params)] = spec.params
    cap = len(deals) * 26
    obs = np.zeros((cap, OBS_COLUMNS), dtype=np.int64)
    values = np.full((cap, 8), -1, dtype=np.int64)
    cards = np.full((cap, 8), -1, dtype=np.int64)
    n = label_decisions(
        hands, dealers, strains, takers, Rules.preset(ruleset).to_array(), params, explore,
        int(play_seed.generate_state(1)[0] >> np.uint64(1)), search_buffers(18),
        obs, values, cards,
    )  # fmt: skip
    return obs[:n], values[:n], cards[:n]


def stage_table(bounds: list[int]) -> np.ndarray:
    """PLY_STAGE: the stage of each card index 0..31 (a new stage starts at each bound)."""
    return np.searchsorted(np.asarray(bounds), np.arange(32), side="right").astype(np.int64)


def fit(
    feats: np.ndarray, values: np.ndarray, rows: np.ndarray, ridge: float, n_classes: int
) -> np.ndarray:
    """Per-class ridge weights (n_classes, N_FEATURES): the card's value minus the
    decision's mean on its features minus their mean.  ``rows``: each decision's class."""
    n_features = feats.shape[2]
    weights = np.zeros((n_classes, n_features))
    order = np.argsort(rows, kind="stable")
    bounds = np.searchsorted(rows[order], np.arange(n_classes + 1))
    for c in range(n_classes):
        sel = order[bounds[c] : bounds[c + 1]]
        if len(sel) == 0:
            continue
        f = feats[sel].astype(np.float64)
        v = values[sel].astype(np.float64)
        present = v >= 0
        n_legal = present.sum(axis=1)
        mean_v = np.where(present, v, 0).sum(axis=1) / n_legal
        mean_f = (f * present[:, :, None]).sum(axis=1) / n_legal[:, None]
        y = np.where(present, v - mean_v[:, None], 0.0).reshape(-1)
        x = np.where(present[:, :, None], f - mean_f[:, None, :], 0.0).reshape(-1, n_features)
        weights[c] = np.linalg.solve(x.T @ x + ridge * np.eye(n_features), x.T @ y)
    return weights


def evaluate(
    feats: np.ndarray, values: np.ndarray, rows: np.ndarray, weights: np.ndarray
) -> dict[str, float]:
    """How often the model's card is a double-dummy best card, and the card points it
    loses to the best card on average (the first legal card's loss for comparison)."""
    got = np.empty(len(values))
    for start in range(0, len(values), 50_000):
        part = slice(start, start + 50_000)
        scores = np.einsum("rkf,rf->rk", feats[part], weights[rows[part]])
        scores = np.where(values[part] >= 0, scores, -np.inf)
        got[part] = values[part][np.arange(len(scores)), scores.argmax(axis=1)]
    best = values.max(axis=1)
    return {
        "decisions": len(values),
        "best_card_share": round(float((got == best).mean()), 4),
        "points_lost": round(float((best - got).mean()), 3),
        "first_card_points_lost": round(float((best - values[:, 0]).mean()), 3),
    }


def write_weights(weights: np.ndarray, stages: np.ndarray, header: str) -> None:
    rows = ",\n".join("    [" + ", ".join(f"{w:.5g}" for w in row) + "]" for row in weights)
    text = (
        f'"""Weights of the ``expert`` policy\'s card model (``expert_model``).\n\n'
        f"{header}\n"
        f'Generated by analyses/train_expert.py; do not edit."""\n\n'
        "import numpy as np\n\n"
        "# fmt: off\n"
        f"PLY_STAGE = np.array({stages.tolist()}, dtype=np.int64)\n"
        f"WEIGHTS = np.array([\n{rows},\n], dtype=np.float64)\n# fmt: on\n"
    )
    with open(WEIGHTS_FILE, "w") as f:
        f.write(text)


RULES_PLAY = "expert:0,0,32,0,0"  # round 0: the hand-written rules
MODEL_PLAY = "expert:0,0,32,0,1"  # later rounds: the model of the round before


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
    parser.add_argument("--deals", type=int, default=24_000, help="deals per ruleset and round")
    parser.add_argument("--rulesets", default="common,bulgarian")
    parser.add_argument("--explore", type=float, default=0.1)
    parser.add_argument("--ridge", type=float, default=1.0)
    parser.add_argument("--stages", default="4,12,20", help="card indexes where a stage begins")
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
            for name in ("deals", "rulesets", "explore", "ridge", "stages", "workers", "seed",
                         "workdir"):  # fmt: skip
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
    feats = np.zeros((len(obs), 8, N_FEATURES), dtype=np.float32)
    situations = np.zeros(len(obs), dtype=np.int64)
    featurize(obs, cards, feats, situations)
    labelled = time.perf_counter() - start
    stages = stage_table([int(b) for b in args.stages.split(",") if b])
    n_stages = int(stages.max()) + 1
    rows = situations * n_stages + stages[obs[:, OBS_N_PLAYED]]
    # held-out check: fit on 80% of the decisions, evaluate on the rest (by deal)
    test = (obs[:, OBS_DEAL] * 7919 + obs[:, OBS_SEAT]) % 5 == 0
    held = fit(feats[~test], values[~test], rows[~test], args.ridge, N_SITUATIONS * n_stages)
    print({"held_out": evaluate(feats[test], values[test], rows[test], held),
           "seconds": round(labelled, 1)}, flush=True)  # fmt: skip
    weights = fit(feats, values, rows, args.ridge, N_SITUATIONS * n_stages)
    if not args.dry_run:
        source = args.load or (
            f"round {args.round} of analyses/train_expert.py (seed {args.seed}, "
            f"{args.rulesets}, {args.deals:,} deals each per round, explore {args.explore})"
        )
        header = (
            f"Fitted on {len(values):,} decisions: {source};\n"
            f"ridge {args.ridge}, stages {args.stages}."
        )
        write_weights(weights, stages, header)


if __name__ == "__main__":
    main()
