"""``study bidding`` picks its best setting after a multiple-comparison correction
(Holm over the settings tried) and says how many it tried."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from cli_run import run_cli

from belote_sim.analysis import comparisons
from belote_sim.stats import holm_reject, p_above_zero

BASE = "threshold:50,52,75,60,60"


def test_p_above_zero_is_the_one_sided_normal_tail():
    assert p_above_zero(0.0, 1.0) == pytest.approx(0.5)
    assert p_above_zero(1.959963984540054, 1.0) == pytest.approx(0.025)
    assert p_above_zero(-3.0, 1.0) == pytest.approx(1 - 0.0013498980316301, abs=1e-9)
    assert p_above_zero(0.5, 0.0) == 0.0 and p_above_zero(0.0, 0.0) == 1.0


def test_holm_steps_down_from_the_smallest_p_value():
    # sorted: 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: stop (0.04 not tested)
    assert list(holm_reject([0.01, 0.04, 0.03, 0.005], 0.05)) == [True, False, False, True]
    # each passes its own step: 0.001 <= .05/3, 0.02 <= .05/2, 0.04 <= .05
    assert holm_reject([0.04, 0.001, 0.02], 0.05).all()
    # Bonferroni would stop at 0.02 > 0.05/3 for all three; Holm too (first step fails)
    assert not holm_reject([0.02, 0.02, 0.02], 0.05).any()
    assert list(holm_reject([], 0.05)) == []


#: the gain (MP per deal) and spread of each suit threshold in the fake simulation
GAINS = {40: (0.0, 1.0), 45: (0.3, 2.6), 55: (0.2, 1.0), 60: (-0.1, 1.0), 65: (0.0, 1.0)}


def _fake_simulate(deals, rules=None, bidding=None, play=None, seed=0, threads=None, **_):
    """Deals on which the setting (the spec that is not the baseline) gains exactly
    mean +/- spread, alternately: its team 0 score in the first play, team 1's in the
    mirrored one."""
    setting = next((s for s in bidding if s != BASE), None)
    net = np.zeros(deals)
    if setting is not None:
        mean, spread = GAINS[int(float(setting.split(":")[1].split(",")[0]))]
        net = mean + spread * np.where(np.arange(deals) % 2 == 0, 1.0, -1.0)
    mine = net if bidding[0] == setting else np.zeros(deals)
    theirs = net if bidding[1] == setting else np.zeros(deals)
    return pd.DataFrame({"hand0": np.arange(deals), "mp0": mine, "mp1": theirs})


def test_best_is_chosen_among_the_settings_significant_after_holm(monkeypatch):
    monkeypatch.setattr(comparisons, "simulate", _fake_simulate)
    table = comparisons.bidding_sweep("suit", list(GAINS), deals=400)
    row = {v: r for v, r in zip(table["value"], table.itertuples())}
    assert (table["settings_tried"] == 5).all()
    assert math.isnan(row[50].p_value) and not row[50].significant
    # 45 gains most and its own 95% interval is above 0 (z ~ 2.3, p ~ 0.01), but that
    # is not enough among 5 settings: Holm asks p <= 0.025/4 once 55 is through
    assert row[45].low > 0 and row[45].mean_net_mp > row[55].mean_net_mp
    assert row[45].p_value == pytest.approx(p_above_zero(row[45].mean_net_mp, row[45].se))
    assert 0.025 / 4 < row[45].p_value < 0.025 and not row[45].significant
    assert row[55].significant and row[55].p_value < 0.025 / 5
    assert list(table.loc[table["best"], "value"]) == [55]


def test_no_best_when_nothing_survives_the_correction(monkeypatch):
    monkeypatch.setattr(comparisons, "simulate", _fake_simulate)
    table = comparisons.bidding_sweep("suit", [40, 45, 60, 65], deals=400)
    assert not table["significant"].any() and not table["best"].any()
    one = comparisons.bidding_sweep("suit", [45], deals=400)  # alone: its interval decides
    assert one.loc[one["value"] == 45, "best"].item()


def test_the_command_says_how_many_settings_it_tried_and_the_caveat(monkeypatch, tmp_path):
    monkeypatch.setattr(comparisons, "simulate", _fake_simulate)
    csv = tmp_path / "sweep.csv"
    values = ",".join(str(v) for v in GAINS)
    rc, out, err = run_cli(["study", "bidding", "--values", values, "--deals", 400, "-o", csv])
    assert rc == 0, err
    text = " ".join(out.split())
    assert "5 settings tried" in text and "Holm correction over the 5 settings tried" in text
    assert "best: suit = 55 (+0.200" in text
    assert any(line.startswith("caveat: ") for line in out.splitlines())
    saved = pd.read_csv(csv)
    assert {"p_value", "significant", "settings_tried", "best"} <= set(saved.columns)
    assert list(saved.loc[saved["best"], "value"]) == [55]
