"""The HTML report of a deals table, written for players: summary, contents, sections.

``write_report(source, out_dir)`` reads a deals table (DataFrame, Parquet file or
dataset directory), computes ``report_tables.report_tables`` and writes
``index.html``: a summary paragraph with the headline rates and their 95% intervals,
a contents list, then one section per question, each with its figure(s) and a table
for people (pivots, percentages with intervals, group sizes; groups under
``plots.MIN_GROUP`` contracts greyed).  The long tidy tables stay as CSV files in
``tables/`` for analysts; figures are PNGs at 2x resolution in ``figures/``.  A bad
input (missing file, CSV, another tool's Parquet, a games table) raises a one-line
``ValueError`` before anything is written.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pandas as pd

from belote_sim._version import __version__
from belote_sim.analysis.names import bid_name, play_name
from belote_sim.analysis.report_sections import (
    FIXED_EVENTS,
    Page,
    atlas_section,
    bidding_section,
    conditions_text,
    contract_section,
    declaration_section,
    fixed_contract,
    interval_digits,
    outcome_section,
    pct,
    pct_interval,
    points_section,
    seat_list,
    seat_section,
    study_section,
    trump_section,
)
from belote_sim.analysis.report_tables import (
    checked_source,
    report_columns,
    report_tables,
)
from belote_sim.analysis.style import STYLE
from belote_sim.policies import play_strength
from belote_sim.simulation.output import Output

__all__ = ["REPORT_NAMES", "STYLE", "check_source", "source_line", "write_report"]


def check_source(source: Any) -> None:
    """Raise a one-line ``ValueError`` unless ``source`` is a DataFrame or a belote-sim
    deals table on disk (a Parquet file or a directory of Parquet parts)."""
    if isinstance(source, pd.DataFrame):
        return
    import pyarrow.parquet as pq

    path = Path(source)
    if not path.exists():
        raise ValueError(f"{source}: no such file or directory")
    files = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
    if not files:
        raise ValueError(f"{source}: a directory without Parquet files")
    with open(files[0], "rb") as handle:
        if handle.read(4) != b"PAR1":
            raise ValueError(
                f"{files[0]}: not a Parquet file (the report reads the deals "
                "table written by 'belote-sim simulate')"
            )
    try:
        names = set(pq.read_schema(str(files[0])).names)
    except Exception as exc:  # pyarrow raises several kinds
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"{files[0]}: unreadable Parquet file ({first[:100]})") from None
    if {"winner", "deals"} <= names and "outcome" not in names:
        raise ValueError(
            f"{source}: a games table (simulate --games); the report needs a "
            "deals table (simulate --deals)"
        )
    players = 4 if "hand3" in names else 3 if "hand2" in names else 2
    variant = "open" if "table_up0" in names else "standard"
    missing = [c for c in report_columns(players, variant) if c not in names]
    if missing:
        shown = ", ".join(missing[:4]) + (" ..." if len(missing) > 4 else "")
        raise ValueError(f"{source}: not a belote-sim deals table (no column {shown})")


def _summary(tables: dict, provenance: dict, n_deals: int) -> tuple[str, str]:
    out = tables["outcomes"].set_index("event")
    played = int(out.loc["made", "n"])
    opts = provenance.get("options") or {}
    players = opts.get("players", 4)
    game = (
        f"{provenance.get('ruleset', '?')} rules"
        + (f", {players} players" if players != 4 else "")
        + (", open belot" if opts.get("variant") == "open" else "")
    )
    dealer = provenance.get("dealer")
    who = [
        f"<b>{n_deals:,}</b> deals of the {html.escape(game)}",
        "dealer rotating" if dealer is None else f"dealer fixed at seat {dealer}",
        f"seed {provenance['seed']}" if "seed" in provenance else "seed unknown",
    ]
    text = ", ".join(who) + ". "
    if provenance.get("bidding"):
        # names a player reads; the exact specs are in "The study and its data"
        text += (
            f"Bidding: {html.escape(seat_list(provenance['bidding'], bid_name))}; play: "
            f"{html.escape(seat_list(provenance.get('play', []), play_name))} "
            "(<a href='#study'>exact specs</a>). "
        )
        strengths = sorted(
            {
                f"{play_name(p)}: {play_strength(p)}"
                for p in provenance.get("play", [])
                if play_strength(p)
            }
        )
        if strengths:
            text += (
                "How strong the players are (the strength ladder, manual: docs/guide/"
                f"players-and-duels.md): {html.escape('; '.join(strengths))}. "
            )
    cond = conditions_text(provenance)
    if cond:
        text += f"<b>Conditioned deals</b>: {html.escape(cond)}. "

    def rate(event):
        row = out.loc[event]
        digits = interval_digits(row["low"], row["high"])
        return f"{pct(row['rate'], digits)} ({pct_interval(row['low'], row['high'])})"

    fixed = fixed_contract(provenance)
    if fixed:  # no deal thrown in, the doubling fixed: zeros (or ones) by construction
        text += (
            f"Every deal is played in one fixed contract ({html.escape(fixed)}). Of the "
            f"{played:,} contracts the taker's side made {rate('made')}, went inside "
            f"{rate('inside')} and hung {rate('hanging')}; {rate('valat')} ended in a "
            "valat (every trick)."
        )
    else:
        text += (
            f"{rate('thrown_in')} of the deals were thrown in (everyone passed). Of the "
            f"{played:,} contracts played the taker's side made {rate('made')}, went "
            f"inside {rate('inside')} and hung {rate('hanging')}; {rate('doubled')} were "
            f"doubled and {rate('valat')} ended in a valat (every trick)."
        )
    text += _family_text(tables, played, bool(cond))
    cards = []
    for event, label in (
        ("made", "contracts made"),
        ("thrown_in", "deals thrown in"),
        ("doubled", "contracts doubled"),
        ("valat", "valats"),
    ):
        if fixed and event in FIXED_EVENTS:
            continue
        row = out.loc[event]
        cards.append(
            f"<div class='card'><b>{pct(row['rate'], interval_digits(row['low'], row['high']))}"
            f"</b>{label}<br>"
            f"<span>95%: {pct_interval(row['low'], row['high'])} · n {int(row['n']):,}"
            "</span></div>"
        )
    return f"<p class='lead'>{text}</p>", f"<div class='cards'>{''.join(cards)}</div>"


def _family_text(tables: dict, played: int, conditioned: bool) -> str:
    """The contracts by kind: a suit (any of the four, added up: the rules treat the
    suits alike, so which physical suit is most frequent is chance), NT and AT, each
    with its share and how often it is made.  A conditioned study also names its most
    frequent suit, since its conditions make the suits differ."""
    success = tables["success_by_contract"].groupby("strain")[["n", "made"]].sum()
    if not len(success) or not played:
        return ""
    suits = success.loc[[s for s in ("C", "D", "H", "S") if s in success.index]]
    kinds = []
    for label, n, made in (
        ("a suit (any of the four)", suits["n"].sum(), suits["made"].sum()),
        ("no trumps", success["n"].get("NT", 0), success["made"].get("NT", 0)),
        ("all trumps", success["n"].get("AT", 0), success["made"].get("AT", 0)),
    ):
        if n:
            kinds.append(f"{label} {n / played:.0%} (made {made / n:.1%})")
    text = " Contracts played: " + ", ".join(kinds) + "."
    if not conditioned and len(suits) == 4 and suits["n"].sum():
        shares = ", ".join(f"{s} {suits.loc[s, 'n'] / suits['n'].sum():.0%}" for s in suits.index)
        rising = bool((suits["n"].diff().dropna() > 0).all())
        text += (
            f" Suit contracts by suit: {shares}. The four suits are dealt alike; what "
            "differs is their rank in the auction, where a bid must be above the last one "
            "(C < D < H < S): a seat can overcall a lower suit with a higher one, not the "
            "other way round"
            + (
                ", so the higher the suit the more often it ends as the contract."
                if rising
                else " (the rest is chance)."
            )
        )
    if conditioned and len(suits):
        top = suits["n"].idxmax()
        text += (
            f" With these conditions the most frequent suit is {top} "
            f"({suits.loc[top, 'n'] / played:.0%} of contracts)."
        )
    return text


def source_line(provenance: dict, n_deals: int) -> str:
    """The line drawn under every figure: what made the data (package, rules, deals,
    seed), e.g. ``Source: belote-sim 0.1.0 simulation, common rules, 2,000 deals,
    seed 1``."""
    parts = [f"Source: belote-sim {__version__} simulation"]
    if provenance.get("ruleset"):
        parts.append(f"{provenance['ruleset']} rules")
    parts.append(f"{n_deals:,} deals")
    if provenance.get("seed") is not None:
        parts.append(f"seed {provenance['seed']}")
    return ", ".join(parts)


def write_report(
    source: Any,
    out_dir: str | Path,
    provenance: dict | None = None,
    title: str | None = None,
    allow_incomplete: bool = False,
    overwrite: bool = False,
    verify: bool = True,
    svg: bool = False,
    single_file: bool = False,
) -> Path:
    """Write the HTML report of a deals table into ``out_dir``; returns index.html.

    Raises a one-line ValueError (before creating ``out_dir``) for a missing file, a
    file that is not Parquet, another tool's Parquet file or a games table, and for an
    incomplete source (interrupted run, unfinished dataset) unless ``allow_incomplete``;
    the title of an incomplete one ends in "(incomplete: k of n chunks)".  With
    ``verify`` (the default) a file or part whose bytes fail its checksum is refused.

    The report is written as one output (``simulation.output.Output``): into a
    temporary folder beside ``out_dir``, which becomes ``out_dir`` when the report is
    complete.  An existing report there (a folder that is not empty) is replaced only
    with ``overwrite``, and a folder holding anything else than a report's files
    (``REPORT_NAMES``) never is.

    ``svg``: figures as SVG (vector) instead of PNG.  ``single_file``: one
    self-contained HTML file instead of a folder (``single_file.inline_report``:
    figures and tables as data URIs, the atlas page and the hand evaluator as sections
    of the page), written at ``out_dir`` if it ends in ``.html``, else at ``out_dir``
    + ``.html``; returns that file.
    """
    check_source(source)
    source, status = checked_source(source, allow_incomplete, verify)
    fmt = "svg" if svg else "png"
    if single_file:
        import tempfile

        from belote_sim.analysis.single_file import inline_report

        target = str(out_dir)
        target = target if target.endswith(".html") else target + ".html"
        with Output(target, what="the report", overwrite=overwrite) as output:
            with tempfile.TemporaryDirectory(prefix="belote-sim-report-") as tmp:
                _write_report(source, Path(tmp), provenance, title, status, fmt)
                page = inline_report(tmp)
            Path(output.tmp).write_text(page, encoding="utf-8")
            output.commit()
        return Path(target)
    with Output(
        out_dir,
        what="the report",
        folder=True,
        overwrite=overwrite,
        replaceable=_foreign_files,
    ) as output:
        _write_report(source, Path(output.tmp), provenance, title, status, fmt)
        output.commit()
    return Path(out_dir) / "index.html"


#: what a report folder holds
REPORT_NAMES = frozenset({"index.html", "atlas.html", "hand", "tables", "figures"})


def _foreign_files(path: str) -> str | None:
    """Why the folder ``path`` may not be replaced by a report: the names in it that a
    report does not write (they would be lost), or None."""
    import os

    foreign = sorted(set(os.listdir(path)) - REPORT_NAMES)
    if not foreign:
        return None
    return (
        f"it holds {', '.join(foreign[:3])}{', ...' if len(foreign) > 3 else ''}, which a "
        "report does not write; choose another output"
    )


def _write_report(
    source: Any,
    out: Path,
    provenance: dict | None,
    title: str | None,
    status: dict,
    fmt: str = "png",
) -> Path:
    """The report of a checked source into the folder ``out`` (created)."""
    if provenance is None:
        provenance = status["provenance"] or {}
    title = title or "belote-sim report"
    if not status["complete"]:
        title = f"{title} (incomplete: {status['chunks']} of {status['n_chunks']} chunks)"
    tables = report_tables(source, provenance)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    for name, df in tables.items():
        df.to_csv(out / "tables" / f"{name}.csv", index=False)
    n_deals = int(tables["outcomes"].set_index("event").loc["thrown_in", "n"])
    page = Page(out, source_line(provenance, n_deals), fmt)
    lead, cards = _summary(tables, provenance, n_deals)
    outcome_section(page, tables, provenance)
    seat_section(page, tables, provenance)
    contract_section(page, tables, provenance)
    if "bid_trumps" in tables:
        bidding_section(page, tables, source)
    trump_section(page, tables)
    points_section(page, tables)
    declaration_section(page, tables, provenance)
    atlas_section(
        page,
        out,
        conditioned=bool(conditions_text(provenance)),
        ruleset=provenance.get("ruleset"),
    )
    study_section(page, tables, provenance)
    parts = [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width'>"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        lead,
        cards,
        "<nav><h2 id='contents'>Contents</h2><ol>",
    ]
    parts += [f"<li><a href='#{a}'>{html.escape(h)}</a></li>" for a, h, _ in page.sections]
    parts.append("</ol></nav>")
    for anchor, heading, body in page.sections:
        parts.append(f"<section id='{anchor}'><h2>{html.escape(heading)}</h2>")
        parts += body
        parts.append("</section>")
    parts.append("</body></html>")
    index = out / "index.html"
    index.write_text("\n".join(parts), encoding="utf-8")
    return index
