"""Plot functions render under Agg with the expected artists; the HTML report links only
to files that exist."""

import re
from html.parser import HTMLParser

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest
from matplotlib.figure import Figure

from belote_sim.analysis import plots
from belote_sim.analysis import report_tables as R
from belote_sim.analysis.html_report import write_report
from belote_sim.policies import DEFAULT_PLAY, play_strength
from belote_sim.simulation.runner import simulate


@pytest.fixture(scope="module")
def deals():
    return simulate(20_000, seed=4)


@pytest.fixture(scope="module")
def tables(deals):
    return R.report_tables(deals)


def test_success_vs_feature_lines_and_bands(tables):
    ax = plots.success_vs_feature(tables["success_by_trump"], "n_trumps", by="trump_j")
    main = [line for line in ax.lines if not line.get_label().startswith("_")]
    assert len(main) == 2 and len(ax.collections) == 2  # one band per line
    # groups under MIN_GROUP contracts: no band, no point on the line, a hollow marker
    total = tables["success_by_trump"].groupby(["trump_j", "n_trumps"])["n"].sum()
    small = total[total < plots.MIN_GROUP]
    assert len(small) and len(ax.lines) == 2 + len(small)
    small_table = pd.DataFrame({"k": [1, 2, 3], "n": [100, 100, 3], "made": [50, 60, 3]})
    ax2 = plots.success_vs_feature(small_table, "k")
    xs = ax2.collections[0].get_paths()[0].vertices[:, 0]
    assert xs.max() == 2  # no band over the group of 3
    assert any(t.get_text() == "n=3" for t in ax2.texts)
    assert ax.xaxis.get_major_locator()._integer
    assert ax.get_ylim() == (0, 1) and ax.get_legend() is not None
    ax = plots.success_vs_feature(tables["success_by_contract"], "taker_position")
    assert len(ax.lines) == 1 and len(ax.lines[0].get_xdata()) == 4


def test_declaration_plot_ratio_to_exact_with_intervals(tables):
    ax = plots.declaration_frequencies(tables["declarations"], "hand8")
    # one row per event (names on the y axis, never overlapping): simulated / exact on
    # x with its interval, a vertical line at 1 (exact)
    (container,) = ax.containers
    ratios = container.lines[0].get_xdata()
    assert len(ratios) == 11 and ax.get_xscale() == "linear"
    part = tables["declarations"].query("scope == 'hand8'")
    assert list(ratios) == pytest.approx(list(part["rate"] / part["exact"]))
    assert [line for line in ax.lines if list(line.get_xdata()) == [1, 1]]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert "tierce (run 3)" in labels and "carré J" in labels
    assert len(set(container.lines[0].get_ydata())) == 11  # one row each


def test_declaration_plot_per_seat_leaves_out_impossible_and_certain():
    rows = []
    for seat, (p_run, p_carre) in enumerate([(1.0, 0.0), (0.05, 0.001)]):
        for event, p in (("run3", p_run), ("carre_9", p_carre)):
            rows.append(dict(scope="hand5", event=event, seat=seat, exact=p, rate=p, low=p, high=p))
    ax = plots.declaration_frequencies(pd.DataFrame(rows), "hand5")
    # seat 0's events are certain and impossible: nothing drawn for it
    assert [c.get_label() for c in ax.containers] == ["seat 1"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["tierce (run 3)", "carré 9"]


def test_mp_histograms_one_step_per_family_and_overflow_bin(tables):
    hist = tables["points_histogram"]
    ax = plots.mp_histograms(hist)
    strains = set(hist["strain"])
    families = {"suit" if s in "CDHS" else s for s in strains}
    assert len(ax.lines) == len(families)
    # each line ends with the overflow bin: the shares add up to 1 per family
    for line in ax.lines:
        y = line.get_ydata()
        assert sum(y[:-1]) == pytest.approx(1.0)
    assert any(t.get_text().startswith("≥") for t in ax.texts)


def test_sweep_curve_error_bars():
    table = pd.DataFrame(
        {
            "param": "suit",
            "value": [40, 50, 60],
            "delta": [-1, 0, 0.1],
            "delta_se": [0.05, 0.0, 0.04],
        }
    )
    ax = plots.sweep_curve(table)
    assert len(ax.containers) == 1  # the errorbar container
    assert list(ax.containers[0].lines[0].get_xdata()) == [40, 50, 60]


def test_calibration_plot():
    table = pd.DataFrame(
        {
            "family": "suit",
            "predicted": [0.2, 0.5, 0.8],
            "observed": [0.25, 0.5, 0.75],
            "low": [0.2, 0.45, 0.7],
            "high": [0.3, 0.55, 0.8],
        }
    )
    ax = plots.calibration(table)
    assert len(ax.containers) == 1 and len(ax.lines) >= 2
    assert ax.get_title()


def test_calibration_plot_spans_the_range_the_points_occupy():
    # the NT deciles: predicted 0.90-0.92, observed 0.72-0.83
    table = pd.DataFrame(
        {
            "family": "NT",
            "predicted": [0.90, 0.91, 0.92],
            "observed": [0.75, 0.78, 0.80],
            "low": [0.72, 0.74, 0.77],
            "high": [0.78, 0.81, 0.83],
        }
    )
    ax = plots.calibration(table)
    low, high = ax.get_xlim()
    assert 0.65 < low <= 0.72 and 0.92 <= high < 0.99
    assert ax.get_ylim() == ax.get_xlim()


def test_given_axes_is_used():
    ax = Figure().add_subplot()
    table = pd.DataFrame({"param": "nt", "value": [1, 2], "delta": [0, 1], "delta_se": [0, 0.1]})
    assert plots.sweep_curve(table, ax=ax) is ax


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.targets = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and "href" in attrs:
            self.targets.append(attrs["href"])
        if tag == "img":
            self.targets.append(attrs["src"])


def test_html_report_links_exist_and_states_provenance(deals, tmp_path):
    index = write_report(deals, tmp_path / "rep")
    text = index.read_text()
    parser = _Links()
    parser.feed(text)
    assert len(parser.targets) >= 10
    ids = set(re.findall(r"id='([^']+)'", text))
    for target in parser.targets:
        if target.startswith("#"):
            assert target[1:] in ids, target
            continue
        assert not re.match(r"^[a-z]+://", target) and not target.startswith("/")
        assert (index.parent / target).is_file(), target
    for needle in (
        "belote-sim 0.1.0",
        "common",
        "seed",
        "expert",
        "threshold",
        "20,000",
        play_strength(DEFAULT_PLAY),  # the report names how strong its players are
    ):
        assert needle in text, needle
    csv = pd.read_csv(index.parent / "tables" / "declarations.csv")
    assert {"exact", "rate", "z"} <= set(csv.columns)
