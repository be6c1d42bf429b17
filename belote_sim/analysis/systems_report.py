"""The HTML page of a systems study (``belote-sim study systems ... --report DIR``).

``write_systems_report(study, out_dir)`` writes ``index.html`` in the report's style
(``analysis.style``): the study in one line, one figure (each pair's net MP per deal
with its 95% interval, ``pair_figure``), the pairs (and standings), the contract mix,
and for each pair the strongest differences by situation and by hand class; every
table in full as CSV under ``tables/``.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from belote_sim._version import __version__
from belote_sim.analysis.plots import DPI
from belote_sim.analysis.style import STYLE
from belote_sim.analysis.systems import SystemsStudy
from belote_sim.simulation.output import Output
from belote_sim.stats import Z95

__all__ = [
    "REPORT_ROWS",
    "SYSTEMS_REPORT_NAMES",
    "pair_figure",
    "report_output",
    "write_systems_report",
]

#: Rows of each "where they differ" table on the page (the CSVs hold every row).
REPORT_ROWS = 20
#: What a systems report folder holds.
SYSTEMS_REPORT_NAMES = frozenset({"index.html", "tables", "figures"})


def _foreign(path: str) -> str | None:
    import os

    foreign = sorted(set(os.listdir(path)) - SYSTEMS_REPORT_NAMES)
    if not foreign:
        return None
    return (
        f"it holds {', '.join(foreign[:3])}, which this report does not write; choose "
        "another output"
    )


def report_output(path: str, overwrite: bool) -> Output:
    """The ``Output`` of a report folder (checked and locked before the work)."""
    return Output(
        path,
        what="the report",
        folder=True,
        overwrite=overwrite,
        replaceable=_foreign,
    )


def _figure_size(pairs: int) -> tuple[float, float]:
    return 6.4, 1.2 + 0.45 * pairs


def pair_figure(study: SystemsStudy, ax: Axes | None = None) -> Axes:
    """Each pair's net MP per deal with its 95% interval, one row per pair, written
    "X over Y" with X the system that gained (a pair whose a lost is drawn as b over a,
    its mean negated), so every point is at or right of 0 and reads as its label."""
    # Each row reads "X over Y" with X the system that gained (mean >= 0): a pair
    # given weaker system first is turned round, so the label says what is drawn.
    pairs = study.pairs.copy()
    flip = pairs["mean"] < 0
    pairs.loc[flip, ["a", "b"]] = pairs.loc[flip, ["b", "a"]].to_numpy()
    pairs.loc[flip, "mean"] = -pairs.loc[flip, "mean"]
    if ax is None:
        ax = Figure(figsize=_figure_size(len(pairs)), layout="constrained").add_subplot()
    y = list(range(len(pairs)))[::-1]
    ax.errorbar(
        pairs["mean"],
        y,
        xerr=Z95 * pairs["se"].fillna(0),
        fmt="o",
        color="#2b6cb0",
        ecolor="#2b6cb0",
        capsize=4,
    )
    ax.axvline(0, color="#a0aec0", lw=1)
    ax.set_yticks(y, [f"{a}\nover {b}" for a, b in zip(pairs["a"], pairs["b"])], fontsize=8)
    ax.set_xlabel("net MP per deal (mirrored), 95% interval")
    ax.set_ylim(-0.7, len(pairs) - 0.3)
    return ax


def _cell(value: Any, fmt: str) -> str:
    return "" if pd.isna(value) else html.escape(format(value, fmt))


def _html_table(df: pd.DataFrame, columns: dict[str, tuple[str, str]], left: int) -> str:
    head = "".join(
        f"<th{' class=l' if k < left else ''}>{html.escape(h)}</th>"
        for k, (h, _) in enumerate(columns.values())
    )
    rows = []
    for _, r in df.iterrows():
        cells = "".join(
            f"<td{' class=l' if k < left else ''}>{_cell(r[c], f)}</td>"
            for k, (c, (_, f)) in enumerate(columns.items())
        )
        rows.append(f"<tr>{cells}</tr>")
    return f"<div class='wrap'><table><tr>{head}</tr>{''.join(rows)}</table></div>"


def write_systems_report(study: SystemsStudy, out_dir: str | Path) -> Path:
    """Write the page of ``study`` into ``out_dir`` (created): ``index.html``,
    ``figures/pairs.png`` and ``tables/<name>.csv``; returns the page's path."""
    out = Path(out_dir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    for name, df in study.tables().items():
        df.to_csv(out / "tables" / f"{name}.csv", index=False)
    m = study.meta
    source = (
        f"belote-sim {__version__}: {', '.join(study.systems)}; every pair on the same "
        f"{m['deals']:,} deals played twice with the teams swapped; {m['rules']}; "
        f"{m['play']} play; seed {m['seed']}"
    )
    fig = Figure(figsize=_figure_size(len(study.pairs)), layout="constrained")
    pair_figure(study, fig.add_subplot())
    footnote = (
        f"belote-sim {__version__}; {m['deals']:,} mirrored deals; {m['rules']}; "
        f"{m['play']} play; seed {m['seed']}"
    )
    fig.supxlabel(footnote, x=0.99, ha="right", fontsize=6, color="#718096")
    fig.savefig(out / "figures" / "pairs.png", dpi=DPI)
    pair_cols = {
        "a": ("a", ""),
        "b": ("b", ""),
        "mean": ("net MP per deal", "+.3f"),
        "se": ("s.e.", ".3f"),
        "low": ("95% low", "+.3f"),
        "high": ("95% high", "+.3f"),
        "differ": ("auctions differ", ".1%"),
        "thrown_in": ("thrown in (both plays)", ",d"),
    }
    if m["games"]:
        pair_cols.update(win_rate=("a wins (games)", ".2%"), win_se=("win s.e.", ".2%"))
    mix_cols = {
        "system": ("system", ""),
        "opponent": ("against", ""),
        "takes": ("takes", ".1%"),
        "suit": ("suit", ".1%"),
        "nt": ("NT", ".1%"),
        "at": ("AT", ".1%"),
        "doubled": ("doubled", ".1%"),
        "redoubled": ("redoubled", ".1%"),
        "made": ("made", ".1%"),
        "doubles": ("doubles theirs", ".1%"),
        "thrown_in": ("thrown in", ".1%"),
    }
    diff_tail = {
        "call_a": ("a calls", ""),
        "call_b": ("b calls", ""),
        "deals": ("deals", ",d"),
        "share": ("share", ".2%"),
        "mean": ("MP (a − b)", "+.2f"),
        "se": ("s.e.", ".2f"),
        "contribution": ("contribution", "+.4f"),
    }
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width'><title>Bidding systems compared"
        f"</title><style>{STYLE}</style></head><body>",
        "<h1>Bidding systems compared</h1>",
        "<p class='lead'>Every pair of systems bids the same deals twice, once for each "
        "team, everyone playing the same way; a system's result on a deal is its team's "
        "match points minus the other's, averaged over the two plays, so the luck of the "
        "cards cancels. The two plays of a deal differ only from the first call where the "
        "systems part: those calls are listed below, surest first (by the lower end of "
        "the 95% interval of |contribution|, so that a rare hand whose few deals swing "
        "far does not come before a common one whose effect is certain), with the MP they "
        "gain or lose on those deals. <i>Contribution</i> is that MP times the share of "
        "deals: the rows of a pair add up to its net MP per deal.</p>",
        f"<p class='note'>Source: {html.escape(source)}.</p>",
        "<h2 id='pairs'>Net MP per deal</h2>",
        "<figure><img src='figures/pairs.png' alt='net MP per pair' width='640'>"
        "<figcaption>Each pair: net MP per deal of the system that gained over the other "
        "(X over Y: X's team's MP minus Y's, mirrored), with its 95% interval (paired on "
        "the deals); the table below keeps the order given (a, b).</figcaption></figure>",
        _html_table(study.pairs, pair_cols, 2),
    ]
    if len(study.systems) > 2:
        parts.append("<h3>Standings: net MP per deal averaged over every opponent</h3>")
        parts.append(
            _html_table(
                study.standings,
                {"system": ("system", ""), "mean": ("net MP", "+.3f"), "se": ("s.e.", ".3f")},
                1,
            )
        )
    parts += [
        "<h2 id='mix'>Contract mix</h2>",
        "<p class='note'>takes, suit, NT, AT: share of plays in which the system's team "
        "takes the contract; doubled, redoubled, made: of its contracts; doubles theirs: "
        "share of the opponents' contracts it doubles. <a href='tables/mix.csv'>mix.csv</a>"
        "</p>",
        _html_table(study.mix, mix_cols, 2),
        "<h2 id='differences'>Where the systems differ</h2>",
        "<p class='note'>Situation: who holds the bid at the first call where the two "
        "auctions part, and the kind of contract named (named); pos: the caller's position "
        "(1 first after the dealer .. 4 the dealer). Hand class: the caller's five bidding "
        "cards up to the interchangeable suits, holdings in trump order, the named suit in "
        "brackets; a suit bid is written by the caller's holding in it. Every row: "
        "<a href='tables/situations.csv'>situations.csv</a>, "
        "<a href='tables/hands.csv'>hands.csv</a>.</p>",
    ]
    for pair in study.pairs.itertuples():
        for name, what, cols in (
            (
                "situations",
                "situation",
                {"situation": ("situation", ""), "named": ("named", ""), "position": ("pos", "d")},
            ),
            (
                "hands",
                "hand class",
                {
                    "situation": ("situation", ""),
                    "named": ("named", ""),
                    "hand_class": ("hand class", ""),
                },
            ),
        ):
            df = getattr(study, name)
            df = df[(df["a"] == pair.a) & (df["b"] == pair.b)].head(REPORT_ROWS)
            parts.append(
                f"<h3>{html.escape(str(pair.a))} (a) and {html.escape(str(pair.b))} (b), "
                f"by {what}</h3>"
            )
            if df.empty:
                parts.append("<p>The two systems made the same calls on every deal.</p>")
            else:
                parts.append(_html_table(df, {**cols, **diff_tail}, len(cols) + 2))
    parts.append("</body></html>")
    page = out / "index.html"
    page.write_text("\n".join(parts), encoding="utf-8")
    return page
