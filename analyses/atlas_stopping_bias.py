"""Does a shipped atlas cell's value depend on the number of deals it stopped at?

Question (issue 39, item 4): the atlas build stops each cell adaptively (200 deals,
then top-ups that depend on the deals so far: ``belote_sim.atlas.needed_deals``), so a
cell's estimate is biased given its final n.  This script measures that bias, and
what the stopping-rule correction of ``belote_sim.simulation.stopping`` (the P(made)
rule's exact law, inverted) does to it, against independent fresh estimates.

Method: the measured cells of each shipped atlas are put in bins by their final n
(200, 201-400, 401-500, 501-624, 625, 626-2999, 3000-4999, 5000); ``--per-bin`` cells
are drawn at random from each bin (seed 39005), and each is measured again with
``--deals`` fresh deals (``atlas.run_cells``: the atlas's own rules and play policy,
random members of the class by the suit relabelling, seeds from SeedSequence(39005)
that the build never used).  Per bin, and split by the *fresh* P(made) >= 0.5 (the
split must not select on the atlas's own noise), z = (atlas - fresh) /
sqrt(se_atlas^2 + se_fresh^2): its mean and sd for P(made) raw, P(made) corrected
(the law inverted; s.e. by the delta method, at least the Wilson half-width / 1.96)
and net MP x1 raw.  Unbiased with honest s.e.: z-mean 0, z-sd 1.

    nice -n 10 python analyses/atlas_stopping_bias.py [--per-bin 300] [--deals 1000]
        [--ruleset common bulgarian]

prints one JSON object per ruleset.
"""

import argparse
import json
import time

import numpy as np

from belote_sim.atlas import AtlasPlay, cell_stats, run_cells
from belote_sim.kernels import atlas as KA
from belote_sim.rules import Rules
from belote_sim.simulation.atlas_table import KIND_STRAIN, key_hands, load_atlas, shipped_atlas
from belote_sim.simulation.runner import make_study
from belote_sim.simulation.stopping import corrected_p, stopping_law
from belote_sim.stats import Z95, wilson_interval

SEED = 39005
#: [low, high) of the bins of final n
BINS = [(200, 201), (201, 401), (401, 501), (501, 625), (625, 626), (626, 3000), (3000, 5000),
        (5000, 5001)]  # fmt: skip


def _p_se(made, n):
    """sqrt(p (1 - p) / n), at least the Wilson half-width / Z95 (as cell_stats)."""
    p = made / n
    low, high = wilson_interval(made, n)
    return np.maximum(np.sqrt(p * (1 - p) / n), (high - low) / 2 / Z95)


def measure(ruleset: str, per_bin: int, deals: int) -> dict:
    rules = Rules.preset(ruleset)
    table = load_atlas(str(shipped_atlas(rules)))
    meta = table.meta
    cells = np.concatenate(
        [
            np.stack(np.meshgrid([k], np.arange(len(table.keys[k])), [1, 2, 3, 4],
                                 indexing="ij"), -1).reshape(-1, 3)
            for k in range(3)
        ]
    )  # fmt: skip
    n_all = np.array([table.sums[k][r, p - 1, KA.F_N] for k, r, p in cells])
    rng = np.random.default_rng(SEED)
    pick = np.concatenate(
        [
            rng.choice(idx, size=min(per_bin, len(idx)), replace=False)
            for lo, hi in BINS
            if len(idx := np.flatnonzero((n_all >= lo) & (n_all < hi)))
        ]
    )
    sel = cells[pick]
    hands = np.array([key_hands(table.keys[k][r : r + 1], k)[0] for k, r, _ in sel])
    strains = np.array(KIND_STRAIN, dtype=np.int64)[sel[:, 0]]
    seeds = np.random.SeedSequence(SEED).generate_state(len(sel), dtype=np.uint64).view(np.int64)
    play = AtlasPlay.of(make_study(rules, "fixed:0,0,0", meta["play"], SEED))
    start = time.perf_counter()
    fresh_sums = run_cells(hands.astype(np.int64), strains, sel[:, 2].astype(np.int64),
                           np.full(len(sel), deals, np.int64), seeds, play)  # fmt: skip
    seconds = time.perf_counter() - start
    atlas_sums = np.array([table.sums[k][r, p - 1] for k, r, p in sel])
    a, f = cell_stats(atlas_sums), cell_stats(fresh_sums)
    n, made = atlas_sums[:, KA.F_N], atlas_sums[:, KA.F_MADE].astype(float)
    law = stopping_law(meta["first_deals"], meta["se_target"], meta["max_deals"], meta["rounds"])
    p_corr, se_corr, done = corrected_p(made, n, law)
    se_raw = _p_se(made, n)
    low, high = wilson_interval(made, n)
    se_corr = np.where(done, np.maximum(np.nan_to_num(se_corr), (high - low) / 2 / Z95), se_raw)
    se_fresh = _p_se(fresh_sums[:, KA.F_MADE].astype(float), fresh_sums[:, KA.F_N])
    net_se = np.hypot(a["net_mp_x1_se"], f["net_mp_x1_se"])
    z = {
        "p_made raw": (a["p_made"] - f["p_made"]) / np.hypot(se_raw, se_fresh),
        "p_made corrected": (p_corr - f["p_made"]) / np.hypot(se_corr, se_fresh),
        "net_mp_x1 raw": (a["net_mp_x1"] - f["net_mp_x1"]) / net_se,
    }
    rows = []
    for lo, hi in BINS:
        for side in ("P>=0.5", "P<0.5", "all"):
            m = (n >= lo) & (n < hi)
            if side != "all":
                m &= (f["p_made"] >= 0.5) == (side == "P>=0.5")
            if m.sum() < 20:
                continue
            row = {"n": f"{lo}-{hi - 1}" if hi - lo > 1 else str(lo), "split": side,
                   "cells": int(m.sum()), "corrected": float(done[m].mean())}  # fmt: skip
            for name, values in z.items():
                v = values[m]
                row[name] = {"z_mean": round(float(v.mean()), 3),
                             "z_mean_se": round(float(v.std(ddof=1) / np.sqrt(len(v))), 3),
                             "z_sd": round(float(v.std(ddof=1)), 3)}  # fmt: skip
            rows.append(row)
    return {"ruleset": ruleset, "cells": len(sel), "fresh_deals": deals, "seed": SEED,
            "fresh_seconds": round(seconds, 1), "bins": rows}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--per-bin", type=int, default=300)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--ruleset", nargs="+", default=["common", "bulgarian"])
    args = parser.parse_args()
    for ruleset in args.ruleset:
        print(json.dumps(measure(ruleset, args.per_bin, args.deals)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
