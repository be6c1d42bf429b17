"""The expert policy's learned card model: its training rows, features and fit."""

import numpy as np
import pytest
import reference as ref

from belote_sim.cards import format_card, format_cards
from belote_sim.deal import solver as BS
from belote_sim.kernels.expert_data import (
    OBS_COLUMNS,
    OBS_DEAL,
    OBS_FIRST_LEADER,
    OBS_HAND,
    OBS_KNOWN,
    OBS_N_PLAYED,
    OBS_RAISE_OVER_PARTNER,
    OBS_SEAT,
    OBS_UNDERTRUMP,
    featurize,
    label_decisions,
)
from belote_sim.kernels.expert_model import N_FEATURES, N_STAGES
from belote_sim.kernels.expert_seat import expert_decide
from belote_sim.kernels.expert_weights import (
    HIDDEN_IN,
    HIDDEN_OUT,
    HIDDEN_ROW,
    NET_WEIGHTS,
    PLY_STAGE,
    WEIGHTS,
)
from belote_sim.kernels.switchboard import policy_buffers
from belote_sim.kernels.tables import R_RAISE_OVER_PARTNER, R_UNDERTRUMP, STRAIN_NAMES
from belote_sim.rules import Rules
from belote_sim.simulation import expert_training as train_expert
from belote_sim.simulation.runner import simulate

MODEL = np.array([0, 0, 0, 0, 1, 0, 0, 0], dtype=np.float64)


def _label(n_deals, preset, seed):
    deals = simulate(n_deals, preset, seed=seed, threads=1)
    deals = deals[deals["strain"].notna()]
    hands = deals[[f"hand{s}" for s in range(4)]].to_numpy(np.int64)
    strains = deals["strain"].map({n: i for i, n in enumerate(STRAIN_NAMES)}).to_numpy(np.int64)
    cap = len(deals) * 26
    obs = np.zeros((cap, OBS_COLUMNS), np.int64)
    values = np.zeros((cap, 8), np.int64)
    cards = np.zeros((cap, 8), np.int64)
    n = label_decisions(
        hands,
        deals["dealer"].to_numpy(np.int64),
        strains,
        deals["taker"].to_numpy(np.int64),
        Rules.preset(preset).to_array(),
        MODEL,
        0.2,
        seed,
        policy_buffers(14),
        obs,
        values,
        cards,
    )
    return hands, strains, obs[:n], values[:n], cards[:n]


@pytest.mark.parametrize("preset", ["common", "bulgarian"])
def test_labels_are_the_double_dummy_values_of_the_real_position(preset):
    """Each labelled decision: the mover's hand and legal cards as the reference rules
    say, and each card's value as the public solver gives it for the real hands."""
    hands, strains, obs, values, cards = _label(12, preset, seed=4)
    assert len(obs) > 150
    rng = np.random.default_rng(0)
    for r in rng.choice(len(obs), 40, replace=False):
        row = obs[r]
        k = int(row[OBS_N_PLAYED])
        plays = [format_card(int(c)) for c in row[:k]]
        strain = STRAIN_NAMES[strains[row[OBS_DEAL]]]
        leader = int(row[OBS_FIRST_LEADER])
        for t in range(k // 4):
            leader = ref.trick_winner(plays[4 * t : 4 * t + 4], leader, strain)
        trick = plays[4 * (k // 4) :]
        seat = (leader + len(trick)) % 4
        assert seat == row[OBS_SEAT]
        left = [
            sorted(set(format_cards(int(hands[row[OBS_DEAL], s]))) - set(plays)) for s in range(4)
        ]
        assert left[seat] == sorted(format_cards(int(row[OBS_HAND])))
        legal = ref.legal_cards(left[seat], trick, leader, strain, {"ruleset": preset})
        mine = [format_card(int(c)) for c in cards[r] if c >= 0]
        assert sorted(mine) == sorted(legal)
        expected = BS.dd_scores(left, strain, leader, seat % 2, preset, trick)
        assert {c: int(values[r, j]) for j, c in enumerate(mine)} == expected


@pytest.mark.parametrize("model", [1, 2], ids=["linear", "network"])
def test_the_policy_plays_the_best_scored_card_of_the_training_features(model):
    """featurize (training) and the policy (play) see the same features: the card
    the policy plays (its sparse feature lists, the hidden layer in float32) is the
    arg-max of the shipped model's scores (numpy, float64: ``CardModel.scores``) of
    the dense features on the stored rows."""
    _, _, obs, _, cards = _label(10, "common", seed=9)
    feats = np.zeros((len(obs), 8, N_FEATURES))
    situations = np.zeros(len(obs), np.int64)
    featurize(obs, cards, feats, situations)
    rows = situations * N_STAGES + PLY_STAGE[obs[:, OBS_N_PLAYED]]
    if model == 1:
        scores = train_expert.CardModel.linear(WEIGHTS).scores(feats, rows)
    else:
        net = train_expert.CardModel(NET_WEIGHTS, HIDDEN_IN, HIDDEN_ROW, HIDDEN_OUT)
        scores = net.scores(feats, rows)
    params = MODEL.copy()
    params[4] = model
    tt, ws, moves = policy_buffers(10)[:3]
    checked = 0
    for r in range(len(obs)):
        present = cards[r] >= 0
        s = np.where(present, scores[r], -np.inf)
        top2 = np.sort(s)[-2:]
        if top2[1] - top2[0] < 1e-3:
            continue  # a tie (broken by card cost inside the policy) or within rounding
        # (the policy's hidden layer is float32)
        work = np.zeros((4, 4), np.int64)
        work[0] = obs[r, OBS_KNOWN : OBS_KNOWN + 4]
        rules = Rules.preset("common").to_array().copy()
        rules[R_RAISE_OVER_PARTNER] = obs[r, OBS_RAISE_OVER_PARTNER]
        rules[R_UNDERTRUMP] = obs[r, OBS_UNDERTRUMP]
        card = expert_decide(
            params,
            obs[r, OBS_HAND],
            obs[r, :32],
            obs[r, OBS_N_PLAYED],
            obs[r, OBS_FIRST_LEADER],
            obs[r, 34],
            obs[r, 35],
            rules,
            tt,
            ws,
            moves,
            work,
        )
        assert card == cards[r, int(np.argmax(s))]
        checked += 1
    assert checked > 100


def test_the_sparse_feature_lists_hold_each_set_feature_once():
    """A card's features as the policy lists them (its suit's, then its own): each
    feature index at most once, no zero kept, every one of them set in the dense
    features of training (``card_features``), and all of those listed."""
    from belote_sim.kernels.expert import observe
    from belote_sim.kernels.expert_model import (
        card_features,
        card_only_features,
        decision_terms,
        suit_features,
    )

    obs = _label(4, "bulgarian", seed=5)[2]
    rules = Rules.preset("bulgarian").to_array()
    work = np.zeros((4, 4), np.int64)
    index = np.zeros(N_FEATURES, np.int64)
    values = np.zeros(N_FEATURES, np.float32)
    dense = np.zeros(N_FEATURES)
    listed = 0
    for row in obs:
        work[0] = row[OBS_KNOWN : OBS_KNOWN + 4]
        k = int(row[OBS_N_PLAYED])
        hand, first, strain, taker = (int(x) for x in row[[OBS_HAND, OBS_FIRST_LEADER, 34, 35]])
        seat, nt, led, wc, wp, pts, legal, others = observe(
            hand, row[:32], k, first, strain, rules, work
        )
        terms = decision_terms(legal, work[2], nt, led, wc, wp, seat, strain, others)
        for card in (c for c in range(32) if legal >> c & 1):
            n, masters_run, opp_ruff = suit_features(
                card >> 3, hand, work[2], nt, led, seat, taker, strain, others, index, values, 0
            )
            n = card_only_features(
                card, hand, work[2], nt, led, wc, wp, pts, seat, strain, others, k, terms,
                masters_run, opp_ruff, index, values, n,
            )  # fmt: skip
            card_features(
                card, hand, work[2], nt, led, wc, wp, pts, seat, taker, strain, others, k,
                terms, dense,
            )  # fmt: skip
            assert len(set(index[:n].tolist())) == n
            assert (values[:n] != 0).all()
            assert sorted(index[:n].tolist()) == np.flatnonzero(dense).tolist()
            assert np.allclose(values[:n], dense[index[:n]], rtol=1e-6)
            listed += n
    assert listed > 1000


def test_fit_recovers_the_weights_of_synthetic_values():
    """Values made from known per-class weights (plus a per-decision offset, which
    the fit must ignore) give those weights back."""
    rng = np.random.default_rng(1)
    n, n_classes = 4000, 3
    true_w = rng.normal(size=(n_classes, N_FEATURES))
    feats = rng.normal(size=(n, 8, N_FEATURES))
    classes = rng.integers(n_classes, size=n)
    n_legal = rng.integers(2, 9, size=n)
    present = np.arange(8)[None, :] < n_legal[:, None]
    offset = 1000 + rng.normal(size=n)[:, None] * 50  # values >= 0 mark the cards
    values = np.einsum("rkf,rf->rk", feats, true_w[classes]) + offset
    values = np.where(present, values, -1.0)
    feats = np.where(present[:, :, None], feats, 0.0)
    w = train_expert.fit(feats, values, classes, 1e-6, n_classes)
    assert np.allclose(w, true_w, atol=1e-6)
    stats = train_expert.evaluate(feats, values, classes, w)
    assert stats["best_card_share"] == 1.0 and stats["points_lost"] == 0.0


def test_the_hidden_layer_learns_what_the_linear_fit_cannot():
    """Values with an interaction of two features (a card is worth 10 when exactly
    one of them is set): no linear score ranks that, the hidden layer learns it."""
    rng = np.random.default_rng(2)
    n = 6000
    feats = (rng.random((n, 8, N_FEATURES)) < 0.5).astype(np.float32)
    n_legal = rng.integers(2, 5, size=n)
    present = np.arange(8)[None, :] < n_legal[:, None]
    feats = np.where(present[:, :, None], feats, 0.0).astype(np.float32)
    values = 10.0 * (feats[:, :, 3] != feats[:, :, 7]) + 100
    values = np.where(present, values, -1.0)
    rows = np.zeros(n, np.int64)
    linear = train_expert.fit(feats, values, rows, 1.0, 1)
    model = train_expert.fit_hidden(
        feats, values, rows, linear, 8, 12, seed=0, learning_rate=1e-2, batch=256
    )
    lost_linear = train_expert.evaluate(feats, values, rows, linear)["points_lost"]
    lost_model = train_expert.evaluate(feats, values, rows, model)["points_lost"]
    assert lost_linear > 1.0 and lost_model < 0.2 * lost_linear


def test_stage_table():
    assert list(train_expert.stage_table([4, 12])[[0, 3, 4, 11, 12, 31]]) == [0, 0, 1, 1, 2, 2]
    assert set(PLY_STAGE) == set(range(N_STAGES))
