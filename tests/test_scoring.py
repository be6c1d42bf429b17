"""Deal scoring (docs/rules.md sections 7, 8, 10, 14.9-14.15) and the game (section 9).

Expected values are worked out by hand from docs/rules.md in the comments.
"""

import pytest

from belote_sim import Rules, score_deal, score_game


def sd(
    cards,
    strain="H",
    taker=0,
    doubling=0,
    decl=(0, 0),
    belote=(0, 0),
    tricks=(4, 4),
    rules="common",
):
    return score_deal(cards, decl, belote, tricks, strain, taker, doubling, rules)


# --- 8.2 rounding, the worked examples ------------------------------------------------


def test_example_35_raw_suit_is_3_mp():
    # 35: q=3, r=5 < 6 -> 3.  Other team 127: r=7 > 6 -> 13.
    r = sd((35, 127), taker=1)
    assert r["mp"] == [3, 13] and r["outcome"] == "made"


def test_example_125_at_is_13_mp():
    # AT limit 4: 125 -> r=5 > 4 -> 13; 133 -> r=3 -> 13.
    r = sd((133, 125), strain="AT", taker=0)
    assert r["mp"] == [13, 13]


def test_example_nt_54_card_points_is_11_mp():
    # NT: 54 card points -> 108 raw (x2) -> r=8 > 5 -> 11; 76 -> 152 -> r=2 -> 15.
    r = sd((76, 54), strain="NT", taker=0)
    assert r["raw"] == [152, 108] and r["mp"] == [15, 11]


def test_example_at_two_belotes_both_at_limit():
    # AT, taker 154 (incl. belote 40), defenders 144 -> both r=4: fewer raw (144) rounds
    # up to 15, 154 rounds down to 15; made.
    r = sd((114, 144), strain="AT", taker=0, belote=(40, 0))
    assert r["raw"] == [154, 144] and r["outcome"] == "made" and r["mp"] == [15, 15]


def test_both_at_limit_fewer_raw_rounds_up():
    # 86/76: both r=6 -> 76 (fewer) rounds up to 8, 86 rounds down to 8.
    assert sd((86, 76))["mp"] == [8, 8]
    # 96/66 -> 9 and 7; 126/36 -> 12 and 4.
    assert sd((96, 66))["mp"] == [9, 7]
    assert sd((126, 36))["mp"] == [12, 4]


def test_lone_team_at_limit_rounds_down():
    # 76 (r=6, alone at the limit) -> 7; 86 + 19 declarations = 105 (r=5) -> 10.
    r = sd((76, 86), decl=(0, 19), taker=1)
    assert r["raw"] == [76, 105] and r["mp"] == [7, 10]
    # 115 (r=5) -> 11 and 47 (r=7 > 6) -> 5.
    assert sd((115, 47))["mp"] == [11, 5]


def test_both_at_limit_equal_raw_both_round_down():
    # 14.12: 116/116 in a suit contract -> 11 + 11 (hanging, taker held).
    r = sd((81, 81), decl=(35, 35))
    assert r["raw"] == [116, 116] and r["outcome"] == "hanging"
    assert r["held_mp"] == [11, 0] and r["mp"] == [0, 11]


# --- 8.1 / 8.3 outcome and distribution -------------------------------------------


def test_made_each_team_own_mp():
    assert sd((100, 62))["mp"] == [10, 6]


def test_inside_other_team_takes_sum():
    # taker 0 has 62 -> 6, defenders 100 -> 10: defenders get 16, taker 0.
    r = sd((62, 100))
    assert r["outcome"] == "inside" and r["mp"] == [0, 16]


def test_doubled_made_taker_takes_both_x2():
    # 14.9: doubled made -> defenders inside -> taker gets (10 + 6) * 2.
    r = sd((100, 62), doubling=1)
    assert r["outcome"] == "made" and r["mp"] == [32, 0]


def test_redoubled_inside_x4():
    r = sd((62, 100), doubling=2)
    assert r["outcome"] == "inside" and r["mp"] == [0, 64]


def test_third_double_x8():
    r = sd((100, 62), doubling=3, rules=Rules.preset("common", third_double=True))
    assert r["mp"] == [128, 0]


def test_hanging_plain_taker_held():
    r = sd((81, 81), taker=1)
    # 81 -> 8 each; taker team 1 held, team 0 adds 8 now.
    assert r["outcome"] == "hanging" and r["mp"] == [8, 0] and r["held_mp"] == [0, 8]


def test_hanging_doubled_both_held_multiplied():
    r = sd((81, 81), doubling=1)
    assert r["mp"] == [0, 0] and r["held_mp"] == [16, 16]


# --- 8.6 valat and kirtik -----------------------------------------------------------


def test_valat_plus_9_not_multiplied():
    # taker team 0 takes all tricks: 162 -> 16 (+ 0 for team 1); doubled: (16+0)*2 + 9.
    r = sd((162, 0), tricks=(8, 0), doubling=1)
    assert r["valat"] == 0 and r["mp"] == [41, 0]


def test_valat_nt_common_is_18_bulgarian_9():
    # NT 130 -> 260 raw -> 26; + 18 (common) / + 9 (bulgarian).
    assert sd((130, 0), strain="NT", tricks=(8, 0))["mp"] == [44, 0]
    assert sd((130, 0), strain="NT", tricks=(8, 0), rules="bulgarian")["mp"] == [35, 0]


def test_valat_by_defenders():
    r = sd((0, 162), tricks=(0, 8))
    assert r["outcome"] == "inside" and r["valat"] == 1 and r["mp"] == [0, 25]


def test_kirtik_inside_team_loses_10_once():
    k = Rules.preset("bulgarian", kirtik=True)
    assert sd((62, 100), rules=k)["mp"] == [-10, 16]
    # inside and suffering a valat: still -10 once
    assert sd((0, 162), tricks=(0, 8), rules=k)["mp"] == [-10, 25]


def test_kirtik_valat_hits_made_defenders():
    k = Rules.preset("bulgarian", kirtik=True)
    # taker made with valat; defenders have 20 of declarations -> 2 MP - 10.
    r = sd((162, 0), tricks=(8, 0), decl=(0, 20), rules=k)
    assert r["mp"] == [16 + 9, 2 - 10]


def test_kirtik_not_multiplied():
    k = Rules.preset("bulgarian", kirtik=True)
    assert sd((62, 100), doubling=1, rules=k)["mp"] == [-10, 32]


# --- 10 French scoring ---------------------------------------------------------------


def test_french_made_raw_points():
    assert sd((100, 62), rules="french")["mp"] == [100, 62]


def test_french_failed():
    # taker 0: 62 + belote 20 = 82 < 100 -> dedans; defenders 162 + all runs/carrés (20
    # of the taker's tierce scored? here decl=(20, 0)) + own belote 0; taker: belote.
    r = sd((62, 100), decl=(0, 0), belote=(20, 0), rules="french")
    assert r["outcome"] == "inside" and r["mp"] == [20, 162]
    r = sd((42, 120), decl=(50, 0), belote=(0, 0), rules="french")
    # raw 92 vs 120 -> failed: defenders 162 + 50 (the taker's scored quarte) = 212
    assert r["mp"] == [0, 212]


def test_french_litige_held():
    # 71 + 20 belote = 91 vs 91 -> litige: defenders 91 now, taker belote 20 now, 71 held.
    r = sd((71, 91), belote=(20, 0), rules="french")
    assert r["outcome"] == "hanging" and r["mp"] == [20, 91] and r["held_mp"] == [71, 0]


def test_french_capot_250():
    r = sd((162, 0), tricks=(8, 0), decl=(20, 0), rules="french")
    assert r["raw"] == [270, 0] and r["mp"] == [270, 0] and r["valat"] == 0


def test_french_capot_at_nt_totals():
    f = Rules.preset("french", french_allow_nt_at=True)
    assert sd((258, 0), strain="AT", tricks=(8, 0), rules=f)["raw"] == [346, 0]
    assert sd((130, 0), strain="NT", tricks=(8, 0), rules=f)["raw"] == [218, 0]


def test_french_defenders_capot_failed():
    r = sd((0, 162), tricks=(0, 8), rules="french")
    assert r["mp"] == [0, 250]


# --- bad input ----------------------------------------------------------------------


def test_score_deal_rejects_bad_input():
    with pytest.raises(ValueError, match="doubling"):
        sd((100, 62), doubling=1, rules="french")
    with pytest.raises(ValueError, match="tricks"):
        sd((100, 62), tricks=(4, 3))
    with pytest.raises(ValueError, match="strain"):
        sd((100, 62), strain="X")


# --- 9 the game ------------------------------------------------------------------------


def deal(outcome, mp, held=(0, 0), taker=0, valat=None, doubling=0):
    return dict(
        outcome=outcome,
        mp=list(mp),
        held_mp=list(held),
        taker_team=taker,
        valat=valat,
        doubling=doubling,
    )


def test_game_ends_at_151():
    g = score_game([deal("made", (100, 62)), deal("made", (60, 102))])
    assert g == {"scores": [160, 164], "held": 0, "ended_after": 1, "winner": 1}


def test_game_plays_on_when_equal():
    g = score_game([deal("made", (160, 160))])
    assert g["ended_after"] is None and g["winner"] is None


def test_game_no_end_on_valat():
    g = score_game([deal("made", (150, 0)), deal("made", (25, 0), valat=0), deal("made", (10, 6))])
    assert g["ended_after"] == 2 and g["scores"] == [185, 6]


def test_hanging_points_go_to_next_winner():
    # deal 1 hangs: taker 0's 8 held, team 1 adds 8; deal 2 (thrown in) decides nothing;
    # deal 3: taker 1 inside -> defenders (team 0) win the deal and take the pot.
    g = score_game(
        [
            deal("hanging", (0, 8), held=(8, 0)),
            dict(outcome="thrown_in"),
            deal("inside", (16, 0), taker=1),
        ]
    )
    assert g["scores"] == [24, 8] and g["held"] == 0


def test_no_end_while_points_held_and_pot_chains():
    # deal 1 hangs (taker team 1 held 8) while team 0 reaches 152: no end yet.
    g = score_game([deal("made", (140, 0)), deal("hanging", (12, 0), held=(0, 8), taker=1)])
    assert g["ended_after"] is None and g["held"] == 8 and g["scores"] == [152, 0]
    # the pot chains over another hanging deal (doubled: both held) ...
    g = score_game(
        [
            deal("made", (140, 0)),
            deal("hanging", (12, 0), held=(0, 8), taker=1),
            deal("hanging", (0, 0), held=(16, 16), doubling=1),
        ]
    )
    assert g["held"] == 40 and g["ended_after"] is None
    # ... and the next decided deal (made by taker team 1) takes all 40; team 0 has
    # 152 + 5 = 157 > 11 + 40 = 51 and nothing is held: the game ends.
    g = score_game(
        [
            deal("made", (140, 0)),
            deal("hanging", (12, 0), held=(0, 8), taker=1),
            deal("hanging", (0, 0), held=(16, 16), doubling=1),
            deal("made", (5, 11), taker=1),
        ]
    )
    assert g == {"scores": [157, 51], "held": 0, "ended_after": 3, "winner": 0}


def test_third_double_decides_game():
    rules = Rules.preset("common", third_double=True)
    g = score_game([deal("inside", (0, 128), doubling=3)], rules)
    assert g["ended_after"] == 0 and g["winner"] == 1


def test_french_game_target_1000():
    g = score_game([deal("made", (900, 62)), deal("made", (120, 42))], "french")
    assert g["ended_after"] == 1 and g["winner"] == 0
