"""Does a shipped atlas cell's published value depend on the number of deals it stopped at?

Question (issue 39, item 4): the atlas build stops each cell adaptively (200 deals,
then top-ups that depend on the deals so far: ``belote_sim.atlas.needed_deals``), so a
cell's plain estimate is biased given its final n.  The atlas now publishes empirical
Bayes values (``belote_sim.simulation.atlas_prior``: the posterior mean of P(made)
under the atlas's own prior, net MP corrected by it); this script measures the bias of
the plain and the published values against independent fresh estimates.

Method: the measured cells of each shipped atlas are put in bins by their final n
(200, 201-400, 401-500, 501-624, 625, 626-2999, 3000-4999, 5000); ``--per-bin`` cells
are drawn at random from each bin (seed 39005), and each is measured again twice with
fresh deals (``atlas.run_cells``: the atlas's own rules and play policy, random
members of the class by the suit relabelling, seeds from SeedSequence(39005) and
SeedSequence(39006), which the build never used): ``--deals`` deals for the
comparison and ``--split-deals`` deals that only say on which side of 1/2 the cell's
P(made) lies (the split must not select on the noise of either estimate compared).
Per bin, z = (atlas - fresh) / sqrt(se_atlas^2 + se_fresh^2): its mean (with its
s.e.) and sd, for P(made) and net MP x1, plain (``cell_stats(sums)``) and published
(``cell_stats(sums, prior)``); over all the bin's cells, split by the side of 1/2 of
the split deals (close to the true P(made)), and split by the side of the published
P(made) (what a reader sees).  Unbiased with honest s.e.: z-mean 0, z-sd 1.  Also per
strain kind over all bins.

    nice -n 10 python analyses/atlas_stopping_bias.py [--per-bin 300] [--deals 1000]
        [--split-deals 500] [--ruleset common bulgarian]
    nice -n 10 python analyses/atlas_stopping_bias.py --extremes 100 [--extreme-deals 4000]

(the second: the cells whose published P(made) moved most from the plain one, measured
again)

prints one JSON object per ruleset.
"""

import argparse
import json
import time

import numpy as np

from belote_sim.atlas import AtlasPlay, cell_stats, run_cells, table_stats
from belote_sim.rules import Rules
from belote_sim.simulation.atlas_table import (
    KIND_STRAIN,
    KINDS,
    key_hands,
    load_atlas,
    shipped_atlas,
)
from belote_sim.simulation.runner import make_study

SEED = 39005
#: [low, high) of the bins of final n
BINS = [(200, 201), (201, 401), (401, 501), (501, 625), (625, 626), (626, 3000), (3000, 5000),
        (5000, 5001)]  # fmt: skip


def _fresh(sel, hands, strains, deals, seed, play):
    seeds = np.random.SeedSequence(seed).generate_state(len(sel), dtype=np.uint64).view(np.int64)
    counts = np.full(len(sel), deals, np.int64)
    return run_cells(hands, strains, sel[:, 2].astype(np.int64), counts, seeds, play)


def _z(values, m):
    v = values[m]
    return {
        "z_mean": round(float(v.mean()), 3),
        "z_mean_se": round(float(v.std(ddof=1) / np.sqrt(len(v))), 3),
        "z_sd": round(float(v.std(ddof=1)), 3),
    }


def measure(ruleset: str, per_bin: int, deals: int, split_deals: int) -> dict:
    rules = Rules.preset(ruleset)
    table = load_atlas(str(shipped_atlas(rules)))
    cells = np.concatenate(
        [
            np.stack(np.meshgrid([k], np.arange(len(table.keys[k])), [1, 2, 3, 4],
                                 indexing="ij"), -1).reshape(-1, 3)
            for k in range(3)
        ]
    )  # fmt: skip
    n_all = np.array([cell_stats(table.sums[k][r, p - 1])["n"] for k, r, p in cells])
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
    hands = hands.astype(np.int64)
    strains = np.array(KIND_STRAIN, dtype=np.int64)[sel[:, 0]]
    play = AtlasPlay.of(make_study(rules, "fixed:0,0,0", table.meta["play"], SEED))
    start = time.perf_counter()
    fresh = cell_stats(_fresh(sel, hands, strains, deals, SEED, play))
    side = cell_stats(_fresh(sel, hands, strains, split_deals, SEED + 1, play))["p_made"] >= 0.5
    seconds = time.perf_counter() - start
    atlas_sums = np.array([table.sums[k][r, p - 1] for k, r, p in sel])
    plain = cell_stats(atlas_sums)
    published = {}
    for k in range(3):
        m = sel[:, 0] == k
        for key, value in table_stats(table, k, atlas_sums[m]).items():
            published.setdefault(key, np.full(len(sel), np.nan))[m] = value
    z = {}
    for key in ("p_made", "net_mp_x1"):
        for name, stats in (("plain", plain), ("published", published)):
            se = np.hypot(stats[f"{key}_se"], fresh[f"{key}_se"])
            z[f"{key} {name}"] = (stats[key] - fresh[key]) / se
    n = cell_stats(atlas_sums)["n"]
    rows = []
    splits = {
        "all": np.ones(len(sel), dtype=bool),
        "fresh P>=0.5": side,
        "fresh P<0.5": ~side,
        "atlas P>=0.5": published["p_made"] >= 0.5,
        "atlas P<0.5": published["p_made"] < 0.5,
    }
    for lo, hi in BINS:
        for split, chosen in splits.items():
            m = (n >= lo) & (n < hi) & chosen
            if m.sum() < 20:
                continue
            label = f"{lo}-{hi - 1}" if hi - lo > 1 else str(lo)
            row = {"n": label, "split": split, "cells": int(m.sum())}
            rows.append(row | {name: _z(values, m) for name, values in z.items()})
    kinds = [
        {"kind": KINDS[k], "cells": int((sel[:, 0] == k).sum())}
        | {name: _z(values, sel[:, 0] == k) for name, values in z.items()}
        for k in range(3)
    ]
    return {"ruleset": ruleset, "cells": len(sel), "fresh_deals": deals,
            "split_deals": split_deals, "seed": SEED, "fresh_seconds": round(seconds, 1),
            "bins": rows, "kinds": kinds}  # fmt: skip


def extremes(ruleset: str, count: int, deals: int) -> dict:
    """The ``count`` cells whose published P(made) is furthest from the plain one,
    measured again with ``deals`` fresh deals each (seed 39007): z of both."""
    from belote_sim.atlas import measured_cells
    from belote_sim.cards import parse_cards

    rules = Rules.preset(ruleset)
    table = load_atlas(str(shipped_atlas(rules)))
    frame = measured_cells(table)
    shift = (frame["p_made"] - frame["p_made_raw"]).abs()
    top = frame.loc[shift.sort_values(ascending=False, kind="stable").index[:count]]
    hands = np.array([sum(1 << c for c in parse_cards(h)) for h in top["hand"]], dtype=np.int64)
    kinds = top["kind"].map({"suit": 0, "NT": 1, "AT": 2}).to_numpy()
    strains = np.array(KIND_STRAIN, dtype=np.int64)[kinds]
    play = AtlasPlay.of(make_study(rules, "fixed:0,0,0", table.meta["play"], SEED))
    sel = np.stack([kinds, np.zeros(len(top), np.int64), top["position"].to_numpy()], 1)
    fresh = cell_stats(_fresh(sel, hands, strains, deals, SEED + 2, play))
    plain, published = top["p_made_raw"].to_numpy(), top["p_made"].to_numpy()
    plain_se = np.sqrt(plain * (1 - plain) / top["n"].to_numpy())
    z = {
        "z_plain": (plain - fresh["p_made"]) / np.hypot(plain_se, fresh["p_made_se"]),
        "z_published": (published - fresh["p_made"])
        / np.hypot(top["p_made_se"].to_numpy(), fresh["p_made_se"]),
    }
    return {
        "ruleset": ruleset,
        "cells": len(top),
        "fresh_deals": deals,
        "shift_range": [round(float(shift.loc[top.index].min()), 4), round(float(shift.max()), 4)],
        "n_median": float(top["n"].median()),
        "plain_median": round(float(np.median(plain)), 3),
        "published_median": round(float(np.median(published)), 3),
        "fresh_median": round(float(np.median(fresh["p_made"])), 3),
        **{
            name: {"mean": round(float(v.mean()), 2), "sd": round(float(v.std(ddof=1)), 2)}
            for name, v in z.items()
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--per-bin", type=int, default=300)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--split-deals", type=int, default=500)
    parser.add_argument("--ruleset", nargs="+", default=["common", "bulgarian"])
    parser.add_argument("--extremes", type=int, default=0, help="only the N most moved cells")
    parser.add_argument("--extreme-deals", type=int, default=4000)
    args = parser.parse_args()
    for ruleset in args.ruleset:
        if args.extremes:
            print(json.dumps(extremes(ruleset, args.extremes, args.extreme_deals)), flush=True)
            continue
        print(json.dumps(measure(ruleset, args.per_bin, args.deals, args.split_deals)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
