"""The raw-facts card network's encoder (simulation.card_net, issue 41)."""

import numpy as np
import pytest
import reference as ref

from belote_sim.cards import format_card
from belote_sim.kernels.expert_data import (
    OBS_DEAL,
    OBS_FIRST_LEADER,
    OBS_HAND,
    OBS_KNOWN,
    OBS_N_PLAYED,
    OBS_SEAT,
    OBS_STRAIN,
)
from belote_sim.kernels.tables import STRAIN_NAMES
from belote_sim.simulation import card_net as cn
from belote_sim.simulation.expert_training import label, points_lost


@pytest.fixture(scope="module", params=["common", "bulgarian"])
def rows(request):
    obs, values, cards = label(10, request.param, "expert:0,0,32,0,2", 0.2,
                               np.random.SeedSequence(7))  # fmt: skip
    return obs, values, cards


def _mask_cards(mask):
    return [c for c in range(32) if (int(mask) >> c) & 1]


def test_each_card_fact_matches_an_independent_reading(rows):
    """Places, trick numbers, relative seats and show-outs as the reference rules read
    the observation (trick winners from ``reference.trick_winner``)."""
    obs, _, _ = rows
    enc = cn.encode(obs)
    rng = np.random.default_rng(1)
    for r in rng.choice(len(obs), 60, replace=False):
        row = obs[r]
        k = int(row[OBS_N_PLAYED])
        strain = STRAIN_NAMES[row[OBS_STRAIN]]
        leader = int(row[OBS_FIRST_LEADER])
        expected = {}
        voids = {s: set() for s in range(4)}
        seat_of = {}
        for t in range(k // 4 + 1):
            trick = [int(c) for c in row[4 * t : min(4 * t + 4, k)]]
            if not trick:
                break
            for i, c in enumerate(trick):
                seat_of[c] = (leader + i) % 4
                if c >> 3 != trick[0] >> 3:
                    voids[seat_of[c]].add(trick[0] >> 3)
            if len(trick) == 4:
                winner = ref.trick_winner([format_card(c) for c in trick], leader, strain)
                for c in trick:
                    expected[c] = ("played", t, seat_of[c])
                leader = winner
            else:
                for c in trick:
                    expected[c] = ("table", seat_of[c])
        mover = (leader + k % 4) % 4
        assert mover == row[OBS_SEAT] == enc.mover[r]
        for c in _mask_cards(row[OBS_HAND]):
            expected[c] = ("hand",)
        for s in range(4):
            if s != mover:
                for c in _mask_cards(row[OBS_KNOWN + s]):
                    expected[c] = ("announced", s)
        for c in range(32):
            place = int(enc.place[r, c])
            fact = expected.get(c, ("unknown",))
            if fact[0] == "hand":
                assert place == cn.PLACE_HAND
            elif fact[0] == "played":
                rel = (fact[2] - mover) % 4
                assert place == cn.PLACE_PLAYED + 4 * fact[1] + rel
            elif fact[0] == "table":
                assert place == cn.PLACE_TABLE + (fact[1] - mover) % 4
            elif fact[0] == "announced":
                assert place == cn.PLACE_ANNOUNCED + (fact[1] - mover) % 4
            else:
                assert place == cn.PLACE_UNKNOWN
            imp = int(enc.impossible[r, c])
            if fact[0] != "unknown":
                assert imp == 0
                continue
            for j in (1, 2, 3):
                if c >> 3 in voids[(mover + j) % 4]:
                    assert (imp >> (j - 1)) & 1, (r, c, j)


def _relabel(obs, cards, perm):
    """The observation rows and cards with suit s renamed perm[s]."""

    def card(c):
        return np.where(c >= 0, 8 * perm[np.maximum(c, 0) >> 3] + (c & 7), c)

    def mask(m):
        out = np.zeros_like(m)
        for c in range(32):
            out |= ((m >> c) & 1) << int(card(np.int64(c)))
        return out

    o = obs.copy()
    o[:, :32] = card(obs[:, :32])
    o[:, OBS_HAND] = mask(obs[:, OBS_HAND])
    for s in range(4):
        o[:, OBS_KNOWN + s] = mask(obs[:, OBS_KNOWN + s])
    o[:, OBS_STRAIN] = np.where(obs[:, OBS_STRAIN] < 4, perm[np.minimum(obs[:, OBS_STRAIN], 3)],
                                obs[:, OBS_STRAIN])  # fmt: skip
    return o, card(cards)


def test_the_encoding_does_not_depend_on_the_names_of_the_suits(rows):
    obs, _, cards = rows
    enc = cn.encode(obs)
    x = enc.active()
    rng = np.random.default_rng(2)
    for _ in range(3):
        perm = rng.permutation(4)
        o, c = _relabel(obs, cards, perm)
        assert not np.array_equal(o[:, :32], obs[:, :32]) or (perm == np.arange(4)).all()
        enc2 = cn.encode(o)
        np.testing.assert_array_equal(enc2.active(), x)
        np.testing.assert_array_equal(
            np.sort(enc2.slot_cards(c), axis=1), np.sort(enc.slot_cards(cards), axis=1)
        )
    # not trivially so: the inputs tell apart the rows
    assert len({row.tobytes() for row in x}) > 0.9 * len(x)


def test_the_incremental_accumulator_equals_the_full_recompute(rows):
    obs, _, _ = rows
    enc = cn.encode(obs)
    rng = np.random.default_rng(3)
    w1 = rng.standard_normal((cn.N_INPUTS, 16))
    b1 = rng.standard_normal(16)
    full = cn.full_accumulator(enc, w1, b1)
    slot_changes = 0
    groups = 0
    for deal in np.unique(obs[:, OBS_DEAL])[:6]:
        for seat in range(4):
            order = np.flatnonzero((obs[:, OBS_DEAL] == deal) & (obs[:, OBS_SEAT] == seat))
            order = order[np.argsort(obs[order, OBS_N_PLAYED])]
            if len(order) < 2:
                continue
            groups += 1
            inc, updates = cn.accumulate(enc, order, w1, b1)
            np.testing.assert_allclose(inc, full[order], rtol=1e-9, atol=1e-9)
            # the updates touch the changed cards only: fewer than all cards per row
            assert 0 < updates < 32 * (len(order) - 1)
            slot_changes += int((np.diff(enc.slot[order], axis=0) != 0).any())
    assert groups >= 10
    assert slot_changes > 0  # the suits' order changed inside some walks


@pytest.mark.parametrize("candidate_input", [True, False], ids=["candidate-input", "per-card"])
@pytest.mark.parametrize("layout", ["dense", "sparse", "sparse-residual"])
def test_the_gradients_are_the_loss_s_derivatives(rows, candidate_input, layout):
    """``loss_and_gradients`` against central finite differences (float64), with the
    inputs dense or sparse, alone or added to another model's scores."""
    obs, values, cards = rows
    sel = np.arange(40)
    enc = cn.encode(obs)
    rng = np.random.default_rng(5)
    n_out = 1 if candidate_input else 32
    net = cn.CardNet(
        rng.standard_normal((cn.N_INPUTS, 6)) * 0.3, rng.standard_normal(6) * 0.3,
        rng.standard_normal((6, 5)), rng.standard_normal(5) * 0.3,
        rng.standard_normal((5, n_out)), np.zeros(n_out),
        rng.standard_normal((128, 6)) * 0.3 if candidate_input else np.zeros((0, 6)),
    )  # fmt: skip
    present = values[sel] >= 0
    mean = np.where(present, values[sel], 0).sum(axis=1) / present.sum(axis=1)
    target = np.where(present, values[sel] - mean[:, None], 0.0)
    if layout == "dense":
        x = enc.active(sel).astype(np.float64)
    else:
        x = enc.sparse(sel)
        x.globals_ = x.globals_.astype(np.float64)
    base = rng.standard_normal(target.shape) * 5 if layout == "sparse-residual" else None
    cand = net.candidates(enc, cards[sel], sel)
    _, grads = cn.loss_and_gradients(net, x, cand, present, target, base)
    checked = _check_gradients(
        lambda: cn.loss_and_gradients(net, x, cand, present, target, base)[0],
        net.params(), grads, rng, every_block=False,
    )  # fmt: skip
    assert checked >= 25


def _check_gradients(loss, params, grads, rng, every_block: bool) -> int:
    """Up to 5 weights per block: each gradient against a central finite difference of
    ``loss()`` (float64).  ``every_block``: each block must have a nonzero gradient.
    Returns the number of weights checked."""
    checked = 0
    for p, g in zip(params, grads):
        assert g.shape == p.shape
        flat, gflat = p.reshape(-1), g.reshape(-1)
        nonzero = np.flatnonzero(gflat != 0)
        if every_block:
            assert len(nonzero) > 0  # every weight block takes part
        candidates = nonzero if len(nonzero) else np.arange(flat.size)
        for j in rng.choice(candidates, min(5, len(candidates)), replace=False):
            old = flat[j]
            flat[j] = old + 1e-6
            up = loss()
            flat[j] = old - 1e-6
            down = loss()
            flat[j] = old
            assert (up - down) / 2e-6 == pytest.approx(gflat[j], rel=1e-4, abs=1e-6)
            checked += 1
    return checked


def test_the_sparse_inputs_are_the_dense_ones(rows):
    obs, _, _ = rows
    enc = cn.encode(obs)
    sel = np.arange(0, len(obs), 3)
    sparse = enc.sparse(sel)
    dense = enc.active(sel)
    np.testing.assert_array_equal(sparse.dense(), dense)
    w1 = np.random.default_rng(2).standard_normal((cn.N_INPUTS, 7))
    np.testing.assert_allclose(cn.first_layer(sparse, w1), dense @ w1, rtol=1e-5, atol=1e-5)
    g = np.random.default_rng(3).standard_normal((len(sel), 7))
    np.testing.assert_allclose(
        cn.first_layer_gradient(sparse, g), dense.T @ g, rtol=1e-5, atol=1e-4
    )


def test_a_residual_network_starts_from_the_other_model(rows):
    """With ``base`` the fit starts from the other model's scores (last layer 0); with
    ``valid``, a fit no pass of which beats that model returns it unchanged."""
    obs, values, cards = rows
    enc = cn.encode(obs)
    n = len(obs)
    fit_rows, valid = np.arange(0, n, 2), np.arange(1, n, 2)
    base = np.where(values >= 0, values, 0).astype(np.float64)  # a perfect other model
    untrained = cn.train(enc, cards, values, fit_rows, np.random.SeedSequence(1),
                         hidden=(8, 4), epochs=0, candidate_input=False, base=base)  # fmt: skip
    assert points_lost(untrained.scores(enc, cards, valid, base), values[valid])[
        "points_lost"
    ] == pytest.approx(0.0)
    net = cn.train(enc, cards, values, fit_rows, np.random.SeedSequence(1), hidden=(8, 4),
                   epochs=3, candidate_input=False, base=base, valid=valid,
                   learning_rate=0.05)  # fmt: skip
    lost = [e["valid_points_lost"] for e in net.log]
    got = points_lost(net.scores(enc, cards, valid, base), values[valid])["points_lost"]
    assert got == min(lost) == pytest.approx(0.0)


def test_a_fit_with_validation_rows_keeps_its_best_pass():
    """From a model that knows nothing (all scores 0), on 100 deals, the passes do
    better than it, and the weights of the best pass on the validation rows come back."""
    obs, values, cards = label(100, "common", "expert:0,0,32,0,2", 0.2, np.random.SeedSequence(7))
    enc = cn.encode(obs)
    fit_rows, valid = np.arange(0, len(obs), 2), np.arange(1, len(obs), 2)
    zero = np.zeros(values.shape)
    net = cn.train(enc, cards, values, fit_rows, np.random.SeedSequence(1), epochs=4,
                   base=zero, valid=valid, learning_rate=0.01, suits=(16, 8, 8))  # fmt: skip
    lost = [e["valid_points_lost"] for e in net.log]
    got = points_lost(net.scores(enc, cards, valid, zero), values[valid])["points_lost"]
    assert got == min(lost) < lost[0]


def test_without_trick_numbers_played_cards_keep_only_their_seat(rows):
    obs, _, _ = rows
    fine = cn.encode(obs)
    coarse = cn.encode(obs, trick_numbers=False)
    played = (fine.place >= cn.PLACE_PLAYED) & (fine.place < cn.PLACE_TABLE)
    assert played.any()
    seat = (fine.place.astype(int) - cn.PLACE_PLAYED) % 4
    np.testing.assert_array_equal(coarse.place[played], cn.PLACE_PLAYED + seat[played])
    np.testing.assert_array_equal(coarse.place[~played], fine.place[~played])


def _suit_net(seed: int, hidden=(6, 4, 5)) -> cn.SuitNet:
    """A SuitNet with every weight random (float64), none left at 0."""
    net = cn.SuitNet.new(np.random.default_rng(seed), hidden)
    rng = np.random.default_rng(seed + 1)
    for p in net.params():
        p_new = rng.standard_normal(p.shape) * 0.4
        setattr(net, _name_of(net, p), p_new)
    return net


def _name_of(net: cn.SuitNet, p: np.ndarray) -> str:
    return next(name for name, value in vars(net).items() if value is p)


def test_the_suit_network_s_gradients_are_the_loss_s_derivatives(rows):
    obs, values, cards = rows
    sel = np.arange(40)
    enc = cn.encode(obs, trick_numbers=False)
    net = _suit_net(11)
    present = values[sel] >= 0
    mean = np.where(present, values[sel], 0).sum(axis=1) / present.sum(axis=1)
    target = np.where(present, values[sel] - mean[:, None], 0.0)
    base = np.random.default_rng(4).standard_normal(target.shape) * 5
    _, grads = net.batch_loss(enc, cards, sel, present, target, base)
    checked = _check_gradients(
        lambda: net.batch_loss(enc, cards, sel, present, target, base)[0],
        net.params(), grads, np.random.default_rng(6), every_block=True,
    )  # fmt: skip
    assert checked >= 40


def test_the_suit_network_does_not_depend_on_the_names_of_the_suits(rows):
    obs, _, cards = rows
    net = _suit_net(12)
    sel = np.arange(len(obs))
    scores = net.scores(cn.encode(obs), cards, sel)
    rng = np.random.default_rng(8)
    for _ in range(3):
        perm = rng.permutation(4)
        o, c = _relabel(obs, cards, perm)
        again = net.scores(cn.encode(o), c, sel)
        # the same card (relabelled) gets the same score
        for r in range(0, len(obs), 7):
            for k in np.flatnonzero(cards[r] >= 0):
                j = int(np.flatnonzero(c[r] == _relabel_card(cards[r, k], perm))[0])
                assert again[r, j] == pytest.approx(scores[r, k], rel=1e-9, abs=1e-9)
    # not trivially so: the scores differ between the cards of a decision
    assert np.nanstd(np.where(np.isfinite(scores), scores, np.nan)) > 0.1


def _relabel_card(c: int, perm: np.ndarray) -> int:
    return 8 * int(perm[int(c) >> 3]) + (int(c) & 7)


def test_the_suit_network_s_accumulator_kept_per_card_equals_the_full_recompute(rows):
    obs, _, _ = rows
    enc = cn.encode(obs, trick_numbers=False)
    net = _suit_net(13)
    full = net.suit_accumulators(enc, np.arange(len(obs)))
    groups = 0
    for deal in np.unique(obs[:, OBS_DEAL])[:6]:
        for seat in range(4):
            order = np.flatnonzero((obs[:, OBS_DEAL] == deal) & (obs[:, OBS_SEAT] == seat))
            order = order[np.argsort(obs[order, OBS_N_PLAYED])]
            if len(order) < 2:
                continue
            groups += 1
            inc, updates = net.accumulate(enc, order)
            np.testing.assert_allclose(inc, full[order], rtol=1e-9, atol=1e-9)
            # only the cards whose facts changed are touched
            assert 0 < updates < 32 * (len(order) - 1)
    assert groups >= 10
    # and the scores read from that accumulator are the network's
    f = net.forward(enc, np.full((len(obs), 8), -1), np.arange(len(obs)))
    np.testing.assert_allclose(f["u"], full, rtol=1e-12, atol=1e-12)
