"""Hand strength: conditional Monte Carlo for one hand, and a fitted P(made) model.

``hand_strength("JH 9H AH TS 7C", seat=0, dealer=3)`` predeals the hand (as the
seat's bidding cards when it has 5 cards, or its whole hand with 8), deals the rest
uniformly, forces each strain in turn with the ``fixed`` bidding policy (that seat
takes, undoubled) and plays the deals out, all strains on the same deals.

``fit_strength(df)`` fits, per contract family (suit, NT, AT), a logistic regression
of "the contract was made" on features of the taker's 5 bidding cards (trump J, 9,
A, T, K, Q, number of trumps, side aces and tens, jacks, the bidding score) by
Newton's method, and reports its calibration (predicted vs observed by decile).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from belote_sim.analysis.report_tables import suit_bytes
from belote_sim.cards import STRAIN_NAMES, parse_cards
from belote_sim.kernels.tables import (
    POPCOUNT_BYTE,
    RANK_9,
    RANK_A,
    RANK_J,
    RANK_K,
    RANK_Q,
    RANK_T,
    STRAIN_NT,
)
from belote_sim.rules import Rules
from belote_sim.simulation.runner import simulate
from belote_sim.stats import Z95, wilson_interval

__all__ = [
    "FEATURES",
    "StrengthModel",
    "bid_features",
    "calibration_table",
    "cross_calibration",
    "fit_strength",
    "fit_strength_features",
    "hand_strength",
]


def hand_strength(
    hand: str,
    seat: int = 0,
    dealer: int = 3,
    deals: int = 20_000,
    rules: Rules | str = "common",
    play: Any = None,
    seed: int = 0,
    threads: int | None = None,
    options: dict | None = None,
) -> pd.DataFrame:
    """P(made), mean raw points, mean MP and net MP of the taker's team per forced
    strain, every strain on the same deals.

    ``hand``: 5 cards (the bidding cards; the other 3 dealt at random) or 8 cards.
    Returns one row per strain the rules allow: ``strain``, ``n``, ``p_made`` with
    ``p_low``/``p_high`` (Wilson 95%), ``mean_raw`` and ``mean_mp`` with 95% intervals
    (raw points and MP of the taker's team for the deal; MP added now, hanging points
    excluded; French points under french scoring), ``mean_net`` (the taker's team's MP
    minus the defenders') with ``net_low``/``net_high``, and ``vs_best``/
    ``vs_best_se``: the paired difference of net MP from the best strain (the one with
    the highest ``mean_net``, marked ``best``) on the same deals.  ``best`` is the best
    strain, not the call: the call is ``pass`` unless its net MP is above 0
    (``belote_sim.atlas.best_call``); ``belote-sim hand`` answers with
    ``belote_sim.atlas.answer_hand``, the same table from the atlas or a simulation.
    """
    cards = parse_cards(hand)
    if len(cards) not in (5, 8):
        raise ValueError(f"hand: give the 5 bidding cards or all 8 cards, got {len(cards)}")
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 2:
        raise ValueError(f"deals must be an integer of at least 2, got {deals!r}")
    rules = Rules.from_spec(rules, options)
    rows = []
    nets = {}
    for code, name in enumerate(STRAIN_NAMES):
        if not rules.strain_allowed(code):
            continue
        df = simulate(
            deals,
            rules=rules,
            bidding=f"fixed:{seat},{code},0",
            play=play,
            seed=seed,
            threads=threads,
            predeal={seat: hand},
            dealer=dealer,
        )
        team = seat % 2
        made = (df["outcome"] == "made").to_numpy()
        raw = df[f"raw{team}"].to_numpy(float)
        mp = df[f"mp{team}"].to_numpy(float)
        net = mp - df[f"mp{1 - team}"].to_numpy(float)
        nets[name] = net
        low, high = wilson_interval(made.sum(), len(df))
        row = {
            "strain": name,
            "n": len(df),
            "p_made": made.mean(),
            "p_low": float(low),
            "p_high": float(high),
        }
        for key, values in (("raw", raw), ("mp", mp), ("net", net)):
            se = values.std(ddof=1) / np.sqrt(len(values))
            row[f"mean_{key}"] = values.mean()
            row[f"{key}_low"] = values.mean() - Z95 * se
            row[f"{key}_high"] = values.mean() + Z95 * se
        rows.append(row)
    out = pd.DataFrame(rows)
    best = out.loc[out["mean_net"].idxmax(), "strain"]
    out["best"] = out["strain"] == best
    diffs = [nets[name] - nets[best] for name in out["strain"]]
    out["vs_best"] = [d.mean() for d in diffs]
    out["vs_best_se"] = [d.std(ddof=1) / np.sqrt(len(d)) for d in diffs]
    return out


FEATURES = [
    "trump_j",
    "trump_9",
    "trump_a",
    "trump_t",
    "trump_k",
    "trump_q",
    "n_trumps",
    "side_aces",
    "side_tens",
    "jacks",
    "nines",
    "score",
]


def bid_features(df: pd.DataFrame) -> pd.DataFrame:
    """Features of the taker's 5 bidding cards for each played deal (index kept)."""
    from belote_sim.kernels.bidding import SCORE

    played = df[df["outcome"] != "thrown_in"]
    taker = played["taker"].astype(int).to_numpy()
    bids = np.stack([played[f"bid{s}"].to_numpy(np.int64) for s in range(4)], axis=1)
    rows = np.arange(len(played))
    hand = bids[rows, taker]
    strain = played["strain"].cat.codes.to_numpy()
    b = suit_bytes(hand)
    trump = np.where(strain < STRAIN_NT, b[rows, np.minimum(strain, STRAIN_NT - 1)], 0)
    out = pd.DataFrame(index=played.index)
    for name, rank in (
        ("j", RANK_J),
        ("9", RANK_9),
        ("a", RANK_A),
        ("t", RANK_T),
        ("k", RANK_K),
        ("q", RANK_Q),
    ):
        out[f"trump_{name}"] = ((trump >> rank) & 1).astype(float)
    out["n_trumps"] = POPCOUNT_BYTE[trump]
    aces = ((b >> RANK_A) & 1).sum(axis=1)
    tens = ((b >> RANK_T) & 1).sum(axis=1)
    out["side_aces"] = aces - out["trump_a"]
    out["side_tens"] = tens - out["trump_t"]
    out["jacks"] = ((b >> RANK_J) & 1).sum(axis=1)
    out["nines"] = ((b >> RANK_9) & 1).sum(axis=1)
    score = np.zeros(len(hand))
    for card in range(32):
        has = (hand >> card) & 1
        score += has * SCORE[strain, card]
    out["score"] = score / 10.0
    out["family"] = np.where(strain < STRAIN_NT, "suit", np.where(strain == STRAIN_NT, "NT", "AT"))
    out["made"] = (played["outcome"] == "made").to_numpy().astype(float)
    return out


def _fit_logistic(
    x: np.ndarray, y: np.ndarray, ridge: float = 1e-3, iterations: int = 50
) -> np.ndarray:
    """Newton-Raphson for logistic regression with a small ridge (intercept first)."""
    x = np.column_stack([np.ones(len(x)), x])
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (y - p) - ridge * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + ridge * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w += step
        if np.abs(step).max() < 1e-8:
            break
    return w


@dataclass
class StrengthModel:
    """Logistic P(made) per contract family from bidding-hand features."""

    weights: dict[str, np.ndarray]
    features: list[str]

    def predict(self, df: pd.DataFrame) -> pd.Series:
        """Predicted P(made) for each played deal of a deals table."""
        return self.predict_features(bid_features(df))

    def predict_features(self, feats: pd.DataFrame) -> pd.Series:
        """Predicted P(made) for each row of a ``bid_features`` frame (NaN for a family
        the model has no fit for)."""
        out = pd.Series(np.nan, index=feats.index)
        for family, w in self.weights.items():
            rows = feats["family"] == family
            x = np.column_stack(
                [np.ones(rows.sum()), feats.loc[rows, self.features].to_numpy(float)]
            )
            out[rows] = 1 / (1 + np.exp(-np.clip(x @ w, -30, 30)))
        return out

    def calibration(self, df: pd.DataFrame, bins: int = 10) -> pd.DataFrame:
        """Predicted vs observed success by decile of the prediction (per family)."""
        feats = bid_features(df)
        feats["predicted"] = self.predict_features(feats)
        return calibration_table(feats[feats["family"].isin(list(self.weights))], bins)

    def coefficients(self) -> pd.DataFrame:
        """The fitted weights (intercept first) per family."""
        return pd.DataFrame(
            {family: w for family, w in self.weights.items()}, index=["intercept"] + self.features
        )


def calibration_table(feats: pd.DataFrame, bins: int = 10) -> pd.DataFrame:
    """Predicted vs observed success by decile of the prediction, per family, from a
    frame with ``family``, ``predicted`` and ``made`` (families under ``bins`` rows
    are left out): ``family``, ``decile``, ``n``, ``predicted`` (mean), ``observed``
    with ``low``/``high`` (Wilson 95%)."""
    rows = []
    for family, part in feats.dropna(subset=["predicted"]).groupby("family"):
        if len(part) < bins:
            continue
        decile = pd.qcut(part["predicted"].rank(method="first"), bins, labels=False)
        for d, grp in part.groupby(decile):
            low, high = wilson_interval(grp["made"].sum(), len(grp))
            rows.append(
                {
                    "family": family,
                    "decile": int(d) + 1,
                    "n": len(grp),
                    "predicted": grp["predicted"].mean(),
                    "observed": grp["made"].mean(),
                    "low": float(low),
                    "high": float(high),
                }
            )
    return pd.DataFrame(rows)


def fit_strength(df: pd.DataFrame, features: list[str] | None = None) -> StrengthModel:
    """Fit P(made) per contract family (suit / NT / AT) on a deals table."""
    return fit_strength_features(bid_features(df), features)


def fit_strength_features(feats: pd.DataFrame, features: list[str] | None = None) -> StrengthModel:
    """``fit_strength`` on a ``bid_features`` frame (e.g. gathered over the record
    batches of a large table)."""
    features = list(features or FEATURES)
    weights = {}
    for family, part in feats.groupby("family"):
        if len(part) < 50 or part["made"].nunique() < 2:
            continue
        weights[family] = _fit_logistic(part[features].to_numpy(float), part["made"].to_numpy())
    if not weights:
        raise ValueError("not enough played deals to fit a strength model")
    return StrengthModel(weights, features)


def cross_calibration(feats: pd.DataFrame, bins: int = 10) -> pd.DataFrame:
    """Calibration of ``fit_strength`` on every deal of a ``bid_features`` frame, each
    checked out of sample (two-fold): the model fitted on the even rows predicts the
    odd ones and the model fitted on the odd rows the even ones; then
    ``calibration_table`` of all the predictions. Raises ValueError when a half has
    too few contracts to fit."""
    feats = feats.reset_index(drop=True)
    even = np.arange(len(feats)) % 2 == 0
    predicted = pd.Series(np.nan, index=feats.index)
    for train in (even, ~even):
        model = fit_strength_features(feats[train])
        predicted[~train] = model.predict_features(feats[~train])
    return calibration_table(feats.assign(predicted=predicted), bins)
