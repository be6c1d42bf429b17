"""The ``atlas_auction`` bidding policy (issue 26 item 3): the atlas bidder that listens.

Checked here: the auction replay the gains are measured with (``auction_turn_at``)
against a plain reading of the calls; with an empty table the policy is ``atlas``
exactly; a forced call is made; with the shipped table it departs from the atlas only
where the table holds a positive gain for the call it makes; its situation key does
not depend on which physical suits hold the cards; the fit keeps only significant
gains; table files are checked before use; the study refuses what it cannot bid.
"""

import json

import numba
import numpy as np
import pytest

from belote_sim import simulate
from belote_sim.atlas import play_spec
from belote_sim.kernels import auction_atlas as AA
from belote_sim.kernels.auction import auction_turn_at
from belote_sim.kernels.auction_samples import NUM_SAMPLE_COLS, S_BASE, S_GAIN, S_KEY
from belote_sim.kernels.records import HEARD_BITS, BidTurn
from belote_sim.kernels.switchboard import bid_decide, policy_menu
from belote_sim.rules import Rules
from belote_sim.simulation.auction_measure import measure
from belote_sim.simulation.auction_table import (
    FitResult,
    fit_gains,
    load_auction_table,
    save_auction_table,
    shipped_auction_table,
)
from belote_sim.simulation.study import make_study

ATLAS_ID, AUCTION_ID = 3, 5
MENU = policy_menu(bid=("atlas", "atlas_auction"))
CALLS = "CDHSNA"


def _deals(n, rules="common", seed=3):
    return simulate(n, rules=rules, bidding="atlas", play="greedy", seed=seed)


def _plain_turn(auction, dealer, t):
    """(seat, current, bidder, level, heard) before call t, read plainly from the calls."""
    current, bidder, level, heard = -1, -1, 0, 0
    for k, call in enumerate(auction[:t]):
        seat = (dealer + 1 + k) % 4
        if call in CALLS:
            current, bidder, level = CALLS.index(call), seat, 0
            heard |= 1 << (HEARD_BITS * seat + current)
        elif call != "p":
            level += 1
    return (dealer + 1 + t) % 4, current, bidder, level, heard


def _turns(df, rules):
    """Every turn of every auction of a deals table, as ``auction_turn_at`` builds it."""
    r = Rules.preset(rules).to_array()
    for row in df.itertuples():
        bid = np.array([row.bid0, row.bid1, row.bid2, row.bid3], dtype=np.int64)
        calls = np.zeros(40, dtype=np.uint8)
        calls[: len(row.auction)] = np.frombuffer(row.auction.encode(), dtype=np.uint8)
        for t in range(len(row.auction)):
            yield row, t, auction_turn_at(bid, int(row.dealer), r, calls, t)


@pytest.fixture(scope="module")
def tables():
    """The common rules' bidding tables: with the shipped gains and with empty ones."""
    study = make_study("common", "atlas_auction", "greedy")
    full = study.atlas_arrays
    empty = (*full[: AA.GAINS], np.zeros((1, AA.NUM_ACTIONS)))
    return full, empty


def test_replayed_turns_match_a_plain_reading_and_the_calls_made(tables):
    _, empty = tables
    r = Rules.preset("common").to_array()
    df = _deals(300)
    n = 0
    for row, t, turn in _turns(df, "common"):
        seat, current, bidder, level, heard = _plain_turn(row.auction, row.dealer, t)
        assert (turn.seat, turn.current, turn.bidder, turn.level, turn.heard) == (
            seat,
            current,
            bidder,
            level,
            heard,
        )
        assert turn.cards == getattr(row, f"bid{seat}")
        # the atlas is deterministic: asked again at the replayed turn, it makes the call
        call, _ = bid_decide(MENU, ATLAS_ID, np.zeros(8), turn, r, empty)
        assert chr(call) == row.auction[t]
        n += 1
    assert n > 1000


def test_with_an_empty_table_it_is_the_atlas(tables):
    _, empty = tables
    r = Rules.preset("common").to_array()
    for _, _, turn in _turns(_deals(200, seed=4), "common"):
        a = bid_decide(MENU, ATLAS_ID, np.zeros(8), turn, r, empty)
        b = bid_decide(MENU, AUCTION_ID, np.zeros(8), turn, r, empty)
        assert a == b


def test_a_forced_call_is_made_where_legal(tables):
    _, empty = tables
    r = Rules.preset("common").to_array()
    made = set()
    for _, t, turn in _turns(_deals(100, seed=5), "common"):
        _, best, _ = AA.auction_key(turn, empty)
        for action in range(AA.NUM_ACTIONS):
            params = np.zeros(8)
            params[AA.FORCE_CALL] = t + 1
            params[AA.FORCE_ACTION] = action
            call, strain = bid_decide(MENU, AUCTION_ID, params, turn, r, empty)
            if AA.action_legal(turn, action, best):
                assert (call, strain) == AA.action_call(action, best)
                made.add(action)
            else:
                assert (call, strain) == bid_decide(MENU, ATLAS_ID, np.zeros(8), turn, r, empty)
            params[AA.FORCE_CALL] = t + 2  # another call: no force here
            assert bid_decide(MENU, AUCTION_ID, params, turn, r, empty) == bid_decide(
                MENU, ATLAS_ID, np.zeros(8), turn, r, empty
            )
    assert made == {AA.ACT_PASS, AA.ACT_BID, AA.ACT_DOUBLE, AA.ACT_REDOUBLE}


def test_it_departs_from_the_atlas_only_for_a_positive_gain(tables):
    full, _ = tables
    gains = full[AA.GAINS]
    assert gains.shape == (AA.NUM_KEYS, AA.NUM_ACTIONS) and (gains > 0).any()
    r = Rules.preset("common").to_array()
    departed = 0
    for _, _, turn in _turns(_deals(400, seed=6), "common"):
        atlas_call = bid_decide(MENU, ATLAS_ID, np.zeros(8), turn, r, full)
        call = bid_decide(MENU, AUCTION_ID, np.zeros(8), turn, r, full)
        key, best, _ = AA.auction_key(turn, full)
        legal = [a for a in range(AA.NUM_ACTIONS) if AA.action_legal(turn, a, best)]
        top = max(legal, key=lambda a: gains[key, a])
        if gains[key, top] > 0:
            assert call == AA.action_call(top, best)
            departed += call != atlas_call
        else:
            assert call == atlas_call
    assert departed > 0


def _relabel(mask, perm):
    out = 0
    for suit in range(4):
        out |= ((mask >> (8 * suit)) & 0xFF) << (8 * perm[suit])
    return out


def test_the_situation_key_ignores_which_suits_hold_the_cards(tables):
    full, _ = tables
    rng = np.random.default_rng(7)
    checked = 0
    for _, _, turn in _turns(_deals(200, seed=8), "common"):
        # the auction ranks the suits (C < D < H < S): a relabelling keeps the suits
        # above the current bid above it and those below below it
        if 0 <= turn.current < 4:
            c = turn.current
            perm = np.concatenate([rng.permutation(c), [c], c + 1 + rng.permutation(3 - c)])
        else:
            perm = rng.permutation(4)
        strain_map = [*perm, 4, 5]
        heard = 0
        for seat in range(4):
            for strain in range(6):
                if (turn.heard >> (HEARD_BITS * seat + strain)) & 1:
                    heard |= 1 << (HEARD_BITS * seat + strain_map[strain])
        moved = turn._replace(
            cards=_relabel(turn.cards, perm),
            current=strain_map[turn.current] if turn.current >= 0 else -1,
            heard=heard,
        )
        assert isinstance(moved, BidTurn)
        key, best, value = AA.auction_key(turn, full)
        key2, best2, value2 = AA.auction_key(moved, full)
        assert value == value2
        # equal suits by value may be picked in another order; the key is the same
        # unless the tied suits were heard differently (then either reading is fair)
        assert key == key2 or (best < 4 and best2 < 4 and best2 != strain_map[best])
        checked += 1
    assert checked > 500


def _samples(rows):
    s = np.full((len(rows), NUM_SAMPLE_COLS), np.nan)
    for i, (key, base, gains) in enumerate(rows):
        s[i, S_KEY] = key
        s[i, S_BASE] = base
        for a, g in gains.items():
            s[i, S_GAIN + a] = g
    return s


def test_the_fit_keeps_only_significant_gains():
    rng = np.random.default_rng(0)
    rows = []
    # key 10: bidding gains 3 MP (sd 10) over 2,000 deals -> kept
    rows += [(10, 0, {0: 0.0, 1: g}) for g in rng.normal(3.0, 10.0, 2000)]
    # key 11: a gain of 0.1 MP in 300 deals -> not significant
    rows += [(11, 0, {0: 0.0, 1: g}) for g in rng.normal(0.1, 10.0, 300)]
    # key 12: a large mean over too few deals -> not kept
    rows += [(12, 0, {0: 0.0, 2: g}) for g in rng.normal(20.0, 1.0, 50)]
    # key 13: doubling loses -> not kept (a negative gain never is)
    rows += [(13, 0, {0: 0.0, 2: g}) for g in rng.normal(-5.0, 3.0, 1000)]
    rows.append((-1, 0, {}))  # a turn where the policy does not listen
    s = _samples(rows)
    fit = fit_gains(s, z=2.5, min_n=200)
    g10 = s[:2000, S_GAIN + 1]
    assert fit.n[10, 1] == 2000 and fit.n[10, 0] == 2000
    assert fit.mean[10, 1] == pytest.approx(g10.mean())
    assert fit.se[10, 1] == pytest.approx(g10.std(ddof=1) / np.sqrt(2000))
    assert fit.gains[10, 1] == pytest.approx(g10.mean())
    assert fit.gains[10, 0] == 0 and fit.gains[11].max() == 0
    assert fit.gains[12].max() == 0 and fit.gains[13].max() == 0
    assert (fit.gains > 0).sum() == 1


def test_measured_rows_are_gains_against_the_atlas_call():
    s = measure("common", deals=300, seed=1, play="greedy", threads=1)
    assert s.shape == (300, NUM_SAMPLE_COLS)
    assert (s[:, S_KEY] >= 0).all() and (s[:, S_KEY] < AA.NUM_KEYS).all()
    base = s[:, S_BASE].astype(int)
    assert (s[np.arange(300), S_GAIN + base] == 0).all()  # the atlas's own call
    assert np.isfinite(s[:, S_GAIN + AA.ACT_PASS]).all()  # pass is always legal
    assert (np.nan_to_num(s[:, S_GAIN:]) != 0).any()
    # gains are differences of net MP, which are whole numbers
    g = s[:, S_GAIN:][np.isfinite(s[:, S_GAIN:])]
    assert (g == np.round(g)).all()
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    again = measure("common", deals=300, seed=1, play="greedy", threads=threads)
    assert np.array_equal(np.nan_to_num(s, nan=-999), np.nan_to_num(again, nan=-999))


def test_table_files_are_checked(tmp_path):
    shape = (AA.NUM_KEYS, AA.NUM_ACTIONS)
    fit = FitResult(np.zeros(shape), np.zeros(shape, int), np.zeros(shape), np.zeros(shape))
    good = tmp_path / "t.npz"
    meta = {"ruleset": "common", "options": Rules.preset("common").options()}
    save_auction_table(good, fit, meta)
    table = load_auction_table(good)
    table.check_covers(Rules.preset("common"))
    with pytest.raises(ValueError, match="not these 'bulgarian' rules"):
        table.check_covers(Rules.preset("bulgarian"))
    with pytest.raises(ValueError, match="no auction table"):
        load_auction_table(tmp_path / "missing.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ValueError, match="junk.npz: not an atlas_auction table"):
        load_auction_table(junk)
    bad = dict(np.load(good))
    bad["gains"] = -np.ones(shape, np.float32)
    np.savez(tmp_path / "neg.npz", **bad)
    with pytest.raises(ValueError, match="gains are not finite numbers >= 0"):
        load_auction_table(tmp_path / "neg.npz")
    bad = dict(np.load(good))
    bad["gains"] = np.zeros((3, 4), np.float32)
    np.savez(tmp_path / "shape.npz", **bad)
    with pytest.raises(ValueError, match="its gains is"):
        load_auction_table(tmp_path / "shape.npz")
    bad = dict(np.load(good))
    bad["meta"] = np.frombuffer(json.dumps({"key_version": 0}).encode(), np.uint8)
    np.savez(tmp_path / "old.npz", **bad)
    with pytest.raises(ValueError, match="another key layout"):
        load_auction_table(tmp_path / "old.npz")
    np.savez(tmp_path / "pickled.npz", gains=np.array([object()], dtype=object))
    with pytest.raises(ValueError, match="pickled.npz"):
        load_auction_table(tmp_path / "pickled.npz")


@pytest.mark.parametrize("rules", ["common", "bulgarian"])
def test_shipped_tables_cover_their_rules(rules):
    table = load_auction_table(shipped_auction_table(rules))
    table.check_covers(Rules.preset(rules))
    # the full spec of today's default player (the play of every auction measured)
    assert table.meta["play"] == play_spec(None, Rules.preset(rules))
    assert table.meta["deals"] >= 1_000_000
    kept = table.gains > 0
    assert kept.any()
    # a kept gain is a significant mean of its cell
    assert (table.gains[kept] > 2 * table.se[kept]).all()
    assert (table.n[kept] >= table.meta["min_n"]).all()


def test_the_study_refuses_what_the_policy_cannot_bid():
    with pytest.raises(ValueError, match="french rules bid in two rounds"):
        make_study("french", "atlas_auction")
    with pytest.raises(ValueError, match="'common' rules with its options, not"):
        make_study("common", "atlas_auction", options={"dealer_must_take": True})
    with pytest.raises(ValueError, match="takes no atlas file"):
        make_study("common", "atlas_auction:some.npz")
    df = simulate(200, bidding=["atlas_auction", "atlas"] * 2, play="greedy", seed=2)
    assert len(df) == 200
