"""Exact declaration probabilities: closed forms vs enumeration vs brute force."""

from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np
import pytest

from belote_sim import exact
from belote_sim.reports import hand_events


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
