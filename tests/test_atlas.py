"""The hand atlas: exact hand classes, cells against direct simulation, the atlas policy."""

from itertools import permutations
from math import comb

import numpy as np
import pytest

from belote_sim.atlas import HAND_COLUMNS, build_atlas, cell_stats, hand_from_atlas, position_of
from belote_sim.cards import parse_cards
from belote_sim.simulation.atlas_table import hand_classes, hand_keys, key_hands, load_atlas
from belote_sim.simulation.runner import simulate


def _bytes(hand):
    return [(hand >> (8 * s)) & 0xFF for s in range(4)]


def _burnside_classes(fixed_suits):
    """Number of 5-card hand classes when the suits outside ``fixed_suits`` may be
    permuted: Burnside's lemma, counting the hands each permutation leaves unchanged
    (a hand is fixed when the permuted suits it maps onto each other hold the same
    ranks: per cycle of length L, L equal bytes)."""
    free = [s for s in range(4) if s not in fixed_suits]
    total = 0
    n_perms = 0
    for perm in permutations(free):
        n_perms += 1
        mapping = dict(zip(free, perm))
        seen, cycles = set(), [1] * len(fixed_suits)
        for s in free:
            if s in seen:
                continue
            length, t = 0, s
            while t not in seen:
                seen.add(t)
                t = mapping[t]
                length += 1
            cycles.append(length)
        # hands of 5 cards made of one rank set per cycle, repeated `length` times:
        # count the ways to choose, per cycle, k ranks with sum(k * length) = 5.
        ways = {0: 1}
        for length in cycles:
            new = {}
            for used, w in ways.items():
                for k in range(0, 9):
                    if used + k * length > 5:
                        break
                    new[used + k * length] = new.get(used + k * length, 0) + w * comb(8, k)
            ways = new
        total += ways.get(5, 0)
    return total // n_perms


def test_class_multiplicities_sum_to_all_hands():
    for kind in range(3):
        keys, mult = hand_classes(kind)
        assert mult.sum() == comb(32, 5) == 201_376
        assert (mult > 0).all() and (np.diff(keys) > 0).all()


def test_class_counts_match_burnside():
    assert len(hand_classes(0)[0]) == _burnside_classes([0]) == 38_304
    assert len(hand_classes(1)[0]) == _burnside_classes([]) == 10_808


def test_multiplicity_is_the_orbit_size():
    # orbit size = distinct arrangements of the permutable suit bytes
    rng = np.random.default_rng(1)
    for kind, fixed in ((0, [0]), (1, [])):
        keys, mult = hand_classes(kind)
        for i in rng.choice(len(keys), 200, replace=False):
            b = _bytes(int(key_hands(keys[i : i + 1], kind)[0]))
            free = [b[s] for s in range(4) if s not in fixed]
            orbit = len(set(permutations(free)))
            assert mult[i] == orbit


def test_kernel_key_matches_numpy_key_and_symmetry():
    from belote_sim.kernels.bidding import canonical_key

    rng = np.random.default_rng(2)
    hands = [sum(1 << c for c in rng.choice(32, 5, replace=False)) for _ in range(300)]
    for strain in range(6):
        np_keys = hand_keys(np.array(hands), strain)
        for h, k in zip(hands, np_keys):
            assert canonical_key(h, strain) == k
    # swapping two non-trump suits keeps the suit key; swapping trump with another does not
    h = sum(1 << c for c in parse_cards("JH 9H AD TS 7C"))
    b = _bytes(h)
    swapped = b[2] | (b[1] << 8) | (b[0] << 16) | (b[3] << 24)  # C <-> H
    assert hand_keys(np.array([h]), 1)[0] == hand_keys(np.array([swapped]), 1)[0]
    assert hand_keys(np.array([h]), 2)[0] != hand_keys(np.array([swapped]), 2)[0]
    assert hand_keys(np.array([h]), 4)[0] == hand_keys(np.array([swapped]), 4)[0]


def test_representatives_are_in_their_class():
    for kind, strain in ((0, 0), (1, 4)):
        keys = hand_classes(kind)[0]
        hands = key_hands(keys, kind)
        assert (hand_keys(hands, strain) == keys).all()
        assert all(bin(int(h)).count("1") == 5 for h in hands[:500])


def test_position_of():
    assert position_of(0, 3) == 1 and position_of(3, 3) == 4 and position_of(2, 0) == 2


CELL_HANDS = ["JH 9H AH TS 7C", "7D 8D 7H 8H 7S", "AC AD TC KS QS", "JC JD 9S 8H AH"]


@pytest.fixture(scope="module")
def sample_atlas(tmp_path_factory):
    rows = {}
    for strain in range(6):
        kind = 0 if strain < 4 else strain - 3
        keys = hand_classes(kind)[0]
        for text in CELL_HANDS:
            h = sum(1 << c for c in parse_cards(text))
            rows.setdefault(kind, []).append(
                int(np.searchsorted(keys, hand_keys(np.array([h]), strain)[0]))
            )
    path = tmp_path_factory.mktemp("atlas") / "sample.npz"
    table = build_atlas(
        path,
        play="greedy",
        seed=5,
        first_deals=600,
        max_deals=600,
        rounds=1,
        positions=(1, 4),
        class_rows=sorted({r for v in rows.values() for r in v}),
    )
    return table, path


@pytest.mark.parametrize(
    "text,strain,position",
    [
        ("JH 9H AH TS 7C", 2, 1),
        ("JH 9H AH TS 7C", 3, 4),
        ("AC AD TC KS QS", 4, 1),
        ("JC JD 9S 8H AH", 5, 4),
        ("7D 8D 7H 8H 7S", 0, 1),
    ],
)
def test_cells_agree_with_direct_simulation(sample_atlas, text, strain, position):
    table, _ = sample_atlas
    mask = sum(1 << c for c in parse_cards(text))
    stats = cell_stats(table.lookup(mask, strain, position))
    assert stats["n"] == 600
    dealer = (4 - position) % 4
    for doubling, x in ((0, 1), (1, 2)):
        df = simulate(
            1500,
            bidding=f"fixed:0,{strain},{doubling}",
            predeal={0: text},
            dealer=dealer,
            seed=11 + doubling,
            play="greedy",
        )
        made = (df["outcome"] == "made").to_numpy(float)
        net = (df["mp0"] - df["mp1"]).to_numpy(float)
        se_p = np.hypot(stats["p_made_se"], made.std(ddof=1) / np.sqrt(len(made)))
        se_net = np.hypot(stats[f"net_mp_x{x}_se"], net.std(ddof=1) / np.sqrt(len(net)))
        assert abs(stats["p_made"] - made.mean()) <= 4 * max(se_p, 0.01)
        assert abs(stats[f"net_mp_x{x}"] - net.mean()) <= 4 * max(se_net, 0.05)


def test_build_is_reproducible_and_resumable(tmp_path):
    kw = dict(
        play="greedy",
        seed=3,
        first_deals=20,
        max_deals=80,
        rounds=2,
        positions=(2,),
        class_rows=range(0, 40, 7),
        chunk_cells=4,
    )
    a = build_atlas(None, **kw)
    work = tmp_path / "work"
    b = build_atlas(None, threads=1, work_dir=work, **kw)
    assert len(list(work.glob("round*_chunk*.npz"))) > 1
    c = build_atlas(None, work_dir=work, **kw)  # every chunk from the files
    for k in range(3):
        assert (a.sums[k] == b.sums[k]).all() and (a.sums[k] == c.sums[k]).all()
    with pytest.raises(ValueError, match="another atlas build"):
        build_atlas(None, work_dir=work, **{**kw, "seed": 4})


def test_adaptive_rounds_reach_the_standard_error():
    t = build_atlas(
        None,
        play="greedy",
        seed=1,
        first_deals=30,
        max_deals=2000,
        rounds=6,
        positions=(1,),
        kinds=("suit",),
        class_rows=[0, 5000, 20000, 38000],
    )
    s = cell_stats(t.sums[0][[0, 5000, 20000, 38000], 0])
    p = (s["p_made"] * s["n"] + 0.5) / (s["n"] + 1)
    assert (np.sqrt(p * (1 - p) / s["n"]) <= 0.0205).all()


def test_hand_from_atlas_and_fallback(sample_atlas):
    table, _ = sample_atlas
    out = hand_from_atlas("JH 9H AH TS 7C", position=1, table=table, play="greedy")
    assert list(out.columns) == list(HAND_COLUMNS)
    assert list(out["strain"]) == ["C", "D", "H", "S", "NT", "AT"]
    assert (out["source"] == "atlas").all()
    assert (out["p_made_low"] <= out["p_made"]).all()
    # suit symmetry: hearts with J 9 A of hearts = the same cell as any suit's
    assert hand_from_atlas("JH 9H AH TS 7C", position=1, table=table, play="greedy") is not None
    assert hand_from_atlas("JH 9H AH TS 7C", table=table, rules="bulgarian", play="greedy") is None
    assert hand_from_atlas("JH 9H AH TS 7C", table=table, play="random") is None
    assert hand_from_atlas("JH 9H AH TS 7C 8C 9C", table=table, play="greedy") is None


@pytest.fixture(scope="module")
def full_atlas(tmp_path_factory):
    """A complete (every cell) but tiny atlas: 2 deals per cell."""
    path = tmp_path_factory.mktemp("atlas") / "tiny.npz"
    build_atlas(path, play="greedy", seed=9, first_deals=2, max_deals=2, rounds=1)
    return path


def _check_auction(auction, strain, taker, doubling, dealer):
    """Auction legality (docs/rules.md 4.1) from the call string alone."""
    order = "CDHSNA"
    current, bidder, level, passes = -1, -1, 0, 0
    seat = (dealer + 1) % 4
    for k, call in enumerate(auction):
        if call == "p":
            passes += 1
        elif call in order:
            assert order.index(call) > current, auction
            current, bidder, level, passes = order.index(call), seat, 0, 0
        elif call == "x":
            assert current >= 0 and bidder % 2 != seat % 2 and level == 0, auction
            level, passes = 1, 0
        elif call == "r":
            assert current >= 0 and bidder % 2 == seat % 2 and level == 1, auction
            level, passes = 2, 0
        else:
            raise AssertionError(f"unexpected call {call!r} in {auction}")
        seat = (seat + 1) % 4
    assert (current, level) == ((strain, doubling) if strain >= 0 else (-1, 0)), auction
    if strain >= 0:
        assert bidder == taker


def test_atlas_bidding_is_legal_and_follows_the_atlas(full_atlas):
    table = load_atlas(str(full_atlas))
    df = simulate(400, bidding=[f"atlas:{full_atlas}", "threshold"] * 2, seed=4)
    strains = {"C": 0, "D": 1, "H": 2, "S": 3, "NT": 4, "AT": 5}
    for r in df.itertuples():
        strain = strains.get(r.strain, -1) if isinstance(r.strain, str) else -1
        _check_auction(r.auction, strain, r.taker, r.doubling, r.dealer)
        seat = (r.dealer + 1) % 4
        for call in r.auction:
            if seat % 2 == 0 and call in "CDHSNA":
                code = "CDHSNA".index(call)
                hand = getattr(r, f"bid{seat}")
                hand = (
                    hand
                    if isinstance(hand, (int, np.integer))
                    else sum(1 << c for c in parse_cards(hand))
                )
                stats = cell_stats(table.lookup(int(hand), code, position_of(seat, r.dealer)))
                assert stats["net_mp_x1"] > 0
            seat = (seat + 1) % 4
    assert (df["outcome"] != "thrown_in").any()


def test_atlas_bidding_clear_errors(full_atlas, tmp_path):
    with pytest.raises(ValueError, match="covers the 'common' rules"):
        simulate(10, rules="bulgarian", bidding=f"atlas:{full_atlas}")
    with pytest.raises(ValueError, match="no atlas file"):
        simulate(10, bidding=f"atlas:{tmp_path / 'missing.npz'}")
    with pytest.raises(ValueError, match="take-or-pass"):
        simulate(10, bidding=f"atlas:{full_atlas}", options={"players": 3})


def test_atlas_games_mode(full_atlas):
    from belote_sim.simulation.runner import simulate_games

    g = simulate_games(20, bidding=[f"atlas:{full_atlas}", "threshold"] * 2, seed=2, max_deals=60)
    assert len(g) == 20 and (g["deals"] > 0).all()


def test_atlas_page(full_atlas, tmp_path):
    from belote_sim.analysis.atlas_report import heatmap_table, write_atlas_page

    table = load_atlas(str(full_atlas))
    page = write_atlas_page(tmp_path, table)
    assert page.exists()
    for kind in ("suit", "nt", "at"):
        csv = tmp_path / "tables" / f"atlas_{kind}.csv"
        long = heatmap_table(table, kind)
        assert long["hands"].sum() == 201_376 and csv.exists()
        assert ((long["p_made"] >= 0) & (long["p_made"] <= 1)).all()


def test_cli_atlas_hand_and_bidding_duel(full_atlas, tmp_path, capsys):
    import json

    from belote_sim.cli import main

    assert main(["atlas", "show", "-o", str(full_atlas), "--csv", str(tmp_path / "c.csv")]) == 0
    assert (tmp_path / "c.csv").exists()
    capsys.readouterr()
    assert (
        main(
            ["hand", "JH 9H AH TS 7C", "--position", "2", "--simulate", "--json", "--deals", "300"]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)
    assert [r["strain"] for r in rows] == ["C", "D", "H", "S", "NT", "AT"]
    assert set(rows[0]) == set(HAND_COLUMNS) | {
        "best_call",
        "within_noise",
        "bid_clear",
        "runner_up",
        "strain_margin",
        "strain_margin_se",
        "strain_paired",
        "strain_clear",
        "reason",
        "position",
        "play",
    }
    assert {r["source"] for r in rows} == {"simulation"}
    assert (
        main(
            [
                "duel",
                "--bid-a",
                f"atlas:{full_atlas}",
                "--bid-b",
                "threshold",
                "--deals",
                "300",
                "--json",
            ]
        )
        == 0
    )
    r = json.loads(capsys.readouterr().out)
    assert r["deals"] == 300 and np.isfinite(r["mean"])
    assert main(["duel", "--bid-a", "atlas", "--deals", "10"]) == 2
    assert "give both --bid-a and --bid-b" in capsys.readouterr().err


def test_build_on_a_local_dask_cluster_matches_threads():
    pytest.importorskip("dask.distributed")
    kw = dict(
        play="greedy",
        seed=8,
        first_deals=10,
        max_deals=10,
        rounds=1,
        positions=(3,),
        kinds=("nt",),
        class_rows=range(0, 10808, 1500),
        chunk_cells=3,
    )
    a = build_atlas(None, **kw)
    b = build_atlas(None, workers=1, **kw)
    assert (a.sums[1] == b.sums[1]).all() and a.sums[1][:, 2, 0].sum() == 80


def test_atlas_bidding_french_two_rounds(tmp_path):
    path = tmp_path / "french.npz"
    t = build_atlas(
        path, rules="french", play="greedy", seed=6, first_deals=1, max_deals=1, rounds=1
    )
    assert t.sums[1][..., 0].sum() == 0 and t.sums[0][..., 0].sum() == 38_304 * 4
    df = simulate(300, rules="french", bidding=f"atlas:{path}", seed=3)
    played = df[df["strain"].notna()]
    assert len(played) > 0 and set(played["strain"].astype(str)) <= {"C", "D", "H", "S"}
    for r in played.itertuples():
        calls = r.auction
        turned_suit = "CDHS"[int(r.turned) >> 3]
        if len(calls) <= 4:  # taken in round one: the turned suit
            assert calls[-1] == turned_suit == r.strain
        else:
            assert calls[-1] == r.strain != turned_suit
    with pytest.raises(ValueError, match="covers the 'french' rules"):
        simulate(10, bidding=f"atlas:{path}")


def test_shipped_atlas_against_direct_simulation():
    from belote_sim.cards import format_cards
    from belote_sim.simulation.atlas_table import DEFAULT_ATLAS

    if not DEFAULT_ATLAS.exists():
        pytest.skip("no shipped atlas")
    table = load_atlas(None)
    assert table.meta["ruleset"] == "common" and table.meta["play"].startswith("expert:0")
    for kind in range(3):
        stats = cell_stats(table.sums[kind])
        assert (stats["n"] > 0).all() and np.nanmax(stats["p_made_se"]) <= 0.02
    rng = np.random.default_rng(13)
    for strain in (2, 4, 5, 0, 3, 1):
        # a random hand (not the class representative: symmetry is part of the check)
        hand = int(sum(1 << int(c) for c in rng.choice(32, 5, replace=False)))
        position = int(rng.integers(1, 5))
        stats = cell_stats(table.lookup(hand, strain, position))
        text = " ".join(format_cards(hand))
        df = simulate(
            2500,
            bidding=f"fixed:0,{strain},0",
            predeal={0: text},
            dealer=(4 - position) % 4,
            seed=100 + strain,
        )
        made = (df["outcome"] == "made").to_numpy(float)
        net = (df["mp0"] - df["mp1"]).to_numpy(float)
        se_p = np.hypot(stats["p_made_se"], made.std(ddof=1) / np.sqrt(len(made)))
        se_net = np.hypot(stats["net_mp_x1_se"], net.std(ddof=1) / np.sqrt(len(net)))
        assert abs(stats["p_made"] - made.mean()) <= 4 * max(se_p, 0.005), (text, strain)
        assert abs(stats["net_mp_x1"] - net.mean()) <= 4 * max(se_net, 0.05), (text, strain)
