"""Tests of tests/reference.py against the clauses and worked examples of docs/rules.md."""

import os
import random
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import reference as R

COMMON = {"ruleset": "common"}
BULGARIAN = {"ruleset": "bulgarian"}
FRENCH = {"ruleset": "french"}


def cards(text):
    return text.split()


def rules(name="common", **options):
    return {"ruleset": name, "options": options}


# ---------------------------------------------------------------- rules (§13)


def test_presets():
    c = R.resolve_rules(COMMON)
    b = R.resolve_rules(BULGARIAN)
    f = R.resolve_rules(FRENCH)
    assert set(c) == set(b) == set(f) == set(R.OPTION_NAMES)
    assert len(R.OPTION_NAMES) == 19
    assert (c["raise_over_partner"], b["raise_over_partner"], f["raise_over_partner"]) == (
        False,
        True,
        True,
    )
    assert (c["undertrump"], b["undertrump"], f["undertrump"]) == (True, False, True)
    assert (c["belote_on_discard"], b["belote_on_discard"], f["belote_on_discard"]) == (
        True,
        False,
        True,
    )
    assert f["declarations_compare"] == "best_declaration"
    assert c["declarations_compare"] == b["declarations_compare"] == "best_run"
    assert (
        c["declarations_need_trick"],
        b["declarations_need_trick"],
        f["declarations_need_trick"],
    ) == (False, True, False)
    assert (c["nt_double_raw"], b["nt_double_raw"], f["nt_double_raw"]) == (True, True, False)
    assert (c["scoring"], b["scoring"], f["scoring"]) == ("mp", "mp", "french")
    assert (c["valat_nt_double"], b["valat_nt_double"], f["valat_nt_double"]) == (
        True,
        False,
        False,
    )
    assert c["capot_points"] == b["capot_points"] == f["capot_points"] == 250
    assert (c["game_target"], b["game_target"], f["game_target"]) == (151, 151, 1000)
    for o in (c, b, f):
        assert o["card_in_one_declaration"] and not o["nt_four_aces"] and not o["kirtik"]
        assert not o["revoke_penalty"] and o["dealing"] == "shuffle"
        assert (
            not o["third_double"] and not o["at_double_ends_auction"] and not o["dealer_must_take"]
        )


def test_overrides_and_errors():
    o = R.resolve_rules(rules("bulgarian", undertrump=True, game_target=501))
    assert o["undertrump"] is True and o["game_target"] == 501 and o["raise_over_partner"] is True
    # a resolved dict is accepted back
    assert R.resolve_rules(R.resolve_rules(FRENCH)) == R.resolve_rules(FRENCH)
    with pytest.raises(ValueError):
        R.resolve_rules(rules(undertrumpp=True))
    with pytest.raises(ValueError):
        R.resolve_rules({"ruleset": "belgian"})
    with pytest.raises(ValueError):
        R.resolve_rules(rules(scoring="bridge"))


# ---------------------------------------------------------------- cards (§2)


def test_card_points_and_totals():
    assert R.card_points("JH", "H") == 20 and R.card_points("9H", "H") == 14
    assert R.card_points("JH", "S") == 2 and R.card_points("9H", "S") == 0
    assert R.card_points("JC", "AT") == 20 and R.card_points("JC", "NT") == 2
    assert R.card_points("AS", "NT") == 11 and R.card_points("TS", "AT") == 10
    for strain, total in (("C", 162), ("H", 162), ("AT", 258), ("NT", 130)):
        assert sum(R.card_points(c, strain) for c in R.ALL_CARDS) + 10 == total
    with pytest.raises(ValueError):
        R.card_points("10S", "S")


def test_trick_winner():
    # highest trump wins
    assert R.trick_winner(cards("AC 7H TC KC"), 1, "H") == 2
    assert R.trick_winner(cards("AC 7H JH 9H"), 0, "H") == 2
    # no trump: highest of the led suit; off-suit cards never win
    assert R.trick_winner(cards("KC AD 7C AC"), 3, "H") == 2
    # AT: trump order within the led suit; another suit never wins (R1)
    assert R.trick_winner(cards("TC JD 9C AC"), 0, "AT") == 2
    # NT: plain order
    assert R.trick_winner(cards("7C AD 8C AS"), 0, "NT") == 2
    assert R.trick_winner(cards("JC 9C TC 8C"), 0, "NT") == 2


# ---------------------------------------------------------------- legal moves (§5)


def legal(hand, trick, strain, r=COMMON, leader=0):
    return R.legal_cards(cards(hand), cards(trick), leader, strain, r)


def test_leader_any_card():
    assert legal("7C AH JS", "", "H") == {"7C", "AH", "JS"}


def test_follow_plain_suit_any_card_of_it():
    assert legal("7C AC JH 8S", "KC", "H") == {"7C", "AC"}
    # even when the trick is trumped, any card of the led suit will do
    assert legal("7C AC JH", "KC 9H", "H") == {"7C", "AC"}


def test_raise_in_trump():
    assert legal("7H 9H AC", "AH", "H") == {"9H"}
    assert legal("7H 9H AC", "JH", "H") == {"7H", "9H"}  # cannot beat: any trump
    # AT: every suit raises (9 beats T in trump order)
    assert legal("9C 7C AD", "TC", "AT") == {"9C"}
    assert legal("9C 7C AD", "JC", "AT") == {"9C", "7C"}
    # NT: no raise
    assert legal("9C 7C AD", "8C", "NT") == {"9C", "7C"}


def test_raise_over_partner_option():
    # seat 0 (partner of seat 2) leads AH and is winning
    assert legal("8H 9H AC", "AH 7H", "H", COMMON) == {"8H", "9H"}
    assert legal("8H 9H AC", "AH 7H", "H", BULGARIAN) == {"9H"}
    assert legal("8H 9H AC", "AH 7H", "H", FRENCH) == {"9H"}
    assert legal("8C 9C AD", "AC 7C", "AT", COMMON) == {"8C", "9C"}
    assert legal("8C 9C AD", "AC 7C", "AT", BULGARIAN) == {"9C"}
    # partner not winning: raise applies in every preset
    assert legal("8H 9H AC", "7H AH", "H", COMMON) == {"9H"}
    assert legal("8H JH AC", "7H 9H 8H", "H", COMMON) == {"8H", "JH"}  # partner (9H) winning
    assert legal("8H JH AC", "7H 9H 8H", "H", BULGARIAN) == {"JH"}


def test_void_partner_winning_any_card():
    assert legal("7H 8S", "AC 7C", "H") == {"7H", "8S"}
    # partner winning with a trump: no duty to overtrump
    assert legal("JH 8S", "AC 9H 7D", "H", COMMON) == {"JH", "8S"}
    assert legal("7H 8S", "AC 9H 7D", "H", BULGARIAN) == {"7H", "8S"}


def test_must_trump():
    assert legal("7H 8S", "AC", "H") == {"7H"}
    # partner played but is not winning
    assert legal("7H 8S", "7C AC", "H") == {"7H"}
    # no trump held: any card
    assert legal("8D 8S", "AC", "H") == {"8D", "8S"}


def test_overtrump():
    assert legal("JH 7H 8S", "AC 9H", "H") == {"JH"}
    # partner trumped, an opponent overtrumped: beat the opponent's trump
    assert legal("8H JH 8S", "AC 7H 9H", "H") == {"JH"}
    assert legal("8H JH 8S", "AC 7H 9H", "H", BULGARIAN) == {"JH"}


def test_undertrump_option():
    assert legal("7H 8S", "AC JH", "H", COMMON) == {"7H"}
    assert legal("7H 8S", "AC JH", "H", FRENCH) == {"7H"}
    assert legal("7H 8S", "AC JH", "H", BULGARIAN) == {"7H", "8S"}


def test_nt_at_void_any_card():
    assert legal("7H 8S", "AC", "NT") == {"7H", "8S"}
    assert legal("7H 8S", "AC", "AT") == {"7H", "8S"}
    assert legal("7H 8S", "AC 9D", "AT") == {"7H", "8S"}


def test_illegal_rule():
    def ill(hand, trick, strain, card, r=COMMON):
        return R.illegal_rule(cards(hand), cards(trick), 0, strain, r, card)

    assert ill("7C AC JH", "KC", "H", "AC") is None
    assert ill("7C AC JH", "KC", "H", "9D") == "not_in_hand"
    assert ill("7C AC JH", "KC", "H", "JH") == "follow_suit"
    assert ill("7H 9H AC", "AH", "H", "7H") == "raise"
    assert ill("7H 9H AC", "AH", "H", "AC") == "follow_suit"
    assert ill("7H 8S", "AC", "H", "8S") == "trump"
    assert ill("JH 7H 8S", "AC 9H", "H", "7H") == "overtrump"
    assert ill("JH 7H 8S", "AC 9H", "H", "8S") == "overtrump"  # §14.16
    assert ill("7H 8S", "AC JH", "H", "8S") == "undertrump"
    assert ill("7H 8S", "AC JH", "H", "8S", BULGARIAN) is None
    assert ill("9C 7C AD", "TC", "AT", "7C") == "raise"


# ---------------------------------------------------------------- declarations (§6, §14)


def decl(hand, strain="S", r=COMMON):
    return [
        (d["kind"], " ".join(d["cards"]), d["points"])
        for d in R.hand_declarations(cards(hand), strain, r)
    ]


def test_declaration_examples_14_1_and_14_2():
    assert decl("KC KD KS KH 9H TH JH QH") == [
        ("carre", "KC KD KH KS", 100),
        ("quarte", "9H TH JH QH", 50),
    ]
    assert decl("QC QD QS QH TH JH KH AH") == [("carre", "QC QD QH QS", 100)]


def test_declarations_several_runs():
    assert decl("7C 8C 9C TD JD QD KD AS") == [
        ("quarte", "TD JD QD KD", 50),
        ("tierce", "7C 8C 9C", 20),
    ]
    assert decl("7C 8C 9C 7D 8D 9D AS KS") == [
        ("tierce", "7C 8C 9C", 20),
        ("tierce", "7D 8D 9D", 20),
    ]
    assert decl("7C 9C JC KC 8D TD QD AS") == []


def test_long_runs_14_3():
    assert decl("8H 9H TH JH QH KH AS 7S") == [("quinte", "9H TH JH QH KH", 100)]
    assert decl("7H 8H 9H TH JH QH KH AS") == [("quinte", "9H TH JH QH KH", 100)]
    assert decl("7H 8H 9H TH JH QH KH AH") == [
        ("quinte", "TH JH QH KH AH", 100),
        ("tierce", "7H 8H 9H", 20),
    ]


def test_carres():
    assert decl("JC JD JH JS 9C 9D 9H 9S") == [
        ("carre", "9C 9D 9H 9S", 150),
        ("carre", "JC JD JH JS", 200),
    ]
    # a carre of jacks (200) beats the quinte 9-K it would break
    assert decl("JC JD JS 9H TH JH QH KH") == [("carre", "JC JD JH JS", 200)]
    # four 7s are nothing and use no cards (§14.4)
    assert decl("7C 7D 7H 7S 8C 9C TC AS") == [("quarte", "7C 8C 9C TC", 50)]
    assert decl("8C 8D 8H 8S 7C AD AH KS") == []
    assert decl("KC KD KS KH 8H 9H TH JH") == [
        ("carre", "KC KD KH KS", 100),
        ("quarte", "8H 9H TH JH", 50),
    ]


def test_carre_with_six_run():
    # KH is the top of the 6-run 8H-KH: carre K + quinte 8H-QH = 200
    hand = "KC KD KS 8H 9H TH JH QH KH"  # 9 cards only to exercise the search
    got = decl(hand)
    assert got == [("carre", "KC KD KH KS", 100), ("quinte", "8H 9H TH JH QH", 100)]


def test_declarations_in_at_and_nt():
    assert decl("KC KD KS KH 9H TH JH QH", "AT") == decl("KC KD KS KH 9H TH JH QH", "S")
    assert decl("AC AD AH AS 7C 8C 9C KS", "NT") == []
    assert decl("AC AD AH AS 7C 8C 9C KS", "NT", rules(nt_four_aces=True)) == [
        ("carre", "AC AD AH AS", 200)
    ]
    assert decl("KC KD KH KS 7C 8C 9C TC", "NT", rules(nt_four_aces=True)) == []


def test_card_in_one_declaration_off():
    off = rules(card_in_one_declaration=False)
    assert decl("KC KD KS KH 9H TH JH QH", "S", off) == [
        ("carre", "KC KD KH KS", 100),
        ("quinte", "9H TH JH QH KH", 100),
    ]
    assert decl("QC QD QS QH TH JH KH AH", "S", off) == [
        ("carre", "QC QD QH QS", 100),
        ("quinte", "TH JH QH KH AH", 100),
    ]


def test_belote_pairs():
    hand = cards("KC QC KH QH KS 7S QD 8D")
    assert R.belote_pairs(hand, "H") == ["H"]
    assert R.belote_pairs(hand, "S") == []
    assert R.belote_pairs(hand, "AT") == ["C", "H"]
    assert R.belote_pairs(hand, "NT") == []


def d(seat, kind, top, suit="H", points=None):
    """Make a run/carre declaration for the comparison tests."""
    if kind == "carre":
        return {"kind": "carre", "cards": [top + s for s in "CDHS"], "points": points or 100}
    n = R.RUN_LENGTH[kind]
    i = R.RANKS.index(top)
    assert i - n + 1 >= 0
    return {
        "kind": kind,
        "cards": [r + suit for r in R.RANKS[i - n + 1 : i + 1]],
        "points": R.RUN_POINTS[n],
    }


def scored(seat_decls, strain="S", dealer=3, tricks=(4, 4), r=COMMON):
    res = R._scored_runs_carres(seat_decls, strain, dealer, list(tricks), R.resolve_rules(r))
    return [sorted((e["seat"], e["kind"], e["cards"][-1]) for e in res[t]) for t in (0, 1)]


def test_best_run_comparison():
    # longer run wins; that team scores all its runs
    sd = [[d(0, "quarte", "T")], [d(1, "tierce", "A")], [d(2, "tierce", "9", "C")], []]
    assert scored(sd) == [[(0, "quarte", "TH"), (2, "tierce", "9C")], []]
    # equal length: higher top card
    sd = [[d(0, "tierce", "K")], [d(1, "tierce", "A", "C")], [], []]
    assert scored(sd) == [[], [(1, "tierce", "AC")]]
    # equal best runs: nobody scores runs, trump does not matter (§14.5)
    sd = [[d(0, "tierce", "K", "S")], [d(1, "tierce", "K", "C")], [], []]
    assert scored(sd, "S") == [[], []]
    # carres always scored by the holder
    sd = [[d(0, "carre", "Q")], [d(1, "quinte", "A")], [], [d(3, "carre", "J", points=200)]]
    assert scored(sd) == [[(0, "carre", "QS")], [(1, "quinte", "AH"), (3, "carre", "JS")]]


def test_need_trick_after_comparison_14_6():
    sd = [[d(0, "quinte", "K"), d(0, "carre", "A")], [d(1, "quarte", "A")], [], []]
    # bulgarian: team 0 has no trick -> no runs nor carres, but its better run
    # still cancels team 1's
    assert scored(sd, tricks=(0, 8), r=BULGARIAN) == [[], []]
    assert scored(sd, tricks=(0, 8), r=COMMON) == [[(0, "carre", "AS"), (0, "quinte", "KH")], []]


def test_french_best_declaration():
    # carre beats a run of equal points; the winner scores all runs and carres
    sd = [[d(0, "quinte", "A")], [d(1, "carre", "Q")], [], [d(3, "tierce", "9")]]
    assert scored(sd, r=FRENCH) == [[], [(1, "carre", "QS"), (3, "tierce", "9H")]]
    # two carres of 100: plain order (T > K)
    sd = [[d(0, "carre", "K")], [d(1, "carre", "T")], [], []]
    assert scored(sd, r=FRENCH) == [[], [(1, "carre", "TS")]]
    # two runs, same top: trump wins
    sd = [[d(0, "tierce", "K", "S")], [d(1, "tierce", "K", "H")], [], []]
    assert scored(sd, "H", r=FRENCH) == [[], [(1, "tierce", "KH")]]
    assert scored(sd, "S", r=FRENCH) == [[(0, "tierce", "KS")], []]
    # neither in trump: seat order from dealer+1
    assert scored(sd, "C", dealer=3, r=FRENCH) == [[(0, "tierce", "KS")], []]
    assert scored(sd, "C", dealer=0, r=FRENCH) == [[], [(1, "tierce", "KH")]]
    # AT: every run is in trump (R3): seat order decides
    assert scored(sd, "AT", dealer=0, r=FRENCH) == [[], [(1, "tierce", "KH")]]
    # more points wins regardless of kind
    sd = [[d(0, "quarte", "T")], [d(1, "tierce", "A")], [], []]
    assert scored(sd, r=FRENCH) == [[(0, "quarte", "TH")], []]


# ---------------------------------------------------------------- match points (§8)


def test_worked_examples_section_8():
    assert R.round_mp([35, 127], "H")[0] == 3
    assert R.round_mp([125, 133], "AT")[0] == 13
    assert R.round_mp([108, 152], "NT")[0] == 11
    res = R.score_mp([154, 144], 0, "AT", rules=COMMON)
    assert res == {"outcome": "made", "mp": [15, 15], "held_mp": [0, 0]}


def test_rounding_limits():
    assert R.round_mp([126, 36], "H") == [12, 4]  # both at 6: fewer rounds up
    assert R.round_mp([76, 92], "H") == [7, 9]  # lone 6 rounds down
    assert R.round_mp([77, 85], "H") == [8, 8]
    assert R.round_mp([116, 116], "H") == [11, 11]  # §14.12
    assert R.round_mp([134, 124], "AT") == [13, 13]
    assert R.round_mp([135, 123], "AT") == [14, 12]
    assert R.round_mp([125, 135], "NT") == [13, 13]  # both at 5: fewer rounds up
    assert R.round_mp([125, 137], "NT") == [12, 14]
    assert R.round_mp([125, 125], "NT") == [12, 12]
    # a plain deal distributes 16 / 26 / 26 MP
    for a in range(0, 163):
        assert sum(R.round_mp([a, 162 - a], "S")) == 16
    for a in range(0, 259):
        assert sum(R.round_mp([a, 258 - a], "AT")) == 26
    for a in range(0, 131):
        assert sum(R.round_mp([2 * a, 260 - 2 * a], "NT")) == 26


def test_116_116_hanging():
    res = R.score_mp([116, 116], 0, "H", rules=COMMON)
    assert res == {"outcome": "hanging", "mp": [0, 11], "held_mp": [11, 0]}
    res = R.score_mp([116, 116], 1, "H", 1, rules=COMMON)
    assert res == {"outcome": "hanging", "mp": [0, 0], "held_mp": [22, 22]}


def test_made_inside_doubling():
    assert R.score_mp([92, 70], 0, "S")["mp"] == [9, 7]
    assert R.score_mp([70, 92], 0, "S") == {"outcome": "inside", "mp": [0, 16], "held_mp": [0, 0]}
    assert R.score_mp([70, 92], 1, "S") == {"outcome": "made", "mp": [7, 9], "held_mp": [0, 0]}
    # doubled: both committed; the team with fewer raw is inside
    assert R.score_mp([92, 70], 0, "S", 1) == {"outcome": "made", "mp": [32, 0], "held_mp": [0, 0]}
    assert R.score_mp([70, 92], 0, "S", 2) == {
        "outcome": "inside",
        "mp": [0, 64],
        "held_mp": [0, 0],
    }
    assert R.score_mp([70, 92], 0, "S", 3, rules=rules(third_double=True))["mp"] == [0, 128]


def test_valat_and_kirtik():
    assert R.score_mp([182, 0], 0, "S", valat=0)["mp"] == [27, 0]
    assert R.score_mp([182, 0], 0, "S", 1, valat=0)["mp"] == [18 * 2 + 9, 0]  # not multiplied
    assert R.score_mp([260, 0], 0, "NT", valat=0, rules=COMMON)["mp"] == [26 + 18, 0]
    assert R.score_mp([260, 0], 0, "NT", valat=0, rules=BULGARIAN)["mp"] == [26 + 9, 0]
    kirtik = rules(kirtik=True)
    assert R.score_mp([182, 0], 0, "S", valat=0, rules=kirtik)["mp"] == [27, -10]
    # defenders take every trick: taker inside and suffering a valat: -10 once
    assert R.score_mp([0, 162], 0, "S", valat=1, rules=kirtik)["mp"] == [-10, 16 + 9]
    assert R.score_mp([70, 92], 0, "S", rules=kirtik)["mp"] == [-10, 16]
    assert R.score_mp([92, 70], 0, "S", rules=kirtik)["mp"] == [9, 7]  # undoubled: nobody inside
    assert R.score_mp([92, 70], 0, "S", 1, rules=kirtik)["mp"] == [32, -10]
    assert R.score_mp([81, 81], 0, "S", rules=kirtik) == {
        "outcome": "hanging",
        "mp": [0, 8],
        "held_mp": [8, 0],
    }


def test_french_scoring_function():
    # made: each its raw
    assert R._score_french([100, 62], [20, 0], [20, 0], 0) == ("made", [140, 62], [0, 0])
    # failed: defenders 162 + every run/carre + own belote; taker its belote
    assert R._score_french([60, 102], [0, 50], [20, 0], 0) == ("inside", [20, 212], [0, 0])
    assert R._score_french([40, 122], [50, 0], [20, 20], 0) == ("inside", [20, 232], [0, 0])
    # litige: defenders their raw, taker its belote now, the rest held
    assert R._score_french([61, 101], [20, 0], [20, 0], 0) == ("hanging", [20, 101], [81, 0])


# ---------------------------------------------------------------- replay


SPLIT_HANDS = [" ".join(r + s for r in R.RANKS) for s in "CDHS"]


def split_plays(order=R.RANKS):
    """Seat 0 (all clubs) leads every trick; the others play suit by suit."""
    plays = []
    for r in order:
        plays += [r + "C", r + "D", r + "H", r + "S"]
    return plays


def record(strain="C", taker=0, doubling=0, ruleset="common", plays=None, **extra):
    rec = {
        "ruleset": ruleset,
        "dealer": 3,
        "hands": SPLIT_HANDS,
        "contract": {"strain": strain, "taker": taker, "doubling": doubling},
        "plays": split_plays() if plays is None else plays,
    }
    rec.update(extra)
    return rec


def kinds(decls):
    return [[(e["seat"], e["kind"], " ".join(e["cards"]), e["points"]) for e in t] for t in decls]


def test_replay_valat_common():
    res = R.replay(record())
    assert set(res) == {
        "tricks",
        "to_play",
        "legal",
        "illegal",
        "card_points",
        "declarations",
        "raw",
        "outcome",
        "valat",
        "mp",
        "held_mp",
    }
    assert len(res["tricks"]) == 8 and all(
        t["winner"] == 0 and t["leader"] == 0 for t in res["tricks"]
    )
    assert res["to_play"] is None and res["legal"] is None and res["illegal"] is None
    assert res["card_points"] == [162, 0]
    # equal best runs (quintes to the ace) cancel; belote counts
    assert kinds(res["declarations"]) == [[(0, "belote", "QC KC", 20)], []]
    assert res["raw"] == [182, 0]
    assert res["outcome"] == "made" and res["valat"] == 0
    assert res["mp"] == [27, 0] and res["held_mp"] == [0, 0]
    res = R.replay(record(options={"kirtik": True}))
    assert res["mp"] == [27, -10]
    res = R.replay(record(taker=1))
    assert res["outcome"] == "inside" and res["mp"] == [27, 0]


def test_replay_belote_silent_and_at_discards():
    res = R.replay(record(belote_silent=[0]))
    assert res["declarations"] == [[], []] and res["raw"] == [162, 0]
    # AT: seats 1-3 play K/Q as discards on clubs
    res = R.replay(record("AT"))
    assert kinds(res["declarations"]) == [
        [(0, "belote", "QC KC", 20), (2, "belote", "QH KH", 20)],
        [(1, "belote", "QD KD", 20), (3, "belote", "QS KS", 20)],
    ]
    assert res["card_points"] == [258, 0] and res["raw"] == [298, 40]
    assert res["mp"] == [30 + 9, 4]
    res = R.replay(record("AT", ruleset="bulgarian"))  # belote_on_discard off
    assert kinds(res["declarations"]) == [[(0, "belote", "QC KC", 20)], []]
    assert res["raw"] == [278, 0] and res["mp"] == [28 + 9, 0]


def test_replay_french_capot():
    res = R.replay(record(ruleset="french"))
    assert kinds(res["declarations"])[0] == [
        (0, "quinte", "TC JC QC KC AC", 100),
        (0, "tierce", "7C 8C 9C", 20),
        (0, "belote", "QC KC", 20),
        (2, "quinte", "TH JH QH KH AH", 100),
        (2, "tierce", "7H 8H 9H", 20),
    ]
    assert res["declarations"][1] == []
    assert res["card_points"] == [162, 0]
    assert res["raw"] == [250 + 240 + 20, 0] and res["mp"] == [510, 0]
    res = R.replay(record(ruleset="french", taker=1))
    assert res["outcome"] == "inside" and res["mp"] == [510, 0]
    res = R.replay(record("AT", ruleset="french", options={"french_allow_nt_at": True}))
    # capot 258 + 88; all runs are in trump in AT, so seat 0 (first from d+1) wins
    assert res["raw"] == [346 + 240 + 40, 40] and res["mp"] == [626, 40]
    with pytest.raises(ValueError):
        R.replay(record("AT", ruleset="french"))
    with pytest.raises(ValueError):
        R.replay(record(ruleset="french", doubling=1))


def test_replay_partial_and_illegal():
    res = R.replay(record(plays=split_plays()[:6]))
    assert [t["cards"] for t in res["tricks"]] == [["7C", "7D", "7H", "7S"], ["8C", "8D"]]
    assert res["tricks"][1] == {"leader": 0, "cards": ["8C", "8D"], "winner": None}
    assert res["to_play"] == 2 and res["legal"] == cards("8H 9H TH JH QH KH AH")
    assert res["illegal"] is None and res["mp"] is None and res["raw"] is None
    res = R.replay(record(plays=[]))
    assert res["tricks"] == [] and res["to_play"] == 0 and len(res["legal"]) == 8
    res = R.replay(record(plays=["7C", "8C", "9C"]))
    assert res["illegal"] == {"trick": 0, "seat": 1, "card": "8C", "rule": "not_in_hand"}
    assert res["to_play"] == 1 and res["legal"] == cards("7D 8D 9D TD JD QD KD AD")
    assert res["tricks"] == [{"leader": 0, "cards": ["7C"], "winner": None}]
    assert res["card_points"] is None and res["declarations"] is None
    res = R.replay(record(plays=split_plays()[:4] + ["7C"]))  # already played
    assert res["illegal"] == {"trick": 1, "seat": 0, "card": "7C", "rule": "not_in_hand"}
    assert len(res["tricks"]) == 1


def test_replay_revoke_penalty():
    plays = ["7C", "8C"]
    res = R.replay(record(plays=plays, options={"revoke_penalty": True}))
    assert res["illegal"]["rule"] == "not_in_hand"
    # seat 0 had played: its runs are announced; everything goes to team 0
    assert kinds(res["declarations"]) == [
        [(0, "quinte", "TC JC QC KC AC", 100), (0, "tierce", "7C 8C 9C", 20)],
        [],
    ]
    assert res["card_points"] == [0, 0] and res["raw"] == [282, 0]
    assert res["outcome"] == "made" and res["mp"] == [28, 0] and res["valat"] is None
    res = R.replay(record(plays=plays, taker=1, doubling=1, options={"revoke_penalty": True}))
    assert res["outcome"] == "inside" and res["mp"] == [56, 0]
    res = R.replay(record("NT", plays=plays, options={"revoke_penalty": True}))
    assert res["raw"] == [260, 0]


def test_replay_record_errors():
    with pytest.raises(ValueError):
        R.replay(dict(record(), play=[]))  # §14.17 typo
    R.replay(dict(record(), id="x", _note=1))  # allowed
    with pytest.raises(ValueError):
        R.replay(record(plays=["10C"]))
    bad = record()
    bad["hands"] = SPLIT_HANDS[:3] + ["7S 8S 9S TS JS QS KS AC"]
    with pytest.raises(ValueError):
        R.replay(bad)
    with pytest.raises(ValueError):
        R.replay(record(doubling=3))
    R.replay(record(doubling=3, options={"third_double": True}))


def random_deal(rng):
    deck = list(R.ALL_CARDS)
    rng.shuffle(deck)
    return [deck[8 * i : 8 * i + 8] for i in range(4)]


def random_record(rng, ruleset="common", options=None):
    hands = random_deal(rng)
    strain = rng.choice(R.STRAINS if ruleset != "french" else "CDHS")
    dealer = rng.randrange(4)
    opts = R.resolve_rules({"ruleset": ruleset, "options": options or {}})
    hs = [set(h) for h in hands]
    plays, trick, leader = [], [], (dealer + 1) % 4
    for _ in range(32):
        seat = (leader + len(trick)) % 4
        c = rng.choice(R.sort_cards(R._legal(hs[seat], trick, strain, opts)))
        hs[seat].remove(c)
        plays.append(c)
        trick.append(c)
        if len(trick) == 4:
            leader = R.trick_winner(trick, leader, strain)
            trick = []
    return {
        "ruleset": ruleset,
        "options": options or {},
        "dealer": dealer,
        "hands": [" ".join(h) for h in hands],
        "contract": {
            "strain": strain,
            "taker": rng.randrange(4),
            "doubling": rng.randrange(3) if ruleset != "french" else 0,
        },
        "plays": plays,
    }


@pytest.mark.parametrize("ruleset", ["common", "bulgarian", "french"])
def test_random_playouts(ruleset):
    rng = random.Random(12345)
    for _ in range(150):
        rec = random_record(rng, ruleset)
        res = R.replay(rec)
        strain = rec["contract"]["strain"]
        assert res["illegal"] is None and res["to_play"] is None
        assert sum(res["card_points"]) == R.CARD_TOTAL[strain]
        assert sum(t["winner"] is not None for t in res["tricks"]) == 8
        assert sorted(c for t in res["tricks"] for c in t["cards"]) == sorted(R.ALL_CARDS)
        decl_pts = [sum(e["points"] for e in t) for t in res["declarations"]]
        factor = 2 if strain == "NT" and ruleset != "french" else 1
        if res["valat"] is None or ruleset != "french":
            assert res["raw"] == [factor * (res["card_points"][t] + decl_pts[t]) for t in (0, 1)]
        taker_team = rec["contract"]["taker"] % 2
        t, dd = res["raw"][taker_team], res["raw"][1 - taker_team]
        assert res["outcome"] == ("made" if t > dd else "inside" if t < dd else "hanging")
        if (
            ruleset != "french"
            and sum(decl_pts) == 0
            and res["valat"] is None
            and res["outcome"] != "hanging"
        ):
            total = 16 if strain in "CDHS" else 26
            assert sum(res["mp"]) == total * 2 ** rec["contract"]["doubling"]
        # replaying a prefix gives the same legal set as the reference
        k = rng.randrange(32)
        part = R.replay(dict(rec, plays=rec["plays"][:k]))
        assert rec["plays"][k] in part["legal"]


def test_random_illegal_cards_match_illegal_rule():
    rng = random.Random(7)
    seen = set()
    for _ in range(60):
        rec = random_record(rng, rng.choice(["common", "bulgarian"]))
        opts = R.resolve_rules({"ruleset": rec["ruleset"]})
        strain = rec["contract"]["strain"]
        hands = [set(h.split()) for h in rec["hands"]]
        trick, leader = [], (rec["dealer"] + 1) % 4
        for i, c in enumerate(rec["plays"]):
            seat = (leader + len(trick)) % 4
            bad = sorted(hands[seat] - R._legal(hands[seat], trick, strain, opts))
            if bad:
                b = rng.choice(bad)
                rule = R.illegal_rule(
                    hands[seat], trick, leader, strain, {"ruleset": rec["ruleset"]}, b
                )
                res = R.replay(dict(rec, plays=rec["plays"][:i] + [b]))
                assert res["illegal"] == {"trick": i // 4, "seat": seat, "card": b, "rule": rule}
                assert res["to_play"] == seat and b not in res["legal"]
                seen.add(rule)
            hands[seat].remove(c)
            trick.append(c)
            if len(trick) == 4:
                leader = R.trick_winner(trick, leader, strain)
                trick = []
    assert {"follow_suit", "raise", "trump", "overtrump", "undertrump"} <= seen


# ---------------------------------------------------------------- game (§9)


def deal(outcome, taker_team, mp, held=(0, 0), doubling=0, valat=None):
    return {
        "outcome": outcome,
        "taker_team": taker_team,
        "doubling": doubling,
        "valat": valat,
        "mp": list(mp),
        "held_mp": list(held),
    }


def test_play_game_target():
    deals = [deal("made", 0, [100, 60]), deal("made", 1, [60, 0]), deal("made", 0, [1, 1])]
    assert R.play_game(deals, COMMON) == {
        "scores": [160, 60],
        "held": 0,
        "ended_after": 1,
        "winner": 0,
    }
    # equal totals play on
    deals = [deal("made", 0, [151, 151]), deal("made", 0, [10, 6])]
    assert R.play_game(deals, COMMON)["ended_after"] == 1
    # a valat deal does not end the game
    deals = [deal("made", 0, [160, 0], valat=0), deal("made", 1, [0, 16])]
    assert R.play_game(deals, COMMON) == {
        "scores": [160, 16],
        "held": 0,
        "ended_after": 1,
        "winner": 0,
    }
    # not ended yet
    assert R.play_game([deal("made", 0, [9, 7])], COMMON) == {
        "scores": [9, 7],
        "held": 0,
        "ended_after": None,
        "winner": None,
    }


def test_play_game_held_points():
    deals = [
        deal("hanging", 0, [0, 8], [8, 0]),
        deal("thrown_in", None, [0, 0]),
        deal("inside", 0, [0, 16]),
    ]
    assert R.play_game(deals, COMMON) == {
        "scores": [0, 32],
        "held": 0,
        "ended_after": None,
        "winner": None,
    }
    deals = [
        deal("hanging", 0, [0, 0], [16, 16], doubling=1),
        deal("hanging", 1, [8, 0], [0, 8]),
        deal("made", 1, [7, 9]),
    ]
    assert R.play_game(deals, COMMON)["scores"] == [15, 9 + 40]
    # held points block the end of the game
    deals = [deal("hanging", 0, [155, 0], [8, 0]), deal("made", 0, [9, 7])]
    assert R.play_game(deals, COMMON) == {
        "scores": [172, 7],
        "held": 0,
        "ended_after": 1,
        "winner": 0,
    }


def test_play_game_third_double():
    r = rules(third_double=True)
    deals = [
        deal("made", 0, [50, 0]),
        deal("inside", 0, [0, 128], doubling=3),
        deal("made", 0, [99, 0]),
    ]
    assert R.play_game(deals, r) == {"scores": [50, 128], "held": 0, "ended_after": 1, "winner": 1}
    deals = [deal("made", 1, [100, 0]), deal("made", 1, [0, 8], doubling=3)]
    assert R.play_game(deals, r)["winner"] == 1  # deal winner, not the leader


def test_play_game_french_target():
    deals = [deal("made", 0, [600, 100]), deal("made", 0, [300, 0]), deal("made", 0, [162, 0])]
    assert R.play_game(deals, FRENCH)["ended_after"] == 2


# ---------------------------------------------------------------- perft


def test_perft_closed_form():
    # seat 0 holds every trump; nobody else can follow or trump (STYLE R11)
    hands = [[r + s for r in R.RANKS] for s in "CDHS"]
    expected = [1, 8, 64, 512, 4096, 8**4 * 7, 8**4 * 49]
    for depth, n in enumerate(expected):
        assert R.perft(hands, "C", 0, COMMON, depth) == n
    assert R.perft(hands, "AT", 0, BULGARIAN, 5) == 8**4 * 7
    small = [h[:1] for h in hands]
    assert R.perft(small, "C", 0, COMMON, 4) == 1
    assert R.perft(small, "C", 0, COMMON, 5) == 0


def test_perft_depth_one_is_legal_count():
    rng = random.Random(3)
    for _ in range(50):
        hands = random_deal(rng)
        strain = rng.choice(R.STRAINS)
        assert R.perft(hands, strain, 1, COMMON, 1) == 8
        # depth 2: sum over the leader's cards of the follower's legal count
        total = sum(len(R.legal_cards(hands[2], [c], 1, strain, COMMON)) for c in hands[1])
        assert R.perft(hands, strain, 1, COMMON, 2) == total


# ---------------------------------------------------------------- speed


def test_speed():
    rng = random.Random(1)
    hands = random_deal(rng)
    t0 = time.perf_counter()
    for _ in range(2000):
        R.legal_cards(hands[1], [hands[0][0], hands[3][0]], 0, "H", BULGARIAN)
    per_legal = (time.perf_counter() - t0) / 2000
    t0 = time.perf_counter()
    for _ in range(500):
        R.hand_declarations(cards("KC KD KS KH 9H TH JH QH"), "S", COMMON)
    per_decl = (time.perf_counter() - t0) / 500
    assert per_legal < 2e-4 and per_decl < 1e-3
