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
