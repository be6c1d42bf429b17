"""Hand-computed rule-clause tests for ``belote_sim.deal.replay``.

Every expected value below was derived by hand from shared/RULES.md (section
numbers in the comments); none was produced by running an implementation.

Conventions used in the comments:
- "T3 L2: JD KD 8D AD -> s1, 17" means: trick 3, led by seat 2, cards in
  playing order (seat 2, 3, 0, 1), won by seat 1, worth 17 card points.
- Trump order J 9 A T K Q 8 7 (points 20 14 11 10 4 3 0 0); plain order
  A T K Q J 9 8 7 (points 11 10 4 3 2 0 0 0)  (docs/rules.md section 2).
- Team 0 = seats {0, 2}, team 1 = seats {1, 3}.
- Illegal-card trick indices are taken as 0-based (index into ``tricks``).
"""

import pytest

from belote_sim import format_card, parse_card, replay

SUITS = "CDHS"
RANKS = "789TJQKA"
DECK = {r + s for s in SUITS for r in RANKS}


def cards(text):
    return text.split()


def sort_key(card):
    # RULES/API: card lists sorted by suit C, D, H, S then rank 7 8 9 T J Q K A
    return (SUITS.index(card[1]), RANKS.index(card[0]))


def srt(text):
    return sorted(cards(text), key=sort_key)


def rec(
    hands,
    plays="",
    strain="H",
    taker=0,
    doubling=0,
    ruleset="common",
    dealer=3,
    options=None,
    **extra,
):
    record = {
        "ruleset": ruleset,
        "dealer": dealer,
        "hands": list(hands),
        "contract": {"strain": strain, "taker": taker, "doubling": doubling},
        "plays": cards(plays) if isinstance(plays, str) else list(plays),
    }
    if options is not None:
        record["options"] = options
    record.update(extra)
    return record


def decl(seat, kind, card_text, points):
    return {"seat": seat, "kind": kind, "cards": cards(card_text), "points": points}


def norm(decls):
    # order of declarations inside one team's list is not specified: compare as a set
    return sorted((d["seat"], d["kind"], tuple(d["cards"]), d["points"]) for d in decls)


def assert_decls(out, team0, team1):
    assert norm(out["declarations"][0]) == norm(team0)
    assert norm(out["declarations"][1]) == norm(team1)


SCORING_FIELDS = ("card_points", "declarations", "raw", "outcome", "valat", "mp", "held_mp")


def assert_unscored(out):
    for field in SCORING_FIELDS:
        assert out[field] is None, field


# ---------------------------------------------------------------------------
# Deals for short (partial) replays.  Dealer 3, so seat 0 leads trick 1.
# ---------------------------------------------------------------------------

# H1: seat 1 void in clubs (trumps JH KH); seat 2 void in clubs (trumps 9H TH 7H);
# seat 3 void in diamonds.
H1 = [
    "AC TC 8H QH AD TD AS TS",
    "JH KH KD QD KS QS JS 8S",
    "9H TH 7H JD 9D 8D 7D 9S",
    "KC QC JC 9C 8C 7C AH 7S",
]
# H2: seat 2 void in clubs, one trump 7H; seat 3 holds QH AH.
H2 = [
    "8H 9H TH JH AC AD TD AS",
    "KH 7C 8C 9C TC KD QD KS",
    "7H JD 9D 8D 7D QS JS TS",
    "QH AH JC QC KC 9S 8S 7S",
]
# H3: seat 1 void in clubs with one trump KH; seat 3 void in clubs with JH 8H AH.
H3 = [
    "7C 8C 9C AD TD AS TS 7H",
    "KH 9D 8D 7D QD 9S 8S 7S",
    "TC JC QC KC AC 9H TH QH",
    "JH 8H AH JD KD JS QS KS",
]

# ---------------------------------------------------------------------------
# Full deals.
# ---------------------------------------------------------------------------

# S: every seat holds exactly two cards of each suit, so every trick is one suit
# (everyone can always follow).  Different play orders give different splits.
S = [
    "JH 7H AC 9C 7D 8D KS 9S",
    "9H 8H TC 8C AD 9D QS JS",
    "AH KH KC 7C TD JD 8S 7S",
    "TH QH QC JC KD QD AS TS",
]
# Trump H.  T1 L0: 9C 8C 7C QC -> s3, 3 | T2 L3: JC AC TC KC -> s0, 2+11+10+4=27
# T3 L0: 7D 9D TD QD -> s2 (T), 10+3=13 | T4 L2: JD KD 8D AD -> s1, 2+4+11=17
# T5 L1: 8H AH TH 7H -> s2, 11+10=21 (s0 may keep JH: partner winning and
#        raise_over_partner is off in common)
# T6 L2: KH QH JH 9H -> s0 (JH), 4+3+20+14=41 | T7 L0: 9S JS 7S TS -> s3, 2+10=12
# T8 L3: AS KS QS 8S -> s3, 11+4+3=18+10(last)=28
# team 0: 27+13+21+41 = 102; team 1: 3+17+12+28 = 60 (sum 162)
S_H_102 = (
    "9C 8C 7C QC JC AC TC KC 7D 9D TD QD JD KD 8D AD "
    "8H AH TH 7H KH QH JH 9H 9S JS 7S TS AS KS QS 8S"
)
# Trump H.  T1 3 (s3), T2 27 (s0), T3 13 (s2), T4 17 (s1) as above
# T5 L1: 8H AH TH JH -> s0 (JH), 11+10+20=41 | T6 L0: 7H 9H KH QH -> s1 (9H), 14+4+3=21
# T7 L1: JS 7S TS 9S -> s3, 2+10=12 | T8 L3: AS KS QS 8S -> s3, 18+10=28
# team 0: 27+13+41 = 81; team 1: 3+17+21+12+28 = 81
S_H_81 = (
    "9C 8C 7C QC JC AC TC KC 7D 9D TD QD JD KD 8D AD "
    "8H AH TH JH 7H 9H KH QH JS 7S TS 9S AS KS QS 8S"
)
# Trump H.  T1 L0: 9C 8C 7C JC -> s3, 2 | T2 L3: QC AC TC KC -> s0, 3+11+10+4=28
# T3 L0: 7D 9D TD KD -> s2, 10+4=14 | T4 L2: AH QH 7H 9H -> s1 (9H beats AH), 11+3+14=28
# T5 L1: AD JD QD 8D -> s1, 11+2+3=16 | T6 L1: JS 7S TS 9S -> s3, 12
# T7 L3: AS KS QS 8S -> s3, 18 | T8 L3: TH JH 8H KH -> s0, 10+20+4=34+10=44
# team 0: 28+14+44 = 86; team 1: 2+28+16+12+18 = 76
S_H_86 = (
    "9C 8C 7C JC QC AC TC KC 7D 9D TD KD AH QH 7H 9H "
    "AD JD QD 8D JS 7S TS 9S AS KS QS 8S TH JH 8H KH"
)
# Trump D (seat 3 holds KD QD: belote).  Legal in common and french.
# T1 L0: 9C 8C 7C JC -> s3, 2 | T2 L3: QC AC TC KC -> s0, 28
# T3 L0: 7D AD JD QD -> s2 (JD), 11+20+3=34 | T4 L2: TD KD 8D 9D -> s1 (9D), 10+4+14=28
# T5 L1: 8H KH QH 7H -> s2, 4+3=7 | T6 L2: 7S TS 9S JS -> s3, 10+2=12
# T7 L3: AS KS QS 8S -> s3, 18 | T8 L3: TH JH 9H AH -> s2, 10+2+11=23+10=33
# team 0: 28+34+7+33 = 102; team 1: 2+28+12+18 = 60
S_D_102 = (
    "9C 8C 7C JC QC AC TC KC 7D AD JD QD TD KD 8D 9D "
    "8H KH QH 7H 7S TS 9S JS AS KS QS 8S TH JH 9H AH"
)
# Trump D.  T1 2 (s3), T2 28 (s0)
# T3 L0: 7D 9D JD QD -> s2, 14+20+3=37 | T4 L2: TD KD 8D AD -> s1, 10+4+11=25
# T5 L1: 8H KH TH 7H -> s3, 4+10=14 | T6 L3: TS 9S JS 7S -> s3, 12
# T7 L3: AS KS QS 8S -> s3, 18 | T8 L3: QH JH 9H AH -> s2, 3+2+11=16+10=26
# team 0: 28+37+26 = 91; team 1: 2+25+14+12+18 = 71
S_D_91 = (
    "9C 8C 7C JC QC AC TC KC 7D 9D JD QD TD KD 8D AD "
    "8H KH TH 7H TS 9S JS 7S AS KS QS 8S QH JH 9H AH"
)
# Trump D.  T1 2 (s3), T2 28 (s0), T3 34 (s2), T4 28 (s1) as in S_D_102
# T5 L1: 8H KH TH JH -> s3, 4+10+2=16 | T6 L3: QH 7H 9H AH -> s2, 3+11=14
# T7 L2: 7S TS 9S JS -> s3, 12 | T8 L3: AS KS QS 8S -> s3, 18+10=28
# team 0: 28+34+14 = 76; team 1: 2+28+16+12+28 = 86
S_D_76 = (
    "9C 8C 7C JC QC AC TC KC 7D AD JD QD TD KD 8D 9D "
    "8H KH TH JH QH 7H 9H AH 7S TS 9S JS AS KS QS 8S"
)
# NT (all suits plain).  T1 L0: 9C 8C 7C JC -> s3, 2 | T2 L3: QC AC TC KC -> s0, 28
# T3 L0: 7D 9D TD KD -> s2, 14 | T4 L2: JD QD 8D AD -> s1, 2+3+11=16
# T5 L1: 8H KH QH 7H -> s2, 7 | T6 L2: AH TH JH 9H -> s2, 11+10+2=23
# T7 L2: 7S TS 9S JS -> s3, 12 | T8 L3: AS KS QS 8S -> s3, 18+10=28
# team 0: 28+14+7+23 = 72; team 1: 2+16+12+28 = 58 (sum 130)
S_NT_72 = (
    "9C 8C 7C JC QC AC TC KC 7D 9D TD KD JD QD 8D AD "
    "8H KH QH 7H AH TH JH 9H 7S TS 9S JS AS KS QS 8S"
)
# AT (every suit in trump order, raise on every suit).
# T1 L0: 9C 8C 7C JC -> s3 (JC), 14+20=34 | T2 L3: QC AC TC KC -> s0 (AC), 3+11+10+4=28
# T3 L0: 7D 9D JD QD -> s2 (JD), 14+20+3=37 | T4 L2: TD KD 8D AD -> s1 (AD), 10+4+11=25
# T5 L1: 8H AH TH JH -> s0 (JH), 11+10+20=41 | T6 L0: 7H 9H KH QH -> s1 (9H), 14+4+3=21
# T7 L1: QS 7S AS 9S -> s0 (9S), 3+11+14=28 | T8 L0: KS JS 8S TS -> s1 (JS), 4+20+10=34+10=44
# team 0: 28+37+41+28 = 134; team 1: 34+25+21+44 = 124 (sum 258)
S_AT_134 = (
    "9C 8C 7C JC QC AC TC KC 7D 9D JD QD TD KD 8D AD "
    "8H AH TH JH 7H 9H KH QH QS 7S AS 9S KS JS 8S TS"
)

# V1 (RULES 14.1 hand for seat 0), trump H: seat 0 draws trumps, others discard
# their aces and tens, seat 0 takes all 8 tricks.
V1 = [
    "KC KD KS KH 9H TH JH QH",
    "AH AC JC 8C TD 7D QS 9S",
    "8H TC 7C AD JD 8D TS 7S",
    "7H QC 9C QD 9D AS JS 8S",
]
# T1 JH AH 8H 7H (31) T2 9H AC AD AS (47) T3 TH TD TC JS (32) T4 QH QS TS QC (19)
# T5 KH JC JD QD (11) T6 KC 8C 7C 9C (4) T7 KD 7D 8D 9D (4) T8 KS 9S 7S 8S (4+10)
# all won by seat 0: 162 card points.
V1_PLAYS = (
    "JH AH 8H 7H 9H AC AD AS TH TD TC JS QH QS TS QC "
    "KH JC JD QD KC 8C 7C 9C KD 7D 8D 9D KS 9S 7S 8S"
)

# V2 (RULES 14.2 hand for seat 0), trump H, seat 0 takes all tricks.
V2 = [
    "QC QD QS QH TH JH KH AH",
    "9H AC 7C TD 9D KS JS 8S",
    "8H KC JC 8C AD 7D TS 9S",
    "7H TC 9C KD JD 8D AS 7S",
]
V2_PLAYS = (
    "JH 9H 8H 7H AH AC KC TC TH TD AD KD KH KS TS AS "
    "QH JS JC JD QC 7C 8C 9C QD 9D 7D 8D QS 8S 9S 7S"
)

# V3: seat 0 holds all 8 trumps (run of 8), seat 2 a run of 6 in clubs, seat 1 a
# tierce Q-A of diamonds, seat 3 a quarte 8-J of diamonds.  Seat 0 leads trumps
# eight times; nobody else has a trump, so every other card is free.
V3 = [
    "7H 8H 9H TH JH QH KH AH",
    "7C 8C QD KD AD 8S TS QS",
    "9C TC JC QC KC AC 7D 7S",
    "8D 9D TD JD 9S JS KS AS",
]
V3_PLAYS = (
    "JH 7C 9C 8D 9H 8C TC 9D AH QD JC TD TH KD QC JD "
    "KH AD KC 9S QH 8S AC JS 8H TS 7D KS 7H QS 7S AS"
)

# V3b: like V3, but team 1 (seat 3) holds an equal quinte T-A of diamonds.
V3B = [
    "7H 8H 9H TH JH QH KH AH",
    "9C 9D 7S 8S TS JS KS AS",
    "TC JC QC KC AC 7D 8D 9S",
    "TD JD QD KD AD 7C 8C QS",
]
V3B_PLAYS = (
    "JH 9C 7D 7C 9H 9D 8D 8C AH 7S 9S QS TH 8S TC TD "
    "KH TS JC JD QH JS QC QD 8H KS KC KD 7H AS AC AD"
)

# V4: carre of jacks (seat 0), carre of nines (seat 1), four 8s (seat 3).  Trump H.
V4 = [
    "JC 7C JD JH AH TH KH JS",
    "9C 9D 9H 9S TD QD TS QS",
    "QH 7H AC KC AD AS KD KS",
    "8C 8D 8H 8S TC QC 7D 7S",
]
# T1 L0: JH 9H QH 8H -> s0, 20+14+3=37 | T2 L0: AH TD 7H TC -> s0, 11+10+10=31
# T3 L0: TH TS KD 7D -> s0, 10+10+4=24 | T4 L0: KH QD KS 7S -> s0, 4+3+4=11
# T5 L0: 7C 9C AC QC -> s2, 11+3=14 | T6 L2: AD 8D JD 9D -> s2, 11+2=13
# T7 L2: AS 8S JS 9S -> s2, 13 | T8 L2: KC 8C JC QS -> s2, 4+2+3=9+10=19
# team 0 takes every trick: 37+31+24+11+14+13+13+19 = 162.
V4_PLAYS = (
    "JH 9H QH 8H AH TD 7H TC TH TS KD 7D KH QD KS 7S "
    "7C 9C AC QC AD 8D JD 9D AS 8S JS 9S KC 8C JC QS"
)

# V4c: trump S.  Seat 0 quarte 9H-QH (top Q); seat 1 quarte TD-KD (top K) plus
# tierce 7C-9C.
V4C = [
    "9H TH JH QH JS 9S AC 7D",
    "7C 8C 9C TD JD QD KD 7S",
    "AS KS TS KC JC AD 7H KH",
    "QS 8S TC QC 8D 9D 8H AH",
]
# T1 L0: AC 7C JC TC -> s0, 11+2+10=23 | T2 L0: 7D TD AD 8D -> s2, 10+11=21
# T3 L2: KC QC 9H(s0 void, partner wins) 8C -> s2, 4+3=7
# T4 L2: 7H 8H TH 7S(s1 void, must trump) -> s1, 10
# T5 L1: 9C TS(s2 trumps) 8S(s3 cannot overtrump: undertrump) JH(s0, partner wins) -> s2, 10+2=12
# T6 L2: KS QS 9S JD -> s0 (9S), 4+3+14+2=23 | T7 L0: JS QD AS 9D -> s0, 20+3+11=34
# T8 L0: QH KD KH AH -> s3, 3+4+4+11=22+10=32
# team 0: 23+21+7+12+23+34 = 120; team 1: 10+32 = 42
V4C_PLAYS = (
    "AC 7C JC TC 7D TD AD 8D KC QC 9H 8C 7H 8H TH 7S "
    "9C TS 8S JH KS QS 9S JD JS QD AS 9D QH KD KH AH"
)

# V5: trump H.  Seat 0 quarte J-A of hearts (trump) + belote; seat 1 quarte J-A of
# spades; seat 2 carre of tens.  Team 0 takes every trick.
V5 = [
    "AC KC AD KD JH QH KH AH",
    "7C 9C 7D 8D JS QS KS AS",
    "TC TD 7H 8H TH 7S 8S TS",
    "8C JC QC 9D JD QD 9H 9S",
]
V5_PLAYS = (
    "JH AS 7H 9H AH KS TH 9S KH QS 8H 8C QH JS 7S 9D "
    "AC 7C TC JC KC 9C 8S QC AD 7D TD JD KD 8D TS QD"
)

# V6: V1's seat 0 again (carre K, quarte 9-Q H, belote); seat 1 holds a run of 6
# in clubs 7-Q (one quinte 8-Q, top Q).  Team 0 takes every trick.
V6 = [
    "KC KD KS KH 9H TH JH QH",
    "7C 8C 9C TC JC QC AH 7D",
    "8H AC 8D TD QD 7S 9S JS",
    "7H 9D JD AD 8S TS QS AS",
]
V6_PLAYS = (
    "JH AH 8H 7H 9H TC AC AS TH JC TD AD QH QC QD TS "
    "KH 9C JS QS KC 7C 7S JD KD 7D 8D 9D KS 8C 9S 8S"
)

# V7: all trumps.  Seat 0 holds all hearts and leads them; seat 1 holds KS QS and
# discards KS (trick 1) and QS (trick 2) on the heart leads.
V7 = [
    "7H 8H 9H TH JH QH KH AH",
    "KS QS 7C 9C JC 7D 9D QD",
    "AS TS 8S 8C TC QC 8D TD",
    "AC KC AD KD JD JS 9S 7S",
]
V7_PLAYS = (
    "JH KS AS AC 9H QS TS KC AH 7C 8S AD TH 9C 8C KD "
    "KH JC TC JD QH 7D QC JS 8H 9D 8D 9S 7H QD TD 7S"
)

# NTV: no trumps; seat 0 holds A T K Q of clubs and diamonds and takes all tricks.
# Seats 1-3 hold runs (AH-JH quarte, TH-7H quarte, KS-JS / 9S-7S tierces).
NTV = [
    "AC TC KC QC AD TD KD QD",
    "JC 9C JD 9D AH KH QH JH",
    "8C 8D TH 9H 8H 7H AS TS",
    "7C 7D KS QS JS 9S 8S 7S",
]
NTV_PLAYS = (
    "AC JC 8C 7C TC 9C 7H KS KC AH 8H QS QC KH 9H JS "
    "AD JD 8D 7D TD 9D TH 9S KD QH AS 8S QD JH TS 7S"
)

ALL_DEALS = [H1, H2, H3, S, V1, V2, V3, V3B, V4, V4C, V5, V6, V7, NTV]


def test_fixture_deals_are_partitions_of_the_deck():
    # sanity check of this file's own data (RULES 1: 32 cards, 8 per seat)
    for hands in ALL_DEALS:
        allc = [c for h in hands for c in cards(h)]
        assert all(len(cards(h)) == 8 for h in hands)
        assert set(allc) == DECK and len(allc) == 32


# ---------------------------------------------------------------------------
# Card parsing (RULES 1)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["TH", "10H", "th", "10\u2665", "T\u2665"])
def test_parse_card_accepts_ten_spellings(text):
    # RULES 1: parsers accept 10S, lower case and suit symbols
    assert format_card(parse_card(text)) == "TH"


def test_parse_format_roundtrip_all_cards():
    for c in DECK:
        assert format_card(parse_card(c)) == c
    assert format_card(parse_card("9\u2663")) == "9C"  # clubs symbol
    assert format_card(parse_card("q\u2660")) == "QS"  # spades symbol, lower case


def test_parse_card_rejects_garbage():
    with pytest.raises(ValueError):
        parse_card("ZZ")


# ---------------------------------------------------------------------------
# Malformed records (API contract, RULES 14.15, 14.17)
# ---------------------------------------------------------------------------


def test_unknown_card_in_hand():
    hands = list(H1)
    hands[3] = "KC QC JC 9C 8C 7C AH 1X"
    with pytest.raises(ValueError, match="1X"):
        replay(rec(hands))


def test_unknown_card_in_plays():
    with pytest.raises(ValueError, match="1X"):
        replay(rec(H1, "AC 1X"))


def test_hand_of_seven_cards():
    hands = list(H1)
    hands[3] = "KC QC JC 9C 8C 7C AH"
    with pytest.raises(ValueError):
        replay(rec(hands))


def test_card_in_two_hands():
    hands = list(H1)
    hands[3] = "KC QC JC 9C 8C 7C AH AS"  # AS is also in seat 0's hand
    with pytest.raises(ValueError, match="AS"):
        replay(rec(hands))


def test_unknown_option_name():
    with pytest.raises(ValueError, match="raise_over_partnr"):
        replay(rec(H1, options={"raise_over_partnr": True}))


def test_unknown_ruleset():
    with pytest.raises(ValueError, match="belgian"):
        replay(rec(H1, ruleset="belgian"))


def test_unknown_top_level_field():
    # RULES 14.17: a typo such as "play" must not silently replay zero cards
    record = rec(H1)
    del record["plays"]
    record["play"] = ["AC"]
    with pytest.raises(ValueError, match="play"):
        replay(record)


def test_id_and_underscore_fields_are_allowed():
    # RULES 14.17: "id" and names starting with "_" are not errors
    out = replay(rec(H1, "AD", id="deal-7", _note="comment"))
    assert out["to_play"] == 1


def test_french_with_doubling_is_an_error():
    # RULES 14.15: a french record with doubling > 0 is an error
    with pytest.raises(ValueError):
        replay(rec(S, S_D_102, strain="D", taker=3, doubling=1, ruleset="french"))


def test_french_nt_without_option_is_an_error():
    # RULES 14.15: NT/AT in french without french_allow_nt_at is an error
    with pytest.raises(ValueError):
        replay(rec(S, S_NT_72, strain="NT", ruleset="french"))


# ---------------------------------------------------------------------------
# Legal moves (RULES 5) via partial replays
# ---------------------------------------------------------------------------


def test_opening_lead_any_card_and_partial_fields_null():
    # RULES 5: d+1 leads trick 1 and may play any card; with fewer than 32 plays
    # the scoring fields are null.
    out = replay(rec(H1, ""))
    assert out["to_play"] == 0  # dealer 3 -> seat 0 leads
    assert out["legal"] == srt(H1[0])  # TC AC TD AD 8H QH TS AS
    assert out["illegal"] is None
    assert_unscored(out)
    out = replay(rec(H1, "", dealer=1))
    assert out["to_play"] == 2  # dealer 1 -> seat 2 leads
    assert out["legal"] == srt(H1[2])


def test_follow_suit_plain():
    # RULES 5.1: diamond led (plain), seat 1 holds KD QD: any diamond
    out = replay(rec(H1, "AD"))
    assert out["to_play"] == 1
    assert out["legal"] == ["QD", "KD"]
    assert out["tricks"] == [{"leader": 0, "cards": ["AD"], "winner": None}]
    assert_unscored(out)


def test_plain_suit_has_no_raise_but_all_trumps_does():
    # RULES 5.1: spade led in a heart contract: any spade (8S JS QS KS).
    assert replay(rec(H1, "AS"))["legal"] == ["8S", "JS", "QS", "KS"]
    # NT: spades are plain, same answer after TS.
    assert replay(rec(H1, "TS", strain="NT"))["legal"] == ["8S", "JS", "QS", "KS"]
    # AT: every suit is trump: must beat AS in J 9 A T K Q order -> only JS.
    assert replay(rec(H1, "AS", strain="AT"))["legal"] == ["JS"]
    # AT after TS: J, 9, A beat T; seat 1 has JS only of those.
    assert replay(rec(H1, "TS", strain="AT"))["legal"] == ["JS"]


def test_raise_when_trump_led():
    # RULES 5.1 raise: 8H led, seat 1 plays KH (beats 8H); seat 2 (7H 9H TH) must
    # beat KH: 9H and TH do (J 9 A T K ...), 7H does not.
    out = replay(rec(H1, "8H KH"))
    assert out["to_play"] == 2
    assert out["legal"] == ["9H", "TH"]


def test_raise_impossible_any_trump():
    # RULES 5.1: QH led, seat 1 plays JH (must beat QH: JH or KH); seat 2 cannot
    # beat JH -> any heart.
    out = replay(rec(H1, "QH JH"))
    assert out["legal"] == ["7H", "9H", "TH"]


@pytest.mark.parametrize(
    "ruleset,options,expected",
    [
        ("common", None, ["QH", "AH"]),  # raise_over_partner off: any heart
        ("bulgarian", None, ["AH"]),  # on: must beat partner's KH
        ("common", {"raise_over_partner": True}, ["AH"]),
        ("bulgarian", {"raise_over_partner": False}, ["QH", "AH"]),
        ("french", None, ["AH"]),  # RULES 5 table: french on
    ],
)
def test_raise_over_partner_option(ruleset, options, expected):
    # RULES 5.1 / option raise_over_partner.  H2: 8H led by seat 0, seat 1 KH
    # (beats 8H), seat 2 7H (cannot beat KH, only heart).  Seat 3 (QH AH): partner
    # seat 1 is winning with KH; AH beats KH, QH does not.
    out = replay(rec(H2, "8H KH 7H", ruleset=ruleset, options=options))
    assert out["to_play"] == 3
    assert out["legal"] == expected


def test_must_trump_when_void():
    # RULES 5.2: club led, seat 1 has no club, partner has not played (seat 0 is
    # winning): must play a trump; no opponent trump yet -> any trump.
    out = replay(rec(H1, "AC"))
    assert out["legal"] == ["JH", "KH"]


def test_must_overtrump():
    # RULES 5.2: seat 1 trumped with KH; seat 2 void in clubs, partner not winning:
    # must beat KH: 9H, TH (7H does not).
    out = replay(rec(H1, "AC KH"))
    assert out["to_play"] == 2
    assert out["legal"] == ["9H", "TH"]


@pytest.mark.parametrize(
    "ruleset,options,undertrump",
    [
        ("common", None, True),
        ("bulgarian", None, False),
        ("french", None, True),
        ("common", {"undertrump": False}, False),
        ("bulgarian", {"undertrump": True}, True),
    ],
)
def test_undertrump_option(ruleset, options, undertrump):
    # RULES 5.2: seat 1 trumped with JH (highest trump); seat 2 void in clubs cannot
    # beat it.  undertrump on: must still play a lower trump; off: any card.
    out = replay(rec(H1, "AC JH", ruleset=ruleset, options=options))
    assert out["to_play"] == 2
    if undertrump:
        assert out["legal"] == ["7H", "9H", "TH"]
    else:
        assert out["legal"] == ["7D", "8D", "9D", "JD", "7H", "9H", "TH", "9S"]


def test_partner_winning_plain_void_any_card():
    # RULES 5.2: AC led by partner (seat 0) and still winning; seat 2 void in clubs
    # may play any card.  Same in bulgarian.
    expected = ["7D", "8D", "9D", "JD", "7H", "TS", "JS", "QS"]
    for ruleset in ("common", "bulgarian", "french"):
        out = replay(rec(H2, "AC 7C", ruleset=ruleset))
        assert out["to_play"] == 2
        assert out["legal"] == expected


def test_partner_winning_with_trump_void_any_card():
    # RULES 5.2: 7C led, seat 1 (void) trumps KH, seat 2 follows AC; seat 3 (void in
    # clubs) sees partner seat 1 winning: any card, including 8H which does not
    # beat KH ("a trump he plays need not beat anything").
    expected = ["JD", "KD", "8H", "JH", "AH", "JS", "QS", "KS"]
    for ruleset in ("common", "bulgarian"):
        out = replay(rec(H3, "7C KH AC", ruleset=ruleset))
        assert out["to_play"] == 3
        assert out["legal"] == expected


@pytest.mark.parametrize("strain", ["NT", "AT"])
def test_nt_and_at_void_any_card(strain):
    # RULES 5.3: in NT and AT a player who cannot follow suit may play any card
    # (seat 1 void in clubs, holding JH KH which would be trumps in a heart game).
    out = replay(rec(H1, "AC", strain=strain))
    assert out["legal"] == ["QD", "KD", "JH", "KH", "8S", "JS", "QS", "KS"]


# ---------------------------------------------------------------------------
# Illegal-card reporting (RULES 12, 14.16)
# ---------------------------------------------------------------------------


def _illegal(out, trick, seat, card, rule):
    assert out["illegal"] == {"trick": trick, "seat": seat, "card": card, "rule": rule}
    assert_unscored(out)


def test_illegal_not_in_hand():
    # seat 1 does not hold KC (seat 3 does); the decision was seat 1's with AC led
    out = replay(rec(H1, "AC KC"))
    _illegal(out, 0, 1, "KC", "not_in_hand")
    assert out["to_play"] == 1
    assert out["legal"] == ["JH", "KH"]


def test_illegal_card_already_played():
    # Trick 1 (index 0): AC KH TH 7C -> seat 2's TH (overtrump) wins; seat 2 leads
    # trick index 1 and plays TH again: not_in_hand (RULES 14.16).
    out = replay(rec(H1, "AC KH TH 7C TH"))
    _illegal(out, 1, 2, "TH", "not_in_hand")
    assert out["tricks"][0] == {"leader": 0, "cards": ["AC", "KH", "TH", "7C"], "winner": 2}
    assert out["to_play"] == 2
    assert out["legal"] == ["7D", "8D", "9D", "JD", "7H", "9H", "9S"]


def test_illegal_follow_suit():
    # seat 1 holds KD QD but plays KS on a diamond lead; the later QD is ignored
    out = replay(rec(H1, "AD KS QD"))
    _illegal(out, 0, 1, "KS", "follow_suit")
    assert out["to_play"] == 1
    assert out["legal"] == ["QD", "KD"]


def test_illegal_raise():
    # 8H KH led; seat 2 plays 7H although 9H/TH beat KH
    out = replay(rec(H1, "8H KH 7H"))
    _illegal(out, 0, 2, "7H", "raise")
    assert out["legal"] == ["9H", "TH"]


def test_illegal_raise_over_partner_bulgarian_only():
    # bulgarian: seat 3 must beat partner's KH with AH; QH is a raise violation
    out = replay(rec(H2, "8H KH 7H QH", ruleset="bulgarian"))
    _illegal(out, 0, 3, "QH", "raise")
    assert out["legal"] == ["AH"]
    # common: the same card is legal; trick 8H KH 7H QH is won by KH (seat 1)
    out = replay(rec(H2, "8H KH 7H QH"))
    assert out["illegal"] is None
    assert out["tricks"][0] == {"leader": 0, "cards": ["8H", "KH", "7H", "QH"], "winner": 1}
    assert out["to_play"] == 1


def test_illegal_raise_all_trumps():
    # AT: AS led, seat 1 must beat it with JS; 8S is a raise violation
    out = replay(rec(H1, "AS 8S", strain="AT"))
    _illegal(out, 0, 1, "8S", "raise")


def test_illegal_trump():
    # seat 1 void in clubs plays KS although it holds trumps and no opponent trump
    # is in the trick
    out = replay(rec(H1, "AC KS"))
    _illegal(out, 0, 1, "KS", "trump")
    assert out["legal"] == ["JH", "KH"]


def test_illegal_overtrump_with_lower_trump():
    out = replay(rec(H1, "AC KH 7H"))
    _illegal(out, 0, 2, "7H", "overtrump")
    assert out["legal"] == ["9H", "TH"]


def test_illegal_overtrump_with_plain_card():
    # RULES 14.16: a plain card played where an overtrump was possible is "overtrump"
    out = replay(rec(H1, "AC KH 9D"))
    _illegal(out, 0, 2, "9D", "overtrump")


def test_illegal_undertrump_common_legal_bulgarian():
    # common (undertrump on): seat 2 cannot beat JH but holds trumps -> 9D illegal
    out = replay(rec(H1, "AC JH 9D"))
    _illegal(out, 0, 2, "9D", "undertrump")
    assert out["legal"] == ["7H", "9H", "TH"]
    # bulgarian (undertrump off): 9D is fine; seat 3 to play next and must follow clubs
    out = replay(rec(H1, "AC JH 9D", ruleset="bulgarian"))
    assert out["illegal"] is None
    assert out["to_play"] == 3
    assert out["legal"] == ["7C", "8C", "9C", "JC", "QC", "KC"]


# ---------------------------------------------------------------------------
# Trick winners (RULES 5, last paragraph)
# ---------------------------------------------------------------------------


def test_winner_trump_contract_highest_trump():
    # AC KH TH 7C in hearts: two trumps, TH beats KH -> seat 2 wins and leads next
    out = replay(rec(H1, "AC KH TH 7C"))
    assert out["tricks"][0] == {"leader": 0, "cards": ["AC", "KH", "TH", "7C"], "winner": 2}
    assert out["to_play"] == 2
    assert out["legal"] == srt("9H 7H JD 9D 8D 7D 9S")


def test_winner_no_trumps_ignores_other_suits():
    # same cards in NT: hearts are plain; AC is the highest club -> seat 0
    out = replay(rec(H1, "AC KH TH 7C", strain="NT"))
    assert out["tricks"][0]["winner"] == 0
    assert out["to_play"] == 0


def test_winner_plain_order_vs_trump_order():
    # TS JS 9S 7S: plain order (A T K Q J 9 8 7) -> TS (seat 0) wins in a heart
    # contract and in NT; trump order in AT (J 9 A T ...) -> JS (seat 1) wins.
    assert replay(rec(H1, "TS JS 9S 7S"))["tricks"][0]["winner"] == 0
    assert replay(rec(H1, "TS JS 9S 7S", strain="NT"))["tricks"][0]["winner"] == 0
    out = replay(rec(H1, "TS JS 9S 7S", strain="AT"))
    assert out["tricks"][0]["winner"] == 1
    assert out["to_play"] == 1


def test_winner_all_trumps_off_suit_does_not_win():
    # AT: AD QD 9D JC.  Seat 1 cannot beat AD (KD QD) -> QD; seat 2 must beat AD
    # -> 9D; seat 3 void in diamonds discards JC.  The led suit decides: 9D (seat 2),
    # the jack of another suit does not win.
    out = replay(rec(H1, "AD QD 9D JC", strain="AT"))
    assert out["tricks"][0]["winner"] == 2


def test_winner_discard_of_higher_plain_card_does_not_win():
    # H2 hearts: AC 7C QS(seat 2 void, partner winning) KC -> AC (seat 0)
    out = replay(rec(H2, "AC 7C QS KC"))
    assert out["tricks"][0]["winner"] == 0


def test_full_deal_trick_chain():
    # each trick is led by the previous winner (RULES 5); see S_H_102 comment
    out = replay(rec(S, S_H_102))
    assert [t["leader"] for t in out["tricks"]] == [0, 3, 0, 2, 1, 2, 0, 3]
    assert [t["winner"] for t in out["tricks"]] == [3, 0, 2, 1, 2, 0, 3, 3]
    assert out["tricks"][4]["cards"] == ["8H", "AH", "TH", "7H"]
    assert out["to_play"] is None and out["legal"] is None and out["illegal"] is None


# ---------------------------------------------------------------------------
# Declarations (RULES 6.1, 6.3, 14.1-14.6)
# ---------------------------------------------------------------------------


def test_decl_14_1_carre_plus_quarte_not_quinte():
    # RULES 14.1: KC KD KS KH + 9H TH JH QH declares carre K (100) + quarte 9-Q (150),
    # not the quinte 9-K (100).  Trump H, so KH QH is also a belote (6.1: belote
    # cards may be part of a run or carre).
    out = replay(rec(V1, V1_PLAYS))
    assert_decls(
        out,
        [
            decl(0, "carre", "KC KD KH KS", 100),
            decl(0, "quarte", "9H TH JH QH", 50),
            decl(0, "belote", "QH KH", 20),
        ],
        [],
    )
    assert out["card_points"] == [162, 0]
    # raw: 162 + 100 + 50 + 20 = 332 vs 0
    assert out["raw"] == [332, 0]
    assert out["outcome"] == "made"
    assert out["valat"] == 0
    # 332 -> q=33 r=2 < 6 -> 33 MP; valat +9 -> 42 (RULES 8.2, 8.6)
    assert out["mp"] == [42, 0]
    assert out["held_mp"] == [0, 0]


def test_decl_14_2_carre_beats_quinte_at_equal_points():
    # RULES 14.2: QC QD QS QH + TH JH KH AH: carre of queens (100), not quinte T-A (100)
    out = replay(rec(V2, V2_PLAYS))
    assert_decls(
        out,
        [
            decl(0, "carre", "QC QD QH QS", 100),
            decl(0, "belote", "QH KH", 20),
        ],
        [],
    )
    # raw 162 + 100 + 20 = 282 -> 28 MP (r=2) + 9 valat = 37
    assert out["raw"] == [282, 0]
    assert out["mp"] == [37, 0]


def test_decl_run_of_eight_and_run_of_six_longer_run_wins():
    # RULES 6.1, 14.3: seat 0's run of 8 hearts = quinte T-A + tierce 7-9;
    # seat 2's run of 6 clubs 9-A = one quinte of its five highest (T-A).
    # RULES 6.3: team 0's best run (quinte) beats team 1's best (quarte 8-J D,
    # plus tierce Q-A D): team 0 scores all its runs, team 1 none.
    out = replay(rec(V3, V3_PLAYS))
    assert_decls(
        out,
        [
            decl(0, "quinte", "TH JH QH KH AH", 100),
            decl(0, "tierce", "7H 8H 9H", 20),
            decl(0, "belote", "QH KH", 20),
            decl(2, "quinte", "TC JC QC KC AC", 100),
        ],
        [],
    )
    # raw: 162 + 100 + 20 + 20 + 100 = 402 -> 40 MP (r=2) + 9 valat = 49
    assert out["raw"] == [402, 0]
    assert out["mp"] == [49, 0]


def test_decl_equal_best_runs_cancel_common():
    # RULES 6.3 / 14.5: team 0's best run = quinte T-A of hearts (also trumps),
    # team 1's best = quinte T-A of diamonds: same length, same top -> no team
    # scores runs (trump does not break the tie), even team 0's tierce and
    # second quinte.  Belote still counts.
    out = replay(rec(V3B, V3B_PLAYS))
    assert_decls(out, [decl(0, "belote", "QH KH", 20)], [])
    # raw 162 + 20 = 182 -> 18 MP (r=2) + 9 valat = 27
    assert out["raw"] == [182, 0]
    assert out["mp"] == [27, 0]


def test_decl_french_trump_run_wins_tie_and_capot():
    # RULES 6.3 french: highest single declarations are two quintes top A (100 each);
    # equal top card -> the run in trump wins: team 0 scores all its runs
    # (quinte H 100, tierce H 20, quinte C 100); team 1 none.  Belote 20.
    # RULES 10 capot: 250 instead of 162: 250 + 100 + 20 + 100 + 20 = 490.
    out = replay(rec(V3B, V3B_PLAYS, ruleset="french"))
    assert_decls(
        out,
        [
            decl(0, "quinte", "TH JH QH KH AH", 100),
            decl(0, "tierce", "7H 8H 9H", 20),
            decl(0, "belote", "QH KH", 20),
            decl(2, "quinte", "TC JC QC KC AC", 100),
        ],
        [],
    )
    assert out["outcome"] == "made"
    assert out["mp"] == [490, 0]
    assert out["held_mp"] == [0, 0]


def test_decl_carres_jacks_nines_and_four_eights_common():
    # RULES 6.1: carre of jacks 200, of nines 150; four 8s count nothing (14.4).
    # RULES 6.3 common: every carre is scored by the team that holds it, even
    # without a trick (declarations_need_trick false).
    out = replay(rec(V4, V4_PLAYS))
    assert_decls(
        out, [decl(0, "carre", "JC JD JH JS", 200)], [decl(1, "carre", "9C 9D 9H 9S", 150)]
    )
    assert out["card_points"] == [162, 0]
    # raw: 162 + 200 = 362 vs 150; made; 362 -> 36 (r=2), 150 -> 15 (r=0);
    # made: each team its own MP, valat +9 to team 0: [45, 15]
    assert out["raw"] == [362, 150]
    assert out["outcome"] == "made"
    assert out["valat"] == 0
    assert out["mp"] == [45, 15]


def test_decl_carre_needs_trick_bulgarian():
    # RULES 6.3 / 14.6 bulgarian: team 1 took no trick -> its carre is not scored
    out = replay(rec(V4, V4_PLAYS, ruleset="bulgarian"))
    assert_decls(out, [decl(0, "carre", "JC JD JH JS", 200)], [])
    # raw [362, 0] -> 36 + 9 valat = 45; team 1 0
    assert out["raw"] == [362, 0]
    assert out["mp"] == [45, 0]


def test_decl_french_best_declaration_carre_jacks_over_nines():
    # RULES 6.3 french: single highest declaration is the carre of jacks (200 > 150):
    # team 0 scores its carres, team 1 none.  Capot: 250 + 200 = 450.
    out = replay(rec(V4, V4_PLAYS, ruleset="french"))
    assert_decls(out, [decl(0, "carre", "JC JD JH JS", 200)], [])
    assert out["mp"] == [450, 0]


def test_decl_higher_top_card_wins_and_all_runs_scored():
    # RULES 6.3: quarte 9H-QH (top Q, team 0) vs quarte TD-KD (top K, team 1):
    # equal length, K higher -> team 1 scores all its runs: quarte 50 and the
    # tierce 7C-9C 20 (RULES 14.1: both declared, 70); team 0 none.
    out = replay(rec(V4C, V4C_PLAYS, strain="S"))
    assert_decls(
        out,
        [],
        [
            decl(1, "quarte", "TD JD QD KD", 50),
            decl(1, "tierce", "7C 8C 9C", 20),
        ],
    )
    assert out["card_points"] == [120, 42]
    # raw: 120 vs 42 + 70 = 112 -> made (taker 0); 120 -> 12, 112 -> 11
    assert out["raw"] == [120, 112]
    assert out["outcome"] == "made"
    assert out["valat"] is None
    assert out["mp"] == [12, 11]


def test_decl_equal_quartes_cancel_carre_still_scored_common():
    # RULES 6.3 / 14.5: quarte J-A hearts (trump, team 0) vs quarte J-A spades
    # (team 1): equal -> no runs; seat 2's carre of tens 100 is still scored.
    for ruleset in ("common", "bulgarian"):
        out = replay(rec(V5, V5_PLAYS, ruleset=ruleset))
        assert_decls(
            out,
            [
                decl(2, "carre", "TC TD TH TS", 100),
                decl(0, "belote", "QH KH", 20),
            ],
            [],
        )
        # raw 162 + 100 + 20 = 282 -> 28 + 9 valat = 37
        assert out["raw"] == [282, 0]
        assert out["mp"] == [37, 0]


def test_decl_french_carre_is_highest_so_team_scores_its_runs_too():
    # RULES 6.3 french: single highest declaration is team 0's carre of tens (100)
    # vs team 1's quarte (50): team 0 scores all its runs and carres: quarte 50 +
    # carre 100; belote 20.  Capot: 250 + 50 + 100 + 20 = 420.
    out = replay(rec(V5, V5_PLAYS, ruleset="french"))
    assert_decls(
        out,
        [
            decl(0, "quarte", "JH QH KH AH", 50),
            decl(2, "carre", "TC TD TH TS", 100),
            decl(0, "belote", "QH KH", 20),
        ],
        [],
    )
    assert out["mp"] == [420, 0]


def test_decl_better_run_of_team_without_trick_common_vs_bulgarian():
    # Seat 1's run 7C-QC (6 cards) = quinte 8C-QC (14.3) beats team 0's quarte.
    # common: team 1 scores its quinte without a trick; team 0 keeps carre K + belote.
    out = replay(rec(V6, V6_PLAYS))
    assert_decls(
        out,
        [
            decl(0, "carre", "KC KD KH KS", 100),
            decl(0, "belote", "QH KH", 20),
        ],
        [decl(1, "quinte", "8C 9C TC JC QC", 100)],
    )
    # raw: 162 + 100 + 20 = 282 vs 100; made; 28 + 9 valat = 37, 10
    assert out["raw"] == [282, 100]
    assert out["mp"] == [37, 10]
    # bulgarian (RULES 14.6): team 1 took no trick so scores no runs, but its
    # better run still cancels team 0's quarte.
    out = replay(rec(V6, V6_PLAYS, ruleset="bulgarian"))
    assert_decls(
        out,
        [
            decl(0, "carre", "KC KD KH KS", 100),
            decl(0, "belote", "QH KH", 20),
        ],
        [],
    )
    assert out["raw"] == [282, 0]
    assert out["mp"] == [37, 0]


def test_no_declarations_in_no_trumps_and_nt_valat_common():
    # RULES 6.1: never declarations in NT (seats hold quartes and tierces here).
    # RULES 7: NT raw doubled: 130 card points -> 260 raw -> 26 MP;
    # RULES 8.6 common: valat in NT = 18 -> 44.
    out = replay(rec(NTV, NTV_PLAYS, strain="NT"))
    assert_decls(out, [], [])
    assert out["card_points"] == [130, 0]
    assert out["raw"] == [260, 0]
    assert out["valat"] == 0
    assert out["mp"] == [44, 0]


def test_nt_valat_bulgarian_is_nine():
    # RULES 8.6 bulgarian: valat always 9: 26 + 9 = 35
    out = replay(rec(NTV, NTV_PLAYS, strain="NT", ruleset="bulgarian"))
    assert out["mp"] == [35, 0]


# ---------------------------------------------------------------------------
# Belote (RULES 6.1, 6.2, 14.8)
# ---------------------------------------------------------------------------


def test_belote_silent():
    # RULES 6.2: a player may stay silent about a belote
    out = replay(rec(V1, V1_PLAYS, belote_silent=[0]))
    assert_decls(
        out,
        [
            decl(0, "carre", "KC KD KH KS", 100),
            decl(0, "quarte", "9H TH JH QH", 50),
        ],
        [],
    )
    # raw 162 + 150 = 312 -> 31 + 9 = 40
    assert out["raw"] == [312, 0]
    assert out["mp"] == [40, 0]


def test_all_trumps_belote_per_suit_and_discard_common():
    # RULES 6.1: in AT each suit's K+Q in one hand is a belote (hearts: seat 0,
    # spades: seat 1).  common belote_on_discard true: seat 1's KS discarded on a
    # heart lead still announces it.  Seat 0: run of 8 = quinte T-A + tierce 7-9.
    out = replay(rec(V7, V7_PLAYS, strain="AT"))
    team0 = [
        decl(0, "quinte", "TH JH QH KH AH", 100),
        decl(0, "tierce", "7H 8H 9H", 20),
        decl(0, "belote", "QH KH", 20),
    ]
    assert_decls(out, team0, [decl(1, "belote", "QS KS", 20)])
    assert out["card_points"] == [258, 0]
    # raw: 258 + 140 = 398 vs 20.  AT limit 4: 398 -> q39 r8 -> 40; 20 -> 2.
    # made, valat +9 -> [49, 2]
    assert out["raw"] == [398, 20]
    assert out["mp"] == [49, 2]


def test_all_trumps_belote_discard_forfeited_bulgarian():
    # RULES 6.2 bulgarian (belote_on_discard off): seat 1's first belote card KS is
    # played as a discard on hearts -> forfeited.  (Not a need-a-trick effect:
    # belote ignores that rule, 14.8; with belote_on_discard on it counts.)
    team0 = [
        decl(0, "quinte", "TH JH QH KH AH", 100),
        decl(0, "tierce", "7H 8H 9H", 20),
        decl(0, "belote", "QH KH", 20),
    ]
    out = replay(rec(V7, V7_PLAYS, strain="AT", ruleset="bulgarian"))
    assert_decls(out, team0, [])
    assert out["raw"] == [398, 0]
    assert out["mp"] == [49, 0]
    out = replay(
        rec(V7, V7_PLAYS, strain="AT", ruleset="bulgarian", options={"belote_on_discard": True})
    )
    assert_decls(out, team0, [decl(1, "belote", "QS KS", 20)])
    assert out["raw"] == [398, 20]
    assert out["mp"] == [49, 2]


# ---------------------------------------------------------------------------
# Match-point scoring (RULES 7, 8, 14.9-14.13)
# ---------------------------------------------------------------------------


def test_made_plain():
    # 102 vs 60, taker 0: made; 102 -> 10 (r=2), 60 -> 6; each its own (8.3)
    out = replay(rec(S, S_H_102))
    assert out["card_points"] == [102, 60]
    assert_decls(out, [], [])
    assert out["raw"] == [102, 60]
    assert out["outcome"] == "made"
    assert out["valat"] is None
    assert out["mp"] == [10, 6]
    assert out["held_mp"] == [0, 0]


def test_inside():
    # same play, taker seat 1: 60 < 102 -> inside; team 0 gets 10 + 6 = 16 (8.3)
    out = replay(rec(S, S_H_102, taker=1))
    assert out["outcome"] == "inside"
    assert out["mp"] == [16, 0]
    assert out["held_mp"] == [0, 0]


def test_inside_kirtik():
    # RULES 8.6 / 14.10 kirtik: the inside team gets -10 (not multiplied)
    out = replay(rec(S, S_H_102, taker=1, options={"kirtik": True}))
    assert out["mp"] == [16, -10]


def test_doubled_made_takes_everything():
    # RULES 8.1 / 14.9: doubled: the team with fewer raw points (team 1, 60) is
    # inside, so the taker's team gets (10 + 6) x 2 = 32
    out = replay(rec(S, S_H_102, doubling=1))
    assert out["outcome"] == "made"
    assert out["mp"] == [32, 0]


def test_redoubled_made():
    # (10 + 6) x 4 = 64
    out = replay(rec(S, S_H_102, doubling=2))
    assert out["mp"] == [64, 0]


def test_doubled_inside():
    # taker seat 1 inside, doubled: team 0 gets (10 + 6) x 2 = 32
    out = replay(rec(S, S_H_102, taker=1, doubling=1))
    assert out["outcome"] == "inside"
    assert out["mp"] == [32, 0]


def test_hanging():
    # 81 vs 81: hanging (8.5, 14.11): 81 -> 8 MP each; taker team's 8 held,
    # defenders add 8 now
    out = replay(rec(S, S_H_81))
    assert out["card_points"] == [81, 81]
    assert out["raw"] == [81, 81]
    assert out["outcome"] == "hanging"
    assert out["mp"] == [0, 8]
    assert out["held_mp"] == [8, 0]


def test_hanging_doubled_both_held():
    # RULES 14.11: doubled and hanging: both teams' MP held, x2: 8 x 2 = 16 each
    out = replay(rec(S, S_H_81, doubling=1))
    assert out["outcome"] == "hanging"
    assert out["mp"] == [0, 0]
    assert out["held_mp"] == [16, 16]


def test_both_at_rounding_limit():
    # RULES 8.2: 86 vs 76, both r = 6 = L: the team with fewer raw points (76)
    # rounds up to 8, the other rounds 86 down to 8.  Made: [8, 8] (sum 16).
    out = replay(rec(S, S_H_86))
    assert out["card_points"] == [86, 76]
    assert out["outcome"] == "made"
    assert out["mp"] == [8, 8]


def test_belote_lost_by_inside_team():
    # Trump D, seat 3 holds KD QD (belote, played QD following suit in trick 3).
    # raw: team 0 102, team 1 60 + 20 = 80; taker seat 3 -> inside.
    # RULES 14.8: the inside team loses its belote with everything else:
    # team 0 gets 10 (102) + 8 (80) = 18.
    out = replay(rec(S, S_D_102, strain="D", taker=3))
    assert_decls(out, [], [decl(3, "belote", "QD KD", 20)])
    assert out["card_points"] == [102, 60]
    assert out["raw"] == [102, 80]
    assert out["outcome"] == "inside"
    assert out["mp"] == [18, 0]


def test_hanging_through_belote():
    # Trump D: card points 91 vs 71; team 1 raw 71 + 20 belote = 91 = team 0's 91.
    # Taker seat 1 -> hanging; 91 -> 9 MP: team 1's 9 held, team 0 adds 9.
    out = replay(rec(S, S_D_91, strain="D", taker=1))
    assert out["card_points"] == [91, 71]
    assert out["raw"] == [91, 91]
    assert out["outcome"] == "hanging"
    assert out["mp"] == [9, 0]
    assert out["held_mp"] == [0, 9]


def test_no_trumps_raw_doubled_and_limit_five():
    # RULES 7: NT raw x2: 72 -> 144, 58 -> 116.  RULES 8.2 NT limit 5:
    # 144 -> q14 r4 -> 14; 116 -> q11 r6 -> 12.  Made: [14, 12] (sum 26).
    out = replay(rec(S, S_NT_72, strain="NT"))
    assert out["card_points"] == [72, 58]
    assert out["raw"] == [144, 116]
    assert_decls(out, [], [])
    assert out["mp"] == [14, 12]


def test_all_trumps_both_at_limit_made():
    # AT: card points 134 vs 124 (sum 258); seat 3 has K+Q of diamonds: belote.
    # raw 134 vs 144; taker seat 3 made.  AT limit 4: both r = 4: team 0 (fewer)
    # rounds 134 up to 14, team 1 rounds 144 down to 14 (cf. 154/144 example, 8).
    out = replay(rec(S, S_AT_134, strain="AT", taker=3))
    assert out["card_points"] == [134, 124]
    assert_decls(out, [], [decl(3, "belote", "QD KD", 20)])
    assert out["raw"] == [134, 144]
    assert out["outcome"] == "made"
    assert out["mp"] == [14, 14]


def test_valat_doubled_bonus_not_multiplied():
    # V1 doubled, taker 0: team 1 (0 raw) is inside: (33 + 0) x 2 = 66;
    # valat 9 is never multiplied (14.13): 75.
    out = replay(rec(V1, V1_PLAYS, doubling=1))
    assert out["outcome"] == "made"
    assert out["mp"] == [75, 0]


def test_kirtik_once_for_inside_team_suffering_valat():
    # V1 with taker seat 1: 0 < 332 -> inside; team 0 gets 33 + 0 + 9 valat = 42;
    # team 1 is inside and suffered the valat: -10 once (14.10).
    out = replay(rec(V1, V1_PLAYS, taker=1, options={"kirtik": True}))
    assert out["outcome"] == "inside"
    assert out["valat"] == 0
    assert out["mp"] == [42, -10]


# ---------------------------------------------------------------------------
# French scoring (RULES 10, 14.14)
# ---------------------------------------------------------------------------


def test_french_made():
    # Trump D, taker seat 3: team 1 raw 86 + 20 belote = 106 > 76: made, each team
    # scores its raw points.
    out = replay(rec(S, S_D_76, strain="D", taker=3, ruleset="french"))
    assert out["card_points"] == [76, 86]
    assert out["raw"] == [76, 106]
    assert out["outcome"] == "made"
    assert out["mp"] == [76, 106]
    assert out["held_mp"] == [0, 0]


def test_french_failed_taker_keeps_belote():
    # Trump D, taker seat 3: team 1 raw 60 + 20 = 80 < 102: failed (dedans).
    # RULES 14.14: defenders score 162 (+ no runs/carres, no belote of theirs);
    # taker's team scores its belote only: 20.
    out = replay(rec(S, S_D_102, strain="D", taker=3, ruleset="french"))
    assert out["outcome"] == "inside"
    assert out["mp"] == [162, 20]
    assert out["held_mp"] == [0, 0]


def test_french_litige():
    # Trump D, taker seat 1: 91 vs 71 + 20 = 91: litige.  RULES 14.14: defenders
    # score 91 now; taker's team scores its belote 20 now, the rest 91 - 20 = 71
    # is held.
    out = replay(rec(S, S_D_91, strain="D", taker=1, ruleset="french"))
    assert out["outcome"] == "hanging"
    assert out["mp"] == [91, 20]
    assert out["held_mp"] == [0, 71]
