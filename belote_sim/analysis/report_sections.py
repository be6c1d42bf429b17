"""The sections of the HTML report (one figure and its table each) and the small
HTML helpers they share: rates with intervals, pivots, plain tables."""

from __future__ import annotations

import datetime as _dt
import html
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from belote_sim._version import __version__
from belote_sim.analysis import plots
from belote_sim.analysis.report_tables import (
    HONOURS,
    SCORE_BANDS,
    SEAT_ROLES,
    STRAINS,
    TRUMP_POINT_BANDS,
    iter_batches,
    net_mean_se,
)
from belote_sim.policies import THRESHOLD_SCORE_FORMULA
from belote_sim.stats import wilson_interval

__all__ = [
    "DOUBLING_NAMES",
    "FIXED_EVENTS",
    "MIN_GROUP",
    "SEAT_ORDINALS",
    "Page",
    "atlas_section",
    "best_defence_nt_score",
    "bidding_section",
    "conditions_text",
    "contract_section",
    "declaration_section",
    "fixed_contract",
    "interval_digits",
    "outcome_section",
    "pct",
    "pct_interval",
    "points_section",
    "policy_words",
    "provenance_words",
    "seat_list",
    "seat_section",
    "study_section",
    "threshold_params",
    "trump_section",
]

MIN_GROUP = plots.MIN_GROUP


DOUBLING_NAMES = plots.DOUBLING_NAMES


def pct(x: float, digits: int = 1) -> str:
    return "–" if x is None or not np.isfinite(x) else f"{100 * x:.{digits}f}%"


def interval_digits(low: float, high: float, digits: int = 1, most: int = 4) -> int:
    """Decimals of a percentage interval whose two ends print differently: ``digits``,
    or more (up to ``most``) where they would round to the same number."""
    while digits < most and f"{100 * low:.{digits}f}" == f"{100 * high:.{digits}f}":
        digits += 1
    return digits


def pct_interval(low: float, high: float, digits: int = 1) -> str:
    """``0.7–0.9%``: a 95% interval in percent, with more decimals than ``digits`` where
    its ends would otherwise print the same (never ``0.8–0.8%``)."""
    digits = interval_digits(low, high, digits)
    return f"{100 * low:.{digits}f}–{100 * high:.{digits}f}%"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _rate_cell(made: float, n: float, net: tuple[float, float] | None = None) -> str:
    """A table cell: rate, 95% interval and group size; greyed for small groups. With
    ``net`` = (sum of the net MP, sum of its squares): the mean net MP ± its s.e. too."""
    if not n:
        return "<td class='small'>–</td>"
    low, high = wilson_interval(made, n)
    cls = " class='small'" if n < MIN_GROUP else ""
    title = f" title='{int(made)} of {int(n)} made'"
    net_html = ""
    if net is not None:
        mean, se = (float(x) for x in net_mean_se(net[0], net[1], n))
        se_text = f" ± {se:.1f}" if np.isfinite(se) else ""
        shown = f"{mean:+.1f}" if round(mean, 1) != 0 else "0.0"  # never "-0.0"
        net_html = f"<span class='net'>net {shown}{se_text}</span>"
    return (
        f"<td{cls}{title}>{pct(made / n, interval_digits(low, high))}"
        f"<span class='ci'>{pct_interval(low, high)}</span>"
        f"{net_html}<span class='n'>n {int(n):,}</span></td>"
    )


def _pivot_html(
    table: pd.DataFrame,
    rows: list[str],
    col: str,
    col_order: list | None,
    row_label: dict[str, Any] | None = None,
    corner: str = "",
    col_label=lambda c: str(c),
    total: bool = True,
) -> str:
    """A pivot of contracts made: one cell (rate, interval, n) per row and column
    value, with an 'all' column first (right of the row labels, so that a table wider
    than the page never hides it); tables with ``net`` and ``net2`` sums
    (``count_bid_success``) show the mean net MP ± s.e. in each cell too."""
    if table.empty or not table["n"].sum():
        return "<p class='note'>No contracts of this kind in the study: no table.</p>"
    table = table.copy()
    sums = ["n", "made"] + (["net", "net2"] if "net2" in table.columns else [])
    if "strain" in rows:  # strains in auction order, not alphabetical
        table["strain"] = pd.Categorical(
            table["strain"], [s for s in STRAINS if s in set(table["strain"])]
        )
    grouped = table.groupby(rows + [col], sort=True, observed=True)[sums].sum()
    cols = [c for c in (col_order or sorted(table[col].unique())) if c in set(table[col])]
    row_keys = table.groupby(rows, sort=True, observed=True)[sums].sum()
    head = "".join(f"<th>{html.escape(col_label(c))}</th>" for c in cols)
    out = [
        f"<div class='wrap'><table><tr><th class='l'>{html.escape(corner)}</th>"
        + ("<th class='all'>all</th>" if total else "")
        + f"{head}</tr>"
    ]
    for key, row_sums in row_keys.iterrows():
        key_t = key if isinstance(key, tuple) else (key,)
        label = " · ".join(
            str((row_label or {}).get(r, lambda v: v)(v)) for r, v in zip(rows, key_t)
        )
        cells = []
        if total:
            cells.append(_rate_cell(row_sums["made"], row_sums["n"], _net_sums(row_sums)))
        for c in cols:
            idx = key_t + (c,)
            if idx in grouped.index:
                g = grouped.loc[idx]
                cells.append(_rate_cell(g["made"], g["n"], _net_sums(g)))
            else:
                cells.append("<td class='small'>–</td>")
        out.append(f"<tr><th class='l'>{html.escape(label)}</th>{''.join(cells)}</tr>")
    out.append("</table></div>")
    return "".join(out)


def _net_sums(row: pd.Series) -> tuple[float, float] | None:
    return (row["net"], row["net2"]) if "net2" in row.index else None


def _simple_table(header: list[str], rows: list[list[str]], left: int = 1) -> str:
    head = "".join(
        f"<th{' class=l' if k < left else ''}>{html.escape(h)}</th>" for k, h in enumerate(header)
    )
    body = "".join(
        "<tr>"
        + "".join(f"<td{' class=l' if k < left else ''}>{c}</td>" for k, c in enumerate(r))
        + "</tr>"
        for r in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _fmt(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def policy_words(spec: str) -> str:
    """A policy spec in words: ``threshold:50,52`` -> ``threshold (suit 50, nt 52)``."""
    from belote_sim.policies import BID_POLICIES, PLAY_POLICIES

    name, _, params = spec.partition(":")
    info = BID_POLICIES.get(name) or PLAY_POLICIES.get(name)
    if not params or info is None:
        return spec
    values = params.split(",")
    names = [n.replace("_", " ") for n in info.param_names] + [""] * len(values)
    words = [f"{n} {v}".strip() for n, v in zip(names, values)]
    return f"{name} ({', '.join(words)})"


def seat_list(values: list[str], words: Callable[[str], str] | None = None) -> str:
    """``['a', 'a', 'a', 'a'] -> 'a at every seat'``, else 'seat 0 a, seat 1 b ...';
    each spec written by ``words`` (default ``policy_words``: the spec with its
    parameters named; ``names.play_name``/``bid_name``: a name for a reader)."""
    words = words or policy_words
    if not values:
        return "?"
    if len(set(values)) == 1:
        return f"{words(values[0])} at every seat"
    return ", ".join(f"seat {k} {words(v)}" for k, v in enumerate(values))


def fixed_contract(provenance: dict) -> str | None:
    """The contract of a study where every seat bids ``fixed`` (the same seat takes
    the same strain at the same doubling every deal), in words; None for any other
    study.  Such a study has no thrown-in deal and doubles all or none of its
    contracts by construction: the report leaves those zeros (or ones) out."""
    from belote_sim.analysis.names import bid_name

    bidding = provenance.get("bidding") or []
    if not bidding or len(set(bidding)) != 1 or not str(bidding[0]).startswith("fixed"):
        return None
    name = bid_name(bidding[0])
    return name[name.index("(") + 1 : -1] if "(" in name else name


#: The outcomes a fixed contract fixes (``fixed_contract``).
FIXED_EVENTS = ("thrown_in", "doubled")


def conditions_text(provenance: dict) -> str:
    """The predealt cards and constraints of a study in words ('' when there are none)."""
    parts = []
    for seat, cards in sorted((provenance.get("predeal") or {}).items()):
        shown = " ".join(cards) if isinstance(cards, list) else cards
        parts.append(f"seat {seat} is dealt {shown}")
    for seat, spec in sorted((provenance.get("constraints") or {}).items()):
        items = []
        for key, value in spec.items():
            if key in ("min", "max"):
                most = "at least" if key == "min" else "at most"
                items += [f"{most} {n} {suit}" for suit, n in value.items()]
            elif key == "strength":
                items.append(f"plain card points {value[0]}–{value[1]}")
            else:
                cards = value if isinstance(value, str) else " ".join(value)
                items.append(f"{'without' if key == 'exclude' else 'with'} {cards}")
        parts.append(f"seat {seat}: {', '.join(items)}")
    return "; ".join(parts)


class Page:
    """The report's page being written: its sections, and its figures saved under
    ``out/figures`` (``fmt``: PNG at ``plots.DPI`` or SVG, vector), each with a title
    and ``source`` (the study in one line) drawn in the image, so that a figure shared
    on its own still says what it shows and where it comes from."""

    def __init__(self, out: Path, source: str = "", fmt: str = "png"):
        if fmt not in ("png", "svg"):
            raise ValueError(f"figure format {fmt!r}: png or svg")
        self.out = out
        self.source = source
        self.fmt = fmt
        self.sections: list[tuple[str, str, list[str]]] = []
        (out / "figures").mkdir(parents=True, exist_ok=True)

    def figure(
        self,
        ax,
        name: str,
        caption: str,
        width: int = 640,
        title: str | None = None,
        source: str | None = None,
    ) -> str:
        """Save the figure of ``ax`` as ``figures/name`` with its ``title`` (unless it
        has one; ValueError for a figure left without any) and the source line
        (``source``, by default the study's) drawn in; returns its HTML (``<figure>``
        with the caption)."""
        fig = ax.figure
        if title and not any(a.get_title() for a in fig.axes):
            if len(fig.axes) > 1:
                fig.suptitle(title)
            else:
                ax.set_title(title)
        if not fig.get_suptitle() and not any(a.get_title() for a in fig.axes):
            raise ValueError(f"figure {name}: no title (every figure of the report has one)")
        if source or self.source:
            fig.supxlabel(source or self.source, x=0.99, ha="right", fontsize=6.5, color="#718096")
        name = Path(name).with_suffix("." + self.fmt).name
        if self.fmt == "svg":  # vector; no date, so the same report gives the same file
            fig.savefig(self.out / "figures" / name, format="svg", metadata={"Date": None})
        else:
            fig.savefig(self.out / "figures" / name, dpi=plots.DPI)
        return (
            f"<figure><img src='figures/{name}' alt='{html.escape(caption)}' "
            f"width='{width}'><figcaption>{html.escape(caption)}</figcaption></figure>"
        )

    def section(self, anchor: str, heading: str, parts: list[str]) -> None:
        self.sections.append((anchor, heading, parts))


def _calibration(source: Any, page: Page) -> str:
    """The fit_strength calibration figure: fitted on every deal, each checked out of
    sample (``strength.cross_calibration``), or one line saying why there is none (too
    few contracts, or bidding hands too alike to spread the predictions)."""
    from belote_sim.analysis.strength import FEATURES, bid_features, cross_calibration

    keep = [*FEATURES, "family", "made"]
    parts = [bid_features(batch)[keep] for batch in iter_batches(source)]
    feats = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=keep)
    none = "<p class='note'>No calibration figure for the fitted bidding-hand model: {}.</p>"
    if len(feats) < 400:
        return none.format(f"{len(feats):,} contracts are too few to fit it (400 at least)")
    try:
        table = cross_calibration(feats)
    except ValueError:
        return none.format("too few contracts of each kind to fit it")
    spread = table.groupby("family")["predicted"].nunique() if len(table) else pd.Series()
    if spread.empty or spread.max() < 3:
        return none.format(
            "the takers' bidding hands are too alike (fewer than 3 distinct predictions "
            "in every kind of contract), so there is nothing to calibrate"
        )
    return page.figure(
        plots.calibration(table),
        "calibration.png",
        f"Calibration of the fitted bidding-hand model (strength.fit_strength:"
        f" logistic P(made) per family from the 5 bidding cards and their bidding "
        f"score), fitted on all {len(feats):,} contracts played, each checked out of "
        "sample (the model fitted on the odd contracts predicts the even ones and the "
        "other way round): observed share made, with its 95% interval, by decile of "
        "the prediction; on the grey diagonal the model is right. The axes span the "
        "predictions and observations only.",
        width=500,
    )


def atlas_section(
    page: Page, out: Path, conditioned: bool = False, ruleset: str | None = None
) -> None:
    """A section on the shipped hand atlas of the study's ``ruleset`` (the common one
    where the package ships none for it), with links to its page (``atlas.html``: one
    table per strain kind, and the CSVs) and to the hand evaluator (``hand/``, every
    shipped atlas); nothing when the package ships no atlas.  A ``conditioned`` study
    (predealt cards, constraints) gets the hand evaluator and one line instead: the
    atlas's tables are those of uniformly dealt hands, the same in every report, and
    say nothing about its conditions."""
    from belote_sim.simulation.atlas_table import shipped_atlas

    path = shipped_atlas(ruleset)
    if not path.exists():
        return
    if conditioned:
        from belote_sim.analysis.hand_page import write_hand_page

        write_hand_page(out / "hand", back_link=("../index.html", "the report"), default=path)
        page.section(
            "atlas",
            "The hand atlas: should I bid this hand?",
            [
                "<p class='note'>The atlas's tables are left out of a conditioned study's "
                "report: they describe uniformly dealt hands, the same in every report, not "
                "this study's conditions. <b><a href='hand/index.html'>The hand evaluator"
                "</a></b> (a page that works offline) and <code>belote-sim hand CARDS "
                "--position P</code> answer any 5-card bidding hand.</p>"
            ],
        )
        return
    from belote_sim.analysis.atlas_report import (
        TITLES,
        net_distribution,
        position_table,
        write_atlas_page,
    )
    from belote_sim.analysis.hand_page import play_words, write_hand_page
    from belote_sim.atlas import load_atlas

    atlas = load_atlas(str(path))
    write_hand_page(out / "hand", back_link=("../index.html", "the report"), default=path)
    write_atlas_page(out, atlas, hand_page="hand/index.html")
    pos = position_table(atlas)
    rows = []
    for kind, label in TITLES.items():
        part = pos[pos["kind"] == kind].set_index("position")
        if part.empty:
            continue
        cells = [
            (
                f"{pct(part.loc[p, 'bid'])}<span class='ci'>P(made) "
                f"{pct(part.loc[p, 'p_made'])}</span>"
                if p in part.index
                else "–"
            )
            for p in (1, 2, 3, 4)
        ]
        rows.append([label] + cells)
    table = _simple_table(
        ["contract", "position 1 (leads)", "position 2", "position 3", "position 4 (dealer)"], rows
    )
    meta = atlas.meta
    page.section(
        "atlas",
        "The hand atlas: should I bid this hand?",
        [
            "<p>The package ships an atlas of every 5-card bidding hand: for each strain "
            "and each position of the taker, P(made) and the expected net MP (the taker's "
            "team's match points minus the defenders') from many deals of each hand class "
            f"({html.escape(str(meta.get('ruleset', '?')))} rules; all four players play "
            f"{html.escape(play_words(str(meta.get('play', '?'))))}; "
            f"{int(meta.get('deals', 0)):,} deals).</p>",
            "<p class='lead'><b><a href='hand/index.html'>The hand evaluator</a></b>: pick "
            "five cards and a position, read the call, P(made) and net MP of every strain "
            "(a page that works offline). <b><a href='atlas.html'>The atlas by holding"
            "</a></b>: P(made) and net MP by trump holding and side aces, aces and tens "
            "(NT), jacks and nines (AT), strongest first. <code>belote-sim hand CARDS "
            "--position P</code> answers one hand in a terminal.</p>",
            page.figure(
                net_distribution(atlas),
                "atlas_net.png",
                "Expected net MP x1 of every 5-card bidding hand when its holder takes, by "
                "contract kind (hands weighted by how often they are dealt, the four "
                "positions equally; source: the shipped atlas): the height at 0 is the "
                "share of hands the atlas tells to bid.",
                source=f"Source: belote-sim {__version__} hand atlas, "
                f"{meta.get('ruleset', '?')} rules, {int(meta.get('deals', 0)):,} deals",
            ),
            "<p class='note'>Share of 5-card bidding hands for which taking the contract "
            "undoubled has a positive expected net MP (the atlas says bid), and the mean "
            "P(made) over all hands:</p>",
            f"<div class='wrap'>{table}</div>",
        ],
    )


def _csv(name: str) -> str:
    return f"<a href='tables/{name}.csv'>{name}.csv</a>"


def outcome_section(page: Page, tables: dict, provenance: dict | None = None) -> None:
    t = tables["outcomes"]
    fixed = fixed_contract(provenance or {})
    if fixed:
        t = t[~t["event"].isin(FIXED_EVENTS)]
    fig = page.figure(
        plots.outcome_bars(t),
        "outcomes.png",
        "How deals end (bars: share, lines: 95% interval). Thrown in is per "
        "deal, the rest per contract played.",
        title="How deals end",
    )
    names = {
        "made": "made",
        "inside": "inside (the takers failed)",
        "hanging": "hanging (a tie: points held)",
        "thrown_in": "thrown in (all pass)",
        "valat": "valat (one side took every trick)",
        "doubled": "doubled",
    }
    rows = [
        [
            html.escape(names.get(r.event, r.event)),
            pct(r.rate),
            pct_interval(r.low, r.high),
            f"{int(r.hits):,}",
            f"{int(r.n):,}",
        ]
        for r in t.itertuples()
    ]
    page.section(
        "outcomes",
        "How deals end",
        [
            fig,
            _simple_table(["outcome", "share", "95% interval", "count", "out of"], rows),
            (
                f"<p class='note'>A fixed contract ({html.escape(fixed)}) every deal: no "
                "deal is thrown in and the doubling is the fixed one, so those rows are "
                f"left out. Data: {_csv('outcomes')}</p>"
                if fixed
                else f"<p class='note'>Data: {_csv('outcomes')}</p>"
            ),
        ],
    )


def contract_section(page: Page, tables: dict, provenance: dict) -> None:
    t = tables["success_by_contract"]
    fig = page.figure(
        plots.success_by_strain(t),
        "success_strains.png",
        "Contracts made per strain and doubling level (95% intervals; levels "
        f"with fewer than {MIN_GROUP} contracts not drawn).",
        title="Contracts made by strain and doubling",
    )
    positions = sorted(t["taker_position"].unique())
    players = int((provenance.get("options") or {}).get("players", 4))
    ordinal = {0: "1st to speak", 1: "2nd", 2: "3rd", 3: "4th"}
    ordinal[players - 1] += " (dealer)"
    pivot = _pivot_html(
        t,
        ["strain", "doubling"],
        "taker_position",
        positions,
        {"strain": str, "doubling": lambda d: DOUBLING_NAMES.get(int(d), d)},
        "contract · doubling",
        lambda p: ordinal.get(int(p), str(p)),
    )
    page.section(
        "contracts",
        "Contracts made by strain, doubling and position",
        [
            fig,
            "<p class='note'>Share of contracts made, its 95% Wilson interval and the "
            "number of contracts. Position: the taker's place in the bidding (1st = the "
            f"dealer's right-hand neighbour, who speaks first). Groups under {MIN_GROUP} "
            "contracts are greyed. Doubling: x1 plain, x2 doubled, x4 redoubled; "
            "doubling multiplies every MP of the deal by 2 per level (the valat bonus "
            "aside), and a doubled contract commits both teams: whichever has fewer raw "
            "points is inside and the other takes all the MP. So the net MP at x2 (the "
            "taker's team's MP minus the defenders' in a doubled deal) is about twice "
            "the x1 net of the same cards, and at x4 four times.</p>",
            *_at_doubling_note(t, provenance),
            *_nt_doubling_note(
                t,
                []
                if (provenance.get("options") or {}).get("dealer_must_take")
                else [threshold_params(str(b)) for b in provenance.get("bidding") or []],
            ),
            pivot,
            f"<p class='note'>Data: {_csv('success_by_contract')}</p>",
        ],
    )


def _net_text(net: float, net2: float, n: float) -> str:
    """``+3.2 ± 0.4`` (mean net MP ± its s.e.); never ``-0.0``."""
    mean, se = (float(x) for x in net_mean_se(net, net2, n))
    shown = f"{mean:+.1f}" if round(mean, 1) != 0 else "0.0"
    return shown + (f" ± {se:.1f}" if np.isfinite(se) else "")


SEAT_ORDINALS = {0: "1st to speak", 1: "2nd", 2: "3rd", 3: "4th (dealer)"}


def seat_section(page: Page, tables: dict, provenance: dict) -> None:
    """A conditioned study's own question: how the conditioned seat and its team fare
    (who takes, how often it is made, the team's net MP per deal), one part per
    conditioned seat; nothing for an unconditioned study."""
    t = tables.get("conditioned_seat")
    if t is None or t.empty:
        return
    parts = []
    seats = sorted(int(s) for s in t["seat"].unique())
    for seat in seats:
        part = t[t["seat"] == seat]
        partner, team = (seat + 2) % 4, seat % 2
        opponents = "seats {} and {}".format(*sorted([(seat + 1) % 4, (seat + 3) % 4]))
        what = html.escape(conditions_text(_only_seat(provenance, seat)))
        total = part[["n", "made", "net", "net2"]].sum()
        n_deals = float(total["n"])
        heading = (
            f"Seat {seat} and its team {team} (seats {min(seat, partner)} and {max(seat, partner)})"
        )
        parts.append(f"<h3>{heading}</h3>")
        parts.append(
            f"<p class='lead'>Conditions: {what}. Team {team} scores <b>net "
            f"{_net_text(total['net'], total['net2'], n_deals)} MP per deal</b> (its match "
            "points minus the other team's, at the doubling played, ± standard error; "
            f"every one of the {int(n_deals):,} deals counted, a deal thrown in as 0).</p>"
        )
        roles = part.groupby("role")[["n", "made", "net", "net2"]].sum()
        names = {
            "seat": f"seat {seat} (the conditioned hand)",
            "partner": f"its partner, seat {partner}",
            "opponents": f"an opponent ({opponents})",
            "nobody": "nobody (thrown in)",
        }
        rows = []
        for role in SEAT_ROLES:
            if role not in roles.index:
                continue
            r = roles.loc[role]
            low, high = wilson_interval(r["n"], n_deals)
            share = (
                f"{pct(r['n'] / n_deals, interval_digits(low, high))}"
                f"<span class='ci'>{pct_interval(low, high)}</span>"
            )
            if role == "nobody":
                made = "–"
            else:
                mlow, mhigh = wilson_interval(r["made"], r["n"])
                made = (
                    f"{pct(r['made'] / r['n'], interval_digits(mlow, mhigh))}"
                    f"<span class='ci'>{pct_interval(mlow, mhigh)}</span>"
                )
            rows.append(
                [
                    html.escape(names[role]),
                    share,
                    made,
                    _net_text(r["net"], r["net2"], r["n"]),
                    f"{int(r['n']):,}",
                ]
            )
        parts.append(
            "<div class='wrap'>"
            + _simple_table(
                [
                    "who takes",
                    "share of deals (95%)",
                    "made by the takers (95%)",
                    f"team {team}: net MP per deal ± s.e.",
                    "deals",
                ],
                rows,
            )
            + "</div>"
        )
        own = part[part["role"] == "seat"]
        if len(own):
            parts.append(
                f"<p class='note'>The contracts seat {seat} takes, by strain and by its "
                "place in the bidding (the dealer rotates unless fixed): share made, 95% "
                f"interval, net MP of team {team} per contract ± s.e., number of "
                f"contracts; greyed under {MIN_GROUP}.</p>"
            )
            parts.append(
                _pivot_html(
                    own,
                    ["strain"],
                    "seat_position",
                    [0, 1, 2, 3],
                    None,
                    f"seat {seat} takes",
                    lambda p: SEAT_ORDINALS.get(int(p), str(p)),
                )
            )
    parts.append(
        "<p class='note'>The other sections count every deal and every contract, "
        f"whoever holds it. Data: {_csv('conditioned_seat')}</p>"
    )
    who = ", ".join(f"seat {s}" for s in seats)
    page.section("conditioned-seat", f"The conditioned hand: {who} and its team", parts)


def _only_seat(provenance: dict, seat: int) -> dict:
    """The provenance's predealt cards and constraints of one seat only."""
    return {
        key: {k: v for k, v in (provenance.get(key) or {}).items() if int(k) == seat}
        for key in ("predeal", "constraints")
    }


def threshold_params(spec: str) -> list[float] | None:
    """The five parameters (suit, nt, at, double, redouble) of a ``threshold`` bidding
    spec, its defaults filled in; None for another policy."""
    from belote_sim.kernels.bidding import THRESHOLD_DEFAULTS

    name, _, params = spec.partition(":")
    if name != "threshold":
        return None
    values = [float(v) for v in params.split(",") if v.strip()] if params else []
    return values + list(THRESHOLD_DEFAULTS[len(values) :])


def best_defence_nt_score(taker_score: float) -> int:
    """The highest NT bidding score (``policies.THRESHOLD_SCORE_FORMULA``: A 11 + 5,
    T 10, K 4, Q 3, J 2) a defender's 5 cards can have when the taker's 5 cards score
    at least ``taker_score`` in NT (the two hands share the deck's 4 cards of each
    rank); -1 when no hand scores that much.  Counted over every split of the honours."""
    import itertools

    points = (16, 10, 4, 3, 2)  # A (11 + 5 per ace), T, K, Q, J
    hands = [c for c in itertools.product(range(5), repeat=5) if sum(c) <= 5]

    def score(c):
        return sum(p * x for p, x in zip(points, c))

    best = -1
    for taker in hands:
        if score(taker) < taker_score:
            continue
        for other in hands:
            if all(a + b <= 4 for a, b in zip(taker, other)):
                best = max(best, score(other))
    return best


def _nt_doubling_note(t: pd.DataFrame, params: list) -> list[str]:
    """Why NT contracts are never doubled, when they are not and the ``threshold``
    policy's numbers make it impossible: a note, or nothing."""
    nt = t[t["strain"] == "NT"]
    if not nt["n"].sum() or (nt.loc[nt["n"] > 0, "doubling"].astype(int) > 0).any():
        return []
    if not params or any(p is None for p in params):
        return []
    nt_min = min(p[1] for p in params)
    double = min(p[3] for p in params)
    best = best_defence_nt_score(nt_min)
    if best < 0 or best >= double:
        return []
    return [
        "<p class='note'><b>Why no trumps is never doubled.</b> A defender doubles NT "
        f"with an NT score of {double:g} or more, but when the taker's five cards score the "
        f"{nt_min:g} it needs to bid NT, the aces and tens left to a defender's five cards "
        f"score at most {best} (counted over every split of the honours): with these "
        "thresholds a double of NT cannot happen.</p>"
    ]


def _at_doubling_note(t: pd.DataFrame, provenance: dict) -> list[str]:
    """Why all-trumps contracts show x1 and x4 but no x2 (when they do): a note, or
    nothing.  With the ``threshold`` policy at every seat and an AT threshold at or
    above the redouble threshold the taker always holds a redouble, and the bidding
    goes round again after a double, so a doubled AT never stays x2."""
    at = t[t["strain"] == "AT"]
    levels = set(at.loc[at["n"] > 0, "doubling"].astype(int))
    if not at["n"].sum() or 1 in levels or 2 not in levels:
        return []
    specs = provenance.get("bidding") or []
    params = [threshold_params(str(spec)) for spec in specs]
    if (provenance.get("options") or {}).get("dealer_must_take"):
        params = []  # a forced dealer bids below its threshold: no claim
    if params and all(p is not None and p[2] >= p[4] for p in params):
        at_min = min(p[2] for p in params if p is not None)
        redouble = max(p[4] for p in params if p is not None)
        return [
            "<p class='note'><b>Why all trumps shows x1 and x4 but no x2.</b> A seat "
            f"bids AT only with an AT score of at least {at_min:g}, which is at or above "
            f"the redouble threshold ({redouble:g}); after a double the bidding goes "
            "round again (three passes end it), so the taker, holding the same five "
            "cards, always reaches the redouble (if its partner has not redoubled first). "
            "Every doubled AT contract is redoubled: x2 is never "
            "final (in suit contracts it is, when the taker's score is between its "
            "bidding threshold and the redouble threshold).</p>"
        ]
    return [
        "<p class='note'>All-trumps contracts here were either played undoubled or "
        "redoubled: every double of an AT contract was answered by a redouble.</p>"
    ]


def bidding_section(page: Page, tables: dict, source: Any) -> None:
    t = tables["bid_trumps"].copy()
    has_j = t["honours"].str.contains("J")
    has_9 = t["honours"].str.contains("9")
    pairs = ["J and 9", "J, no 9", "9, no J", "neither J nor 9"]
    t["pair"] = pd.Categorical(np.select([has_j & has_9, has_j, has_9], pairs[:3], pairs[3]), pairs)
    parts = []
    if t["bid_trumps"].nunique() < 2:
        parts.append(_one_value_note(t, "bid_trumps", "trumps among the 5 bidding cards"))
    else:
        parts.append(_bidding_trumps_figure(page, t))
    parts.append(_calibration(source, page))
    _bidding_tables(parts, tables)
    page.section("bidding-hand", "The bidding hand: what the 5 cards promise", parts)


def _one_value_note(t: pd.DataFrame, feature: str, words: str) -> str:
    """The line that replaces a figure whose x axis would hold a single value."""
    if t.empty:
        return "<p class='note'>No suit contracts: no figure.</p>"
    value = int(t[feature].iloc[0])
    return (
        f"<p class='note'>No figure: every suit contract's taker held {_plural(value, 'trump')}"
        f" ({words}), a single point; the table below gives its rate.</p>"
    )


def _bidding_trumps_figure(page: Page, t: pd.DataFrame) -> str:
    """The figure of suit contracts made by trumps among the 5 bidding cards."""
    ax = plots.success_vs_feature(
        t,
        "bid_trumps",
        by="pair",
        xlabel="trumps among the 5 bidding cards",
        labels={
            "J and 9": "J and 9 of trump",
            "J, no 9": "J of trump, no 9",
            "9, no J": "9 of trump, no J",
            "neither J nor 9": "neither J nor 9",
        },
    )
    ax.set_title("Suit contracts: the taker's bidding hand")
    return page.figure(
        ax,
        "bidding_trumps.png",
        "Suit contracts made by the number of trumps among the taker's 5 "
        "bidding cards and whether they include the jack and nine of trump "
        f"(95% bands for groups of at least {MIN_GROUP}; smaller groups "
        "hollow, with their size).",
    )


def _lowest_band_words(table: pd.DataFrame) -> str:
    """How many contracts were taken with a score in the lowest band (under 50), per
    contract kind, measured: under ``threshold`` bidding hardly any (a taker scores at
    least its threshold), under other biddings (the atlas's) many."""
    if table.empty or not table["n"].sum():
        return ""
    by = table.groupby("family", observed=True)["n"].sum()
    low = table[table["score_band"] == SCORE_BANDS[0]].groupby("family", observed=True)["n"].sum()
    words = [
        f"{low.get(f, 0) / by[f]:.0%} of {f} contracts"
        for f in ("suit", "NT", "AT")
        if by.get(f, 0)
    ]
    return (
        f"Taken with a score under 50 (the lowest band) in this study: {', '.join(words)}; "
        "a threshold bidder never takes under its threshold, other bidders (the atlas's) "
        "often do."
    )


def _bidding_tables(parts: list[str], tables: dict) -> None:
    """The bidding-hand pivots (one line instead of a table that would be empty)."""
    parts.append("<h3>Suit contracts: trumps × J / 9 / A of trump</h3>")
    parts.append(
        _pivot_html(
            tables["bid_trumps"],
            ["bid_trumps"],
            "honours",
            HONOURS,
            {"bid_trumps": lambda v: _plural(v, "trump")},
            "trumps in 5 cards",
            lambda h: h if h == "none" else h.replace(" ", "+"),
        )
    )
    parts.append("<h3>By the bidding score of the 5 cards in the strain taken</h3>")
    parts.append(
        "<p class='note'>The score is the one the <code>threshold</code> bidding policy "
        "bids by (its thresholds, e.g. suit 50, NT 52, AT 75, are in these units): "
        f"{html.escape(THRESHOLD_SCORE_FORMULA)}. {_lowest_band_words(tables['bid_score'])}"
        "</p>"
    )
    parts.append(
        _pivot_html(tables["bid_score"], ["family"], "score_band", SCORE_BANDS, None, "contract")
    )
    parts.append("<h3>By the card points of the 5 cards in the contract</h3>")
    parts.append(
        "<p class='note'>Points as the cards count in the contract taken: trumps J 20, "
        "9 14, A 11, T 10, K 4, Q 3; other cards A 11, T 10, K 4, Q 3, J 2 (in NT "
        "every card counts plain, in AT every card as a trump).</p>"
    )
    parts.append(
        _pivot_html(
            tables["bid_trump_points"],
            ["family"],
            "trump_point_band",
            TRUMP_POINT_BANDS,
            None,
            "contract",
        )
    )
    parts.append("<h3>No trumps: by aces among the 5 cards</h3>")
    parts.append(
        _pivot_html(
            tables["bid_nt_aces"].assign(row="NT"),
            ["row"],
            "bid_aces",
            None,
            None,
            "aces",
            lambda a: _plural(a, "ace"),
        )
    )
    parts.append("<h3>All trumps: by jacks (rows) and nines (columns)</h3>")
    parts.append(
        _pivot_html(
            tables["bid_at_jacks_nines"],
            ["bid_jacks"],
            "bid_nines",
            None,
            {"bid_jacks": lambda v: _plural(v, "jack")},
            "jacks \\ nines",
            lambda v: _plural(v, "nine"),
        )
    )
    parts.append(
        "<p class='note'>Each cell: share made, 95% interval, number of contracts;"
        f" greyed under {MIN_GROUP}. <i>net</i> is "
        "the mean net MP of the taker's team per contract (its match points minus the "
        "defenders', at the doubling played) ± its standard error. Data: "
        + ", ".join(
            _csv(n)
            for n in (
                "bid_trumps",
                "bid_score",
                "bid_trump_points",
                "bid_nt_aces",
                "bid_at_jacks_nines",
            )
        )
        + "</p>"
    )


def trump_section(page: Page, tables: dict) -> None:
    t = tables["success_by_trump"]
    if not len(t):
        return
    if t["n_trumps"].nunique() < 2:
        fig = _one_value_note(t, "n_trumps", "trumps in the taker's 8 cards")
    else:
        fig = _trump_figure(page, t)
    t = t.copy()
    t["pair"] = np.select(
        [t["trump_j"] & t["trump_9"], t["trump_j"], t["trump_9"]],
        ["J and 9", "J, no 9", "9, no J"],
        "neither",
    )
    pivot = _pivot_html(
        t,
        ["n_trumps"],
        "pair",
        ["J and 9", "J, no 9", "9, no J", "neither"],
        {"n_trumps": lambda v: _plural(v, "trump")},
        "trumps in 8 cards",
    )
    page.section(
        "trumps",
        "Suit contracts: the taker's whole hand",
        [
            fig,
            pivot,
            f"<p class='note'>Data (with the ace of trump too): {_csv('success_by_trump')}</p>",
        ],
    )


def _trump_figure(page: Page, t: pd.DataFrame) -> str:
    """Suit contracts made by trumps in the taker's 8 cards, with and without the J."""
    ax = plots.success_vs_feature(
        t,
        "n_trumps",
        by="trump_j",
        labels={True: "with the trump jack", False: "without the trump jack"},
        xlabel="trumps in the taker's 8 cards",
    )
    return page.figure(
        ax,
        "success_trumps.png",
        "Suit contracts made by the number of trumps in the taker's whole hand"
        " (8 cards), with and without the jack of trump.",
        title="Suit contracts made by trumps in the taker's hand",
    )


def points_section(page: Page, tables: dict) -> None:
    hist = tables["points_histogram"]
    parts = []
    if len(hist):
        parts.append(
            page.figure(
                plots.mp_histograms(hist),
                "mp_histograms.png",
                "Match points the taker's team adds on the deal (inside: "
                "0), per contract family; the grey bin holds everything "
                "above the range.",
                width=520,
                title="Match points of the taker's team",
            )
        )
        parts.append(
            page.figure(
                plots.mp_histograms(hist, "taker_raw"),
                "raw_histograms.png",
                "Raw points of the taker's team (card points, declarations, belote).",
                width=520,
                title="Raw points of the taker's team",
            )
        )
    p = tables["points"].set_index(["strain", "measure"])
    rows = []
    for strain in STRAINS:
        if (strain, "taker_mp") not in p.index:
            continue
        mp, raw = p.loc[(strain, "taker_mp")], p.loc[(strain, "taker_raw")]
        rows.append(
            [
                strain,
                f"{int(mp['n']):,}",
                f"{mp['mean']:.2f} <span class='note'>({mp['low']:.2f}–{mp['high']:.2f})</span>",
                f"{mp['sd']:.1f}",
                f"{raw['mean']:.1f} <span class='note'>({raw['low']:.1f}–{raw['high']:.1f})</span>",
                f"{raw['sd']:.1f}",
            ]
        )
    if rows:
        parts.append(
            _simple_table(
                [
                    "contract",
                    "contracts",
                    "mean MP (95%)",
                    "sd MP",
                    "mean raw points (95%)",
                    "sd raw",
                ],
                rows,
            )
        )
    else:
        parts.append("<p class='note'>No contract was played: no points to show.</p>")
    parts.append(
        f"<p class='note'>MP: match points (French points under french scoring). "
        f"Data: {_csv('points')}, {_csv('points_histogram')}</p>"
    )
    page.section("points", "Points of the taker's team", parts)


def declaration_section(page: Page, tables: dict, provenance: dict) -> None:
    d = tables["declarations"].copy()
    conditioned = "seat" in d.columns
    parts = []
    if conditioned:
        parts.append(
            "<p class='note'><b>Conditioned study</b> "
            f"({html.escape(conditions_text(provenance))}): the hands are counted per "
            "seat and compared with exact probabilities <i>conditioned</i> on the "
            "predealt cards and constraints (exact enumeration of that seat's hands)."
            " The comparison is restricted to the hands whose law is one such "
            "enumeration; the others (the team counts, and every hand but the "
            "constrained seat's where a seat has suit-length, strength or "
            "excluded-card constraints) are left out here and have no exact value "
            f"in {_csv('declarations')}. A declaration the conditions make impossible "
            "(exact probability 0) for every seat shown has no row; in a seat's column "
            "it reads <i>impossible</i>, and one they make certain reads <i>certain</i>, "
            "with no z.</p>"
        )
        compared = d.groupby(["scope", "seat"], sort=False)["exact"].transform(
            lambda x: x.notna().any()
        )
        d = d[compared]
    else:
        parts.append(
            "<p class='note'>Share of hands holding each declaration, beside the "
            "exact probability computed by combinatorics. Runs are counted exactly "
            "per hand (tierce = longest run of 3) and cumulatively per team (run 3+: "
            "either hand has a run of 3 or more). K+Q of hearts is the belote chance"
            " when trump is chosen independently of the hand.</p>"
        )
    scopes = list(dict.fromkeys(d["scope"]))
    if not scopes:
        parts.append("<p class='note'>No hand of this study has an exact law to compare.</p>")
    for scope in scopes:
        part = d[d["scope"] == scope]
        if ((part["exact"] > 0) & (part["exact"] < 1)).any():
            parts.append(
                page.figure(
                    plots.declaration_frequencies(part, scope),
                    f"declarations_{scope}.png",
                    f"Declarations {plots.SCOPE_LABELS.get(scope, scope)}"
                    + (", by seat" if conditioned else "")
                    + ": simulated ÷ exact frequency with 95% intervals; 1 = exact. "
                    "Impossible and certain declarations are left out.",
                    width=560,
                )
            )
    if conditioned:
        for scope in scopes:
            parts.append(_declaration_table(d[d["scope"] == scope], True))
    elif len(d):
        parts.append(_declaration_table(d, False))
    parts.append(
        f"<p class='note'>z = (simulated − exact) / standard error; |z| above 4 "
        f"would point at a bug. Data: {_csv('declarations')}</p>"
    )
    page.section("declarations", "Declarations in the dealt hands", parts)


def _declaration_table(d: pd.DataFrame, conditioned: bool) -> str:
    """Declarations for people: one row per declaration, per counted scope (a
    conditioned study: per seat of one scope) the simulated share with its 95% interval,
    the exact value and z.  A declaration impossible (exact 0) in every column has no
    row; an impossible or certain cell has no z."""

    def digits(x):
        return 3 if x < 0.01 else 2

    groups = list(d.groupby("seat" if conditioned else "scope", sort=False))
    possible = d.groupby("event", sort=False)["exact"].apply(
        lambda x: (x > 0).any() or x.isna().all()
    )
    events = [e for e in dict.fromkeys(d["event"]) if possible.get(e, True)]
    head1 = ["<th class='l' rowspan=2>declaration</th>"]
    head2 = []
    for key, part in groups:
        if conditioned:
            scope = part["scope"].iloc[0]
            name = f"{'team' if scope == 'team' else 'seat'} {key}"
        else:
            name = plots.SCOPE_LABELS.get(key, key)
        head1.append(f"<th colspan=3>{html.escape(name)}</th>")
        head2 += ["<th>simulated (95%)</th>", "<th>exact</th>", "<th>z</th>"]
    caption = ""
    if conditioned:
        scope = d["scope"].iloc[0]
        caption = (
            f"<caption>{html.escape(plots.SCOPE_LABELS.get(scope, scope).capitalize())}</caption>"
        )
    out = [f"<div class='wrap'><table>{caption}<tr>{''.join(head1)}</tr><tr>{''.join(head2)}</tr>"]
    for event in events:
        cells = []
        for _, part in groups:
            row = part[part["event"] == event]
            if row.empty:
                cells.append("<td class='small' colspan=3>–</td>")
                continue
            r = row.iloc[0]
            exact = r["exact"]
            if np.isfinite(exact) and exact in (0.0, 1.0) and r["rate"] == exact:
                word = "impossible" if exact == 0 else "certain"
                cells.append(
                    f"<td class='small' colspan=3 title='exact probability {exact:.0f} given "
                    f"the conditions; simulated {pct(r['rate'])}'>{word}</td>"
                )
                continue
            k = digits(r["rate"])
            cells.append(
                f"<td>{pct(r['rate'], k)}<span class='ci'>"
                f"{pct_interval(r['low'], r['high'], k)}</span></td>"
            )
            if np.isfinite(exact) and 0 < exact < 1:
                cells.append(f"<td>{pct(exact, digits(exact))}</td><td>{r['z']:+.1f}</td>")
            elif np.isfinite(exact):  # impossible or certain, yet simulated otherwise
                cells.append(f"<td>{pct(exact, 0)}</td><td class='small'>–</td>")
            else:
                cells.append("<td class='small'>–</td><td class='small'>–</td>")
        out.append(
            f"<tr><th class='l'>{html.escape(plots.event_label(event))}</th>{''.join(cells)}</tr>"
        )
    counts = ", ".join(
        (f"seat {k}" if conditioned else plots.SCOPE_LABELS.get(k, k))
        + f": {int(p['n'].iloc[0]):,}"
        for k, p in groups
    )
    out.append(f"</table></div><p class='note'>Hands counted — {html.escape(counts)}.</p>")
    return "".join(out)


def provenance_words(provenance: dict) -> dict[str, str]:
    """The study's provenance as a reader says it: ``dealer`` None -> 'rotates (the
    next seat each deal)', empty predeal and constraints -> 'none (uniform deals)',
    per-seat policy lists -> 'expert (network only) at every seat; exact spec
    expert:0,24,32,0,3,0' (``seat_list`` with ``names.play_name``/``bid_name``)."""
    p = provenance
    rows: dict[str, str] = {}
    if "ruleset" in p:
        rows["rules"] = str(p["ruleset"])
    if "n" in p:
        rows["deals"] = f"{int(p['n']):,}"
    if "seed" in p:
        rows["seed"] = str(p["seed"])
    from belote_sim.analysis.names import bid_name, play_name

    for key, label, name in (
        ("bidding", "bidding policy", bid_name),
        ("play", "play policy", play_name),
    ):
        if key in p:
            value = p[key]
            values = [str(v) for v in value] if isinstance(value, list) else [str(value)]
            shown = seat_list(values, name) if isinstance(value, list) else name(values[0])
            specs = " / ".join(dict.fromkeys(values))
            rows[label] = f"{shown}; exact spec {specs}"
    if "dealer" in p:
        dealer = p["dealer"]
        rows["dealer"] = (
            "rotates (the next seat each deal)" if dealer is None else f"seat {dealer} every deal"
        )
    if "predeal" in p or "constraints" in p:
        rows["conditions"] = conditions_text(p) or "none (every deal uniformly random)"
    if "chunk_size" in p:
        rows["chunk size"] = f"{int(p['chunk_size']):,} deals"
    if "belote_sim" in p:
        rows["written by"] = f"belote-sim {p['belote_sim']}"
    return rows


def study_section(page: Page, tables: dict, provenance: dict) -> None:
    rows = {
        "package": f"belote-sim {__version__}",
        "generated": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    rows.update(provenance_words(provenance))
    body = ["<table class='prov'>"]
    body += [
        f"<tr><th class='l'>{html.escape(k)}</th><td>{html.escape(_fmt(v))}</td></tr>"
        for k, v in rows.items()
    ]
    body.append("</table>")
    if "options" in provenance:
        body.append("<details><summary>rule options</summary><table class='prov'>")
        body += [
            f"<tr><th class='l'>{html.escape(k)}</th><td>{html.escape(_fmt(v))}</td></tr>"
            for k, v in provenance["options"].items()
        ]
        body.append("</table></details>")
    body.append(
        "<p class='note'>All tables as CSV (long format, for analysts): "
        + ", ".join(_csv(n) for n in tables)
        + "</p>"
    )
    page.section("study", "The study and its data", body)
