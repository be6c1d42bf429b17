"""The suit network in play (``expert`` model 3, ``kernels.suit_net``, issue 41).

The kernel reads the facts of the cards and scores them itself; ``simulation.card_net``
is a separate reading of the same facts (numpy, by rows) with the same weights.  The
two must give the same scores on labelled decisions, and the cards the expert plays
must be the ones the numpy network scores highest."""

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest

import belote_sim
from belote_sim.kernels import suit_net_weights as weights
from belote_sim.kernels.expert_data import (
    OBS_DEAL,
    OBS_N_PLAYED,
    suit_net_row_scores,
)
from belote_sim.policies import PLAY_POLICIES, parse_policy
from belote_sim.simulation import card_net as cn
from belote_sim.simulation.expert_training import label

SUIT_NET_PLAY = "expert:0,24,32,0,3"


@pytest.fixture(scope="module")
def shipped():
    return cn.SuitNet(**weights.load())


@pytest.fixture(scope="module", params=["common", "bulgarian"])
def played(request):
    """Decisions of deals every seat played with the suit network (no exploration)."""
    return label(12, request.param, SUIT_NET_PLAY, 0.0, np.random.SeedSequence(23))


def _numpy_scores(net, obs, cards):
    enc = cn.encode(obs, trick_numbers=False)
    return net.scores(enc, cards, np.arange(len(obs)))


def test_the_kernel_scores_every_legal_card_as_the_numpy_network(shipped, played):
    obs, _, cards = played
    kernel = np.zeros(cards.shape)
    suit_net_row_scores(obs, cards, kernel)
    expected = _numpy_scores(shipped, obs, cards)
    legal = cards >= 0
    assert np.isneginf(kernel[~legal]).all()
    # float32 sums in another order: ~1e-5 card points on scores of ~40
    np.testing.assert_allclose(kernel[legal], expected[legal], rtol=0, atol=2e-4)
    assert (np.abs(expected[legal]) > 1).mean() > 0.5  # real scores, not all ~0


def test_the_expert_plays_the_card_the_numpy_network_scores_highest(shipped, played):
    """Each decision's card is read from a later row of the same deal (its plays)."""
    obs, _, cards = played
    scores = _numpy_scores(shipped, obs, cards)
    checked = 0
    for r in range(len(obs) - 1):
        later = r + 1
        if obs[later, OBS_DEAL] != obs[r, OBS_DEAL]:
            continue  # the deal's last labelled decision: its card is not in a later row
        k = obs[r, OBS_N_PLAYED]
        top2 = np.sort(scores[r][cards[r] >= 0])[-2:]
        if top2[1] - top2[0] < 1e-3:
            continue  # a near tie may fall either way in float32
        assert obs[later, k] == cards[r, scores[r].argmax()], f"decision {r}"
        checked += 1
    assert checked > 100


def test_other_weights_change_the_scores(played):
    """The comparison above can fail: a network with its output weights changed
    scores the same decisions differently (every unit's: one of them may be 0 on
    every decision here)."""
    obs, _, cards = played
    net = cn.SuitNet(**weights.load())
    net.wo += 5.0
    base = _numpy_scores(cn.SuitNet(**weights.load()), obs, cards)
    other = _numpy_scores(net, obs, cards)
    legal = cards >= 0
    assert np.abs(other[legal] - base[legal]).max() > 1e-2


def test_the_weights_file_is_checked_and_written_back_byte_for_byte(tmp_path):
    data = weights.PATH.read_bytes()
    assert hashlib.sha256(data).hexdigest() == weights.SHA256
    bad = tmp_path / "suit_net.npz"
    bad.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(RuntimeError, match="SHA-256"):
        weights.load(bad)
    # shipping the same network again writes the same file and the same hash
    package = tmp_path / "belote_sim"
    (package / "data").mkdir(parents=True)
    (package / "kernels").mkdir()
    source = Path(belote_sim.__file__).parent / "kernels" / "suit_net_weights.py"
    shutil.copy(source, package / "kernels" / "suit_net_weights.py")
    training = weights.__doc__.split("do not edit.\n\n", 1)[1].strip()
    digest = cn.ship_suit_net(cn.SuitNet(**weights.load()), training, package)
    assert digest == weights.SHA256
    assert (package / "data" / "suit_net.npz").read_bytes() == data
    assert (package / "kernels" / "suit_net_weights.py").read_text() == source.read_text()


def test_model_3_is_a_setting_of_the_expert():
    """(Models outside 0..3 are refused: ``test_expert``.)"""
    assert parse_policy(SUIT_NET_PLAY, PLAY_POLICIES, "play").params[4] == 3
