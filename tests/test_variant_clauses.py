"""Hand-computed rule-clause tests for the 2-player, 3-player and open-belot
variants (shared/RULES.md §11 and the readings documented in
tests/reference_variants.py).

Every expected value was derived by hand from the rules; the arithmetic is in
the comments.  Each test runs against two implementations of ``replay``:
``reference`` (tests/reference_variants.replay_variant, pure Python) and
``belote_sim`` (belote_sim.deal.replay.replay).

Conventions in the comments:
- "T3 L2: JD TH 9S -> s2, 44" = trick 3, led by seat 2, cards in playing
  order (seat 2, 0, 1 with 3 players), won by seat 2, worth 44 card points.
- Trump J 9 A T K Q 8 7 = 20 14 11 10 4 3 0 0; plain A T K Q J 9 8 7 =
  11 10 4 3 2 0 0 0; last trick +10.  In AT every suit counts as trump
  (one suit = 62 points), in NT as plain (one suit = 30).
- MP limits: suit 6, AT 4, NT 5.  Illegal-card trick indices are 0-based.
"""

import importlib

import pytest
import reference_variants as RV

SUITS = "CDHS"
RANKS = "789TJQKA"


def cards(text):
    return text.split()


def srt(text):
    return sorted(cards(text), key=lambda c: (SUITS.index(c[1]), RANKS.index(c[0])))


@pytest.fixture(params=["reference", "belote_sim"])
def replay(request):
    if request.param == "reference":
        return RV.replay_variant
    return importlib.import_module("belote_sim.deal.replay").replay


def rec(
    hands,
    plays="",
    strain="H",
    taker=0,
    doubling=0,
    ruleset="common",
    dealer=2,
    options=None,
    silent=None,
    **extra,
):
    """A 2- or 3-player record (players = number of hands)."""
    r = {
        "ruleset": ruleset,
        "options": dict(options or {}),
        "players": len(hands),
        "dealer": dealer,
        "hands": list(hands),
        "contract": {"strain": strain, "taker": taker, "doubling": doubling},
        "plays": cards(plays),
        "belote_silent": list(silent or []),
    }
    r.update(extra)
    return r


def open_rec(
    hands,
    table,
    plays="",
    strain="H",
    taker=0,
    doubling=0,
    ruleset="common",
    dealer=1,
    options=None,
    silent=None,
):
    r = rec(hands, plays, strain, taker, doubling, ruleset, dealer, options, silent)
    r["variant"] = "open"
    r["table"] = table
    return r


def illegal(trick, seat, card, rule):
    return {"trick": trick, "seat": seat, "card": card, "rule": rule}


def decl(seat, kind, text, points):
    return {"seat": seat, "kind": kind, "cards": srt(text), "points": points}


def belote(seat, suit):
    return decl(seat, "belote", "Q" + suit + " K" + suit, 20)


# ===================================================================== deals
# 3 players, 24 cards (9 T J Q K A).  Each layout lists 8 cards per seat and
# covers the 24 cards once (checked in test_hand_made_deals_are_partitions).

# L1: seat 0 clubs A T K Q J + 9D TD JD; seat 1 9C + 9H TH + QD KD AD + 9S TS;
#     seat 2 hearts J Q K A + spades J Q K A.
L1 = ["AC TC KC QC JC 9D TD JD", "9C 9H TH QD KD AD 9S TS", "JH QH KH AH QS KS AS JS"]
# L2: seat 0 all clubs + 9D TD; seat 1 9H QH + JD QD KD AD + 9S TS;
#     seat 2 JH TH KH AH + JS QS KS AS.
L2 = ["9C TC JC QC KC AC 9D TD", "9H QH JD QD KD AD 9S TS", "JH TH KH AH JS QS KS AS"]
# L3 = L2 with JH and QH exchanged (seat 1 can trump with the jack).
L3 = ["9C TC JC QC KC AC 9D TD", "JH 9H JD QD KD AD 9S TS", "QH TH KH AH JS QS KS AS"]
# L5: seat 0 AC + all diamonds + 9H; seat 1 QC + hearts T..A + 9S TS;
#     seat 2 9C TC JC KC + spades J Q K A.
L5 = ["AC 9D TD JD QD KD AD 9H", "QC TH JH QH KH AH 9S TS", "9C TC JC KC JS QS KS AS"]
# S: seat 0 all hearts + AC TC; seat 1 all spades + KC QC; seat 2 all diamonds + JC 9C.
S = ["9H TH JH QH KH AH AC TC", "9S TS JS QS KS AS KC QC", "9D TD JD QD KD AD JC 9C"]
# D2: seat 0 all hearts + 9C TC; seat 1 9S TS JS QS + JC QC KC AC;
#     seat 2 all diamonds + KS AS.
D2 = ["9H TH JH QH KH AH 9C TC", "9S TS JS QS KC QC JC AC", "9D TD JD QD KD AD KS AS"]
# D5: seat 0 four nines + JH QH KH AH; seat 1 TC..AC + TD JD TS;
#     seat 2 QD KD AD + TH + JS QS KS AS.
D5 = ["9C 9D 9H 9S JH QH KH AH", "TC JC QC KC AC TD JD TS", "QD KD AD TH JS QS KS AS"]
# N: seat 0 all hearts + 9C QC; seat 1 all spades + JC TC; seat 2 all diamonds + AC KC.
N = ["9H TH JH QH KH AH 9C QC", "9S TS JS QS KS AS JC TC", "9D TD JD QD KD AD AC KC"]

# 2 players, 24 cards, 9 each; the 6 diamonds are the unseen cards.
P1 = ["9H TH JH QH KH AH 9C JC AC", "9S TS JS QS KS AS TC KC QC"]
P2 = ["9H TH JH QH KH AH AC TC KC", "9S TS JS QS KS AS QC JC 9C"]

DECK24 = {r + s for s in SUITS for r in "9TJQKA"}
DECK32 = {r + s for s in SUITS for r in RANKS}


def test_hand_made_deals_are_partitions():
    # not an implementation test: guards the hand-made layouts above
    for deal in (L1, L2, L3, L5, S, D2, D5, N):
        cs = [c for h in deal for c in cards(h)]
        assert [len(cards(h)) for h in deal] == [8, 8, 8]
        assert set(cs) == DECK24 and len(cs) == 24
    for deal in (P1, P2):
        cs = [c for h in deal for c in cards(h)]
        assert len(set(cs)) == 18 and set(cs) <= DECK24
        assert not any(c[1] == "D" for c in cs)
    for hands, table in (O_PLAIN, O_TRUMP, O_VALAT_A, O_VALAT_C):
        cs = [c for h in hands for c in cards(h)] + [c for t in table for p in t for c in p]
        assert set(cs) == DECK32 and len(cs) == 32


# Open belot layouts (2 players, 32 cards): hands, then each player's 4 piles
# [face_down, face_up].
# O_PLAIN: seat 0 holds 7 clubs + 7H, diamonds on the table; seat 1 all spades,
# hearts 8-A on the table with AC face up over 8H.
O_PLAIN = (
    ["7C 8C 9C TC JC QC KC 7H", "7S 8S 9S TS JS QS KS AS"],
    [
        [["7D", "8D"], ["9D", "TD"], ["JD", "QD"], ["KD", "AD"]],
        [["8H", "AC"], ["9H", "TH"], ["JH", "QH"], ["KH", "AH"]],
    ],
)
# O_TRUMP: seat 0 all clubs in hand; seat 1 all spades in hand, every trump
# (hearts) on his table.
O_TRUMP = (
    ["7C 8C 9C TC JC QC KC AC", "7S 8S 9S TS JS QS KS AS"],
    [
        [["7D", "8D"], ["9D", "TD"], ["JD", "QD"], ["KD", "AD"]],
        [["7H", "8H"], ["9H", "TH"], ["JH", "QH"], ["KH", "AH"]],
    ],
)
# O_VALAT_A: seat 0 has hearts and clubs (KH face down under 7C); seat 1 has
# diamonds and spades (AD face up over KS).  Seat 0 leads every trick and
# takes them all in H.
_O_SEAT1_PILES = [["7S", "8S"], ["9S", "TS"], ["JS", "QS"], ["KS", "AD"]]
O_VALAT_A = (
    ["7H 8H 9H TH JH QH AH 8C", "7D 8D 9D TD JD QD KD AS"],
    [[["KH", "7C"], ["9C", "TC"], ["JC", "QC"], ["KC", "AC"]], _O_SEAT1_PILES],
)
# O_VALAT_C: as A but KH face up over QH (face down), 7C in hand.
O_VALAT_C = (
    ["7H 8H 9H TH JH AH 7C 8C", "7D 8D 9D TD JD QD KD AS"],
    [[["QH", "KH"], ["9C", "TC"], ["JC", "QC"], ["KC", "AC"]], _O_SEAT1_PILES],
)


def interleave(first, second):
    """Plays of a 2-player deal where ``first`` leads every trick."""
    return " ".join(a + " " + b for a, b in zip(cards(first), cards(second)))


def check_partial(r):
    for k in ("card_points", "declarations", "raw", "outcome", "valat", "mp", "held_mp"):
        assert r[k] is None, k


# ============================================================ 3 players: play


def test_3p_first_leader_is_dealer_plus_one(replay):
    for dealer, seat in ((2, 0), (0, 1), (1, 2)):
        r = replay(rec(L2, "", dealer=dealer))
        assert r["tricks"] == [] and r["illegal"] is None
        assert r["to_play"] == seat
        assert r["legal"] == srt(L2[seat])  # the leader plays any card
        check_partial(r)


def test_3p_third_player_must_trump_although_leader_wins(replay):
    # H, seat 0 leads AC, seat 1 follows 9C: seat 0 (two places before seat 2,
    # his "partner" with 4 players) is winning.  No partners here: seat 2, void
    # in clubs, must trump with any of his trumps (none in the trick yet).
    r = replay(rec(L1, "AC 9C"))
    assert r["to_play"] == 2
    assert r["legal"] == srt("JH QH KH AH")
    assert r["tricks"] == [{"leader": 0, "cards": ["AC", "9C"], "winner": None}]
    r = replay(rec(L1, "AC 9C AS"))
    assert r["illegal"] == illegal(0, 2, "AS", "trump")
    assert r["to_play"] == 2 and r["legal"] == srt("JH QH KH AH")
    check_partial(r)


def test_3p_second_player_must_trump(replay):
    # seat 1 is void in clubs and holds 9H QH
    r = replay(rec(L2, "AC"))
    assert r["to_play"] == 1 and r["legal"] == ["9H", "QH"]
    r = replay(rec(L2, "AC TS"))
    assert r["illegal"] == illegal(0, 1, "TS", "trump")
    assert r["legal"] == ["9H", "QH"]


def test_3p_must_overtrump(replay):
    # AC, 9H (seat 1 trumps): seat 2 (JH TH KH AH) must beat 9H: only JH.
    for ruleset in ("common", "bulgarian"):
        r = replay(rec(L2, "AC 9H", ruleset=ruleset))
        assert r["to_play"] == 2 and r["legal"] == ["JH"]
    # AC, QH: J T K A all beat Q (trump order J 9 A T K Q)
    assert replay(rec(L2, "AC QH"))["legal"] == srt("TH JH KH AH")
    # a lower trump, or a plain card, where an overtrump was possible
    r = replay(rec(L2, "AC 9H KH"))
    assert r["illegal"] == illegal(0, 2, "KH", "overtrump") and r["legal"] == ["JH"]
    r = replay(rec(L2, "AC 9H AS"))
    assert r["illegal"] == illegal(0, 2, "AS", "overtrump")


def test_3p_undertrump_option(replay):
    # L3: seat 1 trumps with JH; seat 2 (QH TH KH AH) cannot beat it.
    r = replay(rec(L3, "AC JH"))  # common: undertrump on -> any trump
    assert r["legal"] == srt("TH QH KH AH")
    r = replay(rec(L3, "AC JH AS"))
    assert r["illegal"] == illegal(0, 2, "AS", "undertrump")
    assert r["legal"] == srt("TH QH KH AH")
    r = replay(rec(L3, "AC JH", ruleset="bulgarian"))  # undertrump off -> any card
    assert r["legal"] == srt(L3[2])
    r = replay(rec(L3, "AC JH AS", ruleset="bulgarian"))
    # legal; JH wins, seat 1 leads with his 7 remaining cards
    assert r["illegal"] is None
    assert r["tricks"] == [{"leader": 0, "cards": ["AC", "JH", "AS"], "winner": 1}]
    assert r["to_play"] == 1 and r["legal"] == srt("9H JD QD KD AD 9S TS")


def test_3p_raise_even_when_leader_wins(replay):
    # L5, clubs trump, common (raise_over_partner off, which with 4 players
    # would free seat 2 here since seat 0 two places before is winning).
    # AC led, QC: seat 2 (9C TC JC KC) must beat AC: 9C and JC (T, K are lower).
    for strain in ("C", "AT"):
        r = replay(rec(L5, "AC QC", strain=strain))
        assert r["to_play"] == 2 and r["legal"] == ["9C", "JC"]
    r = replay(rec(L5, "AC QC KC", strain="C"))
    assert r["illegal"] == illegal(0, 2, "KC", "raise")
    # NT: any club
    assert replay(rec(L5, "AC QC", strain="NT"))["legal"] == srt("9C TC JC KC")


def test_3p_raise_by_second_player(replay):
    # diamonds trump; seat 1 holds JD QD KD AD
    assert replay(rec(L2, "9D", strain="D"))["legal"] == ["JD"]  # only J beats 9
    assert replay(rec(L2, "TD", strain="D"))["legal"] == ["JD", "AD"]  # J, A beat T
    r = replay(rec(L2, "9D QD", strain="D"))
    assert r["illegal"] == illegal(0, 1, "QD", "raise")
    # seat 2 has no diamond: a void on a trump lead plays any card
    assert replay(rec(L2, "TD AD", strain="D"))["legal"] == srt(L2[2])


def test_3p_at_and_nt_voids(replay):
    # AT: seat 1 void in clubs plays any card; a diamond lead must be raised
    assert replay(rec(L2, "AC", strain="AT"))["legal"] == srt(L2[1])
    assert replay(rec(L2, "9D", strain="AT"))["legal"] == ["JD"]
    assert replay(rec(L2, "9D JD", strain="AT"))["legal"] == srt(L2[2])
    # NT: any card of the led suit, any card when void
    assert replay(rec(L2, "9D", strain="NT"))["legal"] == srt("JD QD KD AD")
    assert replay(rec(L2, "AC", strain="NT"))["legal"] == srt(L2[1])


def test_3p_trick_winner_leads(replay):
    # AC 9H JH: JH is the highest trump -> seat 2 wins and leads
    r = replay(rec(L2, "AC 9H JH"))
    assert r["tricks"] == [{"leader": 0, "cards": ["AC", "9H", "JH"], "winner": 2}]
    assert r["to_play"] == 2 and r["legal"] == srt("TH KH AH JS QS KS AS")
    check_partial(r)


def test_3p_follow_suit_and_not_in_hand(replay):
    r = replay(rec(L2, "9D 9S"))
    assert r["illegal"] == illegal(0, 1, "9S", "follow_suit")
    assert r["legal"] == srt("JD QD KD AD")
    r = replay(rec(L2, "AC JH"))  # JH is seat 2's card
    assert r["illegal"] == illegal(0, 1, "JH", "not_in_hand")
    assert r["legal"] == ["9H", "QH"]
    r = replay(rec(L2, "AC 9H JH AC"))  # AC was already played; seat 2 leads trick 1
    assert r["illegal"] == illegal(1, 2, "AC", "not_in_hand")
    assert len(r["tricks"]) == 1 and r["to_play"] == 2


# ============================================================ 2 players: play

# P1, NT, dealer 0 -> seat 1 leads.
P1_HANG = "QC AC AH AS TH KS 9H 9S 9C TC KC JC TS JH JS QH QS KH"
P1_LIMIT = "QC AC AH AS QH JS 9H KS 9C TC KC JC TS TH QS JH 9S KH"
# P2, H, dealer 1 -> seat 0 leads every trick.
P2_VALAT = "JH 9S 9H TS AH JS TH QS KH KS QH AS AC 9C TC JC KC QC"


def test_2p_leader_and_tricks(replay):
    r = replay(rec(P1, "", strain="NT", dealer=0))
    assert r["to_play"] == 1 and r["legal"] == srt(P1[1])
    r = replay(rec(P1, "QC", strain="NT", dealer=0))
    assert r["to_play"] == 0 and r["legal"] == srt("9C JC AC")
    r = replay(rec(P1, "QC AC", strain="NT", dealer=0))  # A beats Q
    assert r["tricks"] == [{"leader": 1, "cards": ["QC", "AC"], "winner": 0}]
    assert r["to_play"] == 0 and r["legal"] == srt("9H TH JH QH KH AH 9C JC")


def test_2p_unseen_card_is_not_in_hand(replay):
    # the diamonds are the 6 unseen cards
    r = replay(rec(P1, "QC 9D", strain="NT", dealer=0))
    assert r["illegal"] == illegal(0, 0, "9D", "not_in_hand")
    assert r["legal"] == srt("9C JC AC")


def test_2p_must_trump(replay):
    # spades trump, seat 0 leads JH, seat 1 (no heart) must trump
    r = replay(rec(P2, "JH", strain="S", dealer=1))
    assert r["legal"] == srt("9S TS JS QS KS AS")
    r = replay(rec(P2, "JH QC", strain="S", dealer=1))
    assert r["illegal"] == illegal(0, 1, "QC", "trump")


# ========================================================= 2 players: scoring


def test_2p_hanging_holds_taker_mp(replay):
    # P1_HANG in NT (dealer 0, seat 1 leads):
    #  T1 L1: QC AC -> s0, 3+11 = 14     T2 L0: AH AS -> s0, 22
    #  T3 L0: TH KS -> s0, 14            T4 L0: 9H 9S -> s0, 0      s0 = 50
    #  T5 L0: 9C TC -> s1, 10            T6 L1: KC JC -> s1, 6
    #  T7 L1: TS JH -> s1, 12            T8 L1: JS QH -> s1, 5
    #  T9 L1: QS KH -> s1, 7 + 10                                s1 = 50
    # raw x2 (nt_double_raw): 100 = 100 -> hanging; MP 10 and 10 (r = 0).
    # §8.5: the taker's 10 are held, the other player adds his 10 now.
    r = replay(rec(P1, P1_HANG, strain="NT", taker=1, dealer=0))
    assert [t["winner"] for t in r["tricks"]] == [0, 0, 0, 0, 1, 1, 1, 1, 1]
    assert r["card_points"] == [50, 50]
    assert r["declarations"] == [[], []]
    assert r["raw"] == [100, 100]
    assert r["outcome"] == "hanging" and r["valat"] is None
    assert r["mp"] == [10, 0] and r["held_mp"] == [0, 10]
    assert r["to_play"] is None and r["legal"] is None and r["illegal"] is None
    r = replay(rec(P1, P1_HANG, strain="NT", taker=0, dealer=0))
    assert r["outcome"] == "hanging"
    assert r["mp"] == [0, 10] and r["held_mp"] == [10, 0]


def test_2p_doubled_hanging_holds_both(replay):
    # doubled: both committed, both players' MP held, x2 (x4 redoubled)
    opts = {"doubling": True}
    r = replay(rec(P1, P1_HANG, strain="NT", taker=1, dealer=0, doubling=1, options=opts))
    assert r["outcome"] == "hanging"
    assert r["mp"] == [0, 0] and r["held_mp"] == [20, 20]
    r = replay(rec(P1, P1_HANG, strain="NT", taker=1, dealer=0, doubling=2, options=opts))
    assert r["mp"] == [0, 0] and r["held_mp"] == [40, 40]


def test_2p_rounding_both_at_limit(replay):
    # P1_LIMIT in NT: s0 = T1 QC AC 14 + T2 AH AS 22 + T3 QH JS 5 + T4 9H KS 4 = 45
    #  s1 = T5 9C TC 10 + T6 KC JC 6 + T7 TS TH 20 + T8 QS JH 5 + T9 9S KH 4 + 10 = 55
    # nt_double_raw off: raw 45 / 55, both r = 5 = L (NT): the fewer (45)
    # rounds up to 5, 55 rounds down to 5.  Taker 1: 55 > 45, made.
    opts = {"nt_double_raw": False}
    r = replay(rec(P1, P1_LIMIT, strain="NT", taker=1, dealer=0, options=opts))
    assert r["card_points"] == [45, 55] and r["raw"] == [45, 55]
    assert r["outcome"] == "made" and r["mp"] == [5, 5] and r["held_mp"] == [0, 0]
    # nt_double_raw on: 90 / 110 -> 9 / 11
    r = replay(rec(P1, P1_LIMIT, strain="NT", taker=1, dealer=0))
    assert r["raw"] == [90, 110] and r["mp"] == [9, 11]


def test_2p_inside_and_kirtik(replay):
    # taker 0 with 45 < 55: inside, seat 1 takes 5 + 5 = 10; kirtik: -10
    opts = {"nt_double_raw": False}
    r = replay(rec(P1, P1_LIMIT, strain="NT", taker=0, dealer=0, options=opts))
    assert r["outcome"] == "inside" and r["mp"] == [0, 10]
    r = replay(rec(P1, P1_LIMIT, strain="NT", taker=0, dealer=0, options=dict(opts, kirtik=True)))
    assert r["mp"] == [-10, 10]


def test_2p_valat(replay):
    # P2_VALAT, hearts trump, seat 0 leads and wins all 9 tricks.
    # cards: hearts 20+14+11+10+4+3 = 62, spades 30, clubs 30, +10 = 132
    # belote KH (led, T5) +20 -> raw 152; quintes T-A hearts / T-A spades tie.
    # MP 15 (r = 2) + valat 9 = 24.
    r = replay(rec(P2, P2_VALAT, strain="H", taker=0, dealer=1))
    assert all(t["winner"] == 0 and t["leader"] == 0 for t in r["tricks"])
    assert len(r["tricks"]) == 9
    assert r["card_points"] == [132, 0]
    assert r["declarations"] == [[belote(0, "H")], []]
    assert r["raw"] == [152, 0]
    assert r["outcome"] == "made" and r["valat"] == 0
    assert r["mp"] == [24, 0] and r["held_mp"] == [0, 0]


def test_2p_valat_kirtik_once(replay):
    # taker 1 is inside and suffers the valat: -10 only once
    r = replay(rec(P2, P2_VALAT, strain="H", taker=1, dealer=1, options={"kirtik": True}))
    assert r["outcome"] == "inside"
    assert r["mp"] == [24, -10]  # 15 + 0 + 9 valat
    r = replay(rec(P2, P2_VALAT, strain="H", taker=0, dealer=1, options={"kirtik": True}))
    assert r["mp"] == [24, -10]  # made; the valat alone costs seat 1 10 MP


def test_2p_doubled_made(replay):
    # doubled and made: the defender is inside, taker gets (15 + 0) x 2 = 30,
    # + 9 valat (never multiplied) = 39
    opts = {"doubling": True}
    r = replay(rec(P2, P2_VALAT, strain="H", taker=0, dealer=1, doubling=1, options=opts))
    assert r["outcome"] == "made" and r["mp"] == [39, 0]
    r = replay(
        rec(
            P2, P2_VALAT, strain="H", taker=0, dealer=1, doubling=1, options=dict(opts, kirtik=True)
        )
    )
    assert r["mp"] == [39, -10]


def test_2p_best_declaration(replay):
    # best_declaration: the two quintes T-A tie on points and top card; the
    # one in trump (hearts) wins -> seat 0 scores 100: raw 252 -> 25 + 9 = 34
    r = replay(
        rec(
            P2,
            P2_VALAT,
            strain="H",
            taker=0,
            dealer=1,
            options={"declarations_compare": "best_declaration"},
        )
    )
    assert r["declarations"] == [[decl(0, "quinte", "TH JH QH KH AH", 100), belote(0, "H")], []]
    assert r["raw"] == [252, 0] and r["mp"] == [34, 0]


# ========================================================= 3 players: scoring

# S in hearts (dealer 2): seat 0 leads his six trumps, then AC, TC.
S_H = "JH 9S 9D 9H TS TD AH JS JD TH QS QD KH KS KD QH AS AD AC KC JC TC QC 9C"


def test_3p_valat_and_tied_quintes(replay):
    # T1 JH 9S 9D 20 | T2 9H TS TD 34 | T3 AH JS JD 15 | T4 TH QS QD 16
    # T5 KH KS KD 12 | T6 QH AS AD 25 | T7 AC KC JC 17 | T8 TC QC 9C 13 + 10
    # all won by seat 0: 152 + 10 = 162.  Three quintes T-A (hearts, spades,
    # diamonds) tie -> nobody scores runs.  Belote KH/QH (KH led in T5) +20.
    # raw 182 -> 18 MP (r = 2) + 9 valat = 27.
    r = replay(rec(S, S_H, strain="H", taker=0))
    assert [t["winner"] for t in r["tricks"]] == [0] * 8
    assert r["tricks"][6] == {"leader": 0, "cards": ["AC", "KC", "JC"], "winner": 0}
    assert r["card_points"] == [162, 0, 0]
    assert r["declarations"] == [[belote(0, "H")], [], []]
    assert r["raw"] == [182, 0, 0]
    assert r["outcome"] == "made" and r["valat"] == 0
    assert r["mp"] == [27, 0, 0] and r["held_mp"] == [0, 0, 0]


def test_3p_valat_kirtik(replay):
    # every player without a trick while seat 0 took them all loses 10
    r = replay(rec(S, S_H, strain="H", taker=0, options={"kirtik": True}))
    assert r["mp"] == [27, -10, -10]
    # taker 1 (0 < 182) inside: his 0 MP split 0/0; s0 18 + 9 = 27;
    # kirtik: seat 1 inside and valat'ed -> -10 once; seat 2 -10
    r = replay(rec(S, S_H, strain="H", taker=1))
    assert r["outcome"] == "inside" and r["mp"] == [27, 0, 0]
    r = replay(rec(S, S_H, strain="H", taker=1, options={"kirtik": True}))
    assert r["mp"] == [27, -10, -10]


def test_3p_valat_doubled(replay):
    # made and doubled: 18 x 2 + 9 = 45; redoubled 18 x 4 + 9 = 81
    opts = {"doubling": True}
    assert replay(rec(S, S_H, strain="H", doubling=1, options=opts))["mp"] == [45, 0, 0]
    assert replay(rec(S, S_H, strain="H", doubling=2, options=opts))["mp"] == [81, 0, 0]


def test_3p_valat_nt(replay):
    # NT: 4 x 30 + 10 = 130, x2 = 260 -> 26 MP; no declaration, no belote.
    # common: valat 18 in NT -> 44; bulgarian: 9 -> 35
    r = replay(rec(S, S_H, strain="NT"))
    assert r["card_points"] == [130, 0, 0] and r["raw"] == [260, 0, 0]
    assert r["declarations"] == [[], [], []]
    assert r["valat"] == 0 and r["mp"] == [44, 0, 0]
    r = replay(rec(S, S_H, strain="NT", ruleset="bulgarian"))
    assert r["mp"] == [35, 0, 0]


# The same hands S in AT (dealer 2).
S_AT = "JH JS 9D 9H TS TD AC KC JC JD TH 9S 9C TC QC AD AH AS KD KH KS QD QH QS"


def test_3p_at_belotes_common(replay):
    # AT points (every suit J 20, 9 14, A 11, T 10, K 4, Q 3):
    # T1 L0 JH JS 9D -> s0 54 | T2 L0 9H TS TD -> s0 34
    # T3 L0 AC KC JC -> s2 35 (seat 1 cannot beat AC: any club; seat 2 must: JC)
    # T4 L2 JD TH 9S -> s2 44 | T5 L2 9C TC QC -> s2 27 | T6 AD AH AS -> s2 33
    # T7 KD KH KS -> s2 12   | T8 QD QH QS -> s2 9 + 10
    # s0 = 88, s1 = 0, s2 = 35+44+27+33+12+19 = 170 (total 258).
    # Quintes T-A of hearts, spades, diamonds tie: no runs.
    # Belotes (common, belote_on_discard on): s0 hearts (KH discarded T7),
    # s1 clubs (KC followed T3) and spades (KS discarded T7), s2 diamonds (KD led).
    # raw 108 / 40 / 190; limit 4: 108 -> 11, 40 -> 4, 190 -> 19.
    r = replay(rec(S, S_AT, strain="AT", taker=2))
    assert [t["winner"] for t in r["tricks"]] == [0, 0, 2, 2, 2, 2, 2, 2]
    assert r["card_points"] == [88, 0, 170]
    assert r["declarations"] == [
        [belote(0, "H")],
        [belote(1, "C"), belote(1, "S")],
        [belote(2, "D")],
    ]
    assert r["raw"] == [108, 40, 190]
    assert r["outcome"] == "made" and r["valat"] is None
    assert r["mp"] == [11, 4, 19]


def test_3p_inside_split_odd_mp_to_more_raw(replay):
    # taker 0: 108 < 190 -> inside.  His 11 MP: 5 to each opponent, the odd
    # one to seat 2 (190 > 40): s1 = 4 + 5 = 9, s2 = 19 + 5 + 1 = 25.
    r = replay(rec(S, S_AT, strain="AT", taker=0))
    assert r["outcome"] == "inside" and r["mp"] == [0, 9, 25]
    assert r["held_mp"] == [0, 0, 0]


def test_3p_at_belote_on_discard_off(replay):
    # bulgarian: discarded KH (s0) and KS (s1) forfeit their belotes; KC
    # followed suit and KD was led.  raw 88 / 20 / 190 -> 9 / 2 / 19.
    # Taker 0 inside: 9 MP -> 4 + 4, odd to s2: s1 = 2 + 4 = 6, s2 = 19 + 4 + 1 = 24.
    r = replay(rec(S, S_AT, strain="AT", taker=0, ruleset="bulgarian"))
    assert r["declarations"] == [[], [belote(1, "C")], [belote(2, "D")]]
    assert r["raw"] == [88, 20, 190]
    assert r["outcome"] == "inside" and r["mp"] == [0, 6, 24]


def test_3p_belote_silent(replay):
    # bulgarian, seat 2 silent: raw 88 / 20 / 170 -> 9 / 2 / 17, taker 2 made
    r = replay(rec(S, S_AT, strain="AT", taker=2, ruleset="bulgarian", silent=[2]))
    assert r["declarations"] == [[], [belote(1, "C")], []]
    assert r["raw"] == [88, 20, 170]
    assert r["outcome"] == "made" and r["mp"] == [9, 2, 17]


def test_3p_best_declaration_ties_to_first_from_dealer(replay):
    # The AT deal with seats rotated: dealer 0, so seat 1 (= the old seat 0,
    # hearts) leads and plays are unchanged.  best_declaration: the three
    # quintes T-A are equal in every respect (all in trump in AT) -> the first
    # in playing order from dealer+1 = seat 1 scores his quinte (100).
    # card points 170 / 88 / 0; belotes: s0 diamonds, s1 hearts, s2 clubs+spades
    # raw: s0 170+20 = 190, s1 88+100+20 = 208, s2 0+40 = 40
    # -> MP 19 / 21 (r 8) / 4.  Taker 0: 190 < 208 inside; 19 -> 9 + 9, odd to
    # seat 1 (208 > 40): s1 = 21 + 9 + 1 = 31, s2 = 4 + 9 = 13.
    hands = [S[2], S[0], S[1]]
    r = replay(
        rec(
            hands,
            S_AT,
            strain="AT",
            taker=0,
            dealer=0,
            options={"declarations_compare": "best_declaration"},
        )
    )
    assert r["tricks"][0] == {"leader": 1, "cards": ["JH", "JS", "9D"], "winner": 1}
    assert r["card_points"] == [170, 88, 0]
    assert r["declarations"] == [
        [belote(0, "D")],
        [decl(1, "quinte", "TH JH QH KH AH", 100), belote(1, "H")],
        [belote(2, "C"), belote(2, "S")],
    ]
    assert r["raw"] == [190, 208, 40]
    assert r["outcome"] == "inside" and r["mp"] == [0, 31, 13]


# D2, hearts trump, dealer 2.
D2_H = "JH 9S 9D 9H TS TD AH JS JD TH QS QD KH JC KD QH QC AD 9C AC KS KC AS TC"


def test_3p_tied_best_runs_cancel(replay):
    # T1 JH 9S 9D 20 | T2 9H TS TD 34 | T3 AH JS JD 15 | T4 TH QS QD 16
    # T5 KH JC KD 10 | T6 QH QC AD 17 -> all s0
    # T7 L0 9C AC KS -> s1, 15 | T8 L1 KC AS TC -> s0 (T beats K), 25 + 10
    # s0 = 147, s1 = 15, s2 = 0.
    # Runs: s0 quinte T-A hearts, s2 quinte T-A diamonds (tie) -> nobody scores
    # runs, not even s1's two quartes (9-Q spades, J-A clubs).  Belote s0 +20.
    # raw 167 / 15 / 0 -> 17 / 1 (r 5 < 6) / 0.
    r = replay(rec(D2, D2_H, strain="H", taker=0))
    assert [t["winner"] for t in r["tricks"]] == [0, 0, 0, 0, 0, 0, 1, 0]
    assert r["tricks"][7] == {"leader": 1, "cards": ["KC", "AS", "TC"], "winner": 0}
    assert r["card_points"] == [147, 15, 0]
    assert r["declarations"] == [[belote(0, "H")], [], []]
    assert r["raw"] == [167, 15, 0]
    assert r["outcome"] == "made" and r["valat"] is None
    assert r["mp"] == [17, 1, 0]


def test_3p_need_trick_applies_after_comparison(replay):
    # bulgarian: seat 2 won no trick, yet his quinte still cancels seat 0's
    # (comparison first, then "need a trick") -> s0 raw stays 167, not 267.
    r = replay(rec(D2, D2_H, strain="H", taker=0, ruleset="bulgarian"))
    assert r["declarations"] == [[belote(0, "H")], [], []]
    assert r["raw"] == [167, 15, 0] and r["mp"] == [17, 1, 0]


def test_3p_best_declaration_run_in_trump(replay):
    # best_declaration: quintes of s0 (hearts = trump) and s2 tie on points
    # and top card; the run in trump wins -> s0 scores it: 267 -> 27
    r = replay(
        rec(D2, D2_H, strain="H", taker=0, options={"declarations_compare": "best_declaration"})
    )
    assert r["declarations"] == [[decl(0, "quinte", "TH JH QH KH AH", 100), belote(0, "H")], [], []]
    assert r["raw"] == [267, 15, 0] and r["mp"] == [27, 1, 0]


def test_3p_inside_taker_with_one_mp(replay):
    # taker 1 (15): inside; his 1 MP: 0 + 0 and the odd one to s0 (167 > 0)
    r = replay(rec(D2, D2_H, strain="H", taker=1))
    assert r["outcome"] == "inside" and r["mp"] == [18, 0, 0]


# D5, clubs trump, dealer 2.
D5_C = "AH TC TH JC JS 9C AC QS 9S KC KS 9D QC AS 9H TD AD JH KD QH JD QD KH TS"


def test_3p_unique_best_run_and_carre(replay):
    # T1 L0 AH TC TH -> s1 (must trump; seat 2 follows hearts), 11+10+10 = 31
    # T2 L1 JC JS 9C -> s1, 20+2+14 = 36 | T3 AC QS 9S -> s1, 14
    # T4 KC KS 9D -> s1, 8 | T5 QC AS 9H -> s1, 14           s1 = 103
    # T6 L1 TD AD JH -> s2, 23 | T7 L2 KD QH JD -> s2, 9
    # T8 L2 QD KH TS -> s2, 17 + 10                         s2 = 59, s0 = 0
    # Declarations: s0 carre of 9s (150) + quarte J-A hearts; s1 quinte T-A
    # clubs; s2 quarte J-A spades + tierce Q-A diamonds.  best_run: s1's
    # quinte is the unique best -> s1 scores it; carres always: s0 +150.
    # Belote s1 (KC led T4) +20.
    # raw 150 / 103+100+20 = 223 / 59 -> 15 / 22 / 6 (r 9).  Taker 1 made.
    r = replay(rec(D5, D5_C, strain="C", taker=1))
    assert [t["winner"] for t in r["tricks"]] == [1, 1, 1, 1, 1, 2, 2, 2]
    assert r["card_points"] == [0, 103, 59]
    assert r["declarations"] == [
        [decl(0, "carre", "9C 9D 9H 9S", 150)],
        [decl(1, "quinte", "TC JC QC KC AC", 100), belote(1, "C")],
        [],
    ]
    assert r["raw"] == [150, 223, 59]
    assert r["outcome"] == "made" and r["mp"] == [15, 22, 6]


def test_3p_need_trick_loses_carre(replay):
    # bulgarian: seat 0 won no trick -> his carre is not scored: raw 0
    r = replay(rec(D5, D5_C, strain="C", taker=1, ruleset="bulgarian"))
    assert r["declarations"][0] == [] and r["raw"] == [0, 223, 59]
    assert r["mp"] == [0, 22, 6]


def test_3p_inside_split_with_carre(replay):
    # taker 0: 150 < 223 inside; 15 -> 7 + 7, odd to s1 (223 > 59):
    # s1 = 22 + 7 + 1 = 30, s2 = 6 + 7 = 13
    r = replay(rec(D5, D5_C, strain="C", taker=0))
    assert r["outcome"] == "inside" and r["mp"] == [0, 30, 13]


def test_3p_best_declaration_carre_and_need_trick(replay):
    # best_declaration: the carre of 9s (150) is the highest -> s0 scores all
    # of his (carre + quarte = 200), s1 only his belote:
    # raw 200 / 123 / 59 -> 20 / 12 / 6; taker 1 inside: 6 + 6:
    # s0 = 20 + 6 = 26, s2 = 6 + 6 = 12
    opts = {"declarations_compare": "best_declaration"}
    r = replay(rec(D5, D5_C, strain="C", taker=1, options=opts))
    assert r["declarations"] == [
        [decl(0, "carre", "9C 9D 9H 9S", 150), decl(0, "quarte", "JH QH KH AH", 50)],
        [belote(1, "C")],
        [],
    ]
    assert r["raw"] == [200, 123, 59]
    assert r["outcome"] == "inside" and r["mp"] == [26, 0, 12]
    # + need a trick: s0 (no trick) loses them, nobody else scores any:
    # raw 0 / 123 / 59 -> taker 1 made, 0 / 12 / 6
    r = replay(rec(D5, D5_C, strain="C", taker=1, options=dict(opts, declarations_need_trick=True)))
    assert r["declarations"] == [[], [belote(1, "C")], []]
    assert r["raw"] == [0, 123, 59]
    assert r["outcome"] == "made" and r["mp"] == [0, 12, 6]


# N in NT, dealer 2.
N_A = "JH TS TD TH KS QD AH AS KD 9C JC AC 9D 9H 9S JD QH JS KC QC TC QS AD KH"
N_B = "9H QS TD QH KS KD KH AS AD 9C JC AC 9D TH 9S QD JH JS KC QC TC TS JD AH"
NO_DOUBLE = {"nt_double_raw": False}


def test_3p_rounding_two_at_limit(replay):
    # N_A (NT): T1 JH TS TD 22 | T2 TH KS QD 17 | T3 AH AS KD 26 -> s0 = 65
    # T4 L0 9C JC AC -> s2, 13 | T5 L2 9D 9H 9S 0 | T6 JD QH JS 7 -> s2 = 20
    # T7 L2 KC QC TC -> s1 (T beats K), 17 | T8 L1 QS AD KH -> s1, 18 + 10 -> s1 = 45
    # nt_double_raw off: raw 65 / 45 / 20.  Limit 5: 65 and 45 are at it;
    # the fewer of those two (45) rounds up -> 5, 65 down -> 6 (even though
    # seat 2 has fewer raw points overall); 20 -> 2.
    r = replay(rec(N, N_A, strain="NT", taker=0, options=NO_DOUBLE))
    assert [t["winner"] for t in r["tricks"]] == [0, 0, 0, 2, 2, 2, 1, 1]
    assert r["card_points"] == [65, 45, 20] and r["raw"] == [65, 45, 20]
    assert r["declarations"] == [[], [], []]
    assert r["outcome"] == "made" and r["mp"] == [6, 5, 2]


def test_3p_nt_double_raw(replay):
    # raw x2: 130 / 90 / 40 -> 13 / 9 / 4
    r = replay(rec(N, N_A, strain="NT", taker=0))
    assert r["raw"] == [130, 90, 40] and r["mp"] == [13, 9, 4]


def test_3p_inside_even_split_and_kirtik(replay):
    # taker 2 (20): inside; 2 MP -> 1 + 1: s0 = 6 + 1 = 7, s1 = 5 + 1 = 6
    r = replay(rec(N, N_A, strain="NT", taker=2, options=NO_DOUBLE))
    assert r["outcome"] == "inside" and r["mp"] == [7, 6, 0]
    # taker 1 (45 < 65): 5 -> 2 + 2, odd to s0 (65 > 20): s0 = 6+2+1 = 9,
    # s2 = 2 + 2 = 4; kirtik: the inside taker -10
    r = replay(rec(N, N_A, strain="NT", taker=1, options=dict(NO_DOUBLE, kirtik=True)))
    assert r["outcome"] == "inside" and r["mp"] == [9, -10, 4]


def test_3p_doubled_made_each_own(replay):
    # doubled, made (65 > 45, 65 > 20): each his own MP x2 -> 12 / 10 / 4
    r = replay(
        rec(N, N_A, strain="NT", taker=0, doubling=1, options=dict(NO_DOUBLE, doubling=True))
    )
    assert r["outcome"] == "made" and r["mp"] == [12, 10, 4]


def test_3p_taker_tied_with_opponent_is_inside(replay):
    # N_B (NT): T1 9H QS TD 13 | T2 QH KS KD 11 | T3 KH AS AD 26 -> s0 = 50
    # T4 9C JC AC -> s2, 13 | T5 L2 9D TH 9S 10 | T6 QD JH JS 7 -> s2 = 30
    # T7 L2 KC QC TC -> s1, 17 | T8 L1 TS JD AH -> s1, 23 + 10 -> s1 = 50
    # taker 0: 50 is not more than s1's 50 -> inside (never hanging).
    # MP 5 / 5 / 3; taker's 5 -> 2 + 2, odd to s1 (50 > 30):
    # s1 = 5 + 2 + 1 = 8, s2 = 3 + 2 = 5
    r = replay(rec(N, N_B, strain="NT", taker=0, options=NO_DOUBLE))
    assert r["card_points"] == [50, 50, 30]
    assert r["outcome"] == "inside" and r["mp"] == [0, 8, 5]
    assert r["held_mp"] == [0, 0, 0]
    # raw doubled: 100 / 100 / 60 -> 10 / 10 / 6; 10 -> 5 + 5: 15 / 11
    r = replay(rec(N, N_B, strain="NT", taker=0))
    assert r["raw"] == [100, 100, 60] and r["mp"] == [0, 15, 11]


def test_3p_doubled_inside(replay):
    # N_B, taker 0 inside, doubled: (0, 8, 5) x2 = (0, 16, 10); x4 = (0, 32, 20)
    opts = dict(NO_DOUBLE, doubling=True)
    r = replay(rec(N, N_B, strain="NT", taker=0, doubling=1, options=opts))
    assert r["outcome"] == "inside" and r["mp"] == [0, 16, 10]
    r = replay(rec(N, N_B, strain="NT", taker=0, doubling=2, options=opts))
    assert r["mp"] == [0, 32, 20]


def test_3p_odd_mp_equal_raw_goes_first_from_dealer(replay):
    # N_B with seats rotated (new seat = old + 2 mod 3: hands [N[1], N[2], N[0]])
    # and dealer 1: seat 2 (old seat 0) leads, plays unchanged.
    # card points: s0 = 50, s1 = 30, s2 = 50.  Taker 1: inside; MP 5 / 3 / 5;
    # 3 -> 1 + 1 and the odd one: s0 and s2 have equal raw, the first in
    # playing order from dealer+1 = seat 2 gets it: s2 = 5+1+1 = 7, s0 = 5+1 = 6.
    hands = [N[1], N[2], N[0]]
    r = replay(rec(hands, N_B, strain="NT", taker=1, dealer=1, options=NO_DOUBLE))
    assert r["tricks"][0]["leader"] == 2
    assert r["card_points"] == [50, 30, 50]
    assert r["outcome"] == "inside" and r["mp"] == [6, 0, 7]


# ================================================================ open belot


def test_open_playable_cards_at_start(replay):
    # dealer 1 -> seat 0 leads: his hand plus the four face-up table cards
    hands, table = O_PLAIN
    r = replay(open_rec(hands, table))
    assert r["to_play"] == 0 and r["tricks"] == []
    assert r["legal"] == srt("7C 8C 9C TC JC QC KC 7H 8D TD QD AD")
    # a face-down card cannot be played
    r = replay(open_rec(hands, table, "7D"))
    assert r["illegal"] == illegal(0, 0, "7D", "not_in_hand")


def test_open_follow_suit_with_table_card(replay):
    # 7C led: seat 1 has no club in hand but AC face up on his table -> must
    # follow with it (the duty covers the whole playable set)
    hands, table = O_PLAIN
    r = replay(open_rec(hands, table, "7C"))
    assert r["to_play"] == 1 and r["legal"] == ["AC"]
    r = replay(open_rec(hands, table, "7C TH"))
    assert r["illegal"] == illegal(0, 1, "TH", "follow_suit") and r["legal"] == ["AC"]
    # 8H lies face down under AC: not playable, whatever else is wrong with it
    r = replay(open_rec(hands, table, "7C 8H"))
    assert r["illegal"] == illegal(0, 1, "8H", "not_in_hand")


def test_open_turned_up_card_becomes_playable(replay):
    # 7C AC: AC wins; 8H (under AC) turns face up and is playable at once
    hands, table = O_PLAIN
    r = replay(open_rec(hands, table, "7C AC"))
    assert r["tricks"] == [{"leader": 0, "cards": ["7C", "AC"], "winner": 1}]
    assert r["to_play"] == 1
    assert r["legal"] == srt("8H TH QH AH 7S 8S 9S TS JS QS KS AS")
    # seat 1 leads the turned-up 8H; seat 0 must follow with 7H (cannot raise)
    r = replay(open_rec(hands, table, "7C AC 8H"))
    assert r["illegal"] is None and r["to_play"] == 0 and r["legal"] == ["7H"]
    r = replay(open_rec(hands, table, "7C AC 8H 9C"))
    assert r["illegal"] == illegal(1, 0, "9C", "follow_suit")
    # 9H is still face down under TH
    r = replay(open_rec(hands, table, "7C AC 9H"))
    assert r["illegal"] == illegal(1, 1, "9H", "not_in_hand")
    # 8H beats 7H (trump order ... 8 7); seat 1 leads AH, seat 0 has no heart
    # left: any card of hand + face-up table
    r = replay(open_rec(hands, table, "7C AC 8H 7H AH"))
    assert r["tricks"][1] == {"leader": 1, "cards": ["8H", "7H"], "winner": 1}
    assert r["to_play"] == 0
    assert r["legal"] == srt("8C 9C TC JC QC KC 8D TD QD AD")


def test_open_must_trump_with_table_cards(replay):
    # O_TRUMP: seat 1's trumps are all on his table; only the face-up ones count
    hands, table = O_TRUMP
    r = replay(open_rec(hands, table, "7C"))
    assert r["legal"] == srt("8H TH QH AH")
    r = replay(open_rec(hands, table, "7C AS"))
    assert r["illegal"] == illegal(0, 1, "AS", "trump")
    assert r["legal"] == srt("8H TH QH AH")
    r = replay(open_rec(hands, table, "7C 8H"))  # trumped; 7H turns up
    assert r["tricks"][0]["winner"] == 1 and r["to_play"] == 1
    assert r["legal"] == srt("7H TH QH AH 7S 8S 9S TS JS QS KS AS")


# Complete open deals, hearts trump, dealer 1: seat 0 leads every trick and
# wins all 16 (seat 1 has no heart and no club: any card).
# card points: hearts 20+14+11+10+4+3+0+0 = 62, clubs/diamonds/spades 30 each,
# +10 last trick = 162, all to seat 0.
_SEAT1_ORDER = "7D 8D 9D TD JD QD KD AS 8S 7S TS 9S QS JS AD KS"
# Runs/carres at the start: seat 1 sees diamonds 7-K in hand + AD face up =
# the 8-run -> quinte T-A + tierce 7-9 (120).  Seat 0 sees 7H-QH + AH in hand
# (+ 8C, 7C TC QC AC): run 7-Q of 6 -> quinte 8-Q (100), top Q.  (Were KH,
# face down, counted, seat 0 would hold a quinte T-A too and the runs would
# cancel; were the face-up AD not counted, seat 1 would declare 9-K only.)
# best_run: seat 1's quinte (top A) beats seat 0's (top Q): seat 1 scores 120.
OPEN_S1_DECLS = [decl(1, "quinte", "TD JD QD KD AD", 100), decl(1, "tierce", "7D 8D 9D", 20)]


def test_open_belote_with_turned_up_king(replay):
    # 7C first (KH, beneath it, turns face up), then QH is led while KH is face
    # up on the table -> belote.  raw 162 + 20 = 182 / 120 -> 18 / 12,
    # made, + 9 valat = 27.
    hands, table = O_VALAT_A
    plays = interleave("7C QH KH 7H 8H 9H TH JH AH 8C TC 9C QC JC AC KC", _SEAT1_ORDER)
    r = replay(open_rec(hands, table, plays, taker=0))
    assert len(r["tricks"]) == 16 and all(t["winner"] == 0 for t in r["tricks"])
    assert r["card_points"] == [162, 0]
    assert r["declarations"] == [[belote(0, "H")], OPEN_S1_DECLS]
    assert r["raw"] == [182, 120]
    assert r["outcome"] == "made" and r["valat"] == 0
    assert r["mp"] == [27, 12] and r["held_mp"] == [0, 0]


def test_open_belote_lost_when_king_face_down(replay):
    # QH played first while KH is still face down under 7C: no belote.
    # raw 162 / 120 -> 16 + 9 = 25 / 12
    hands, table = O_VALAT_A
    plays = interleave("QH 7C KH 7H 8H 9H TH JH AH 8C TC 9C QC JC AC KC", _SEAT1_ORDER)
    r = replay(open_rec(hands, table, plays, taker=0))
    assert r["declarations"] == [[], OPEN_S1_DECLS]
    assert r["raw"] == [162, 120] and r["mp"] == [25, 12]


def test_open_belote_king_over_face_down_queen(replay):
    # KH face up over QH face down: when KH (the first of the pair) is played,
    # QH is still face down (it turns up by that very play) -> no belote.
    # Seat 0 sees 7H-JH, AH, KH: quinte 7-J (top J) < seat 1's.
    hands, table = O_VALAT_C
    plays = interleave("KH QH 7H 8H 9H TH JH AH 7C 8C TC 9C QC JC AC KC", _SEAT1_ORDER)
    r = replay(open_rec(hands, table, plays, taker=0))
    assert r["card_points"] == [162, 0]
    assert r["declarations"] == [[], OPEN_S1_DECLS]
    assert r["raw"] == [162, 120] and r["mp"] == [25, 12]


def test_open_need_trick(replay):
    # bulgarian: seat 1 won no trick -> his runs do not count; the belote of
    # seat 0 (QH led) does: raw 182 / 0 -> 18 + 9 = 27 / 0
    hands, table = O_VALAT_A
    plays = interleave("7C QH KH 7H 8H 9H TH JH AH 8C TC 9C QC JC AC KC", _SEAT1_ORDER)
    r = replay(open_rec(hands, table, plays, taker=0, ruleset="bulgarian"))
    assert r["declarations"] == [[belote(0, "H")], []]
    assert r["raw"] == [182, 0] and r["mp"] == [27, 0]


# ================================================================ validation


def test_3p_seven_is_not_in_the_deck(replay):
    hands = ["7C TC JC QC KC AC 9D TD", L2[1], L2[2]]
    with pytest.raises(ValueError):
        replay(rec(hands))


def test_3p_wrong_hand_sizes(replay):
    hands = ["9C TC JC QC KC AC 9D TD TS", "9H QH JD QD KD AD 9S", L2[2]]  # 9 / 7 / 8
    with pytest.raises(ValueError):
        replay(rec(hands))
    with pytest.raises(ValueError):
        replay(rec(L2[:2]))  # players 2 with 8-card hands
    with pytest.raises(ValueError):
        replay(rec(L2 + [""]))  # 4 hands


def test_3p_duplicate_card(replay):
    hands = [L2[0], "9H QH JD QD KD AD 9S 9C", L2[2]]  # 9C twice, TS missing
    with pytest.raises(ValueError):
        replay(rec(hands))


def test_2p_deck_and_sizes(replay):
    with pytest.raises(ValueError):
        replay(rec(["9H TH JH QH KH AH 9C JC", P1[1]], strain="NT", dealer=0))  # 8 cards
    with pytest.raises(ValueError):
        replay(rec(["7H TH JH QH KH AH 9C JC AC", P1[1]], strain="NT", dealer=0))  # a 7
    with pytest.raises(ValueError):
        replay(
            rec(["9H TH JH QH KH AH 9C JC AC", "9S TS JS QS KS AS TC KC AC"], strain="NT", dealer=0)
        )  # AC twice


def test_open_record_errors(replay):
    hands, table = O_PLAIN
    bad_pile = [[["7D", "8D", "9D"], ["TD"], ["JD", "QD"], ["KD", "AD"]], table[1]]
    with pytest.raises(ValueError):
        replay(open_rec(hands, bad_pile))
    three_piles = [table[0][:3], table[1]]  # 4 cards missing from the deal
    with pytest.raises(ValueError):
        replay(open_rec(hands, three_piles))
    dup = [[["7C", "8D"]] + table[0][1:], table[1]]  # 7C also in seat 0's hand
    with pytest.raises(ValueError):
        replay(open_rec(hands, dup))
    no_table = open_rec(hands, table)
    del no_table["table"]
    with pytest.raises(ValueError):
        replay(no_table)


def test_doubling_needs_the_option(replay):
    with pytest.raises(ValueError):
        replay(rec(S, S_H, strain="H", doubling=1))
    with pytest.raises(ValueError):
        replay(rec(S, S_H, strain="H", doubling=3, options={"doubling": True}))


def test_french_scoring_and_revoke_penalty_rejected(replay):
    with pytest.raises(ValueError):
        replay(rec(S, S_H, strain="H", options={"scoring": "french"}))
    with pytest.raises(ValueError):
        replay(rec(S, S_H, strain="H", options={"revoke_penalty": True}))


def test_too_many_plays(replay):
    with pytest.raises(ValueError):
        replay(rec(S, S_H + " AC", strain="H"))
    with pytest.raises(ValueError):
        replay(rec(P1, P1_HANG + " QC", strain="NT", dealer=0))


# ====================================================== random playouts


def _points(card, strain):
    trump = strain == "AT" or card[1] == strain
    table = (
        {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3}
        if trump
        else {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
    )
    return table.get(card[0], 0)


@pytest.mark.parametrize("kind", ["3p", "2p", "open"])
def test_random_legal_playouts_invariants(replay, kind):
    # Each step plays a random card of the implementation's own ``legal`` list;
    # the finished deal must account for every card point (+10 last trick),
    # and raw = (card points + listed declarations) x2 in NT.
    import random

    rng = random.Random(20240611)
    for n in range(12):
        strain = rng.choice(["C", "D", "H", "S", "NT", "AT"])
        if kind == "open":
            deck = sorted(DECK32)
            rng.shuffle(deck)
            hands = [" ".join(deck[0:8]), " ".join(deck[8:16])]
            table = [
                [deck[16 + 2 * i : 18 + 2 * i] for i in range(4)],
                [deck[24 + 2 * i : 26 + 2 * i] for i in range(4)],
            ]
            base = open_rec(hands, table, "", strain=strain, dealer=n % 2)
            dealt = deck
        else:
            deck = sorted(DECK24)
            rng.shuffle(deck)
            p, size = (3, 8) if kind == "3p" else (2, 9)
            hands = [" ".join(deck[i * size : (i + 1) * size]) for i in range(p)]
            base = rec(hands, "", strain=strain, dealer=n % p, taker=n % p)
            dealt = deck[: p * size]
        base["options"] = {"kirtik": bool(n % 3 == 0)}
        plays = []
        while True:
            base["plays"] = list(plays)
            r = replay(base)
            assert r["illegal"] is None
            if r["to_play"] is None:
                break
            plays.append(rng.choice(r["legal"]))
        assert sorted(plays) == sorted(dealt)
        total = sum(_points(c, strain) for c in dealt) + 10
        assert sum(r["card_points"]) == total
        factor = 2 if strain == "NT" else 1
        for s, d in enumerate(r["declarations"]):
            assert all(e["seat"] == s for e in d)
            assert r["raw"][s] == factor * (r["card_points"][s] + sum(e["points"] for e in d))
        assert r["outcome"] in ("made", "inside", "hanging")
        wins = [t["winner"] for t in r["tricks"]]
        assert r["valat"] == (wins[0] if len(set(wins)) == 1 else None)
