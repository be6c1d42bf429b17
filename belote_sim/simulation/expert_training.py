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

import numpy as np

from belote_sim.kernels.expert_data import (
    OBS_COLUMNS,
    OBS_DEAL,
    OBS_N_PLAYED,
    OBS_SEAT,
    featurize,
    label_decisions,
)
from belote_sim.kernels.expert_model import N_FEATURES, N_SITUATIONS
from belote_sim.kernels.play import search_buffers
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
    "WEIGHTS_FILE",
    "class_rows",
    "evaluate",
    "features",
    "fit",
    "label",
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
        int(play_seed.generate_state(1)[0] >> np.uint64(1)), search_buffers(18),
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


def evaluate(
    feats: np.ndarray, values: np.ndarray, rows: np.ndarray, weights: np.ndarray
) -> dict[str, float]:
    """How often the model's card is a double-dummy best card, and the card points it
    loses to the best card on average (the first legal card's loss for comparison)."""
    got = np.empty(len(values))
    for start in range(0, len(values), 50_000):
        part = slice(start, start + 50_000)
        scores = np.einsum("rkf,rf->rk", feats[part], weights[rows[part]])
        scores = np.where(values[part] >= 0, scores, -np.inf)
        got[part] = values[part][np.arange(len(scores)), scores.argmax(axis=1)]
    best = values.max(axis=1)
    return {
        "decisions": len(values),
        "best_card_share": round(float((got == best).mean()), 4),
        "points_lost": round(float((best - got).mean()), 3),
        "first_card_points_lost": round(float((best - values[:, 0]).mean()), 3),
    }


def write_weights(weights: np.ndarray, stages: np.ndarray, header: str) -> None:
    """Write the weights module (``PLY_STAGE``, ``WEIGHTS``) with ``header`` in its docstring."""
    rows = ",\n".join("    [" + ", ".join(f"{w:.5g}" for w in row) + "]" for row in weights)
    text = (
        f'"""Weights of the ``expert`` policy\'s card model (``expert_model``).\n\n'
        f"{header}\n"
        f'Generated by analyses/train_expert.py; do not edit."""\n\n'
        "import numpy as np\n\n"
        "# fmt: off\n"
        f"PLY_STAGE = np.array({stages.tolist()}, dtype=np.int64)\n"
        f"WEIGHTS = np.array([\n{rows},\n], dtype=np.float64)\n# fmt: on\n"
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
