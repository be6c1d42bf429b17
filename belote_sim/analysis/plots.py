"""Matplotlib figures of the report tables: ``f(table, ax=None) -> Axes``.

No pyplot state is used and nothing is shown, so the functions are safe headless
(they create a bare ``Figure`` when ``ax`` is None).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from belote_sim.stats import Z95, wilson_interval

__all__ = [
    "DOUBLING_NAMES",
    "DPI",
    "EVENT_LABELS",
    "FAMILY_STYLES",
    "MIN_GROUP",
    "SCOPE_LABELS",
    "SEAT_COLOURS",
    "STRAIN_COLOURS",
    "calibration",
    "calibration_range",
    "declaration_frequencies",
    "event_label",
    "mp_histograms",
    "outcome_bars",
    "success_by_strain",
    "success_vs_feature",
    "sweep_curve",
]

STRAIN_COLOURS = {
    "C": "#2b6cb0",
    "D": "#dd6b20",
    "H": "#c53030",
    "S": "#2f855a",
    "NT": "#6b46c1",
    "AT": "#4a5568",
}


EVENT_LABELS = {
    "run3": "tierce (run 3)",
    "run4": "quarte (run 4)",
    "run5": "quinte+ (run 5+)",
    "run3plus": "tierce or longer (run 3+)",
    "run4plus": "quarte or longer (run 4+)",
    "run5plus": "quinte+ (run 5+)",
    "carre_any": "any carré",
    "kq_suit": "K+Q of hearts",
}
SCOPE_LABELS = {
    "hand5": "per 5-card bidding hand",
    "hand8": "per 8-card hand",
    "team": "per team (either hand)",
    "hand6": "per 6-card bidding hand",
    "hand9": "per 9-card hand",
    "hand12": "per hand and face-up table cards",
}
#: groups smaller than this get no interval band and are marked with their size
MIN_GROUP = 30
#: figures are saved at this resolution (2x a 100-dpi screen)
DPI = 200


def event_label(event: str) -> str:
    """Readable name of a ``belote_sim.analysis.exact`` event: hands count the longest
    run exactly (tierce = run of exactly 3), teams cumulatively (run 3+)."""
    if event.startswith("carre_") and event != "carre_any":
        return "carré " + event[-1]
    return EVENT_LABELS.get(event, event)


def _axes(ax: Axes | None, size=(6.4, 4.0)) -> Axes:
    if ax is None:
        ax = Figure(figsize=size, layout="constrained").add_subplot()
    return ax


def success_vs_feature(
    table: pd.DataFrame,
    feature: str,
    by: str | None = None,
    ax: Axes | None = None,
    labels: dict | None = None,
    xlabel: str | None = None,
) -> Axes:
    """Success rate against a whole-number hand feature, one line per value of ``by``,
    with 95% Wilson bands only where a group has at least ``MIN_GROUP`` contracts; the
    points of smaller groups are hollow and labelled with their size; the legend gives
    each line's number of contracts.  ``table`` has
    columns ``feature``, ``n``, ``made`` (a ``success_rates`` table; rows with the same
    feature value are added up); ``labels`` maps values of ``by`` to legend text."""
    from matplotlib.ticker import MaxNLocator

    ax = _axes(ax)
    keys = [feature] if by is None else [by, feature]
    total = table.groupby(keys, sort=True, observed=True)[["n", "made"]].sum().reset_index()
    groups = [(None, total)] if by is None else list(total.groupby(by, sort=True, observed=True))
    for key, part in groups:
        low, high = wilson_interval(part["made"], part["n"])
        big = (part["n"] >= MIN_GROUP).to_numpy()
        x = part[feature].astype(float).to_numpy()
        rate = (part["made"] / part["n"]).to_numpy()
        label = (
            None
            if key is None
            else (labels or {}).get(key, key if isinstance(key, str) else f"{by} = {key}")
        )
        if label is not None:
            label += f" (n {int(part['n'].sum()):,})"
        (line,) = ax.plot(x, np.where(big, rate, np.nan), marker="o", label=label)
        colour = line.get_color()
        ax.fill_between(
            x,
            np.where(big, low, np.nan),
            np.where(big, high, np.nan),
            alpha=0.2,
            color=colour,
            linewidth=0,
        )
        for xi, ri, ni, ok in zip(x, rate, part["n"], big):
            if not ok:
                ax.annotate(
                    f"n={ni}",
                    (xi, ri),
                    textcoords="offset points",
                    xytext=(4, 4),
                    fontsize=7,
                    color="#718096",
                )
                ax.plot(
                    [xi],
                    [ri],
                    marker="o",
                    markerfacecolor="none",
                    color=colour,
                    alpha=0.6,
                    label="_small",
                )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel or feature.replace("_", " "))
    ax.set_ylabel("contracts made")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    if by is not None:
        ax.legend(fontsize="small")
    return ax


SEAT_COLOURS = ["#2b6cb0", "#c53030", "#2f855a", "#dd6b20"]


def declaration_frequencies(
    table: pd.DataFrame, scope: str = "hand8", ax: Axes | None = None
) -> Axes:
    """Simulated ÷ exact frequency of each declaration with its 95% interval (the
    Wilson interval of the rate divided by the exact value), linear scale: 1 is perfect
    agreement.  One row per declaration (names on the y axis, so they never overlap);
    a table with a ``seat`` column (a conditioned study) gets one marker per seat on
    each row.  Events whose exact value is 0 (impossible), 1 (certain) or unknown are
    left out: there is nothing to compare."""
    order = list(dict.fromkeys(table.loc[table["scope"] == scope, "event"]))
    part = table[(table["scope"] == scope) & (table["exact"] > 0) & (table["exact"] < 1)]
    part = part.reset_index(drop=True)
    events = [e for e in order if e in set(part["event"])]
    seats = sorted(part["seat"].unique()) if "seat" in part.columns else [None]
    ax = _axes(ax, (6.4, 1.3 + 0.32 * max(len(events), 1) * (1 + 0.25 * (len(seats) - 1))))
    step = 0.7 / len(seats)
    top = 0.1
    for k, seat in enumerate(seats):
        rows = part if seat is None else part[part["seat"] == seat]
        y = np.array([events.index(e) for e in rows["event"]], dtype=float)
        y = -(y + (k - (len(seats) - 1) / 2) * step)
        ratio = (rows["rate"] / rows["exact"]).to_numpy()
        err = np.clip(
            np.vstack([ratio - rows["low"] / rows["exact"], rows["high"] / rows["exact"] - ratio]),
            0,
            None,
        )
        if len(ratio):
            top = max(top, float(np.nanmax(np.abs(ratio - 1) + err.max(axis=0))))
        ax.errorbar(
            ratio,
            y,
            xerr=err,
            fmt="o",
            ms=4,
            color=SEAT_COLOURS[k % 4] if seat is not None else "#2b6cb0",
            capsize=2,
            label=("simulated ÷ exact (95% interval)" if seat is None else f"seat {seat}"),
        )
    ax.axvline(1, color="black", lw=1, label="exact")
    ax.set_yticks(-np.arange(len(events)), [event_label(e) for e in events])
    ax.set_ylim(-len(events) + 0.5, 0.5 + (0.6 if len(seats) > 1 else 0.4))
    ax.set_xlabel("simulated ÷ exact frequency (1 = exact)")
    ax.set_xlim(max(0, 1 - 1.1 * top), 1 + 1.1 * top)
    ax.set_title(f"Declarations held, {SCOPE_LABELS.get(scope, scope)}")
    ax.grid(alpha=0.3, axis="x")
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    if not isinstance(ax.figure.get_layout_engine(), ConstrainedLayoutEngine):
        ax.legend(fontsize="small")
        return ax
    ax.figure.legend(
        *ax.get_legend_handles_labels(),
        fontsize="small",
        ncol=len(seats) + 1,
        loc="outside upper center",
        frameon=False,
    )
    return ax


FAMILY_STYLES = {"suit": ("#2b6cb0", "-"), "NT": ("#6b46c1", "--"), "AT": ("#dd6b20", ":")}


def mp_histograms(
    hist: pd.DataFrame, measure: str = "taker_mp", ax: Axes | None = None, share: float = 0.99
) -> Axes:
    """Histograms (share of contracts) of the taker's MP or raw points per contract
    family (the four suits added up; NT; AT), from the ``points_histogram`` table.  The
    range covers ``share`` of all contracts; the rest is drawn as one explicit overflow
    bin at the right (shaded, labelled with its lower edge)."""
    ax = _axes(ax)
    part = hist[hist["measure"] == measure].copy()
    part["family"] = np.where(part["strain"].isin(["C", "D", "H", "S"]), "suit", part["strain"])
    fam = part.groupby(["family", "bin"], sort=True)["count"].sum().reset_index()
    every = fam.groupby("bin")["count"].sum().sort_index()
    bins = every.index.to_numpy()
    width = bins[1] - bins[0] if len(bins) > 1 else 1
    # the range covers ``share`` of all contracts; the rest goes to the overflow bin
    k = np.searchsorted((every.cumsum() / max(every.sum(), 1)).to_numpy(), share)
    upper = bins[min(k + 1, len(bins) - 1)]
    first = bins[np.argmax(every.to_numpy() > 0)] if every.sum() else bins[0]
    for family in ("suit", "NT", "AT"):
        rows = fam[fam["family"] == family]
        total = rows["count"].sum()
        if total == 0:
            continue
        inside = rows[rows["bin"] < upper]
        over = rows.loc[rows["bin"] >= upper, "count"].sum() / total
        colour, style = FAMILY_STYLES[family]
        xs = np.append(inside["bin"].to_numpy(), [upper, upper + 2 * width])
        ys = np.append((inside["count"] / total).to_numpy(), [over, over])
        ax.step(
            xs,
            ys,
            where="post",
            color=colour,
            linestyle=style,
            lw=1.6,
            label=f"{family} ({total:,})",
        )
    ax.axvspan(upper, upper + 2 * width, color="#edf2f7", zorder=0)
    ax.text(
        upper + width,
        ax.get_ylim()[1] * 0.95,
        f"≥ {upper:g}",
        ha="center",
        va="top",
        fontsize=8,
        color="#4a5568",
    )
    ax.set_xlim(first, upper + 2 * width)
    ax.set_xlabel(
        "taker's team: match points of the deal"
        if measure == "taker_mp"
        else "taker's team: raw points of the deal"
    )
    ax.set_ylabel("share of contracts")
    ax.grid(alpha=0.3)
    ax.legend(title="contract (n)", fontsize="small")
    return ax


def outcome_bars(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Outcome rates (an ``outcome_rates`` table) as horizontal bars with 95%
    intervals."""
    ax = _axes(ax, (6.4, 2.8))
    names = {
        "made": "made",
        "inside": "inside (failed)",
        "hanging": "hanging (tie)",
        "thrown_in": "thrown in (all pass)",
        "valat": "valat (all tricks)",
        "doubled": "doubled",
    }
    y = np.arange(len(table))[::-1]
    err = np.clip(np.vstack([table["rate"] - table["low"], table["high"] - table["rate"]]), 0, None)
    ax.barh(y, table["rate"], xerr=err, color="#90cdf4", capsize=3)
    for yi, rate, high in zip(y, table["rate"], table["high"]):
        ax.text(max(rate, high) + 0.015, yi, f"{rate:.1%}", va="center", fontsize=8)
    ax.set_yticks(y, [names.get(e, e) for e in table["event"]])
    ax.set_xlim(0, 1.08)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.grid(alpha=0.3, axis="x")
    return ax


def success_by_strain(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Contracts made per strain and doubling level (a ``success_rates`` table), bars
    with 95% intervals; levels with fewer than ``MIN_GROUP`` contracts get no bar."""
    from belote_sim.analysis.report_tables import STRAINS

    ax = _axes(ax)
    total = table.groupby(["strain", "doubling"])[["n", "made"]].sum().reset_index()
    levels = sorted(total["doubling"].unique())
    width = 0.8 / max(len(levels), 1)
    strains = [s for s in STRAINS if s in set(total["strain"])]
    for k, level in enumerate(levels):
        part = total[total["doubling"] == level].set_index("strain").reindex(strains)
        part = part[part["n"] >= MIN_GROUP]
        x = np.array([strains.index(s) for s in part.index]) + (k - (len(levels) - 1) / 2) * width
        low, high = wilson_interval(part["made"], part["n"])
        rate = part["made"] / part["n"]
        ax.bar(
            x,
            rate,
            width=width * 0.95,
            yerr=np.clip(np.vstack([rate - low, high - rate]), 0, None),
            capsize=2,
            label=DOUBLING_NAMES.get(int(level), str(level)),
        )
    ax.set_xticks(np.arange(len(strains)), strains)
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylabel("contracts made")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(
        fontsize="small",
        ncol=len(levels),
        loc="upper center",
        bbox_to_anchor=(0.5, -0.08),
        frameon=False,
    )
    return ax


DOUBLING_NAMES = {0: "x1", 1: "x2 doubled", 2: "x4 redoubled", 3: "third double"}


def sweep_curve(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """A bidding sweep: paired difference from the baseline with 95% error bars."""
    ax = _axes(ax)
    ax.errorbar(table["value"], table["delta"], yerr=Z95 * table["delta_se"], marker="o", capsize=3)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel(f"threshold '{table['param'].iloc[0]}'")
    ax.set_ylabel("net MP per deal vs baseline")
    ax.grid(alpha=0.3)
    return ax


def calibration_range(table: pd.DataFrame, margin: float = 0.03) -> tuple[float, float]:
    """The range of a calibration plot's two axes: the predictions and the observed
    intervals with a margin, within [0, 1] (the same on both axes, so the diagonal
    stays the diagonal)."""
    values = pd.concat([table["predicted"], table["low"], table["high"]])
    return max(0.0, float(values.min()) - margin), min(1.0, float(values.max()) + margin)


def calibration(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Strength-model calibration: observed vs predicted success by decile."""
    ax = _axes(ax, (5.0, 4.2))
    for family, part in table.groupby("family"):
        ax.errorbar(
            part["predicted"],
            part["observed"],
            yerr=np.clip(
                [part["observed"] - part["low"], part["high"] - part["observed"]], 0, None
            ),
            marker="o",
            linestyle="",
            capsize=2,
            label=family,
        )
    lo, hi = calibration_range(table)
    ax.plot([lo, hi], [lo, hi], color="grey", lw=0.8)
    ax.set_xlabel("predicted P(made)")
    ax.set_ylabel("observed share made (95% interval)")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_title("Is the fitted P(made) right? (by decile)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", title="contract")
    return ax
