"""``study systems``: bidding systems against each other (``analysis.systems``)."""

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from belote_sim.analysis.systems import class_label, compare_systems, holding_label
from belote_sim.simulation.atlas_table import hand_classes, hand_keys, key_hands
from belote_sim.simulation.runner import simulate
from belote_sim.stats import Z95
from tests.cli_run import one_line_error, run_cli

DEALS = 400
A, B = "threshold", "threshold:56,47"  # suit 56 instead of 50, NT 47 instead of 52


@pytest.fixture(scope="module")
def study():
    return compare_systems([A, B], deals=DEALS, play="greedy", seed=5)


# --- an independent threshold bidder: the score formula of policies.THRESHOLD_SCORE_FORMULA
TRUMP = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
RANKS = "789TJQKA"


def _cards(mask):
    return [(b // 8, RANKS[b % 8]) for b in range(32) if (int(mask) >> b) & 1]


def _scores(mask):
    cards = _cards(mask)
    suits = [
        sum(TRUMP[r] + 10 for s, r in cards if s == x)
        + sum(8 for s, r in cards if s != x and r == "A")
        for x in range(4)
    ]
    nt = sum(PLAIN[r] + (5 if r == "A" else 0) for _, r in cards)
    at = sum(TRUMP[r] + (5 if r == "J" else 0) for _, r in cards)
    return suits + [nt, at]


def _first_call(mask, suit, nt, at):
    """The kind of call threshold makes when nobody has bid: the strain whose score
    clears its threshold by most (ties: the lower strain), else pass."""
    best, margin = None, None
    for strain, score in enumerate(_scores(mask)):
        m = score - (suit if strain < 4 else nt if strain == 4 else at)
        if m >= 0 and (best is None or m > margin):
            best, margin = strain, m
    return "pass" if best is None else ("suit", "suit", "suit", "suit", "NT", "AT")[best]


def test_a_system_against_itself_scores_zero_and_never_differs():
    s = compare_systems(["threshold", "threshold"], deals=300, play="greedy", seed=2)
    pair = s.pairs.iloc[0]
    assert s.systems == ["threshold", "threshold #2"]
    assert pair["mean"] == 0 and pair["differ"] == 0
    assert s.situations.empty and s.hands.empty
    assert (s.nets[("threshold", "threshold #2")] == 0).all()
    mix = s.mix.set_index("opponent")
    assert mix.loc["threshold #2", "takes"] == mix.loc["threshold", "takes"]


def test_first_call_differences_match_an_independent_bidder(study):
    """The deals where the first speaker already calls differently, and their net MP,
    recomputed from scratch: the threshold formula in Python and two plain runs."""
    first = simulate(DEALS, bidding=[A, B, A, B], play="greedy", seed=5)
    second = simulate(DEALS, bidding=[B, A, B, A], play="greedy", seed=5)
    net = ((first["mp0"] - first["mp1"]) + (second["mp1"] - second["mp0"])).to_numpy() / 2
    rows = []
    for i, dealer in enumerate(first["dealer"]):
        seat = (dealer + 1) % 4
        hand = first[f"bid{seat}"].iloc[i]
        a, b = _first_call(hand, 50, 52, 75), _first_call(hand, 56, 47, 75)
        if a != b:
            rows.append((a, b, net[i]))
    expected = pd.DataFrame(rows, columns=["call_a", "call_b", "net"])
    got = study.situations[
        (study.situations["situation"] == "nobody has bid") & (study.situations["position"] == 1)
    ]
    assert len(expected) > 10 and got["deals"].sum() == len(expected)
    for (ca, cb), grp in expected.groupby(["call_a", "call_b"]):
        row = got[(got["call_a"] == ca) & (got["call_b"] == cb)].iloc[0]
        assert row["deals"] == len(grp)
        assert row["mean"] == pytest.approx(grp["net"].mean(), abs=1e-12)
        assert row["share"] == pytest.approx(len(grp) / DEALS)
    # the pair's result is the independent one
    assert study.pairs.iloc[0]["mean"] == pytest.approx(net.mean(), abs=1e-12)
    # and deals whose auctions are the same score exactly 0
    same = (first["auction"] == second["auction"]).to_numpy()
    assert (net[same] == 0).all() and study.pairs.iloc[0]["differ"] == pytest.approx(
        1 - same.mean()
    )


def test_differences_only_where_the_calls_differ(study):
    """Every hand class listed where nobody had bid is one whose two calls differ, and
    they are the calls the independent bidder makes for any hand of the class."""
    hands = study.hands
    assert not hands.empty and (hands["call_a"] != hands["call_b"]).all()
    first = hands[hands["situation"] == "nobody has bid"]
    assert len(first) > 5
    keys = {class_label(k, False): k for k in hand_classes(1)[0]}
    for row in first.itertuples():
        key = keys[row.hand_class]
        rep = int(key_hands(np.array([key]), 1)[0])
        a, b = _first_call(rep, 50, 52, 75), _first_call(rep, 56, 47, 75)
        assert a != b
        assert row.call_a.split()[0] == a and row.call_b.split()[0] == b
    for table in (study.situations, study.hands):
        assert table["contribution"].sum() == pytest.approx(study.pairs.iloc[0]["mean"])
        # surest first: the lower 95% bound of |contribution| (0 at least, 0 without an
        # s.e.), ties by |contribution|
        size = table["contribution"].abs()
        bound = (size - Z95 * table["se"] * table["deals"] / study.meta["deals"]).clip(lower=0)
        keys = list(zip(bound.fillna(0).round(12), size.round(12)))
        assert keys == sorted(keys, reverse=True)


def test_hand_classes_do_not_depend_on_the_physical_suits():
    rng = np.random.default_rng(1)
    for _ in range(50):
        cards = rng.choice(32, 5, replace=False)
        named = int(rng.integers(4))
        perm = rng.permutation(4)
        hand = sum(1 << int(c) for c in cards)
        moved = sum(1 << int(perm[c // 8] * 8 + c % 8) for c in cards)
        assert class_label(hand_keys([hand], 4)[0], False) == class_label(
            hand_keys([moved], 4)[0], False
        )
        assert class_label(hand_keys([hand], named)[0], True) == class_label(
            hand_keys([moved], int(perm[named]))[0], True
        )
    assert holding_label(0) == "-"
    assert holding_label(0b11110000) == "JAKQ"  # J Q K A in trump order


def test_contract_mix_adds_up(study):
    mix = study.mix[study.mix["opponent"] != "all"].set_index("system")
    for sys_a, sys_b in itertools.permutations([A, B]):
        assert mix.loc[sys_a, "suit"] + mix.loc[sys_a, "nt"] + mix.loc[sys_a, "at"] == (
            pytest.approx(mix.loc[sys_a, "takes"])
        )
        # the same plays seen from both sides: one takes, the other, or nobody
        total = mix.loc[sys_a, "takes"] + mix.loc[sys_b, "takes"] + mix.loc[sys_a, "thrown_in"]
        assert total == pytest.approx(1.0)
    assert ((study.mix["made"] >= 0) & (study.mix["made"] <= 1)).all()


def test_three_systems_and_games():
    s = compare_systems(
        ["threshold", "threshold:56", "atlas"], deals=120, play="greedy", seed=1, games=6
    )
    assert len(s.pairs) == 3 and set(s.standings["system"]) == set(s.systems)
    assert ((s.pairs["win_rate"] >= 0) & (s.pairs["win_rate"] <= 1)).all()
    # standings: each system's mean over its opponents, from the pairs
    st = s.standings.set_index("system")["mean"]
    p = {(r.a, r.b): r.mean for r in s.pairs.itertuples()}
    assert st["atlas"] == pytest.approx(
        -(p[("threshold", "atlas")] + p[("threshold:56", "atlas")]) / 2
    )
    assert set(s.mix["opponent"]) == {"threshold", "threshold:56", "atlas", "all"}


def test_cli_text_json_tables_and_report(tmp_path):
    args = ["study", "systems", A, B, "--deals", 200, "--play", "greedy", "--seed", 5]
    rc, out, err = run_cli(args + ["--top", 3])
    assert rc == 0, err
    assert "net MP per deal" in out and "contract mix" in out and "by hand class" in out
    rc, out, err = run_cli(args + ["--json"])
    assert rc == 0, err
    data = json.loads(out)
    assert data["systems"] == [A, B] and data["deals"] == 200
    assert {"pairs", "standings", "mix", "situations", "hands"} <= set(data)
    assert sum(r["contribution"] for r in data["situations"]) == pytest.approx(
        data["pairs"][0]["mean"]
    )
    csv, parquet, report = tmp_path / "t.csv", tmp_path / "t.parquet", tmp_path / "rep"
    rc, out, err = run_cli(args + ["-o", csv, "--report", report])
    assert rc == 0, err
    table = pd.read_csv(csv)
    assert set(table["table"]) == {"pairs", "standings", "mix", "situations", "hands"}
    rc, out, err = run_cli(args + ["-o", parquet])
    assert rc == 0, err
    assert len(pd.read_parquet(parquet)) == len(table)
    page = (report / "index.html").read_text()
    assert "Where the systems differ" in page and (report / "figures" / "pairs.png").stat().st_size
    assert (report / "tables" / "hands.csv").exists()
    rc, out, err = run_cli(args + ["-o", csv])  # exists: refused before the work
    one_line_error(rc, err, "exists")


@pytest.mark.parametrize(
    "argv, words",
    [
        (["study", "systems", "threshold", "nosuch"], ["nosuch"]),
        (["study", "systems", "threshold", "threshold:1,2,3,4,5,6,7"], ["threshold"]),
        (["study", "systems", "threshold"], ["at least 2"]),
        (["study", "systems"], ["at least 2"]),
        (["study", "systems", "threshold", "atlas", "--ruleset", "nosuch"], ["nosuch"]),
    ],
)
def test_cli_errors(argv, words):
    rc, _, err = run_cli(argv + ["--deals", 10, "--play", "greedy"])
    one_line_error(rc, err, *words)


def test_each_study_refuses_the_others_arguments():
    """study bidding and study systems are separate pages: argparse names the stray
    argument (status 2, no traceback)."""
    for argv, word in (
        (["study", "systems", "threshold", "atlas", "--values", "1,2"], "--values"),
        (["study", "bidding", "threshold"], "threshold"),
    ):
        rc, _, err = run_cli(argv + ["--deals", 10, "--play", "greedy"])
        assert rc == 2 and "Traceback" not in err
        assert "unrecognized arguments" in err and word in err.splitlines()[-1]


def test_french_rounds():
    """In the french rounds the named suit is the turned one; the deals' later cards
    follow the taker, the bidding cards are the same in both plays."""
    s = compare_systems(["take", "take:60,50"], rules="french", deals=300, play="greedy", seed=4)
    sit = s.situations
    assert not sit.empty
    assert set(sit["situation"]) <= {"round 1: the turned suit", "round 2"}
    assert (sit["named"] == "suit").all()
    assert sit["contribution"].sum() == pytest.approx(s.pairs.iloc[0]["mean"])


def test_a_pair_is_the_bidding_duel(study):
    from belote_sim.analysis.comparisons import bidding_duel

    duel = bidding_duel(A, B, deals=DEALS, play="greedy", seed=5)
    pair = study.pairs.iloc[0]
    assert (pair["mean"], pair["se"], pair["thrown_in"]) == (
        duel["mean"],
        duel["se"],
        duel["thrown_in"],
    )


def test_french_bidding_duel_is_the_pair():
    """The bidding duel of the french rounds (whose later cards follow the taker) plays
    and agrees with study systems on the same deals."""
    from belote_sim.analysis.comparisons import bidding_duel

    kw = dict(rules="french", deals=300, play="greedy", seed=4)
    duel = bidding_duel("take", "take:60,50", **kw)
    pair = compare_systems(["take", "take:60,50"], **kw).pairs.iloc[0]
    assert duel["played"] > 0
    assert (pair["mean"], pair["se"]) == (duel["mean"], duel["se"])


def test_hand_classes_rank_by_the_sure_part_of_their_contribution():
    """Issue 37: rows were ranked by |contribution|, so a rare class whose three deals
    swung far came before a common class whose effect is certain; now by the lower
    95% bound of |contribution| (0 for a class of one deal, with no s.e.)."""
    from belote_sim.analysis.systems import _grouped

    rng = np.random.default_rng(1)
    common = 1.0 + rng.normal(0, 2, 400)
    common += 1.0 - common.mean()  # exactly mean 1: total 400
    rows = [("rare", v) for v in (300.0, -100.0, 250.0)]  # total 450, very noisy
    rows += [("common", v) for v in common] + [("single", 900.0)]
    frame = pd.DataFrame(rows, columns=["hand_class", "net"])
    out = _grouped(frame, ["hand_class"], 10_000)
    assert list(out["hand_class"]) == ["common", "single", "rare"]  # ties: |contribution|
    # the plain |contribution| order would have put the rare ones first
    assert out.set_index("hand_class")["contribution"].abs().idxmax() == "single"


def test_the_pair_figure_reads_as_its_labels_whatever_the_order_given():
    """Issue 37: ``study systems threshold atlas`` drew every pair left of 0 ("threshold
    over atlas", negative) because the pairs follow the order given; the figure now
    writes each pair "X over Y" with X the system that gained, its mean >= 0."""
    from types import SimpleNamespace

    from belote_sim.analysis.systems_report import pair_figure

    pairs = pd.DataFrame(
        {"a": ["weak", "weak", "mid"], "b": ["mid", "strong", "strong"]}
        | {"mean": [-0.5, -1.2, -0.4], "se": [0.1, 0.1, 0.1]}
    )
    ax = pair_figure(SimpleNamespace(pairs=pairs))
    xs = ax.lines[0].get_xdata()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert list(xs) == [0.5, 1.2, 0.4]
    assert labels == ["mid\nover weak", "strong\nover weak", "strong\nover mid"]
    assert list(pairs["mean"]) == [-0.5, -1.2, -0.4]  # the study's table is untouched
