"""Card notation and layout (docs/rules.md section 1)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from belote_sim import cards as C


def test_layout_is_suit_byte_rank_bit():
    # card = 8*suit + rank, suits C D H S, ranks 7..A
    assert C.parse_card("7C") == 0
    assert C.parse_card("AC") == 7
    assert C.parse_card("7D") == 8
    assert C.parse_card("JH") == 8 * 2 + 4
    assert C.parse_card("AS") == 31


@pytest.mark.parametrize("text", ["TH", "10H", "th", "10♥", "T♥", "10h", " TH "])
def test_ten_of_hearts_spellings(text):
    assert C.format_card(C.parse_card(text)) == "TH"


@pytest.mark.parametrize("symbol,suit", [("♣", "C"), ("♦", "D"), ("♥", "H"), ("♠", "S")])
def test_suit_symbols(symbol, suit):
    assert C.format_card(C.parse_card("q" + symbol)) == "Q" + suit


def test_all_cards_round_trip():
    for card in range(32):
        assert C.parse_card(C.format_card(card)) == card
    assert len({C.format_card(c) for c in range(32)}) == 32


@pytest.mark.parametrize("bad", ["1X", "ZZ", "6H", "", "JHH", "11S", "AX", "J"])
def test_unknown_card_is_named(bad):
    with pytest.raises(ValueError, match="unknown card"):
        C.parse_card(bad)


def test_hand_must_have_eight_cards():
    with pytest.raises(ValueError, match="8 cards, got 7"):
        C.parse_hand("7C 8C 9C TC JC QC KC")


def test_duplicate_card_named():
    with pytest.raises(ValueError, match="duplicate card JH"):
        C.parse_hand("JH 9H AH TH KS QS 7C jh")


def test_card_held_twice_across_hands():
    hands = [
        "7C 8C 9C TC JC QC KC AC",
        "7D 8D 9D TD JD QD KD AD",
        "7H 8H 9H TH JH QH KH AH",
        "7S 8S 9S TS JS QS KS AC",
    ]
    with pytest.raises(ValueError, match="AC is held twice"):
        C.parse_hands(hands)


def test_format_cards_sorted_by_suit_then_rank():
    mask = C.parse_hand("AS 7C JH TD KC 9S 8D QH")
    assert C.format_cards(mask) == ["7C", "KC", "8D", "TD", "JH", "QH", "9S", "AS"]


def test_card_points_sum_to_152():
    from belote_sim.kernels.tables import CARD_POINTS, STRAIN_AT, STRAIN_NT

    for strain in range(4):
        assert CARD_POINTS[strain].sum() == 152
    assert CARD_POINTS[STRAIN_NT].sum() == 120
    assert CARD_POINTS[STRAIN_AT].sum() == 248


@given(st.sets(st.integers(0, 31), min_size=8, max_size=8))
def test_mask_round_trip(cards):
    mask = C.mask_of(cards)
    assert C.popcount(mask) == 8
    assert C.cards_of(mask) == sorted(cards)
    assert C.parse_hand(" ".join(C.format_cards(mask))) == mask


def test_strains():
    assert [C.parse_strain(s) for s in ["C", "d", "H", "S", "nt", "AT", "♥"]] == [
        0,
        1,
        2,
        3,
        4,
        5,
        2,
    ]
    with pytest.raises(ValueError, match="unknown strain"):
        C.parse_strain("SA")
