"""The report's atlas page: P(made) heatmaps of the hand atlas, each with its CSV.

Every hand class is weighted by its multiplicity (the number of 5-card hands in it)
and the four positions count equally, so a heatmap cell is P(made) of a uniformly
dealt 5-card bidding hand with those features, the taker at a uniform position:

* suit contracts: rows = trump holding (which of J, 9, A of trumps, and the number
  of trumps), columns = side aces;
* NT: rows = aces, columns = tens;
* AT: rows = jacks, columns = nines.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from belote_sim.kernels.tables import RANK_9, RANK_A, RANK_J, RANK_T
from belote_sim.simulation.atlas_table import KINDS, AtlasTable, key_hands, load_atlas

__all__ = ["heatmap_table", "write_atlas_page"]


def _rank_count(hands: np.ndarray, rank: int) -> np.ndarray:
    return np.sum([(hands >> (8 * s + rank)) & 1 for s in range(4)], axis=0)


def _features(table: AtlasTable, kind: int) -> tuple[pd.DataFrame, str, str]:
    hands = key_hands(table.keys[kind], kind)
    s = table.sums[kind].astype(float)
    from belote_sim.kernels import atlas as KA

    n = s[..., KA.F_N]
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, s[..., KA.F_MADE] / np.where(n > 0, n, 1), np.nan)
    df = pd.DataFrame(
        {"mult": table.mult[kind], "p_made": np.nanmean(p, axis=1), "deals": n.sum(axis=1)}
    )
    if kind == 0:  # clubs are the trumps of the representative hands
        trumps = hands & 0xFF
        holding = np.array(
            [
                "".join(
                    name
                    for name, r in (("J", RANK_J), ("9", RANK_9), ("A", RANK_A))
                    if (t >> r) & 1
                )
                or "-"
                for t in trumps
            ]
        )
        count = np.array([bin(int(t)).count("1") for t in trumps])
        df["row"] = [f"{h} ({c} trumps)" for h, c in zip(holding, count)]
        df["col"] = _rank_count(hands, RANK_A) - ((trumps >> RANK_A) & 1)
        return df, "trump holding", "side aces"
    if kind == 1:
        df["row"], df["col"] = _rank_count(hands, RANK_A), _rank_count(hands, RANK_T)
        return df, "aces", "tens"
    df["row"], df["col"] = _rank_count(hands, RANK_J), _rank_count(hands, RANK_9)
    return df, "jacks", "nines"


def heatmap_table(table: AtlasTable, kind: str) -> pd.DataFrame:
    """Long table of one heatmap: ``row``, ``col``, ``hands`` (5-card hands in the
    group), ``deals`` and ``p_made`` (multiplicity-weighted over the group's classes)."""
    df, _, _ = _features(table, KINDS.index(kind))
    df = df[df["p_made"].notna()]
    df = df.assign(w=df["mult"] * df["p_made"])
    out = df.groupby(["row", "col"], as_index=False).agg(
        hands=("mult", "sum"), deals=("deals", "sum"), w=("w", "sum")
    )
    out["p_made"] = out["w"] / out["hands"]
    return out.drop(columns="w")


def _plot(long: pd.DataFrame, row_label: str, col_label: str, title: str) -> Figure:
    grid = long.pivot(index="row", columns="col", values="p_made")
    fig = Figure(figsize=(6.4, max(3.0, 0.28 * len(grid) + 1.2)), layout="constrained")
    ax = fig.add_subplot()
    im = ax.imshow(grid.to_numpy(float), vmin=0, vmax=1, cmap="RdYlGn", aspect="auto")
    ax.set_xticks(range(len(grid.columns)), [str(c) for c in grid.columns])
    ax.set_yticks(range(len(grid.index)), [str(r) for r in grid.index], fontsize=7)
    ax.set_xlabel(col_label)
    ax.set_ylabel(row_label)
    ax.set_title(title)
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            v = grid.iat[i, j]
            if np.isfinite(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6)
    fig.colorbar(im, ax=ax, label="P(made)")
    return fig


def write_atlas_page(out_dir: str | Path, table: AtlasTable | None = None) -> Path:
    """Write ``atlas.html`` with the three heatmaps (PNG in ``figures/``) and their CSVs
    (``tables/atlas_<kind>.csv``) into ``out_dir``; returns the page's path."""
    table = table or load_atlas(None)
    out = Path(out_dir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    meta = table.meta
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<title>hand atlas</title></head><body><h1>The hand atlas</h1>",
        f"<p>{html.escape(meta.get('ruleset', ''))} rules, "
        f"{html.escape(str(meta.get('play', '')))} play, {meta.get('deals', 0):,} deals, "
        f"seed {meta.get('seed')}. P(made) of the taker's team per 5-card bidding "
        "hand, weighted by the number of hands in each class, positions averaged.</p>",
    ]
    titles = {"suit": "Suit contracts", "nt": "No trumps", "at": "All trumps"}
    for kind in KINDS:
        long = heatmap_table(table, kind)
        if long.empty:
            continue
        _, row_label, col_label = _features(table, KINDS.index(kind))
        long.to_csv(out / "tables" / f"atlas_{kind}.csv", index=False)
        fig = _plot(long, row_label, col_label, f"{titles[kind]}: P(made)")
        fig.savefig(out / "figures" / f"atlas_{kind}.png", dpi=200)
        parts.append(
            f"<h2>{titles[kind]}</h2><p><a href='tables/atlas_{kind}.csv'>CSV</a> "
            f"(rows: {row_label}, columns: {col_label})</p>"
            f"<img src='figures/atlas_{kind}.png' width='640' "
            f"alt='{titles[kind]} P(made) heatmap'>"
        )
    parts.append("</body></html>")
    page = out / "atlas.html"
    page.write_text("\n".join(parts), encoding="utf-8")
    return page
