"""The numba kernels agree with the independent pure-Python reference (tests/reference.py).

Per rule configuration: legal card sets and trick winners at >= 100,000 positions
reached by random legal playouts, declarations of 100,000 random hands, 100,000
random MP scorings, and complete replays (full, partial and with illegal cards)
compared field by field.
"""

import zlib

import numpy as np
import pytest
import reference as ref

from belote_sim import Rules, replay
from belote_sim.cards import format_card, format_cards, parse_card, parse_hand
from belote_sim.deal.declarations import (
    carre_entries,
    declarations_table,
    run_entries,
    sort_entries,
)
from belote_sim.deal.playout import random_record
from belote_sim.kernels.core import legal_masks_batch, trick_winners_batch
from belote_sim.kernels.scoring import score_deal
from belote_sim.kernels.tables import OUTCOME_NAMES, STRAIN_NAMES

# Every option that changes play, declarations or scoring is exercised both ways.
CONFIGS = {
    "common": ("common", {}),
    "bulgarian": ("bulgarian", {}),
    "french": ("french", {}),
    "french-nt-at": ("french", {"french_allow_nt_at": True}),
    "common-raise-no-undertrump": ("common", {"raise_over_partner": True, "undertrump": False}),
    "bulgarian-undertrump-discard": (
        "bulgarian",
        {"undertrump": True, "belote_on_discard": True, "raise_over_partner": False},
    ),
    "common-overlap-fouraces-kirtik": (
        "common",
        {
            "card_in_one_declaration": False,
            "nt_four_aces": True,
            "kirtik": True,
            "third_double": True,
        },
    ),
    "bulgarian-best-decl-no-need-trick": (
        "bulgarian",
        {
            "declarations_compare": "best_declaration",
            "declarations_need_trick": False,
            "nt_double_raw": False,
            "valat_nt_double": True,
        },
    ),
    "common-best-run-need-trick-revoke": (
        "common",
        {"declarations_need_trick": True, "revoke_penalty": True},
    ),
    "french-best-run-revoke": (
        "french",
        {"declarations_compare": "best_run", "revoke_penalty": True, "capot_points": 252},
    ),
}
MAIN_PRESETS = ("common", "bulgarian", "french")


def rules_of(name):
    ruleset, options = CONFIGS[name]
    return Rules.preset(ruleset, **options), {"ruleset": ruleset, "options": options}


def positions_from_playouts(rules, n_positions, seed):
    """Every decision of random legal playouts: (hand, trick cards, leader, strain)."""
    positions = []
    tricks = []
    deal = 0
    while len(positions) < n_positions:
        rec = random_record(seed * 1_000_003 + deal, rules)
        deal += 1
        hands = [set(h.split()) for h in rec["hands"]]
        strain = rec["contract"]["strain"]
        leader = (rec["dealer"] + 1) % 4
        plays = rec["plays"]
        for t in range(8):
            trick = plays[4 * t : 4 * t + 4]
            for pos in range(4):
                seat = (leader + pos) % 4
                positions.append((sorted(hands[seat]), trick[:pos], leader, strain))
                hands[seat].discard(trick[pos])
            tricks.append((trick, leader, strain))
            leader = ref.trick_winner(trick, leader, strain)
    return positions, tricks


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_legal_sets_and_trick_winners(config):
    rules, ref_rules = rules_of(config)
    n = 100_000 if config in MAIN_PRESETS else 20_000
    positions, tricks = positions_from_playouts(
        rules, n, seed=zlib.crc32(repr(config).encode()) % 1000
    )
    hands = np.array([parse_hand(h, size=None) for h, _, _, _ in positions], dtype=np.int64)
    trick_arr = np.zeros((len(positions), 4), dtype=np.int64)
    n_played = np.zeros(len(positions), dtype=np.int64)
    strains = np.zeros(len(positions), dtype=np.int64)
    for i, (_, trick, _, strain) in enumerate(positions):
        for k, card in enumerate(trick):
            trick_arr[i, k] = parse_card(card)
        n_played[i] = len(trick)
        strains[i] = STRAIN_NAMES.index(strain)
    masks = legal_masks_batch(hands, trick_arr, n_played, strains, rules.to_array())
    mismatches = []
    for i, (hand, trick, leader, strain) in enumerate(positions):
        expected = ref.legal_cards(hand, trick, leader, strain, ref_rules)
        if set(format_cards(int(masks[i]))) != expected:
            mismatches.append((hand, trick, strain, format_cards(int(masks[i])), sorted(expected)))
    assert not mismatches, f"{len(mismatches)} legal-set mismatches, first: {mismatches[:3]}"

    cards = np.array([[parse_card(c) for c in t] for t, _, _ in tricks], dtype=np.int64)
    leaders = np.array([leader for _, leader, _ in tricks], dtype=np.int64)
    strain_codes = np.array([STRAIN_NAMES.index(s) for _, _, s in tricks], dtype=np.int64)
    winners = trick_winners_batch(cards, leaders, strain_codes)
    for (trick, leader, strain), got in zip(tricks, winners):
        assert got == ref.trick_winner(trick, leader, strain), (trick, leader, strain)


DECL_CONFIGS = ["common", "french", "common-overlap-fouraces-kirtik"]


@pytest.mark.parametrize("config", DECL_CONFIGS)
def test_hand_declarations(config):
    rules, ref_rules = rules_of(config)
    rng = np.random.default_rng(12345)
    n = 100_000
    # Uniform hands, plus hands drawn from 2 suits (runs likely) or from 3 ranks of
    # every suit (carrés likely) so that rare combinations are well covered.
    hands = np.zeros(n, dtype=np.int64)
    for i in range(n):
        kind = i % 4
        if kind == 1:
            suits = rng.choice(4, size=2, replace=False)
            pool = np.array([8 * s + r for s in suits for r in range(8)])
        elif kind == 2:
            ranks = rng.choice(8, size=3, replace=False)
            pool = np.array(
                [8 * s + r for s in range(4) for r in ranks]
                + list(rng.choice(32, size=4, replace=False))
            )
            pool = np.unique(pool)
        else:
            pool = np.arange(32)
        cards = rng.choice(pool, size=8, replace=False)
        hands[i] = int(sum(1 << int(c) for c in cards))
    strains = rng.integers(0, 6, size=n)
    table = declarations_table(hands, strains, rules)
    for i in range(n):
        strain = STRAIN_NAMES[strains[i]]
        got = sort_entries(
            carre_entries(None, int(table[i, 0]), int(strains[i]))
            + run_entries(None, int(table[i, 1]))
        )
        for e in got:
            del e["seat"]
        expected = ref.hand_declarations(format_cards(int(hands[i])), strain, ref_rules)
        assert got == expected, (format_cards(int(hands[i])), strain)
        assert table[i, 2] + table[i, 3] == sum(e["points"] for e in expected)


@pytest.mark.parametrize(
    "config",
    ["common", "bulgarian", "common-overlap-fouraces-kirtik", "bulgarian-best-decl-no-need-trick"],
)
def test_mp_scoring(config):
    rules, ref_rules = rules_of(config)
    arr = rules.to_array()
    rng = np.random.default_rng(7)
    for _ in range(100_000):
        strain = int(rng.integers(0, 6))
        total = (162, 162, 162, 162, 130, 258)[strain]
        tricks0 = int(rng.choice([0, 8, *range(9)]))
        card0 = 0 if tricks0 == 0 else total if tricks0 == 8 else int(rng.integers(0, total + 1))
        decl = rng.choice([0, 0, 20, 50, 100, 150, 200, 270], size=2)
        belote = rng.choice([0, 0, 0, 20, 40], size=2)
        if rng.random() < 0.2:  # force a tie or a both-at-limit case now and then
            decl[1] = decl[0] + card0 - (total - card0)
            if decl[1] < 0:
                decl[0] -= decl[1]
                decl[1] = 0
        taker = int(rng.integers(0, 2))
        doubling = int(rng.integers(0, rules.max_doubling + 1))
        r = score_deal(
            card0,
            total - card0,
            int(decl[0]),
            int(decl[1]),
            int(belote[0]),
            int(belote[1]),
            tricks0,
            8 - tricks0,
            strain,
            taker,
            doubling,
            8,
            arr,
        )
        raw = [int(r[0]), int(r[1])]
        factor = 2 if strain == 4 and rules.nt_double_raw else 1
        assert raw == [
            factor * (card0 + decl[0] + belote[0]),
            factor * (total - card0 + decl[1] + belote[1]),
        ]
        valat = None if r[3] < 0 else int(r[3])
        expected = ref.score_mp(raw, taker, STRAIN_NAMES[strain], doubling, valat, ref_rules)
        got = {
            "outcome": OUTCOME_NAMES[r[2]],
            "mp": [int(r[4]), int(r[5])],
            "held_mp": [int(r[6]), int(r[7])],
        }
        assert got == expected, (raw, taker, strain, doubling, valat)


def _mutate(rec, rng):
    """A prefix of a record, sometimes followed by a random (often illegal) card."""
    k = int(rng.integers(0, 33))
    plays = rec["plays"][:k]
    if k < 32 and rng.random() < 0.6:
        plays = plays + [format_card(int(rng.integers(0, 32)))]
    out = dict(rec, plays=plays)
    if rng.random() < 0.15:
        out["belote_silent"] = [
            int(s) for s in rng.choice(4, size=int(rng.integers(1, 3)), replace=False)
        ]
    return out


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_replays_agree(config):
    rules, _ref_rules = rules_of(config)
    rng = np.random.default_rng(99)
    n = 4000 if config in MAIN_PRESETS else 1500
    for i in range(n):
        rec = random_record(50_000 + i, rules)
        if i % 2:
            rec = _mutate(rec, rng)
        elif rng.random() < 0.2:
            rec["belote_silent"] = [int(rng.integers(0, 4))]
        assert replay(rec) == ref.replay(rec), rec
