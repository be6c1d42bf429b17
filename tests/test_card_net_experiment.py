"""analyses/card_net_experiment.py: the lean loading of several label sets."""

import argparse
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analyses"))
import card_net_experiment as experiment

from belote_sim.simulation import card_net
from belote_sim.simulation.expert_training import OBS_DEAL, OBS_SEAT


@pytest.fixture(scope="module")
def label_dir(tmp_path_factory):
    """Two tiny label sets (seeds 1 and 2, 4 deals per ruleset) made by the script."""
    workdir = tmp_path_factory.mktemp("labels")
    for seed in (1, 2):
        experiment.labelled(_args(workdir, seed))
    return workdir


def _args(workdir, seed=1, more="", trick_numbers=0):
    return argparse.Namespace(
        workdir=str(workdir), seed=seed, deals=4, rulesets="common,bulgarian",
        explore=0.1, more_labels=more, trick_numbers=trick_numbers,
    )  # fmt: skip


def _whole(workdir, trick_numbers):
    """The two sets loaded whole and encoded at once (the script's former loading)."""
    obs, values, cards, _ = experiment.labelled(_args(workdir, 1))
    more = experiment.labelled(_args(workdir, 2))[:3]
    more[0][:, OBS_DEAL] += 10_000_000
    obs, values, cards = (np.concatenate([a, b]) for a, b in zip((obs, values, cards), more))
    return obs, values, cards, card_net.encode(obs, trick_numbers=bool(trick_numbers))


@pytest.mark.parametrize("trick_numbers", [0, 1])
def test_lean_sets_encode_in_parts_as_at_once(label_dir, monkeypatch, trick_numbers):
    monkeypatch.setattr(experiment, "ENCODE_ROWS", 7)  # many parts, one of them short
    obs, values, cards, enc = _whole(label_dir, trick_numbers)
    data = experiment.lean_sets(_args(label_dir, 1, "2", trick_numbers), whole=False)
    for name in ("place", "impossible", "slot", "globals_", "mover"):
        np.testing.assert_array_equal(getattr(data.enc, name), getattr(enc, name), name)
    np.testing.assert_array_equal(data.cols, obs[:, experiment.KEPT_COLUMNS])
    np.testing.assert_array_equal(data.cards, cards)
    np.testing.assert_array_equal(data.values, values)
    first = len(experiment.labelled(_args(label_dir, 1))[0])
    assert not data.extra[:first].any() and data.extra[first:].all()
    # only the first set's held-out rows keep their whole observations
    held = experiment.held_out(obs[:, OBS_DEAL], obs[:, OBS_SEAT]) & ~data.extra
    assert 0 < held.sum() < first
    np.testing.assert_array_equal(data.kept_obs, obs[held])


def test_lean_sets_keep_every_observation_when_asked(label_dir):
    obs = _whole(label_dir, 0)[0]
    data = experiment.lean_sets(_args(label_dir, 1, "2"), whole=True)
    np.testing.assert_array_equal(data.kept_obs, obs)
