"""Is the ``expert`` card network short of data or of capacity?

Question: how much does the network's held-out loss (card points lost per decision
to a double-dummy best card) fall with twice the training decisions, twice the hidden
units or twice the passes of Adam?  If little, closing the gap to PIMC needs new
inputs (features), not a bigger fit.

1. Labels ``--rounds`` extra rounds of decisions (numbered from 3, after the 0-2 of
   ``train_expert.py``; its seeds, ``SeedSequence([seed, round])``), each played by the
   shipped network (``train_expert.MODEL_PLAY``), saved in ``--workdir``/seedS_dealsN (kept:
   a later run reuses them).
2. Fits each setting of ``--fits`` (``ROUNDS:HIDDEN:EPOCHS``, the rounds as a ``+``
   list) on four decisions in five of those rounds, by deal, as ``train_expert.py``
   does, and checks every fit on one held-out set: the fifth decision of every labelled
   round, never fitted on.  Also the loss on 500,000 of the fit's own rows (a small gap
   says more data would not help much).

Seed 2026 by default (``--seed``): the labels and the fits are fixed by it.
Prints one line per fit and writes analyses/output/card_model_scaling.json.  The
weights are not written (``train_expert.py`` makes the shipped ones).  About 10
minutes a round of labels and 5-16 minutes a fit on 2 cores; ~14 GB of memory for a
fit on four rounds.

    python analyses/card_model_scaling.py [--rounds 4] [--fits 3+4:64:8,3+4+5+6:64:8,...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import train_expert

from belote_sim.simulation.expert_training import (
    N_SITUATIONS,
    class_rows,
    evaluate,
    features,
    fit,
    fit_hidden,
    stage_table,
)

OUT = Path(__file__).parent / "output"
FIRST_ROUND = 3
FITS = "3+4:64:8,3+4+5+6:64:8,3+4+5+6:128:8,3+4+5+6:64:16"


def parse_fits(text: str, rounds: list[int]) -> list[tuple[list[int], int, int]]:
    """``--fits`` as (rounds, hidden units, passes) per fit; a bad setting is refused
    here, before the labels' hour of work."""
    fits = []
    for spec in text.split(","):
        parts = spec.split(":")
        try:
            used, hidden, epochs = [int(r) for r in parts[0].split("+")], *map(int, parts[1:])
        except ValueError:
            used, hidden, epochs = [], 0, 0
        if len(parts) != 3 or hidden < 1 or epochs < 1 or not used:
            raise SystemExit(f"--fits {spec!r}: expected ROUNDS:HIDDEN:EPOCHS, e.g. 3+4:64:8")
        if any(r not in rounds for r in used):
            raise SystemExit(f"--fits {spec!r}: rounds must be among {rounds} (--rounds)")
        fits.append((used, hidden, epochs))
    return fits


def rows_of(paths: list[str], want_held_out: bool, stages: np.ndarray):
    """(features, values, weight rows) of the fitted or held-out part of saved rounds;
    the features are built for that part only (the whole set's features would double
    the memory)."""
    parts = []
    for path in paths:
        with np.load(path, allow_pickle=False) as z:
            obs, values, cards = z["obs"], z["values"], z["cards"]
        keep = train_expert.held_out(obs) == want_held_out
        parts.append((obs[keep], values[keep], cards[keep]))
    obs, values, cards = (np.concatenate([p[i] for p in parts]) for i in range(3))
    feats, situations = features(obs, cards)
    return feats, values, class_rows(situations, obs, stages)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="extra rounds of labels")
    parser.add_argument("--deals", type=int, default=36_000, help="deals per ruleset and round")
    parser.add_argument("--fits", default=FITS, help="ROUNDS:HIDDEN:EPOCHS, comma list")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workdir", default=str(OUT / "card_model_scaling"))
    args = parser.parse_args()
    rounds = list(range(FIRST_ROUND, FIRST_ROUND + args.rounds))
    fits = parse_fits(args.fits, rounds)

    # one folder per seed and size: a saved round is reused only for the same labels
    labels = os.path.join(args.workdir, f"seed{args.seed}_deals{args.deals}")

    def path(r: int) -> str:
        return os.path.join(labels, f"round{r}.npz")

    for r in rounds:
        if os.path.exists(path(r)):
            continue
        start = time.perf_counter()
        label_args = argparse.Namespace(
            round=r, rulesets="common,bulgarian", seed=args.seed, workers=2,
            deals=args.deals, explore=0.1, workdir=labels,
        )  # fmt: skip
        ((obs, _, _),) = train_expert.label_round(label_args)
        print(f"round {r}: {len(obs):,} decisions, {time.perf_counter() - start:.0f} s",
              flush=True)  # fmt: skip
    stages = stage_table([4, 12, 20])
    n_classes = N_SITUATIONS * (int(stages.max()) + 1)
    test_f, test_v, test_r = rows_of([path(r) for r in rounds], True, stages)
    results = []
    for used, hidden, epochs in fits:
        spec = f"{'+'.join(map(str, used))}:{hidden}:{epochs}"
        start = time.perf_counter()
        feats, values, rows = rows_of([path(r) for r in used], False, stages)
        linear = fit(feats, values, rows, 1.0, n_classes)
        net = fit_hidden(feats, values, rows, linear, hidden, epochs, args.seed * 1000 + 9)
        n = min(len(values), 500_000)
        result = {
            "fit": spec,
            "fitted_decisions": len(values),
            "held_out_decisions": len(test_v),
            "linear": evaluate(test_f, test_v, test_r, linear),
            "net": evaluate(test_f, test_v, test_r, net),
            "net_on_fitted_rows": evaluate(feats[:n], values[:n], rows[:n], net),
            "seconds": round(time.perf_counter() - start),
        }
        del feats, values, rows
        results.append(result)
        print(
            f"{spec}: fitted {result['fitted_decisions']:,}, held-out loss "
            f"{result['net']['points_lost']} (linear {result['linear']['points_lost']}), "
            f"on fitted rows {result['net_on_fitted_rows']['points_lost']}, "
            f"{result['seconds']} s",
            flush=True,
        )
    OUT.mkdir(exist_ok=True)
    summary = {"seed": args.seed, "deals_per_ruleset_and_round": args.deals,
               "rounds": rounds, "fits": results}  # fmt: skip
    (OUT / "card_model_scaling.json").write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
