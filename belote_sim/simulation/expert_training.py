"""Training the ``expert`` policy's card model: labelled decisions, features, the fit.

The rows are decisions of simulated deals with two legal cards or more: the player's
observation, each legal card and its exact double-dummy value on the real deal (card
points of the mover's team from there on; ``kernels.expert_data``).  ``features``
turns observations into the model's features, ``fit`` is a per-class ridge
regression of the differences between the cards of a decision, ``evaluate`` the
held-out check, ``write_weights`` the generated weights module.  The command that
rebuilds the shipped weights is ``analyses/train_expert.py``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from belote_sim.kernels.expert_data import (
    OBS_COLUMNS,
    OBS_DEAL,
    OBS_N_PLAYED,
    OBS_SEAT,
    OBS_STRAIN,
    featurize,
    label_decisions,
)
from belote_sim.kernels.expert_model import N_FEATURES, N_SITUATIONS
from belote_sim.kernels.switchboard import policy_buffers
from belote_sim.kernels.tables import STRAIN_NAMES
from belote_sim.policies import PLAY_POLICIES, parse_policy
from belote_sim.rules import Rules
from belote_sim.simulation.runner import simulate

__all__ = [
    "N_FEATURES",
    "N_SITUATIONS",
    "OBS_DEAL",
    "OBS_N_PLAYED",
    "OBS_SEAT",
    "OBS_STRAIN",
    "WEIGHTS_FILE",
    "CardModel",
    "class_rows",
    "evaluate",
    "features",
    "fit",
    "fit_hidden",
    "label",
    "points_lost",
    "shipped_models",
    "stage_table",
    "write_weights",
]

#: The generated module the policy reads its weights from.
WEIGHTS_FILE = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "kernels", "expert_weights.py"
)


def label(
    n_deals: int, ruleset: str, play: str, explore: float, seed: np.random.SeedSequence
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observations (R, OBS_COLUMNS), values (R, 8), cards (R, 8)) of ``n_deals`` deals."""
    deal_seed, play_seed = seed.spawn(2)
    deals = simulate(n_deals, ruleset, play="greedy", seed=int(deal_seed.generate_state(1)[0]),
                     threads=1)  # fmt: skip
    deals = deals[deals["strain"].notna()]
    hands = deals[[f"hand{s}" for s in range(4)]].to_numpy(np.int64)
    dealers = deals["dealer"].to_numpy(np.int64)
    strains = deals["strain"].map({n: i for i, n in enumerate(STRAIN_NAMES)}).to_numpy(np.int64)
    takers = deals["taker"].to_numpy(np.int64)
    params = np.zeros(8)
    spec = parse_policy(play, PLAY_POLICIES, "play")
    params[: len(spec.params)] = spec.params
    cap = len(deals) * 26
    obs = np.zeros((cap, OBS_COLUMNS), dtype=np.int64)
    values = np.full((cap, 8), -1, dtype=np.int64)
    cards = np.full((cap, 8), -1, dtype=np.int64)
    n = label_decisions(
        hands, dealers, strains, takers, Rules.preset(ruleset).to_array(), params, explore,
        int(play_seed.generate_state(1)[0] >> np.uint64(1)), policy_buffers(18),
        obs, values, cards,
    )  # fmt: skip
    return obs[:n], values[:n], cards[:n]


def stage_table(bounds: list[int]) -> np.ndarray:
    """PLY_STAGE: the stage of each card index 0..31 (a new stage starts at each bound)."""
    return np.searchsorted(np.asarray(bounds), np.arange(32), side="right").astype(np.int64)


def fit(
    feats: np.ndarray, values: np.ndarray, rows: np.ndarray, ridge: float, n_classes: int
) -> np.ndarray:
    """Per-class ridge weights (n_classes, N_FEATURES): the card's value minus the
    decision's mean on its features minus their mean.  ``rows``: each decision's class."""
    n_features = feats.shape[2]
    weights = np.zeros((n_classes, n_features))
    order = np.argsort(rows, kind="stable")
    bounds = np.searchsorted(rows[order], np.arange(n_classes + 1))
    for c in range(n_classes):
        sel = order[bounds[c] : bounds[c + 1]]
        if len(sel) == 0:
            continue
        f = feats[sel].astype(np.float64)
        v = values[sel].astype(np.float64)
        present = v >= 0
        n_legal = present.sum(axis=1)
        mean_v = np.where(present, v, 0).sum(axis=1) / n_legal
        mean_f = (f * present[:, :, None]).sum(axis=1) / n_legal[:, None]
        y = np.where(present, v - mean_v[:, None], 0.0).reshape(-1)
        x = np.where(present[:, :, None], f - mean_f[:, None, :], 0.0).reshape(-1, n_features)
        weights[c] = np.linalg.solve(x.T @ x + ridge * np.eye(n_features), x.T @ y)
    return weights


@dataclass
class CardModel:
    """The card model's weights: ``weights`` (C, N_FEATURES) the linear score of each
    weight row, and a hidden layer of H rectified units: ``hidden_in`` (N_FEATURES,
    H) from the features, ``hidden_row`` (C, H) from the weight row (with the bias),
    ``hidden_out`` (H,) to the score (H = 0: the linear model alone)."""

    weights: np.ndarray
    hidden_in: np.ndarray
    hidden_row: np.ndarray
    hidden_out: np.ndarray

    @classmethod
    def linear(cls, weights: np.ndarray) -> CardModel:
        n_rows, n_features = weights.shape
        return cls(weights, np.zeros((n_features, 0)), np.zeros((n_rows, 0)), np.zeros(0))

    def scores(self, feats: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """(R, 8) scores of the cards with features ``feats`` (R, 8, N_FEATURES) of
        decisions in weight rows ``rows`` (as ``expert_model.model_card``)."""
        out = np.einsum("rkf,rf->rk", feats, self.weights[rows])
        if self.hidden_out.size:
            hidden = feats @ self.hidden_in + self.hidden_row[rows][:, None, :]
            out = out + np.maximum(hidden, 0.0) @ self.hidden_out
        return out


def evaluate(
    feats: np.ndarray, values: np.ndarray, rows: np.ndarray, model: np.ndarray | CardModel
) -> dict[str, float]:
    """How often the model's card is a double-dummy best card, and the card points it
    loses to the best card on average (the first legal card's loss for comparison).
    ``model``: a ``CardModel`` or linear weights (C, N_FEATURES)."""
    if not isinstance(model, CardModel):
        model = CardModel.linear(model)
    scores = np.empty(values.shape)
    for start in range(0, len(values), 50_000):  # the features' hidden layer, in parts
        part = slice(start, start + 50_000)
        scores[part] = model.scores(feats[part], rows[part])
    return points_lost(scores, values)


def points_lost(scores: np.ndarray, values: np.ndarray) -> dict[str, float]:
    """``evaluate``'s numbers for given scores (R, 8) of the cards (``values``: each
    card's double-dummy value in card points, negative where the card is not legal):
    how often the best-scored card is a best card, the card points it loses to the best
    card on average, and the first legal card's loss for comparison."""
    scores = np.where(values >= 0, scores, -np.inf)
    got = values[np.arange(len(values)), scores.argmax(axis=1)]
    best = values.max(axis=1)
    return {
        "decisions": len(values),
        "best_card_share": round(float((got == best).mean()), 4),
        "points_lost": round(float((best - got).mean()), 3),
        "first_card_points_lost": round(float((best - values[:, 0]).mean()), 3),
    }


def fit_hidden(
    feats: np.ndarray,
    values: np.ndarray,
    rows: np.ndarray,
    linear: np.ndarray,
    n_hidden: int,
    epochs: int,
    seed: int,
    learning_rate: float = 1e-3,
    batch: int = 2048,
) -> CardModel:
    """Add a hidden layer of ``n_hidden`` units to the linear model ``linear`` (C,
    N_FEATURES) and train both on the same target as ``fit``: the card's value minus
    the decision's mean, against the score minus the decision's mean score (squared
    error, Adam, ``epochs`` passes in minibatches of ``batch`` decisions, the rate
    shrinking over the last passes).  ``seed`` fixes the initial weights and the
    order of the passes."""
    rng = np.random.default_rng(seed)
    n_rows, n_features = linear.shape
    f32 = np.float32
    present = (values >= 0).astype(f32)
    n_legal = present.sum(axis=1)
    mean_v = np.where(values >= 0, values, 0).sum(axis=1) / n_legal
    target = (np.where(values >= 0, values - mean_v[:, None], 0.0)).astype(f32)
    params = [
        linear.astype(f32),
        (rng.standard_normal((n_features, n_hidden)) * np.sqrt(2.0 / n_features)).astype(f32),
        np.zeros((n_rows, n_hidden), f32),
        (rng.standard_normal(n_hidden) * 0.1).astype(f32),
    ]
    moment1 = [np.zeros_like(p) for p in params]
    moment2 = [np.zeros_like(p) for p in params]
    step = 0
    for epoch in range(epochs):
        rate = learning_rate * 0.5 ** max(0, epoch - (epochs - 3))
        order = rng.permutation(len(values))
        for start in range(0, len(order), batch):
            i = order[start : start + batch]
            w_lin, w_in, w_row, w_out = params
            f, m, y, r = feats[i].astype(f32), present[i], target[i], rows[i]
            pre = f @ w_in + w_row[r][:, None, :]
            hidden = np.maximum(pre, 0.0)
            score = np.einsum("rkf,rf->rk", f, w_lin[r]) + hidden @ w_out
            mean_s = (score * m).sum(axis=1) / n_legal[i]
            err = (score - mean_s[:, None] - y) * m
            g = 2.0 * err / len(i)  # d loss / d score (the mean's term: err sums to 0)
            g_out = np.einsum("rk,rkh->h", g, hidden)
            g_pre = g[:, :, None] * w_out[None, None, :] * (pre > 0)
            g_in = np.einsum("rkf,rkh->fh", f, g_pre)
            g_row = np.zeros_like(w_row)
            np.add.at(g_row, r, g_pre.sum(axis=1))
            g_lin = np.zeros_like(w_lin)
            np.add.at(g_lin, r, np.einsum("rk,rkf->rf", g, f))
            step += 1
            for p, gp, m1, m2 in zip(params, (g_lin, g_in, g_row, g_out), moment1, moment2):
                m1 *= 0.9
                m1 += 0.1 * gp
                m2 *= 0.999
                m2 += 0.001 * gp * gp
                p -= rate * (m1 / (1 - 0.9**step)) / (np.sqrt(m2 / (1 - 0.999**step)) + 1e-8)
    w_lin, w_in, w_row, w_out = (p.astype(np.float64) for p in params)
    return CardModel(w_lin, w_in, w_row, w_out)


def _array(name: str, a: np.ndarray) -> str:
    """``name = np.array(...)`` source of a 1- or 2-D float array (5 digits)."""
    if a.size == 0:
        return f"{name} = np.zeros({a.shape}, dtype=np.float64)\n"
    if a.ndim == 1:
        return f"{name} = np.array([" + ", ".join(f"{w:.5g}" for w in a) + "], dtype=np.float64)\n"
    rows = ",\n".join("    [" + ", ".join(f"{w:.5g}" for w in r) + "]" for r in a)
    return f"{name} = np.array([\n{rows},\n], dtype=np.float64)\n"


def write_weights(linear: np.ndarray, net: CardModel, stages: np.ndarray, header: str) -> None:
    """Write the weights module with ``header`` in its docstring: ``PLY_STAGE``, the
    linear model ``WEIGHTS`` (``expert`` model 1) and the network (model 2:
    ``NET_WEIGHTS``, ``HIDDEN_IN``, ``HIDDEN_ROW``, ``HIDDEN_OUT``)."""
    text = (
        f'"""Weights of the ``expert`` policy\'s card models (``expert_model``).\n\n'
        f"{header}\n"
        f'Generated by analyses/train_expert.py; do not edit."""\n\n'
        "import numpy as np\n\n"
        "# fmt: off\n"
        f"PLY_STAGE = np.array({stages.tolist()}, dtype=np.int64)\n"
        + _array("WEIGHTS", linear)
        + _array("NET_WEIGHTS", net.weights)
        + _array("HIDDEN_IN", net.hidden_in)
        + _array("HIDDEN_ROW", net.hidden_row)
        + _array("HIDDEN_OUT", net.hidden_out)
        + "# fmt: on\n"
    )
    with open(WEIGHTS_FILE, "w") as f:
        f.write(text)


def features(obs: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(features (R, 8, N_FEATURES) float32, situations (R,)) of labelled rows."""
    feats = np.zeros((len(obs), 8, N_FEATURES), dtype=np.float32)
    situations = np.zeros(len(obs), dtype=np.int64)
    featurize(obs, cards, feats, situations)
    return feats, situations


def class_rows(situations: np.ndarray, obs: np.ndarray, stages: np.ndarray) -> np.ndarray:
    """Each decision's weight row: its situation and the stage of its card index."""
    n_stages = int(stages.max()) + 1
    return situations * n_stages + stages[obs[:, OBS_N_PLAYED]]


def shipped_models() -> tuple[CardModel, CardModel, np.ndarray]:
    """The shipped card models of ``kernels.expert_weights``: ``(network, linear model,
    ply stages)``; their scores are card points of the mover's team, as ``fit``'s."""
    from belote_sim.kernels import expert_weights as shipped

    net = CardModel(shipped.NET_WEIGHTS, shipped.HIDDEN_IN, shipped.HIDDEN_ROW, shipped.HIDDEN_OUT)
    return net, CardModel.linear(shipped.WEIGHTS), np.asarray(shipped.PLY_STAGE)
