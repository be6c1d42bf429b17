"""Hand strength: conditional Monte Carlo per strain, and the fitted P(made) model."""

import numpy as np
import pytest

from belote_sim.analysis.strength import bid_features, fit_strength, hand_strength
from belote_sim.simulation.runner import simulate


def test_hand_strength_per_strain():
    t = hand_strength("JH 9H AH TH KH", seat=0, dealer=3, deals=3000, seed=1)
    assert list(t["strain"]) == ["C", "D", "H", "S", "NT", "AT"]
    assert (t["n"] == 3000).all()
    hearts = t.set_index("strain").loc["H"]
    # five top hearts as trump: nearly always made, far better than another trump suit
    assert hearts.p_made > 0.95 and hearts.p_made > t.set_index("strain").loc["C"].p_made
    assert (t["p_low"] <= t["p_made"]).all() and (t["p_made"] <= t["p_high"]).all()
    assert (t["raw_low"] < t["mean_raw"]).all() and (t["mean_mp"] < t["mp_high"]).all()


def test_hand_strength_french_only_suits_and_errors():
    t = hand_strength("JH 9H AH TS 7C", deals=500, rules="french")
    assert list(t["strain"]) == ["C", "D", "H", "S"]
    with pytest.raises(ValueError, match="5 bidding cards or all 8"):
        hand_strength("JH 9H", deals=10)


def test_strength_model_calibrated():
    train = simulate(60_000, seed=3)
    test = simulate(30_000, seed=4)
    model = fit_strength(train)
    cal = model.calibration(test)
    assert set(cal["family"]) >= {"suit", "AT"}
    suit = cal[cal["family"] == "suit"]
    assert len(suit) == 10
    # predicted and observed agree within a few points in every decile of suit contracts
    assert np.abs(suit["predicted"] - suit["observed"]).max() < 0.05
    # and the model separates: top decile succeeds far more than the bottom one
    assert suit["observed"].iloc[-1] - suit["observed"].iloc[0] > 0.2
    coef = model.coefficients()
    assert coef.loc["trump_j", "suit"] > 0  # the trump jack helps
    feats = bid_features(test)
    assert feats["n_trumps"].max() <= 5


def _synthetic_features(n, seed=0):
    import pandas as pd

    from belote_sim.analysis.strength import FEATURES

    rng = np.random.default_rng(seed)
    feats = pd.DataFrame(
        rng.integers(0, 3, size=(n, len(FEATURES))).astype(float), columns=FEATURES
    )
    feats["family"] = "suit"
    return feats


def test_cross_calibration_checks_every_contract_out_of_sample():
    from belote_sim.analysis.strength import cross_calibration

    feats = _synthetic_features(4000)
    rng = np.random.default_rng(1)
    even = np.arange(len(feats)) % 2 == 0
    # even contracts are nearly always made, odd ones nearly never: a model fitted on
    # the even half predicts ~0.95 for the odd half, where 5% are made
    feats["made"] = np.where(even, rng.random(len(feats)) < 0.95, rng.random(len(feats)) < 0.05)
    feats["made"] = feats["made"].astype(float)
    table = cross_calibration(feats)
    assert table["n"].sum() == len(feats)  # every contract is checked once
    top, bottom = table.iloc[-1], table.iloc[0]
    assert top["predicted"] > 0.8 and top["observed"] < 0.2  # out of sample: mis-calibrated
    assert bottom["predicted"] < 0.2 and bottom["observed"] > 0.8


def test_cross_calibration_of_a_calibrated_model():
    from belote_sim.analysis.strength import cross_calibration

    feats = _synthetic_features(20_000, seed=2)
    logit = -1 + 0.8 * feats["score"] + 0.5 * feats["trump_j"]
    rng = np.random.default_rng(3)
    feats["made"] = (rng.random(len(feats)) < 1 / (1 + np.exp(-logit))).astype(float)
    table = cross_calibration(feats)
    assert len(table) == 10 and table["n"].sum() == len(feats)
    assert (table["low"] - 0.02 <= table["predicted"]).all()
    assert (table["predicted"] <= table["high"] + 0.02).all()
