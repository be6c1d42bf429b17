"""The HTML report of a deals table: tables, PNG figures, CSV links and provenance.

``write_report(source, out_dir)`` reads a deals table (DataFrame, Parquet file or
dataset directory), computes ``reports.report_tables``, draws the figures and
writes ``index.html`` with every table linked to its CSV in ``tables/`` and every
figure in ``figures/``.  The page is self-contained apart from those files.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
from pathlib import Path
from typing import Any

import pandas as pd

from belote_sim._version import __version__
from belote_sim.analysis import plots
from belote_sim.analysis.report_tables import report_tables

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto;
       color: #1a202c; line-height: 1.45; padding: 0 1em; }
h1 { border-bottom: 2px solid #2b6cb0; padding-bottom: .3em; }
h2 { margin-top: 2em; color: #2b6cb0; }
table { border-collapse: collapse; font-size: 13px; margin: .5em 0 1em; }
th, td { border: 1px solid #cbd5e0; padding: 3px 8px; text-align: right; }
th { background: #edf2f7; }
.prov td { text-align: left; }
figure { margin: 1em 0; } figcaption { font-size: 13px; color: #4a5568; }
.note { font-size: 13px; color: #4a5568; }
details summary { cursor: pointer; color: #2b6cb0; }
"""

TABLE_TEXT = {
    "outcomes": ("Outcomes", "Share of played contracts made, inside, hanging, won with a "
                 "valat and doubled; share of deals thrown in (all pass). 95% Wilson "
                 "intervals."),
    "success_by_contract": ("Contract success by strain, doubling and taker position",
                            "Position 0 speaks first (dealer + 1). n = contracts played."),
    "success_by_trump": ("Suit contracts: success by the taker's trumps",
                         "Whether the taker holds the jack, nine and ace of trump, and "
                         "how many trumps (8-card hand)."),
    "points": ("Points of the taker's team per strain",
               "Raw points and match points added for the deal (mean, standard "
               "deviation, 95% interval of the mean)."),
    "declarations": ("Declarations held in the dealt hands",
                     "Longest run (3, 4, 5+ cards), each carré, K+Q of hearts; per 5-card "
                     "bidding hand, per 8-card hand and per team (either hand). 'exact' is "
                     "the probability computed by combinatorics; z = (rate - exact) / "
                     "stderr. K+Q of a given suit is the belote chance when trump is "
                     "chosen independently of the hand."),
}


def _table_html(df: pd.DataFrame, max_rows: int = 60) -> str:
    shown = df.head(max_rows)
    text = shown.to_html(index=False, float_format=lambda v: f"{v:.4g}", border=0,
                         na_rep="")
    if len(df) > max_rows:
        text += f'<p class="note">first {max_rows} of {len(df)} rows; see the CSV.</p>'
    return text


def _figures(tables: dict[str, pd.DataFrame], fig_dir: Path) -> list[tuple[str, str]]:
    fig_dir.mkdir(parents=True, exist_ok=True)
    out = []

    def save(ax, name, caption):
        ax.figure.savefig(fig_dir / name, dpi=110)
        out.append((f"figures/{name}", caption))

    trump = tables["success_by_trump"]
    if len(trump):
        save(plots.success_vs_feature(trump, "n_trumps", by="trump_j"), "success_trumps.png",
             "Suit contracts made vs number of trumps, with and without the trump jack "
             "(95% bands).")
    if len(tables["points_histogram"]):
        save(plots.mp_histograms(tables["points_histogram"]), "mp_histograms.png",
             "Match points of the taker's team per strain.")
        save(plots.mp_histograms(tables["points_histogram"], "taker_raw"),
             "raw_histograms.png", "Raw points of the taker's team per strain.")
    for scope in sorted(set(tables["declarations"]["scope"]), reverse=True):
        save(plots.declaration_frequencies(tables["declarations"], scope),
             f"declarations_{scope}.png",
             f"Declarations held ({scope}): simulated frequency (bars, 95% intervals) "
             "and exact probability (black marks).")
    return out


def write_report(source: Any, out_dir: str | Path, provenance: dict | None = None,
                 title: str = "belote-sim report") -> Path:
    """Write the HTML report of a deals table into ``out_dir``; returns index.html."""
    out = Path(out_dir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    if provenance is None:
        provenance = _provenance_of(source)
    tables = report_tables(source)
    for name, df in tables.items():
        df.to_csv(out / "tables" / f"{name}.csv", index=False)
    figures = _figures(tables, out / "figures")
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>"]
    parts.append("<h2>Provenance</h2><table class='prov'>")
    prov_rows = {"package": f"belote-sim {__version__}",
                 "generated": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    for key in ("ruleset", "n", "seed", "bidding", "play", "dealer", "predeal",
                "constraints", "chunk_size", "belote_sim"):
        if key in (provenance or {}):
            prov_rows["deals" if key == "n" else
                      "written by" if key == "belote_sim" else key] = provenance[key]
    for key, value in prov_rows.items():
        parts.append(f"<tr><th>{html.escape(key)}</th><td>{html.escape(_fmt(value))}</td></tr>")
    parts.append("</table>")
    if provenance and "options" in provenance:
        parts.append("<details><summary>rule options</summary><table class='prov'>")
        for key, value in provenance["options"].items():
            parts.append(f"<tr><th>{html.escape(key)}</th><td>{html.escape(_fmt(value))}</td></tr>")
        parts.append("</table></details>")
    parts.append("<h2>Figures</h2>")
    for path, caption in figures:
        parts.append(f"<figure><img src='{path}' alt='{html.escape(caption)}' width='640'>"
                     f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    for name in ("outcomes", "success_by_contract", "success_by_trump", "points",
                 "declarations"):
        heading, text = TABLE_TEXT[name]
        parts.append(f"<h2>{html.escape(heading)}</h2><p class='note'>{html.escape(text)} "
                     f"<a href='tables/{name}.csv'>CSV</a></p>")
        parts.append(_table_html(tables[name]))
    parts.append("<p class='note'>Histogram counts: "
                 "<a href='tables/points_histogram.csv'>points_histogram.csv</a></p>")
    from belote_sim.simulation.atlas_table import DEFAULT_ATLAS

    if DEFAULT_ATLAS.exists():  # the atlas page: heatmaps of the shipped hand atlas
        from belote_sim.analysis.atlas_report import write_atlas_page

        write_atlas_page(out)
        parts.append("<h2>Hand atlas</h2><p class='note'><a href='atlas.html'>P(made) "
                     "heatmaps of the shipped hand atlas</a> by trump holding and side aces "
                     "(suit), aces and tens (NT), jacks and nines (AT), each with its CSV "
                     "(tables/atlas_*.csv).</p>")
    parts.append("</body></html>")
    index = out / "index.html"
    index.write_text("\n".join(parts), encoding="utf-8")
    return index


def _fmt(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _provenance_of(source: Any) -> dict:
    if isinstance(source, pd.DataFrame):
        return dict(source.attrs.get("belote_sim", {}))
    import pyarrow.parquet as pq

    path = Path(source)
    files = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
    for f in files:
        try:
            meta = pq.ParquetFile(f).schema_arrow.metadata or {}
        except OSError as exc:
            raise ValueError(f"{f}: not a readable Parquet file: {exc}") from None
        if b"belote_sim" in meta:
            return json.loads(meta[b"belote_sim"])
    return {}
