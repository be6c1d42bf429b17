"""The simulator: reproducibility, legality, exact sampling, exports, games, bad input."""

import io
import json
from itertools import combinations
from math import comb

import numpy as np
import pandas as pd
import pytest
import reference as ref

from belote_sim import Rules, replay
from belote_sim.cards import parse_hand
from belote_sim.kernels.scoring import play_game
from belote_sim.kernels.tables import OUTCOME_NAMES
from belote_sim.simulation.deal_table import read_deals
from belote_sim.simulation.export import export_replay, records
from belote_sim.simulation.runner import make_study, simulate, simulate_games, simulate_to_parquet

SCORE_COLUMNS = [
    "strain",
    "taker",
    "doubling",
    "outcome",
    "card_points0",
    "card_points1",
    "decl0",
    "decl1",
    "belote0",
    "belote1",
    "raw0",
    "raw1",
    "mp0",
    "mp1",
    "held_mp0",
    "held_mp1",
    "tricks0",
    "tricks1",
    "valat",
]


def test_same_seed_same_table_whatever_the_threads():
    a = simulate(5000, seed=11, threads=1, chunk_size=1024)
    b = simulate(5000, seed=11, threads=2, chunk_size=1024)
    pd.testing.assert_frame_equal(a, b)
    c = simulate(5000, seed=12, threads=2, chunk_size=1024)
    assert not (a["hand0"] == c["hand0"]).all()
    # a prefix of a study is the same deals
    d = simulate(1500, seed=11, threads=2, chunk_size=1024)
    pd.testing.assert_frame_equal(a.iloc[:1500], d)


def test_games_same_seed_same_table_whatever_the_threads():
    a = simulate_games(300, seed=5, threads=1)
    b = simulate_games(300, seed=5, threads=2)
    pd.testing.assert_frame_equal(a, b)


def test_table_columns_and_types():
    df = simulate(2000, seed=1)
    for col in [
        "deal_id",
        "dealer",
        "hand0",
        "hand1",
        "hand2",
        "hand3",
        "strain",
        "taker",
        "doubling",
        "outcome",
        "card_points0",
        "card_points1",
        "decl0",
        "decl1",
        "belote0",
        "belote1",
        "raw0",
        "raw1",
        "mp0",
        "mp1",
        "tricks0",
        "tricks1",
        "valat",
        "auction",
    ]:
        assert col in df.columns, col
    assert df["hand0"].dtype == np.uint32
    thrown = df["outcome"] == "thrown_in"
    assert df.loc[thrown, "strain"].isna().all() and df.loc[~thrown, "strain"].notna().all()
    assert df.loc[thrown, "taker"].isna().all()
    # the four hands are a partition of the deck, the bidding cards a subset of them
    hands = df[["hand0", "hand1", "hand2", "hand3"]].to_numpy().astype(np.int64)
    assert (np.bitwise_or.reduce(hands, axis=1) == 0xFFFFFFFF).all()
    assert all(bin(int(h)).count("1") == 8 for h in hands.ravel()[:400])
    for s in range(4):
        assert ((df[f"bid{s}"].astype(np.int64) & ~df[f"hand{s}"].astype(np.int64)) == 0).all()
    played = df[~thrown]
    totals = (
        played["strain"]
        .map({"C": 162, "D": 162, "H": 162, "S": 162, "NT": 130, "AT": 258})
        .astype(int)
    )
    assert ((played["card_points0"] + played["card_points1"]) == totals).all()
    assert ((played["tricks0"] + played["tricks1"]) == 8).all()
    assert df["auction"].str.fullmatch(r"[pCDHSNAxrt]+").all()
    assert df["dealer"].tolist()[:8] == [0, 1, 2, 3, 0, 1, 2, 3]


@pytest.mark.parametrize(
    "ruleset,options,bidding,play,silent",
    [
        ("common", {}, "threshold", "greedy", ()),
        ("common", {}, "threshold", "random", (1, 2)),
        (
            "bulgarian",
            {"kirtik": True, "third_double": True},
            "threshold:40,40,60,30,30",
            ["greedy", "random", "greedy:0,0", "random"],
            (0,),
        ),
        (
            "common",
            {"dealer_must_take": True, "at_double_ends_auction": True},
            "threshold",
            "greedy",
            (),
        ),
        ("french", {}, "take", "greedy", ()),
        ("french", {"french_allow_nt_at": True}, "take:70,50,40,50", "random", ()),
        ("common", {}, "fixed:0,5,1", "greedy", (0, 1, 2, 3)),
        ("french", {}, "fixed:2,1,0", "greedy", ()),
    ],
)
def test_every_card_legal_and_table_round_trips_through_replay(
    ruleset, options, bidding, play, silent
):
    """Each played card is legal per the reference; replaying gives the table's scores."""
    df = simulate(
        400,
        rules=ruleset,
        options=options,
        bidding=bidding,
        play=play,
        seed=3,
        trick_log=True,
        belote_silent=silent,
    )
    prov = df.attrs["belote_sim"]
    recs = list(records(df, prov))
    assert len(recs) == (df["outcome"] != "thrown_in").sum() > 0
    played = df[df["outcome"] != "thrown_in"].set_index("deal_id")
    for rec in recs:
        expected = ref.replay(rec)
        assert expected["illegal"] is None, rec
        row = played.loc[rec["id"]]
        assert expected["raw"] == [row.raw0, row.raw1]
        assert expected["mp"] == [row.mp0, row.mp1]
        assert expected["held_mp"] == [row.held_mp0, row.held_mp1]
        assert expected["outcome"] == row.outcome
        assert replay(rec)["mp"] == expected["mp"]
    if silent == (0, 1, 2, 3):
        assert (played["belote0"] == 0).all() and (played["belote1"] == 0).all()
    if bidding.startswith("fixed"):
        seat, strain, doubling = (int(float(x)) for x in bidding.split(":")[1].split(","))
        assert (played["taker"] == seat).all() and (played["doubling"] == doubling).all()
        assert (played["strain"] == ["C", "D", "H", "S", "NT", "AT"][strain]).all()


def test_export_replay_resimulates_without_trick_log(tmp_path):
    path = str(tmp_path / "d.parquet")
    study = make_study("bulgarian", seed=8, chunk_size=500)
    simulate_to_parquet(path, 1200, study)
    out = io.StringIO()
    n = export_replay(path, "450:560", out)
    recs = [json.loads(line) for line in out.getvalue().splitlines()]
    assert n == len(recs) > 50
    table = read_deals(path).set_index("deal_id")
    assert all(450 <= r["id"] < 560 for r in recs)
    for rec in recs:
        result = replay(rec)
        row = table.loc[rec["id"]]
        assert result["raw"] == [row.raw0, row.raw1] and result["mp"] == [row.mp0, row.mp1]


def test_parquet_provenance_and_corrupt_file(tmp_path):
    path = tmp_path / "d.parquet"
    study = make_study("french", seed=4)
    summary = simulate_to_parquet(str(path), 3000, study)
    assert summary["deals"] == 3000
    df = read_deals(str(path))
    prov = df.attrs["belote_sim"]
    assert prov["ruleset"] == "french" and prov["seed"] == 4 and prov["n"] == 3000
    assert prov["bidding"] == ["take:50,55,60,80"] * 4 and prov["belote_sim"]
    pd.testing.assert_frame_equal(
        df, simulate(3000, rules="french", seed=4), check_categorical=False, check_dtype=False
    )
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(path.read_bytes()[:500])
    with pytest.raises(ValueError, match="not a readable belote-sim deals table"):
        read_deals(str(bad))
    other = tmp_path / "other.parquet"
    pd.DataFrame({"x": [1]}).to_parquet(other)
    with pytest.raises(ValueError, match="no belote-sim provenance"):
        read_deals(str(other))


# --- exact conditional dealing -------------------------------------------------------


def _chi2_pvalue(counts, n_cells):
    """Chi-square goodness of fit to uniform; p-value via the Wilson-Hilferty normal
    approximation (accurate enough for df >= 10)."""
    from math import erf, sqrt

    counts = np.asarray(counts, dtype=float)
    expected = counts.sum() / n_cells
    stat = ((counts - expected) ** 2 / expected).sum()
    df = n_cells - 1
    z = ((stat / df) ** (1 / 3) - (1 - 2 / (9 * df))) / sqrt(2 / (9 * df))
    return 0.5 * (1 - erf(z / sqrt(2)))


def test_predeal_is_exactly_uniform():
    # Seats 0 and 1 fully predealt, seat 2 six cards: the 10 cards left split 2 to seat 2
    # and 8 to seat 3, so seat 2's hand is one of C(10, 2) = 45 equally likely hands.
    deck = [f"{r}{s}" for s in "CDHS" for r in "789TJQKA"]
    p0, p1, p2 = deck[0:8], deck[8:16], deck[16:22]
    free = deck[22:]  # 10 cards: seat 2 gets 2 of them, seat 3 the other 8
    df = simulate(45_000, predeal={0: p0, 1: p1, 2: p2}, seed=21, dealer=3, play="random")
    assert (df["hand0"] == parse_hand(p0)).all() and (df["hand1"] == parse_hand(p1)).all()
    # predealt cards sit in dealing order: the first five are the bidding cards
    assert (df["bid0"] == parse_hand(p0[:5], size=None)).all()
    cells = {parse_hand(list(c) + p2): i for i, c in enumerate(combinations(free, 2))}
    counts = np.bincount(df["hand2"].map(cells).to_numpy(), minlength=len(cells))
    assert len(cells) == 45 and counts.min() > 0
    assert _chi2_pvalue(counts, 45) > 1e-4


def test_constraints_are_exactly_uniform():
    # Seats 0 and 1 predealt; of the 16 cards left (hearts and spades) seat 2 must hold
    # 3 to 5 hearts, K Q J of spades and not the AS: enumerate every allowed hand of
    # seat 2 and check that each is equally likely (chi-square).
    deck = [f"{r}{s}" for s in "CDHS" for r in "789TJQKA"]
    p0, p1 = deck[0:8], deck[8:16]
    rest = deck[16:]  # all hearts and spades
    allowed = [
        h
        for h in combinations(rest, 8)
        if sum(c[1] == "H" for c in h) >= 3
        and "AS" not in h
        and sum(c[1] == "H" for c in h) <= 5
        and "KS" in h
        and "QS" in h
        and "JS" in h
    ]
    df = simulate(
        60_000,
        predeal={0: p0, 1: p1},
        seed=7,
        dealer=0,
        play="random",
        constraints={2: {"min": {"H": 3}, "max": {"H": 5}, "exclude": "AS", "require": "KS QS JS"}},
    )
    cells = {parse_hand(list(h)): i for i, h in enumerate(allowed)}
    idx = df["hand2"].map(cells)
    assert idx.notna().all()
    counts = np.bincount(idx.astype(int).to_numpy(), minlength=len(cells))
    assert len(cells) >= 30 and counts.min() > 0
    assert _chi2_pvalue(counts, len(cells)) > 1e-4


def test_strength_constraint():
    df = simulate(3000, constraints={1: {"strength": (60, 70)}}, seed=2)
    from belote_sim.kernels.dealing import hand_strength

    assert all(60 <= hand_strength(int(h)) <= 70 for h in df["hand1"])


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(constraints={0: {"min": {"H": 5, "S": 4}}}), "cannot make an 8-card hand"),
        (dict(constraints={0: {"min": {"H": 5}}, 1: {"min": {"H": 4}}}), "more than 8 H"),
        (dict(constraints={0: {"require": "AS", "exclude": "AS"}}), "both required and excluded"),
        (dict(constraints={0: {"strength": (90, 80)}}), "empty"),
        (dict(constraints={0: {"strength": (140, 150)}}), "impossible or too rare"),
        (dict(constraints={0: {"colour": "red"}}), "unknown key"),
        (dict(predeal={0: "AS KS", 1: "AS"}), "given twice"),
        (dict(predeal={4: "AS"}), "seat must be 0..3"),
        (dict(predeal={0: "AS 1X"}), "unknown card"),
        (dict(play="clever"), "unknown play policy 'clever'"),
        (dict(bidding="threshold:1,2,3,4,5,6,7"), "at most 5"),
        (dict(rules="french", bidding="threshold"), "two rounds"),
        (dict(bidding="take"), "french two-round"),
        (dict(bidding="fixed:0,4,0", rules="french"), "bad seat/strain"),
        (dict(bidding="fixed:0,1,3"), "doubling must be 0..2"),
        (dict(seed=-1), "seed"),
        (dict(threads=99), "threads"),
        (dict(options={"kirtik": True}, rules="french"), "kirtik"),
    ],
)
def test_bad_input_is_one_clear_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        simulate(100, **kwargs)


# --- declaration frequencies against exact combinatorics ----------------------------


def test_declaration_frequencies_match_exact_probabilities():
    df = simulate(200_000, seed=99, play="random")
    hands = df[["hand0", "hand1", "hand2", "hand3"]].to_numpy().astype(np.int64).ravel()
    n = len(hands)
    total = comb(32, 8)
    jacks = 0x10101010  # J of every suit: rank 4
    p_carre_j = comb(28, 4) / total
    kq_hearts = (1 << 21) | (1 << 22)
    p_kq = comb(30, 6) / total
    # no run of 3 in any suit: count run-free suit bytes by size, then convolve
    free_by_size = np.zeros(9, dtype=object)
    for byte in range(256):
        if not any((byte >> r) & 7 == 7 for r in range(6)):
            free_by_size[bin(byte).count("1")] += 1
    ways = np.zeros(9, dtype=object)
    ways[0] = 1
    for _ in range(4):
        new = np.zeros(9, dtype=object)
        for a in range(9):
            for b in range(9 - a):
                new[a + b] += ways[a] * free_by_size[b]
        ways = new
    p_no_run = ways[8] / total

    def has_run(h):
        return any(((h >> (8 * s)) >> r) & 7 == 7 for s in range(4) for r in range(6))

    observed = {
        "carre_j": np.mean((hands & jacks) == jacks),
        "kq_hearts": np.mean((hands & kq_hearts) == kq_hearts),
        "no_run": np.mean([not has_run(int(h)) for h in hands[:100_000]]),
    }
    exact = {"carre_j": p_carre_j, "kq_hearts": p_kq, "no_run": float(p_no_run)}
    sizes = {"carre_j": n, "kq_hearts": n, "no_run": 100_000}
    for key, p in exact.items():
        se = np.sqrt(p * (1 - p) / sizes[key])
        assert abs(observed[key] - p) < 4 * se, (key, observed[key], p)


# --- games ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ruleset,options",
    [
        ("common", {}),
        ("bulgarian", {"dealing": "cut"}),
        ("french", {}),
        ("common", {"dealing": "cut"}),
    ],
)
def test_game_invariants(ruleset, options):
    games = simulate_games(400, rules=ruleset, options=options, seed=13)
    target = Rules.preset(ruleset).game_target
    done = games[games["winner"].notna()]
    assert len(done) > 390
    win = done["winner"].astype(int)
    best = np.where(win == 0, done["score0"], done["score1"])
    other = np.where(win == 0, done["score1"], done["score0"])
    assert (best >= target).all() and (best > other).all()
    assert (done["held"] == 0).all()
    assert (games["deals"] >= 1).all()


def test_game_accumulation_matches_reference_and_conserves_points():
    df = simulate(3000, seed=17, rules="bulgarian")
    rules = Rules.preset("bulgarian")
    rows = []
    for r in df.itertuples(index=False):
        thrown = r.outcome == "thrown_in"
        rows.append(
            {
                "outcome": r.outcome,
                "taker_team": None if thrown else int(r.taker) % 2,
                "doubling": int(r.doubling),
                "valat": None if pd.isna(r.valat) else int(r.valat),
                "mp": [int(r.mp0), int(r.mp1)],
                "held_mp": [int(r.held_mp0), int(r.held_mp1)],
            }
        )
    for start in range(0, 3000, 30):
        seq = rows[start : start + 30]
        n = len(seq)
        args = (
            np.array([OUTCOME_NAMES.index(d["outcome"]) for d in seq]),
            np.array([d["taker_team"] or 0 for d in seq]),
            np.array([d["doubling"] for d in seq]),
            np.array([-1 if d["valat"] is None else d["valat"] for d in seq]),
            np.array([d["mp"] for d in seq]).reshape(n, 2),
            np.array([d["held_mp"] for d in seq]).reshape(n, 2),
            rules.to_array(),
        )
        s0, s1, pot, ended, _winner = play_game(*args)
        expected = ref.play_game(seq, {"ruleset": "bulgarian"})
        assert [s0, s1] == expected["scores"] and pot == expected["held"]
        assert (None if ended < 0 else ended) == expected["ended_after"]
        # hanging points are never lost: everything added or held is in the scores or pot
        upto = n if ended < 0 else ended + 1
        added = sum(sum(d["mp"]) + sum(d["held_mp"]) for d in seq[:upto])
        assert s0 + s1 + pot == added
        if ended >= 0:
            assert seq[ended]["valat"] is None


def test_game_deal_log_and_cut_deck_effect():
    games, deals = simulate_games(600, options={"dealing": "cut"}, seed=3, deal_log=True)
    assert len(deals) == games["deals"].sum()
    assert (deals.groupby("game_id").size().to_numpy() == games["deals"].to_numpy()).all()
    # dealer passes to the right after every deal
    first = deals[deals["deal_no"] == 0].set_index("game_id")["dealer"]
    assert (first.to_numpy() == games["first_dealer"].to_numpy()).all()
    second = deals[deals["deal_no"] == 1].set_index("game_id")["dealer"]
    assert ((second.to_numpy() - first.loc[second.index].to_numpy()) % 4 == 1).all()
    # the MP added per game equal the final scores when nothing is held
    done = games[games["held"] == 0].set_index("game_id")
    per_game = deals.groupby("game_id")[["mp0", "mp1"]].sum().loc[done.index]
    held = deals.groupby("game_id")[["held_mp0", "held_mp1"]].sum().loc[done.index].sum(axis=1)
    assert (
        (per_game["mp0"] + per_game["mp1"] + held).to_numpy()
        == (done["score0"] + done["score1"]).to_numpy()
    ).all()
    # an unshuffled (cut) deck deals more long runs than a shuffled one (docs/rules.md 3)
    from belote_sim.analysis.report_tables import declaration_frequencies

    cut = declaration_frequencies(deals).set_index(["scope", "event"])
    assert cut.loc[("hand8", "run5"), "z"] > 4


def test_search_policies_in_the_simulator():
    """dd and pimc play legal cards inside the simulator and replay to the same scores."""
    df = simulate(24, play=["dd", "pimc:4", "greedy", "random"], seed=8, trick_log=True)
    recs = list(records(df, df.attrs["belote_sim"]))
    assert recs
    played = df[df["outcome"] != "thrown_in"].set_index("deal_id")
    for rec in recs:
        expected = ref.replay(rec)
        assert expected["illegal"] is None
        assert expected["mp"] == [played.loc[rec["id"], "mp0"], played.loc[rec["id"], "mp1"]]
