"""Options not covered clause by clause elsewhere, each on and off (docs/rules.md
6.1, 7, 10, 12)."""

from belote_sim import Rules, replay, score_deal
from belote_sim.deal.declarations import hand_declarations

KINGS_AND_RUN = "KC KD KS KH 9H TH JH QH"  # 14.1


def kinds(entries):
    return sorted((e["kind"], e["points"]) for e in entries)


def test_card_in_one_declaration_on_and_off():
    # on: carré of kings + quarte 9-Q = 150 (the K of hearts is used once)
    on = hand_declarations(KINGS_AND_RUN, "C", Rules.preset("common"))
    assert kinds(on) == [("carre", 100), ("quarte", 50)]
    # off: carré of kings and the whole run 9-K (a quinte) share the K of hearts
    off = hand_declarations(
        KINGS_AND_RUN, "C", Rules.preset("common", card_in_one_declaration=False)
    )
    assert kinds(off) == [("carre", 100), ("quinte", 100)]


def test_nt_four_aces_on_and_off():
    hand = "AC AD AH AS 7C 8C 9C TC"
    assert hand_declarations(hand, "NT", "common") == []
    on = hand_declarations(hand, "NT", Rules.preset("common", nt_four_aces=True))
    assert on == [{"kind": "carre", "cards": ["AC", "AD", "AH", "AS"], "points": 200}]
    # in a suit contract the aces are an ordinary carré (100) and the tierce 7-9... run 7-T
    suit = hand_declarations(hand, "H", Rules.preset("common", nt_four_aces=True))
    assert kinds(suit) == [("carre", 100), ("quarte", 50)]


def test_nt_double_raw_on_and_off():
    on = score_deal((76, 54), (0, 0), (0, 0), (4, 4), "NT", 0, 0, Rules.preset("common"))
    off = score_deal(
        (76, 54), (0, 0), (0, 0), (4, 4), "NT", 0, 0, Rules.preset("common", nt_double_raw=False)
    )
    assert on["raw"] == [152, 108] and off["raw"] == [76, 54]
    # off, NT limit 5: 76 -> 8 (r=6 > 5), 54 -> 5 (r=4)
    assert off["mp"] == [8, 5]


def test_capot_points_option():
    r250 = score_deal((162, 0), (0, 0), (0, 0), (8, 0), "S", 0, 0, "french")
    r252 = score_deal(
        (162, 0), (0, 0), (0, 0), (8, 0), "S", 0, 0, Rules.preset("french", capot_points=252)
    )
    assert r250["mp"] == [250, 0] and r252["mp"] == [252, 0]


HANDS = [
    "7C 8C 9C TC JC QC KC AC",
    "7D 8D 9D TD JD QD KD AD",
    "7H 8H 9H TH JH QH KH AH",
    "7S 8S 9S TS JS QS KS AS",
]


def revoke_record(options):
    # Seat 0 leads AC; seat 1 plays a heart it does not hold -> not_in_hand.
    return {
        "ruleset": "common",
        "options": options,
        "dealer": 3,
        "hands": HANDS,
        "contract": {"strain": "C", "taker": 0, "doubling": 0},
        "plays": ["AC", "7H"],
    }


def test_revoke_penalty_off_scores_nothing():
    out = replay(revoke_record({}))
    assert out["illegal"] == {"trick": 0, "seat": 1, "card": "7H", "rule": "not_in_hand"}
    assert out["raw"] is None and out["mp"] is None


def test_revoke_penalty_on_scores_for_the_other_team():
    # Offender seat 1 (team 1). Announced so far: seat 0's runs (played AC legally):
    # eight clubs = quinte + tierce = 120; no belote announced yet (K/Q not played).
    # Team 0 raw = 162 + 120 = 282 -> 28 (r=2) + team 1: 0 -> made, 28 MP.
    out = replay(revoke_record({"revoke_penalty": True}))
    assert out["raw"] == [282, 0] and out["outcome"] == "made" and out["mp"] == [28, 0]
    assert kinds(out["declarations"][0]) == [("quinte", 100), ("tierce", 20)]
    assert out["declarations"][1] == []
