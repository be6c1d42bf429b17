"""Exact declaration probabilities: closed forms vs enumeration vs brute force."""

from fractions import Fraction
from itertools import chain, combinations
from math import comb

import numpy as np
import pytest

from belote_sim.analysis import exact
from belote_sim.analysis.report_tables import hand_events


@pytest.mark.parametrize("k", [5, 8])
def test_closed_form_equals_enumeration(k):
    assert exact.closed_form(k) == exact.enumerated(k)


def test_known_values():
    # carré of jacks in 8 cards: C(28, 4) / C(32, 8); K+Q of a suit: C(30, 6) / C(32, 8)
    p = exact.closed_form(8)
    assert p["carre_J"] == Fraction(comb(28, 4), comb(32, 8))
    assert p["kq_suit"] == Fraction(comb(30, 6), comb(32, 8))
    assert abs(float(p["carre_J"]) - 20475 / 10518300) < 1e-15  # 0.19466%
    # the run events and "no run" partition the hands
    no_run = 1 - p["run3"] - p["run4"] - p["run5"]
    assert 0 < no_run < 1


def test_five_card_hands_by_brute_force():
    """All C(32, 5) = 201,376 bidding hands enumerated directly."""
    combos = np.array(list(combinations(range(32), 5)), dtype=np.int64)
    hands = (np.int64(1) << combos).sum(axis=1)
    assert len(hands) == comb(32, 5)
    events = hand_events(hands)
    p = exact.closed_form(5)
    for name, hits in events.items():
        assert Fraction(int(hits.sum()), len(hands)) == p[name], name


def test_team_probabilities_against_sampled_brute_force():
    """Team events: exact values vs a large uniform sample (4 standard errors)."""
    rng = np.random.default_rng(0)
    n = 200_000
    perm = np.argsort(rng.random((n, 32)), axis=1)
    bits = np.int64(1) << perm
    h1 = bits[:, :8].sum(axis=1)
    h2 = bits[:, 8:16].sum(axis=1)
    a, b = hand_events(h1), hand_events(h2)
    team = exact.team_probabilities()
    for length in (3, 4, 5):
        hit_a = np.zeros(n, bool)
        hit_b = np.zeros(n, bool)
        for longer in range(length, 6):
            hit_a |= a[f"run{longer}"]
            hit_b |= b[f"run{longer}"]
        p = float(team[f"team_run{length}plus"])
        assert abs((hit_a | hit_b).mean() - p) < 4 * np.sqrt(p * (1 - p) / n)
    for event in ("carre_any", "kq_suit", "carre_J"):
        p = float(team[f"team_{event}"])
        assert abs((a[event] | b[event]).mean() - p) < 4 * np.sqrt(p * (1 - p) / n) + 1e-12


def test_team_closed_relations():
    team = exact.team_probabilities()
    single = exact.closed_form(8)
    assert team["team_kq_suit"] == 2 * single["kq_suit"]
    # at least one run of 3+ in two hands is more likely than in one, less than twice
    one = single["run3"] + single["run4"] + single["run5"]
    assert one < team["team_run3plus"] < 2 * one


# --- 24-card deck (2- and 3-player variants) and the open-belot 12 cards -----------------


@pytest.mark.parametrize("deck, k", [(24, 5), (24, 6), (24, 8), (24, 9), (32, 12)])
def test_closed_form_equals_enumeration_other_decks(deck, k):
    assert exact.closed_form(k, deck=deck) == exact.enumerated(k, deck=deck)


def test_default_deck_unchanged():
    assert exact.closed_form(8) == exact.closed_form(8, deck=32)
    assert exact.enumerated(5) == exact.enumerated(5, deck=32)
    assert exact.probabilities(8) == exact.probabilities(8, deck=32)


def test_deck_cards():
    assert exact.deck_cards() == tuple(range(32))
    cards24 = exact.deck_cards(24)
    assert len(cards24) == 24
    assert all(c % 8 >= 2 for c in cards24)  # ranks 9 T J Q K A only


@pytest.mark.parametrize("k", [5, 6, 8, 9])
def test_24_card_hands_by_brute_force(k):
    """All C(24, k) hands (735,471 for k = 8) enumerated directly."""
    cards = np.array(exact.deck_cards(24), dtype=np.int64)
    n = comb(24, k)
    idx = np.fromiter(
        chain.from_iterable(combinations(range(24), k)), dtype=np.int8, count=n * k
    ).reshape(n, k)
    hands = (np.int64(1) << cards[idx]).sum(axis=1)
    assert len(np.unique(hands)) == n
    events = hand_events(hands)
    p = exact.closed_form(k, deck=24)
    assert set(events) == set(p) == set(exact.HAND_EVENTS)
    for name, hits in events.items():
        assert Fraction(int(hits.sum()), n) == p[name], name


def test_known_values_24_card_deck():
    # 3-player 8-card hand: carré of jacks C(20, 4) / C(24, 8); K+Q of a suit
    # C(22, 6) / C(24, 8)
    p = exact.closed_form(8, deck=24)
    assert p["carre_J"] == Fraction(comb(20, 4), comb(24, 8))
    assert p["kq_suit"] == Fraction(comb(22, 6), comb(24, 8))
    # 2-player 9-card hand: any carré by inclusion-exclusion over the 6 ranks
    p9 = exact.closed_form(9, deck=24)
    assert p9["carre_any"] == Fraction(6 * comb(20, 5) - 15 * comb(16, 1), comb(24, 9))
    # 5 cards: a run of 5+ is a quinte in one suit: 2 windows (9..K, T..A) per suit
    p5 = exact.closed_form(5, deck=24)
    assert p5["run5"] == Fraction(4 * 2, comb(24, 5))
    # 6 cards: a run of 6 is a whole suit (4 hands); a run of exactly 5 is one of the
    # 2 windows of a suit plus a 6th card that does not extend it (24 - 5 - 1 = 18)
    p6 = exact.closed_form(6, deck=24)
    assert p6["run5"] == Fraction(4 * (1 + 2 * 18), comb(24, 6))
    # open belot: 12 of the 32 cards
    p12 = exact.closed_form(12)
    assert p12["carre_A"] == Fraction(comb(28, 8), comb(32, 12))
    assert p12["kq_suit"] == Fraction(comb(30, 10), comb(32, 12))


@pytest.mark.parametrize("deck, k", [(24, 0), (24, 1), (24, 24), (32, 0), (32, 32)])
def test_edge_hand_sizes(deck, k):
    p = exact.closed_form(k, deck=deck)
    assert p == exact.enumerated(k, deck=deck)
    assert all(0 <= v <= 1 for v in p.values())
    full = k == deck  # the whole deck holds every carré, K+Q and run; 0 or 1 card none
    for name in ("carre_any", "carre_9", "kq_suit", "run5"):
        assert p[name] == (1 if full else 0), name


def test_probabilities_sum_and_floats_24():
    p = exact.probabilities(8, deck=24)
    exact8 = exact.closed_form(8, deck=24)
    assert p == {key: float(v) for key, v in exact8.items()}
    assert 0 < 1 - exact8["run3"] - exact8["run4"] - exact8["run5"] < 1


@pytest.mark.parametrize("func", [exact.closed_form, exact.enumerated, exact.probabilities])
def test_invalid_arguments(func):
    with pytest.raises(ValueError, match="deck"):
        func(8, deck=36)
    with pytest.raises(ValueError, match="deck"):
        func(5, deck=52)
    with pytest.raises(ValueError, match="0..24"):
        func(25, deck=24)
    with pytest.raises(ValueError, match="0..32"):
        func(33)
    with pytest.raises(ValueError, match="0..24"):
        func(-1, deck=24)
    with pytest.raises(TypeError):
        func(8, 24)  # deck is keyword-only
