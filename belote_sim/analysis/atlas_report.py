"""The report's atlas page (``atlas.html``) and its section of the report.

The page shows the shipped hand atlas by the features a player counts, one table per
strain kind, rows ordered by strength (the row's expected net MP x1, strongest first):

* suit contracts: rows = trump holding (the J, 9 and A of trumps held, ``x`` for each
  other trump), columns = side aces;
* NT: rows = aces, columns = tens;
* AT: rows = jacks, columns = nines.

Each cell gives P(made) and the expected net MP x1 (taker's team minus defenders,
undoubled), each with its 95% interval, and the number of 5-card hands in the group.
Every hand class is weighted by its multiplicity (the number of 5-card hands in it)
and the four positions count equally, so a cell describes a uniformly dealt 5-card
bidding hand with those features, the taker at a uniform position; its standard
error combines the cells' (``sqrt(sum w^2 se^2) / sum w``).  The tables are also
written as CSV (``tables/atlas_<kind>.csv``).
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from belote_sim.analysis.hand_page import play_words
from belote_sim.analysis.style import STYLE
from belote_sim.atlas import table_stats
from belote_sim.kernels.tables import RANK_9, RANK_A, RANK_J, RANK_T
from belote_sim.simulation.atlas_table import KINDS, AtlasTable, key_hands, load_atlas
from belote_sim.stats import Z95

__all__ = [
    "ATLAS_STYLE",
    "TITLES",
    "heatmap_table",
    "net_distribution",
    "position_table",
    "write_atlas_page",
]

TITLES = {"suit": "Suit contracts", "nt": "No trumps", "at": "All trumps"}
#: What the atlas page adds to the report's style: coloured cells, a sticky first column.
ATLAS_STYLE = """
body { max-width: 1240px; }
nav.top { font-size: 14px; color: #4a5568; margin-bottom: .4em; }
table.atlas { font-size: 14px; }
table.atlas th.l { position: sticky; left: 0; z-index: 1; }
table.atlas td, table.atlas th { padding: 4px 8px; white-space: nowrap; }
table.atlas td.mp { border-left: 0; }
table.atlas td.p { border-right: 1px dotted #cbd5e0; }
table.atlas td .ci, table.atlas td .n, table.atlas th .n { font-size: 12px; }
table.atlas th .n { display: block; font-weight: 400; color: #4a5568; }
.key span { display: inline-block; padding: 0 .5em; border-radius: 3px; margin-right: .3em; }
p.links a { font-weight: 600; }
@media (max-width: 600px) { body { padding: 0 .6em; } h1 { font-size: 1.5em; }
  table.atlas { font-size: 13px; } table.atlas td, table.atlas th { padding: 3px 5px; } }
"""
#: Net MP at which a cell's colour is full.
_FULL_MP = 20.0


def _rank_count(hands: np.ndarray, rank: int) -> np.ndarray:
    return np.sum([(hands >> (8 * s + rank)) & 1 for s in range(4)], axis=0)


def _holding(trumps: int) -> tuple[int, str]:
    """(strength order, label) of a trump holding: ``J 9 x x`` = the jack, the nine
    and two other trumps; ``none`` without trumps."""
    honours = [name for name, r in (("J", RANK_J), ("9", RANK_9), ("A", RANK_A)) if trumps >> r & 1]
    count = bin(int(trumps)).count("1")
    words = honours + ["x"] * (count - len(honours))
    return count, " ".join(words) or "none"


#: The cell statistics of the last few kinds' sums (each kept with its array, whose id
#: is therefore not reused while it is here).
_STATS: dict[int, tuple[np.ndarray, dict[str, np.ndarray]]] = {}


def _stats(table: AtlasTable, kind: int) -> dict[str, np.ndarray]:
    """``table_stats`` of a kind's sums (classes, 4 positions), computed once."""
    sums = table.sums[kind]
    hit = _STATS.get(id(sums))
    if hit is None or hit[0] is not sums:
        if len(_STATS) >= 3:
            _STATS.pop(next(iter(_STATS)))
        hit = _STATS[id(sums)] = (sums, table_stats(table, kind, sums))
    return hit[1]


def _features(table: AtlasTable, kind: int) -> tuple[pd.DataFrame, str, str]:
    """One row per class: ``mult``, ``row``/``row_label``, ``col`` and the class's
    cell statistics per position (arrays (classes, 4))."""
    hands = key_hands(table.keys[kind], kind)
    df = pd.DataFrame({"mult": table.mult[kind]})
    if kind == 0:  # clubs are the trumps of the representative hands
        trumps = hands & 0xFF
        holdings, index = np.unique(trumps, return_inverse=True)
        labels = [_holding(int(t)) for t in holdings]
        df["row_label"] = np.array([label for _, label in labels], dtype=object)[index]
        df["trumps"] = np.array([count for count, _ in labels])[index]
        df["row"] = df["row_label"]
        df["col"] = _rank_count(hands, RANK_A) - ((trumps >> RANK_A) & 1)
        return df, "trump holding", "side aces"
    if kind == 1:
        df["row"], df["col"] = _rank_count(hands, RANK_A), _rank_count(hands, RANK_T)
        df["row_label"] = [f"{r} ace{'s' if r != 1 else ''}" for r in df["row"]]
        return df, "aces", "tens"
    df["row"], df["col"] = _rank_count(hands, RANK_J), _rank_count(hands, RANK_9)
    df["row_label"] = [f"{r} jack{'s' if r != 1 else ''}" for r in df["row"]]
    return df, "jacks", "nines"


def _group(stats: dict[str, np.ndarray], mult: np.ndarray, keys: list[np.ndarray]) -> pd.DataFrame:
    """Multiplicity-weighted means (positions equal) of P(made) and net MP x1 with
    their standard errors, per group of ``keys`` (arrays per class)."""
    n = stats["n"]
    ok = n > 0
    w = np.where(ok, mult[:, None], 0).astype(np.float64)
    p = np.where(ok, stats["p_made"], 0.0)
    # a cell's variance from (made + 0.5) / (n + 1): never 0, so a group whose every
    # deal was made still has an interval
    p_adj = (p * n + 0.5) / (n + 1)
    p_var = np.where(ok, p_adj * (1 - p_adj) / np.where(ok, n, 1), 0.0)
    net = np.where(ok, stats["net_mp_x1"], 0.0)
    net_var = np.where(ok, np.nan_to_num(stats["net_mp_x1_se"]) ** 2, 0.0)
    frame = pd.DataFrame(
        {
            "hands": mult,
            "deals": n.sum(axis=1),
            "w": w.sum(axis=1),
            "wp": (w * p).sum(axis=1),
            "wp2": (w * w * p_var).sum(axis=1),
            "wn": (w * net).sum(axis=1),
            "wn2": (w * w * net_var).sum(axis=1),
        }
    )
    for i, key in enumerate(keys):
        frame[f"k{i}"] = key
    out = frame.groupby([f"k{i}" for i in range(len(keys))], as_index=False).sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        out["p_made"] = out["wp"] / out["w"]
        p_se = np.sqrt(out["wp2"]) / out["w"]
        out["p_made_low"] = np.clip(out["p_made"] - Z95 * p_se, 0, 1)
        out["p_made_high"] = np.clip(out["p_made"] + Z95 * p_se, 0, 1)
        out["net_mp_x1"] = out["wn"] / out["w"]
        out["net_mp_x1_se"] = np.sqrt(out["wn2"]) / out["w"]
    out["net_mp_x1_low"] = out["net_mp_x1"] - Z95 * out["net_mp_x1_se"]
    out["net_mp_x1_high"] = out["net_mp_x1"] + Z95 * out["net_mp_x1_se"]
    return out.drop(columns=["w", "wp", "wp2", "wn", "wn2"])


def heatmap_table(table: AtlasTable, kind: str) -> pd.DataFrame:
    """Long table of one kind: ``row``, ``row_label``, ``col``, ``hands`` (5-card hands
    in the group), ``deals``, ``p_made`` with ``p_made_low``/``p_made_high`` and
    ``net_mp_x1`` with ``_se``, ``_low``, ``_high`` (95%), multiplicity-weighted over the
    group's classes and the four positions; ``strength`` ranks the rows (1 = the
    highest expected net MP x1 over the row)."""
    k = KINDS.index(kind)
    df, _, _ = _features(table, k)
    stats = _stats(table, k)
    long = _group(stats, table.mult[k], [df["row"].to_numpy(), df["col"].to_numpy()])
    long = long.rename(columns={"k0": "row", "k1": "col"})
    rows = _group(stats, table.mult[k], [df["row"].to_numpy()]).rename(columns={"k0": "row"})
    rows = rows[rows["deals"] > 0].sort_values("net_mp_x1", ascending=False, kind="stable")
    strength = {r: i + 1 for i, r in enumerate(rows["row"])}
    labels = df.drop_duplicates("row").set_index("row")["row_label"]
    long = long[long["deals"] > 0].copy()
    long["row_label"] = long["row"].map(labels)
    long["strength"] = long["row"].map(strength)
    return long.sort_values(["strength", "col"], kind="stable").reset_index(drop=True)


def position_table(table: AtlasTable) -> pd.DataFrame:
    """Per kind and position: ``bid`` (share of 5-card hands whose expected net MP x1
    is above 0), ``noise`` (share of those within 1.96 s.e. of 0), ``p_made`` and
    ``net_mp_x1`` (multiplicity-weighted means)."""
    rows = []
    for k, kind in enumerate(KINDS):
        stats = _stats(table, k)
        mult = table.mult[k].astype(np.float64)
        for position in range(4):
            n = stats["n"][:, position]
            ok = n > 0
            if not ok.any():
                continue
            net = stats["net_mp_x1"][:, position]
            se = np.nan_to_num(stats["net_mp_x1_se"][:, position])
            bid = ok & (net > 0)
            noisy = bid & (np.abs(net) < Z95 * se)
            w = mult[ok]
            rows.append(
                {
                    "kind": kind,
                    "position": position + 1,
                    "hands": int(mult[ok].sum()),
                    "bid": mult[bid].sum() / w.sum(),
                    "noise": mult[noisy].sum() / max(mult[bid].sum(), 1.0),
                    "p_made": float((w * stats["p_made"][ok, position]).sum() / w.sum()),
                    "net_mp_x1": float((w * net[ok]).sum() / w.sum()),
                }
            )
    return pd.DataFrame(rows)


def net_distribution(table: AtlasTable, ax: Axes | None = None) -> Axes:
    """Figure: the expected net MP x1 of every 5-card bidding hand (cells weighted by
    multiplicity, the four positions equally), one curve per strain kind: the share of
    hands at or above each value, so the curve's height at 0 is the share that bids."""
    if ax is None:
        ax = Figure(figsize=(6.4, 3.4), layout="constrained").add_subplot()
    colours = {"suit": "#2b6cb0", "nt": "#6b46c1", "at": "#dd6b20"}
    for k, kind in enumerate(KINDS):
        stats = _stats(table, k)
        ok = stats["n"] > 0
        if not ok.any():
            continue
        net = stats["net_mp_x1"][ok]
        w = np.broadcast_to(table.mult[k][:, None], ok.shape)[ok].astype(np.float64)
        order = np.argsort(net)[::-1]
        share = np.cumsum(w[order]) / w.sum()
        above = w[net > 0].sum() / w.sum()
        ax.step(
            net[order],
            share,
            where="post",
            color=colours[kind],
            label=f"{TITLES[kind]}: {100 * above:.1f}% of hands above 0",
        )
        ax.plot([0], [above], "o", color=colours[kind], ms=4)
    ax.axvline(0, color="#1a202c", lw=0.8, ls="--")
    ax.text(0.5, 0.97, "bid →", transform=ax.get_xaxis_transform(), fontsize=8, va="top")
    ax.set_xlabel("expected net MP per deal when taking, undoubled (x1)")
    ax.set_ylabel("share of hands at or above")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title("What taking is worth, over every 5-card bidding hand", fontsize=11)
    ax.grid(alpha=0.3)
    return ax


def _pct(x: float) -> str:
    return "–" if not np.isfinite(x) else f"{100 * x:.1f}%"


def _span(low: float, high: float) -> str:
    return f"{100 * low:.1f}–{100 * high:.1f}%"


def _mp(x: float) -> str:
    return "–" if not np.isfinite(x) else f"{x:+.2f}".replace("-", "−")


def _colour(net: float) -> str:
    """Cell background by expected net MP x1: green where taking pays, red where it costs."""
    if not np.isfinite(net):
        return ""
    a = 0.08 + 0.42 * min(abs(net) / _FULL_MP, 1.0)
    rgb = "56,161,105" if net > 0 else "229,62,62"
    return f" style='background:rgba({rgb},{a:.2f})'"


def _cells(r: pd.Series) -> str:
    title = (
        f"{int(r['hands']):,} hands, {int(r['deals']):,} deals; P(made) "
        f"{_pct(r['p_made'])} ({_span(r['p_made_low'], r['p_made_high'])}), net MP x1 "
        f"{_mp(r['net_mp_x1'])} ± {r['net_mp_x1_se']:.2f} s.e."
    )
    colour = _colour(r["net_mp_x1"])
    return (
        f"<td class='p'{colour} title='{html.escape(title, quote=True)}'>"
        f"{_pct(r['p_made'])}<span class='ci'>{_span(r['p_made_low'], r['p_made_high'])}"
        f"</span><span class='n'>{int(r['hands']):,} hands</span></td>"
        f"<td class='mp'{colour}>{_mp(r['net_mp_x1'])}<span class='ci'>±"
        f"{Z95 * r['net_mp_x1_se']:.2f}</span></td>"
    )


def _kind_table(table: AtlasTable, kind: str) -> tuple[str, pd.DataFrame]:
    """The HTML table of one kind (rows by strength, a P(made) and a net MP column per
    column value and for the whole row) and its long table."""
    long = heatmap_table(table, kind)
    k = KINDS.index(kind)
    df, row_label, col_label = _features(table, k)
    stats = _stats(table, k)
    totals = _group(stats, table.mult[k], [df["row"].to_numpy()]).rename(columns={"k0": "row"})
    totals = totals.set_index("row")
    trump_count: dict = {}
    if kind == "suit":
        first_rows = df.drop_duplicates("row")
        trump_count = dict(zip(first_rows["row"], first_rows["trumps"]))
    cols = sorted(long["col"].unique())
    head = "".join(
        f"<th colspan='2'>{c} {col_label if c != 1 else col_label[:-1]}</th>" for c in cols
    )
    sub = "<th>P(made)</th><th>net MP</th>" * (len(cols) + 1)
    out = [
        "<div class='wrap'><table class='atlas'>",
        f"<tr><th class='l' rowspan='2'>{html.escape(row_label)}</th>{head}"
        "<th colspan='2'>all</th></tr>",
        f"<tr>{sub}</tr>",
    ]
    for _, part in long.groupby("strength", sort=True):
        first = part.iloc[0]
        by_col = part.set_index("col")
        label = html.escape(str(first["row_label"]))
        if kind == "suit":
            trumps = int(trump_count[first["row"]])
            label += f"<span class='n'>{trumps} trump{'s' if trumps != 1 else ''}</span>"
        cells = "".join(
            _cells(by_col.loc[c]) if c in by_col.index else "<td class='small' colspan='2'>–</td>"
            for c in cols
        )
        cells += _cells(totals.loc[first["row"]])
        out.append(f"<tr><th class='l'>{label}</th>{cells}</tr>")
    out.append("</table></div>")
    return "".join(out), long


def _position_html(table: AtlasTable) -> str:
    pos = position_table(table)
    if pos.empty:
        return ""
    head = "".join(
        f"<th>position {p}{' (leads)' if p == 1 else ' (dealer)' if p == 4 else ''}</th>"
        for p in (1, 2, 3, 4)
    )
    rows = []
    for kind in KINDS:
        part = pos[pos["kind"] == kind].set_index("position")
        if part.empty:
            continue
        cells = []
        for p in (1, 2, 3, 4):
            if p not in part.index:
                cells.append("<td class='small'>–</td>")
                continue
            r = part.loc[p]
            cells.append(
                f"<td>{_pct(r['bid'])}<span class='ci'>{_pct(r['noise'])} of them within "
                f"noise</span><span class='n'>P(made) {_pct(r['p_made'])} · net "
                f"{_mp(r['net_mp_x1'])}</span></td>"
            )
        rows.append(f"<tr><th class='l'>{TITLES[kind]}</th>{''.join(cells)}</tr>")
    return (
        f"<div class='wrap'><table class='atlas'><tr><th class='l'>contract</th>{head}</tr>"
        f"{''.join(rows)}</table></div>"
    )


def _source(table: AtlasTable) -> str:
    meta = table.meta
    return (
        f"the atlas {html.escape(Path(str(table.path or 'atlas')).name)}: "
        f"{html.escape(str(meta.get('ruleset', '?')))} rules; all four players play "
        f"{html.escape(play_words(str(meta.get('play', '?'))))}; "
        f"{int(meta.get('deals', 0)):,} deals, seed {meta.get('seed')}"
    )


def write_atlas_page(
    out_dir: str | Path, table: AtlasTable | None = None, hand_page: str | None = None
) -> Path:
    """Write ``atlas.html`` (the report's style, a link back to ``index.html``, one table
    per kind, the positions) and its CSVs (``tables/atlas_<kind>.csv``) into
    ``out_dir``; ``hand_page``: the hand evaluator's address to link.  Returns the
    page's path."""
    table = table or load_atlas(None)
    out = Path(out_dir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    sections = []
    for kind in KINDS:
        body, long = _kind_table(table, kind)
        if long.empty:
            continue
        long.to_csv(out / "tables" / f"atlas_{kind}.csv", index=False)
        _, row_label, col_label = _features(table, KINDS.index(kind))
        sections.append(
            (
                kind,
                TITLES[kind],
                f"<p class='note'>Rows: {row_label}, strongest first (by the row's expected "
                f"net MP); columns: {col_label}. "
                f"<a href='tables/atlas_{kind}.csv'>atlas_{kind}.csv</a></p>{body}",
            )
        )
    positions = _position_html(table)
    if positions:
        sections.append(
            (
                "positions",
                "By position",
                "<p class='note'>Share of 5-card hands for which taking the contract "
                "undoubled has a positive expected net MP (the atlas's call: bid), how many "
                "of those are within noise (|net MP x1| < 1.96 s.e.), and the mean P(made) "
                f"and net MP x1 over all hands.</p>{positions}",
            )
        )
    links = ["<a href='index.html'>← the report</a>"]
    if hand_page:
        links.append(f"<a href='{html.escape(hand_page, quote=True)}'>the hand evaluator</a>")
    contents = "".join(f"<li><a href='#{a}'>{html.escape(h)}</a></li>" for a, h, _ in sections)
    hand_link = (
        f" To answer one hand, open <a href='{html.escape(hand_page, quote=True)}'>the hand "
        "evaluator</a>."
        if hand_page
        else ""
    )
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width'><title>The hand atlas</title>"
        f"<style>{STYLE}{ATLAS_STYLE}</style></head><body>",
        f"<nav class='top'>{' · '.join(links)}</nav>",
        "<h1>The hand atlas: what each kind of hand is worth</h1>",
        "<p class='lead'>How often the taker's team makes its contract (P(made)) and what "
        "it gains on average (net MP: its match points minus the defenders', undoubled, "
        "per deal), for every 5-card bidding hand grouped by what a player counts. Each "
        "cell: the value, its 95% interval in small print, and the number of 5-card "
        "hands in the group; green where taking pays on average, red where it costs, "
        "the deeper the more. Hands are weighted by how often they are dealt and the four "
        f"positions count equally.{hand_link}</p>",
        f"<p class='note'>Source: {_source(table)}.</p>",
        f"<nav><h2 id='contents'>Contents</h2><ol>{contents}</ol></nav>",
    ]
    for anchor, heading, body in sections:
        parts.append(f"<section id='{anchor}'><h2>{html.escape(heading)}</h2>{body}</section>")
    parts.append("</body></html>")
    page = out / "atlas.html"
    page.write_text("\n".join(parts), encoding="utf-8")
    return page
