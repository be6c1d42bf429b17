"""A hand's answer in the middle of an auction (issue 39, items 1-3):
``belote_sim.auction_answer.answer_in_auction`` and ``belote-sim hand --auction``.

The checks against brute force: (1) the answer for the call the model itself makes
agrees within 3 s.e. with the deals of a plain ``simulate`` run (the hand predealt,
every seat bidding ``atlas_auction``) filtered on the auction column; (2) with other
seats that never bid, each bid's answer agrees within 3 s.e. with the hand's
``hand_by_simulation`` row for that strain (another seed: other deals).  Greedy play
and small sizes: the play policy does not matter to the conditioning."""

from __future__ import annotations

import json

import numpy as np
import pytest

from belote_sim.atlas import hand_by_simulation
from belote_sim.auction_answer import (
    ANSWER_COLUMNS,
    answer_in_auction,
    auction_state,
    auction_words,
    parse_auction,
)
from belote_sim.rules import Rules
from belote_sim.simulation.runner import simulate
from tests.cli_run import one_line_error, run_cli

PLAY = "greedy"
#: Other seats that never bid nor double (pass-only): thresholds no score reaches.
PASSING = "threshold:9999,9999,9999,9999,9999"


def _z(a: float, sa: float, b: float, sb: float) -> float:
    """|a - b| in standard errors of the difference (0 when equal, inf when they differ
    with no s.e.)."""
    if a == b:
        return 0.0
    se = float(np.hypot(sa, sb))
    return abs(a - b) / se if se > 0 else float("inf")


# -- notation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "letters"),
    [
        ("pHx", "pHx"),
        ("phX", "pHx"),
        ("pass, hearts, double", "pHx"),
        ("Pass,Hearts,Double", "pHx"),
        ("p, H, x", "pHx"),
        ("clubs, no trumps, all trumps, redouble", "CNAr"),
        ("pass, NT, AT, xx", "pNAr"),
        ("spades, double, redouble, third double", "Sxrt"),
        ("third_double", "t"),
        ("CDHSNA", "CDHSNA"),
        ("pass", "p"),
        ("", ""),
        ("-", ""),
    ],
)
def test_parse_auction(text, letters):
    assert parse_auction(text) == letters


def test_auction_words_both_ways():
    assert auction_words("pHx") == "pass, hearts, double"
    assert auction_words("CNAr") == "clubs, no trumps, all trumps, redouble"
    assert auction_words("") == "(none)"
    for letters in ("pHx", "CDHSNA", "Sxrt", "ppC", "p"):
        assert parse_auction(auction_words(letters)) == letters


@pytest.mark.parametrize("text", ["pHq", "pass, hearts, maybe", "pass,,hearts"])
def test_bad_notation_is_one_line(text):
    with pytest.raises(ValueError, match="auction"):
        parse_auction(text)


def test_legal_calls_now():
    common = Rules.preset("common")
    # dealer 3: seat 0 opens; after pass (seat 0), hearts (seat 1), double (seat 2)
    # seat 3 (hearts' bidder's partner) may pass, bid above hearts or redouble
    state = auction_state("pHx", 3, common)
    assert state.seat == 3 and not state.over
    assert set(state.legal) == {"p", "S", "N", "A", "r"}
    # over partner's bid: no double of one's own side
    assert set(auction_state("Hp", 3, common).legal) == {"p", "S", "N", "A"}
    assert auction_state("Hppp", 3, common).over
    assert auction_state("pppp", 3, common).over


# -- refusals ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("auction", "position", "words"),
    [
        ("Hpx", 4, ["not legal", "double"]),  # a double of partner's bid
        ("HC", 3, ["not legal", "clubs"]),  # bids not rising
        ("Hppp", 1, ["over"]),
        ("pppp", 1, ["over"]),
        ("pH", 1, ["position 3 speaks"]),
    ],
)
def test_illegal_auctions_are_refused(auction, position, words):
    with pytest.raises(ValueError) as info:
        answer_in_auction("JS 9S AC TC 7D", auction, position, play=PLAY, deals=50)
    for word in words:
        assert word in str(info.value)


def test_impossible_auction_is_refused():
    # partner bids hearts and an opponent doubles it: atlas_auction doubles holding
    # the trumps, and this hand holds JH 9H AH -- no deal is consistent
    with pytest.raises(ValueError, match=r"impossible under atlas_auction.*0 of [\d,]+ deals"):
        answer_in_auction("JH 9H AH TS 7C", "pHx", play=PLAY, deals=50)


def test_other_biddings_and_hands_are_refused():
    with pytest.raises(ValueError, match="section 4.1"):
        answer_in_auction("JS 9S AC TC 7D", "", 1, rules="french", play=PLAY, deals=50)
    with pytest.raises(ValueError, match="french scoring"):
        answer_in_auction(
            "JS 9S AC TC 7D", "", 1, options={"scoring": "french"}, others=PASSING, deals=50
        )
    with pytest.raises(ValueError, match="at most 10,000,000 kept deals"):
        answer_in_auction("JS 9S AC TC 7D", "", 1, play=PLAY, deals=10**9)
    with pytest.raises(ValueError, match="ends an auction at 40 calls"):
        answer_in_auction("JS 9S AC TC 7D", "Hpxr" * 10, play=PLAY, deals=50)
    with pytest.raises(ValueError, match="5 bidding cards"):
        answer_in_auction("JS 9S AC TC 7D 8D 9D", "", 1, play=PLAY, deals=50)
    with pytest.raises(ValueError, match="no auction"):
        answer_in_auction("JS 9S AC TC 7D", "", 1, others="fixed:0,1,0", play=PLAY, deals=50)


def test_cli_refusals_are_one_line():
    rc, _out, err = run_cli(["hand", "JS 9S AC TC 7D", "--auction", "Hpx", "--play", PLAY])
    one_line_error(rc, err, "not legal")
    rc, _out, err = run_cli(["hand", "JS 9S AC TC 7D", "--auction", "pHy", "--play", PLAY])
    one_line_error(rc, err, "not a call letter")
    rc, _out, err = run_cli(["hand", "JS 9S AC TC 7D", "--others", "atlas"])
    one_line_error(rc, err, "--auction")
    rc, _out, err = run_cli(
        ["hand", "JH 9H AH TS 7C", "--auction", "pass, hearts, double", "--play", PLAY]
    )
    one_line_error(rc, err, "impossible", "0 of")


# -- the kernel's auctions are the engine's -------------------------------------------


def test_continued_auctions_are_the_engines():
    """Cut each auction of a plain simulation at a call, force the model's own call
    there: the kernel must continue to the very auction and contract the engine bid."""
    from belote_sim.kernels.auction_deals import (
        K_DOUBLING,
        K_STRAIN,
        K_TAKER,
        MEMO_BITS,
        auction_answers,
    )
    from belote_sim.kernels.bidding import MAX_CALLS
    from belote_sim.policies import menu_of
    from belote_sim.simulation.study import make_study

    df = simulate(300, bidding="atlas_auction", play=PLAY, seed=5)
    study = make_study("common", "atlas_auction", PLAY, 5)
    ids, params = study.bid_arrays
    policies = (ids, params, menu_of((), study.bidding, 4, ()))
    rng = np.random.default_rng(1)
    checked = 0
    for row in df.itertuples():
        auction = str(row.auction)
        t = int(rng.integers(len(auction)))
        seat = (row.dealer + 1 + t) % 4
        bid = np.array([[getattr(row, f"bid{s}") for s in range(4)]], dtype=np.int64)
        prefix = np.frombuffer(auction[:t].encode(), np.uint8).copy()
        ours = np.frombuffer(auction[t].encode(), np.uint8).copy()
        ok = np.zeros(1, np.uint8)
        contracts = np.zeros((1, 1, 4), np.int64)
        calls = np.zeros((1, 1, MAX_CALLS), np.uint8)
        others = [k for k in range(t) if (row.dealer + 1 + k) % 4 != seat]
        order = np.array(others[::-1], np.int64)  # any order: the same deals kept
        n_failed = auction_answers(
            bid, int(row.dealer), prefix, order, ours, study.rules.to_array(), policies,
            study.atlas_arrays, np.zeros((max(t, 1), 1 << MEMO_BITS), np.int64), ok, contracts,
            calls, True,
        )  # fmt: skip
        assert n_failed == 0 and ok[0] == 1
        assert calls[0, 0].tobytes().rstrip(b"\0").decode() == auction
        strain = contracts[0, 0, K_STRAIN]
        if row.outcome == "thrown_in":
            assert strain == -1
        else:
            assert ("C", "D", "H", "S", "NT", "AT")[strain] == str(row.strain)
            assert contracts[0, 0, K_TAKER] == row.taker
            assert contracts[0, 0, K_DOUBLING] == row.doubling
        checked += 1
    assert checked == 300


# -- brute force ------------------------------------------------------------------------

#: (hand, position, auction): the opening seat, over partner's bid, over an opponent's
#: bid, after a double of partner's bid.
#: The last number: the plain simulation's deals (a double is rare under atlas_auction:
#: ~0.4% of the deals).
SITUATIONS = [
    ("JS 9S AC TC 7D", 1, "", 10_000),
    ("JS 9S AC TC 7D", 3, "Hp", 30_000),
    ("JS 9S AC TC 7D", 2, "H", 30_000),
    ("7C 8D 9S 7H 8C", 3, "Hx", 150_000),
]


@pytest.mark.parametrize(("hand", "position", "auction", "plain"), SITUATIONS)
def test_the_models_call_agrees_with_filtered_simulation(hand, position, auction, plain):
    answer = answer_in_auction(hand, auction, position, play=PLAY, deals=1000, seed=3)
    model = answer.table[answer.table["model"]]
    assert len(model) == 1
    call = str(model["call"].iloc[0])
    dealer = (4 - position) % 4
    df = simulate(
        plain, bidding="atlas_auction", play=PLAY, seed=11, predeal={0: hand}, dealer=dealer
    )
    heard = df[df["auction"].str.startswith(auction)]
    assert len(heard) >= 400, len(heard)
    # the model's own call after these calls is the one the plain simulation made
    assert set(heard["auction"].str[len(auction)]) == {call}
    net = (heard["mp0"] - heard["mp1"]).to_numpy(float)
    se = net.std(ddof=1) / np.sqrt(len(net))
    row = model.iloc[0]
    assert _z(row["net_mp_x1"], row["net_mp_x1_se"], net.mean(), se) < 3
    # the acceptance is the share of the plain deals with this auction so far
    share = len(heard) / len(df)
    assert _z(answer.acceptance, np.sqrt(share * (1 - share) / answer.tried), share,
              np.sqrt(share * (1 - share) / len(df))) < 3  # fmt: skip
    played = heard[heard["outcome"] != "thrown_in"]
    if len(played):
        p = float((played["outcome"] == "made").mean())
        p_se = np.sqrt(max(p * (1 - p), 1e-4) / len(played))
        q = row["p_made"]
        q_se = np.sqrt(max(q * (1 - q), 1e-4) / (row["n"] * (1 - row["p_thrown_in"])))
        assert _z(q, q_se, p, p_se) < 3


@pytest.mark.parametrize(("position", "auction"), [(1, ""), (3, "pp")])
def test_bids_agree_with_hand_simulate_when_others_never_bid(position, auction):
    hand = "JS 9S AC TC 7D"
    answer = answer_in_auction(
        hand, auction, position, others=PASSING, play=PLAY, deals=1500, seed=4
    )
    assert answer.acceptance == 1.0
    dealer = (4 - position) % 4
    direct = hand_by_simulation(hand, 0, dealer, 1500, "common", PLAY, seed=9).set_index("strain")
    rows = answer.table.set_index("call")
    # passing: everyone passes, the deal is thrown in
    assert rows.loc["p", "net_mp_x1"] == 0 and rows.loc["p", "p_thrown_in"] == 1
    for letter, strain in zip("CDHSNA", ("C", "D", "H", "S", "NT", "AT")):
        mine, theirs = rows.loc[letter], direct.loc[strain]
        assert mine["p_ours"] == 1 and mine["contracts"][0][0] == f"{strain} by me"
        assert _z(mine["net_mp_x1"], mine["net_mp_x1_se"],
                  theirs["net_mp_x1"], theirs["net_mp_x1_se"]) < 3  # fmt: skip
        q, p = mine["p_made"], theirs["p_made"]
        q_se = np.sqrt(max(q * (1 - q), 1e-4) / mine["n"])
        p_se = np.sqrt(max(p * (1 - p), 1e-4) / theirs["n"])
        assert _z(q, q_se, p, p_se) < 3


# -- the same answer from the seed, whatever the threads; a py: model ------------------


def test_reproducible_and_thread_independent():
    kw = dict(position=3, play=PLAY, deals=400, seed=21)
    a = answer_in_auction("JS 9S AC TC 7D", "Hp", threads=1, **kw)
    b = answer_in_auction("JS 9S AC TC 7D", "Hp", threads=2, **kw)
    assert a.tried == b.tried and a.accepted == b.accepted == 400
    assert a.table.equals(b.table)
    told = []
    d = answer_in_auction("JS 9S AC TC 7D", "Hp", progress=told.append, **kw)
    assert sum(told) == 400 and d.table.equals(a.table)
    c = answer_in_auction("JS 9S AC TC 7D", "Hp", position=3, play=PLAY, deals=400, seed=22)
    assert not c.table["net_mp_x1"].equals(a.table["net_mp_x1"])


def test_a_rule_file_model_is_its_policy():
    """rules:FILE as the model: the shipped threshold.toml is threshold's system, so the
    answer is threshold's, deal for deal."""
    from pathlib import Path

    import belote_sim

    book = Path(belote_sim.__file__).parent / "data" / "bidding" / "threshold.toml"
    kw = dict(position=3, play=PLAY, deals=300, seed=6)
    plain = answer_in_auction("JS 9S AC TC 7D", "pH", others="threshold", **kw)
    ruled = answer_in_auction("JS 9S AC TC 7D", "pH", others=f"rules:{book}", **kw)
    assert plain.tried == ruled.tried
    assert plain.table.equals(ruled.table)


def test_a_model_per_seat():
    """``others`` as four specs, one per seat: the same four as one spec is the same
    answer; partner passing while the opponents bid threshold is another question."""
    kw = dict(position=3, play=PLAY, deals=300, seed=8)
    one = answer_in_auction("JS 9S AC TC 7D", "pH", others="threshold", **kw)
    four = answer_in_auction("JS 9S AC TC 7D", "pH", others=["threshold"] * 4, **kw)
    assert one.table.equals(four.table) and one.others == four.others
    mixed = answer_in_auction(
        "JS 9S AC TC 7D", "pH", others=["threshold", "threshold", PASSING, "threshold"], **kw
    )
    assert "partner threshold:9999" in mixed.others and "prev. opp. threshold:50" in mixed.others
    # partner (seat 2) never bids, so after this seat's pass hearts stands or an
    # opponent bids on: never a contract of partner's
    contracts = mixed.table.set_index("call").loc["p", "contracts"]
    assert not any("by partner" in label for label, _ in contracts)


def _passes_but_hearts(view):
    """A Python model: bids hearts holding the jack of hearts when it may, else passes."""
    return "H" if "JH" in view.cards.split() and "H" in view.legal else "pass"


def test_python_model_agrees_with_the_kernels():
    """The replay in Python (a py: model) keeps the same deals as the kernel: a function
    that always passes gives the very answer of the pass-only kernel policy."""
    kw = dict(position=3, play=PLAY, deals=300, seed=2)
    kernel = answer_in_auction("JS 9S AC TC 7D", "pp", others=PASSING, **kw)
    python = answer_in_auction("JS 9S AC TC 7D", "pp", others=lambda view: "pass", **kw)
    assert kernel.table.equals(python.table) and kernel.tried == python.tried
    hearts = answer_in_auction("JS 9S AC TC 7D", "pH", others=_passes_but_hearts, **kw)
    assert hearts.accepted == 300
    # kept: position 2 holds JH among its 5 of the 27 unseen cards (then position 1,
    # without it, passed): probability 5/27
    p = 5 / 27
    assert abs(hearts.acceptance - p) < 3 * np.sqrt(p * (1 - p) / hearts.tried)
    # with hearts by an opponent and nobody else bidding, this seat's spades is played
    # in every kept deal, and passing leaves hearts to the opponent
    rows = hearts.table.set_index("call")
    assert rows.loc["S", "contracts"] == [("S by me", 1.0)]
    assert rows.loc["p", "contracts"] == [("H by prev. opp.", 1.0)]


# -- the command line -------------------------------------------------------------------


def test_cli_table_and_json():
    argv = ["hand", "JS 9S AC TC 7D", "--auction", "pass, hearts", "--play", PLAY]
    rc, out, err = run_cli([*argv, "--deals", "300", "--seed", "1"])
    assert rc == 0, err
    assert "auction so far: pass, hearts (pH)" in out and "kept of" in out
    assert "best call:" in out
    for word in ("pass", "spades", "no trumps", "all trumps", "double"):
        assert any(line.startswith(word) for line in out.splitlines()), word
    rc, out, err = run_cli([*argv, "--deals", "300", "--seed", "1", "--json"])
    assert rc == 0, err
    rows = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))
    assert [r["call"] for r in rows] == ["p", "S", "N", "A", "x"]
    assert set(ANSWER_COLUMNS) <= set(rows[0])
    assert all(r["n"] == 300 and r["auction"] == "pH" and r["position"] == 3 for r in rows)
    assert sum(r["model"] for r in rows) == 1
    # the readable and the letter notation are the same question
    rc, out2, err = run_cli(
        ["hand", "JS 9S AC TC 7D", "--auction", "pH", "--position", "3", "--play", PLAY,
         "--deals", "300", "--seed", "1", "--json"]
    )  # fmt: skip
    assert rc == 0, err
    assert json.loads(out2) == rows


def test_ties_are_named_together():
    """Calls that score the same on every deal are named together, never one of them
    by the table's order: built by hand, nets known."""
    import pandas as pd

    from belote_sim.auction_answer import AuctionAnswer

    nets = {
        "p": np.array([4.0, 0.0, 2.0]),
        "S": np.array([1.0, 1.0, 1.0]),
        "N": np.array([1.0, 1.0, 1.0]),
        "r": np.array([4.0, 0.0, 2.0]),
    }
    table = pd.DataFrame({"call": list(nets), "net_mp_x1": [v.mean() for v in nets.values()]})
    answer = AuctionAnswer(
        "JS 9S AC TC 7D", 0, 3, "pHx", Rules.preset("common"), "atlas_auction", "greedy",
        table, 10, 3, 3, 0, "by hand", nets=nets,
    )  # fmt: skip
    assert answer.best_calls == ["p", "r"]
    assert answer.runner_up == ["S", "N"]
    diff, se = answer.difference("p", "S")
    assert diff == 1.0 and se == pytest.approx(np.std([3.0, -1.0, 1.0], ddof=1) / np.sqrt(3))
