"""Matplotlib figures of the report tables: ``f(table, ax=None) -> Axes``.

No pyplot state is used and nothing is shown, so the functions are safe headless
(they create a bare ``Figure`` when ``ax`` is None).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

STRAIN_COLOURS = {"C": "#2b6cb0", "D": "#dd6b20", "H": "#c53030", "S": "#2f855a",
                  "NT": "#6b46c1", "AT": "#4a5568"}


EVENT_LABELS = {"run3": "tierce", "run4": "quarte", "run5": "quinte+", "run3plus": "run 3+",
                "run4plus": "run 4+", "run5plus": "run 5+", "carre_any": "any carré",
                "kq_suit": "K+Q ♥"}


def event_label(event: str) -> str:
    """Readable name of a ``belote_sim.analysis.exact`` event."""
    if event.startswith("carre_") and event != "carre_any":
        return "carré " + event[-1]
    return EVENT_LABELS.get(event, event)


def _axes(ax: Axes | None, size=(6.4, 4.0)) -> Axes:
    if ax is None:
        ax = Figure(figsize=size, layout="constrained").add_subplot()
    return ax


def success_vs_feature(table: pd.DataFrame, feature: str, by: str | None = None,
                       ax: Axes | None = None) -> Axes:
    """Success rate against a hand feature with 95% Wilson bands, one line per value of
    ``by``.  ``table`` has columns ``feature``, ``n``, ``made`` (a ``success_rates``
    table; rows with the same feature value are added up)."""
    from belote_sim.analysis.report_tables import wilson_interval

    ax = _axes(ax)
    keys = [feature] if by is None else [by, feature]
    total = table.groupby(keys, sort=True)[["n", "made"]].sum().reset_index()
    groups = [(None, total)] if by is None else list(total.groupby(by, sort=True))
    for key, part in groups:
        low, high = wilson_interval(part["made"], part["n"])
        x = part[feature].astype(float).to_numpy()
        line, = ax.plot(x, part["made"] / part["n"], marker="o",
                        label=None if key is None else f"{by} = {key}")
        ax.fill_between(x, low, high, alpha=0.2, color=line.get_color())
    ax.set_xlabel(feature.replace("_", " "))
    ax.set_ylabel("contracts made")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    if by is not None:
        ax.legend(fontsize="small")
    return ax


def declaration_frequencies(table: pd.DataFrame, scope: str = "hand8",
                            ax: Axes | None = None) -> Axes:
    """Observed declaration frequencies (bars with 95% intervals) and the exact
    probabilities (markers), log scale."""
    ax = _axes(ax, (7.0, 4.0))
    part = table[table["scope"] == scope].reset_index(drop=True)
    x = np.arange(len(part))
    # clipped: at a rate of 0 the Wilson bound can lie a rounding error above it
    err = np.clip(np.vstack([part["rate"] - part["low"], part["high"] - part["rate"]]), 0, None)
    ax.bar(x, part["rate"], color="#90cdf4", label="simulated", yerr=err, capsize=2)
    ax.plot(x, part["exact"], "k_", markersize=18, markeredgewidth=2, label="exact")
    ax.set_xticks(x, [event_label(e) for e in part["event"]], rotation=45, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel({"hand5": "per 5-card bidding hand", "hand8": "per 8-card hand",
                   "team": "per team and deal"}.get(scope, scope))
    ax.set_title(f"Declarations held ({scope})")
    ax.legend(fontsize="small")
    return ax


def mp_histograms(hist: pd.DataFrame, measure: str = "taker_mp",
                  ax: Axes | None = None) -> Axes:
    """Histograms (as step lines, share of deals) of the taker's MP or raw points per
    strain, from the ``points_histogram`` table."""
    ax = _axes(ax)
    for strain, part in hist[hist["measure"] == measure].groupby("strain", sort=False):
        total = part["count"].sum()
        if total == 0:
            continue
        ax.step(part["bin"], part["count"] / total, where="post", label=strain,
                color=STRAIN_COLOURS.get(strain))
    ax.set_xlabel("taker's match points" if measure == "taker_mp" else "taker's raw points")
    ax.set_ylabel("share of contracts")
    ax.grid(alpha=0.3)
    ax.legend(title="strain", fontsize="small")
    return ax


def sweep_curve(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """A bidding sweep: paired difference from the baseline with 95% error bars."""
    ax = _axes(ax)
    ax.errorbar(table["value"], table["delta"], yerr=Z95_ERR * table["delta_se"],
                marker="o", capsize=3)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel(f"threshold '{table['param'].iloc[0]}'")
    ax.set_ylabel("MP per deal vs baseline (team 0)")
    ax.grid(alpha=0.3)
    return ax


def calibration(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Strength-model calibration: observed vs predicted success by decile."""
    ax = _axes(ax, (4.5, 4.5))
    for family, part in table.groupby("family"):
        ax.errorbar(part["predicted"], part["observed"],
                    yerr=[part["observed"] - part["low"], part["high"] - part["observed"]],
                    marker="o", linestyle="", capsize=2, label=family)
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8)
    ax.set_xlabel("predicted P(made)")
    ax.set_ylabel("observed")
    ax.legend(fontsize="small")
    return ax


Z95_ERR = 1.959963984540054
