"""Exact double-dummy solver: agreement with brute force, sanity, API, PIMC."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import reference as ref
import solver_bruteforce as BF

from belote_sim.cards import format_card, format_cards, mask_of, parse_card, parse_hand
from belote_sim.deal import solver as BS
from belote_sim.deal.playout import random_record
from belote_sim.deal.replay import replay
from belote_sim.kernels import solver as K
from belote_sim.kernels.core import trick_winner
from belote_sim.kernels.solver import bounds as KB
from belote_sim.kernels.solver import table as KT
from belote_sim.kernels.tables import CARD_POINTS, DEAL_CARD_TOTAL, STRAIN_NAMES
from belote_sim.rules import Rules

PRESETS = ("common", "bulgarian", "french")
ROOT = Path(__file__).resolve().parents[1]


def options(preset):
    """The preset's rules array and its two play options (0/1, for seeds)."""
    rules = Rules.preset(preset).to_array()
    return rules, int(rules[0]), int(rules[1])


def positions(seed, n, min_played, max_played, rules, strain=-1):
    """Positions reached by random legal play (a kernel of the solver module)."""
    hands = np.zeros((n, 4), np.int64)
    leaders = np.zeros(n, np.int64)
    tricks = np.zeros((n, 4), np.int64)
    n_tricks = np.zeros(n, np.int64)
    strains = np.zeros(n, np.int64)
    K.random_positions(
        seed, n, min_played, max_played, strain, rules, hands, leaders, tricks, n_tricks, strains
    )
    return hands, leaders, tricks, n_tricks, strains


def remaining_points(hands, trick, n_trick, strain):
    if not n_trick and not any(int(h) for h in hands):
        return 0
    pts = 10 + sum(int(CARD_POINTS[strain, int(c)]) for c in trick[:n_trick])
    for h in hands:
        pts += sum(int(CARD_POINTS[strain, c]) for c in range(32) if int(h) >> c & 1)
    return pts


# --- an independent pure-Python minimax on the reference rules -------------------------


def python_minimax(hands, leader, trick, strain, max_team, preset):
    """Plain minimax written on tests/reference.py (card strings, sets); no pruning."""
    opts = ref.resolve_rules({"ruleset": preset})
    hands = [set(h) for h in hands]
    points = {c: ref.card_points(c, strain) for h in hands for c in h}
    points.update({c: ref.card_points(c, strain) for c in trick})

    def value(leader, trick):
        if len(trick) == 4:
            winner = (leader + ref._winning_index(trick, strain)) % 4
            pts = sum(points[c] for c in trick)
            last = not hands[winner]
            pts += 10 if last else 0
            got = pts if winner % 2 == max_team else 0
            return got if last else got + value(winner, [])
        seat = (leader + len(trick)) % 4
        best = None
        for card in sorted(ref._legal(hands[seat], trick, strain, opts)):
            hands[seat].remove(card)
            v = value(leader, trick + [card])
            hands[seat].add(card)
            if best is None or (v > best if seat % 2 == max_team else v < best):
                best = v
        return best

    if not trick and not any(hands):
        return 0
    return value(leader, list(trick))


@pytest.mark.parametrize("preset", PRESETS)
def test_brute_force_agreement_10000_positions(preset):
    """The solver equals plain minimax (no pruning, no table, no ordering, no
    reductions) on 10,000 random positions with at most 3 tricks left, mid-trick
    included, every strain, both maximising teams -- with a large and a tiny
    (colliding) transposition table."""
    rules = options(preset)[0]
    n = 10_000
    seed = PRESETS.index(preset) + 1
    hands, leaders, tricks, n_tricks, strains = positions(seed, n, 20, 31, rules)
    max_teams = (np.arange(n) % 2).astype(np.int64)
    brute = np.zeros(n, np.int64)
    BF.simple_batch(hands, leaders, tricks, n_tricks, strains, max_teams, rules, 0, brute)
    for bits in (16, 6):
        fast = np.zeros(n, np.int64)
        K.solve_batch(
            hands, leaders, tricks, n_tricks, strains, max_teams, rules, K.new_tt(bits), 0, fast
        )
        bad = np.nonzero(fast != brute)[0]
        assert bad.size == 0, (bits, bad[:5], fast[bad[:5]], brute[bad[:5]])
    # every strain and every number of cards left occurs
    assert set(strains.tolist()) == set(range(6))
    left = hands[:, 0].copy()
    assert len({bin(int(h)).count("1") for h in left}) == 4  # 0..3 cards in seat 0's hand
    # the other search drivers (MTD(f), bisection) give the same values
    for mode in (1, 2):
        other = np.zeros(2000, np.int64)
        K.solve_batch(
            hands[:2000],
            leaders[:2000],
            tricks[:2000],
            n_tricks[:2000],
            strains[:2000],
            max_teams[:2000],
            rules,
            K.new_tt(14),
            mode,
            other,
        )
        assert np.array_equal(other, brute[:2000])


@pytest.mark.parametrize("preset", PRESETS)
def test_mid_deal_positions_against_plain_alpha_beta(preset):
    """Positions with 3 to 5 tricks left (mid-trick included, every strain, both
    maximising teams) agree with plain alpha-beta: longer runs of equal-power cards
    than in the brute-force test, so the pruning of dominated cards (the run's most
    points on one's own trick, the least on the opponents') is checked on runs of
    up to 5 cards and with several players still to play."""
    rules = options(preset)[0]
    n = 2000
    hands, leaders, tricks, n_tricks, strains = positions(
        90 + PRESETS.index(preset), n, 12, 19, rules
    )
    max_teams = (np.arange(n) % 2).astype(np.int64)
    slow = np.zeros(n, np.int64)
    BF.simple_batch(hands, leaders, tricks, n_tricks, strains, max_teams, rules, 1, slow)
    fast = np.zeros(n, np.int64)
    K.solve_batch(
        hands, leaders, tricks, n_tricks, strains, max_teams, rules, K.new_tt(12), 0, fast
    )
    bad = np.nonzero(fast != slow)[0]
    assert bad.size == 0, (bad[:5], fast[bad[:5]], slow[bad[:5]])
    assert set(strains.tolist()) == set(range(6)) and set(n_tricks.tolist()) == {0, 1, 2, 3}


@pytest.mark.parametrize("preset", PRESETS)
def test_card_values_of_equivalent_cards_are_searched_once_and_right(preset):
    """``dd_card_values`` searches one card of each group of equivalent zero-point
    cards and copies its value to the others: every legal card's value is plain
    alpha-beta's (tests/solver_bruteforce.py) on the position after that card, and
    positions with such groups were among those checked."""
    rules = options(preset)[0]
    n = 300
    hands, leaders, tricks, n_tricks, strains = positions(
        70 + PRESETS.index(preset), n, 14, 21, rules
    )
    tt = K.new_tt(12)
    ws, moves = K.new_workspace()
    vals = np.zeros(32, np.int64)
    grouped = 0
    for i in range(n):
        strain, leader, n_trick = int(strains[i]), int(leaders[i]), int(n_tricks[i])
        trick = [int(c) for c in tricks[i, :n_trick]]
        max_team = i % 2
        h = hands[i].copy()
        legal = K.dd_card_values(
            h, leader, tricks[i], n_trick, strain, max_team, rules, tt, ws, moves, vals
        )
        cards = [c for c in range(32) if legal >> c & 1]
        seat = (leader + n_trick) % 4
        in_play = (int(h[0]) | int(h[1]) | int(h[2]) | int(h[3])) & ~int(h[seat])
        in_play |= sum(1 << c for c in trick)
        zero = [c for c in cards if CARD_POINTS[strain, c] == 0]
        # two zero-point legal cards of a suit with no card in play ranked between them
        grouped += any(
            a >> 3 == b >> 3 and not any(in_play >> c & 1 for c in range(a + 1, b))
            for a in zero
            for b in zero
            if a < b
        )
        for card in cards:
            child = h.copy()
            child[seat] &= ~(1 << card)
            child_trick = trick + [card]
            banked, child_leader = 0, leader
            if len(child_trick) == 4:
                idx = np.array(child_trick, np.int64)
                child_leader = (leader + int(trick_winner(idx, 0, strain))) % 4
                pts = sum(int(CARD_POINTS[strain, c]) for c in child_trick)
                pts += 10 if not child.any() else 0
                banked = pts if child_leader % 2 == max_team else 0
                child_trick = []
            padded = np.array(child_trick + [0] * (4 - len(child_trick)), np.int64)
            expect = np.zeros(1, np.int64)
            BF.simple_batch(
                child[None, :], np.array([child_leader]), padded[None, :],
                np.array([len(child_trick)]), np.array([strain]), np.array([max_team]),
                rules, 1, expect,
            )  # fmt: skip
            assert vals[card] == banked + expect[0], (i, format_card(card))
    assert grouped > 10


def py_sure_trumps(hands, strain):
    """Rank-by-rank reference of ``KB._sure_trumps``: the top trumps held by one team."""
    order = (4, 2, 7, 3, 6, 5, 1, 0)  # J 9 A T K Q 8 7
    team, pts = -1, 0
    for r in order:
        c = 8 * strain + r
        holder = next((s for s in range(4) if int(hands[s]) >> c & 1), -1)
        if holder < 0:
            continue
        if team >= 0 and holder % 2 != team:
            break
        team = holder % 2
        pts += int(CARD_POINTS[strain, c])
    return team, pts


def py_quick_points(hands, leader, strain, with_entry=True):
    """Rank-by-rank reference of ``KB._quick_points``: the leader's cashable top cards,
    then one low lead to a card of partner's above both opponents' cards."""
    lh = int(hands[leader])
    suit_contract = strain < 4
    opp_trumps = (
        any(int(hands[(leader + p) % 4]) >> (8 * strain) & 0xFF for p in (1, 3))
        if suit_contract
        else False
    )
    total, rounds_all, entry = 0, 0, 0
    for suit in range(4):
        trump = strain == 5 or suit == strain
        order = (4, 2, 7, 3, 6, 5, 1, 0) if trump else (7, 3, 6, 5, 4, 2, 1, 0)
        run = []
        for r in order:
            c = 8 * suit + r
            if lh >> c & 1:
                run.append(c)
            elif any(int(hands[s]) >> c & 1 for s in range(4)):
                break
        if (
            with_entry
            and not run
            and lh >> (8 * suit) & 0xFF
            and (not suit_contract or suit == strain or not opp_trumps)
        ):
            top = next(
                (
                    (p, 8 * suit + r)
                    for r in order
                    for p in (1, 2, 3)
                    if int(hands[(leader + p) % 4]) >> (8 * suit + r) & 1
                ),
                None,
            )
            if top is not None and top[0] == 2:
                x = int(CARD_POINTS[strain, top[1]])
                for p in (0, 1, 3):
                    h = int(hands[(leader + p) % 4])
                    held = [
                        int(CARD_POINTS[strain, 8 * suit + r])
                        for r in range(8)
                        if h >> (8 * suit + r) & 1
                    ]
                    x += min(held, default=0)
                entry = max(entry, x)
        rounds = len(run)
        if suit_contract and suit != strain:
            for p in (1, 3):
                h = int(hands[(leader + p) % 4])
                if h >> (8 * strain) & 0xFF:
                    rounds = min(rounds, bin(h >> (8 * suit) & 0xFF).count("1"))
        if rounds == 0:
            continue
        pts = sum(int(CARD_POINTS[strain, c]) for c in run[:rounds])
        for p in (1, 2, 3):
            h = int(hands[(leader + p) % 4])
            held = sorted(
                int(CARD_POINTS[strain, 8 * suit + r]) for r in range(8) if h >> (8 * suit + r) & 1
            )
            pts += sum(held[:rounds])
        total += pts
        rounds_all += rounds
    if entry > 0:
        total += entry
        rounds_all += 1
    if rounds_all == bin(lh).count("1"):
        total += 10
    return total


def _at_trick_boundary(hands):
    """A copy of ``hands`` without the trick in progress: every hand cut down to the
    shortest one's size (dropping its lowest cards)."""
    h = hands.copy()
    size = min(bin(int(x)).count("1") for x in h)
    for s in range(4):
        while bin(int(h[s])).count("1") > size:
            h[s] &= h[s] - 1
    return h


def test_cheap_bounds_match_rank_by_rank_reference():
    """The table-driven cheap bounds (``_sure_trumps``, ``_quick_points``) equal a
    rank-by-rank reference on positions at trick boundaries, every strain and
    leader, from full deals down to one card each."""
    hands, _leaders, _, _, strains = positions(77, 3000, 0, 28, options("common")[0])
    for i in range(hands.shape[0]):
        h = _at_trick_boundary(hands[i])
        st = int(strains[i])
        if st < 4:
            assert tuple(KB._sure_trumps(h, st)) == py_sure_trumps(h, st), (i, h, st)
        for lead in range(4):
            assert KB._quick_points(h, lead, st) == py_quick_points(h, lead, st), (i, h, st, lead)


@pytest.mark.parametrize("preset", PRESETS)
def test_quick_points_never_exceed_the_exact_value(preset):
    """``_quick_points`` is a sound bound: never more than the exact value (plain
    minimax) of the leader's team, at trick boundaries with 2 to 4 cards per hand,
    every strain and leader -- in particular the low lead to a card of partner's
    above both opponents' cards (only when no opponent can ruff it), which counts
    in some of these positions."""
    rules = options(preset)[0]
    hands, _, _, _, strains = positions(300 + PRESETS.index(preset), 1500, 16, 24, rules)
    no_trick = np.zeros(4, np.int64)
    entries = 0
    for i in range(hands.shape[0]):
        h = _at_trick_boundary(hands[i])
        st = int(strains[i])
        for lead in range(4):
            qp = int(KB._quick_points(h, lead, st))
            exact = int(BF.simple_search(h.copy(), lead, no_trick, 0, st, lead & 1, rules, 1))
            assert qp <= exact, (i, [format_cards(int(x)) for x in h], st, lead, qp, exact)
            entries += qp > py_quick_points(h, lead, st, with_entry=False)
    assert entries > 100, entries


def py_tt_keys(hands, strain):
    """Reference of ``KT.tt_keys``: the zero-point cards of each suit (7 8 9 plain,
    7 8 trump) renumbered onto the lowest ranks, owners and order kept."""
    hands = [int(h) for h in hands]
    for suit in range(4):
        zero = (0, 1) if strain == 5 or suit == strain else (0, 1, 2)
        owners = [s for r in zero for s in range(4) if hands[s] >> (8 * suit + r) & 1]
        for s in range(4):
            for r in zero:
                hands[s] &= ~(1 << (8 * suit + r))
        for j, s in enumerate(owners):
            hands[s] |= 1 << (8 * suit + j)

    def word(lo, hi):  # two 32-bit hands in one int64 (wrapping, as the kernel)
        return ((lo | hi << 32) + 2**63) % 2**64 - 2**63

    return word(hands[0], hands[1]), word(hands[2], hands[3])


def test_table_keys_pack_zero_point_cards():
    """The table key (zero-point cards packed by the ``PACK`` lookup) equals a
    card-by-card reference, every strain, from full deals down to one card each."""
    hands, _, _, _, _ = positions(78, 2000, 0, 28, options("common")[0])
    for i in range(hands.shape[0]):
        h = hands[i]
        for st in range(6):
            got = tuple(int(x) for x in KT.tt_keys(h[0], h[1], h[2], h[3], st))
            assert got == py_tt_keys(h, st), (i, h, st)


@pytest.mark.parametrize("preset", PRESETS)
def test_brute_force_kernel_matches_pure_python_reference(preset):
    """The brute-force kernel itself agrees with a pure-Python minimax written on the
    independent reference rules (tests/reference.py)."""
    rules, ro, ut = options(preset)
    n = 150
    hands, leaders, tricks, n_tricks, strains = positions(40 + ro + 2 * ut, n, 22, 31, rules)
    for i in range(n):
        strain = STRAIN_NAMES[strains[i]]
        h = [format_cards(int(x)) for x in hands[i]]
        t = [format_card(int(c)) for c in tricks[i, : n_tricks[i]]]
        want = python_minimax(h, int(leaders[i]), t, strain, i % 2, preset)
        got = BF.simple_search(
            hands[i].copy(), leaders[i], tricks[i], n_tricks[i], strains[i], i % 2, rules, 0
        )
        assert got == want, (i, h, t, strain)
        assert BS.solve(h, strain, int(leaders[i]), i % 2, preset, t) == want


# Full deals (seat 0..3 hands, strain, first leader) checked against plain alpha-beta.
FULL_DEALS = [
    (
        "common",
        [
            "QC AC 7D 8H 8S TS JS KS",
            "JC KC 9D TD 9H QH 7S 9S",
            "9C 8D QD KD AD TH JH AS",
            "7C 8C TC JD 7H KH AH QS",
        ],
        "AT",
        3,
    ),
    (
        "common",
        [
            "KC TD JD TH 8S 9S JS KS",
            "7C AC 9D 9H JH TS QS AS",
            "9C TC JC 7D AD 8H QH AH",
            "8C QC 8D QD KD 7H KH 7S",
        ],
        "D",
        2,
    ),
    (
        "bulgarian",
        [
            "AC 7D 9D JD 7H KH 9S KS",
            "7C JC AD 9H TH AH 7S TS",
            "QC KC TD KD JH QH 8S QS",
            "8C 9C TC 8D QD 8H JS AS",
        ],
        "H",
        1,
    ),
    (
        "bulgarian",
        [
            "TC 8D TD 7H TH 9S JS AS",
            "JC QC AC QD KH 7S 8S QS",
            "7C KC 9D JD 8H JH TS KS",
            "8C 9C 7D KD AD 9H QH AH",
        ],
        "C",
        0,
    ),
    (
        "french",
        [
            "7C 8C KD 7H 9H TH JH QS",
            "QC AC TD QD QH AH TS JS",
            "9C TC KC 8D AD 8H KS AS",
            "JC 7D 9D JD KH 7S 8S 9S",
        ],
        "NT",
        3,
    ),
    (
        "french",
        [
            "7C KC AC 7D 8D 7S JS KS",
            "9D QD KD JH QH KH 9S QS",
            "9C AD 7H 9H TH AH 8S AS",
            "8C TC JC QC TD JD 8H TS",
        ],
        "S",
        3,
    ),
]


@pytest.mark.parametrize("preset,hands,strain,leader", FULL_DEALS)
def test_full_deals_against_plain_alpha_beta(preset, hands, strain, leader):
    rules = options(preset)[0]
    masks = np.array([parse_hand(h) for h in hands], np.int64)
    code = STRAIN_NAMES.index(strain)
    slow = BF.simple_search(masks.copy(), leader, np.zeros(4, np.int64), 0, code, 0, rules, 1)
    assert BS.solve(hands, strain, leader, 0, preset) == slow
    assert BS.solve(hands, strain, leader, 1, preset) == DEAL_CARD_TOTAL[code] - slow


@pytest.mark.parametrize("preset", PRESETS)
def test_sanity_bounds_and_zero_sum(preset):
    """0 <= value <= points left, and the two teams' perfect values add up to the
    points left (full deals in every strain and mid-deal positions)."""
    rules, ro, ut = options(preset)
    hands, leaders, tricks, n_tricks, strains = positions(70 + ro + 2 * ut, 24, 0, 16, rules)
    solver = BS.Solver(16)
    for i in range(24):
        h = [int(x) for x in hands[i]]
        t = [int(c) for c in tricks[i, : n_tricks[i]]]
        total = remaining_points(hands[i], tricks[i], n_tricks[i], strains[i])
        v0 = BS.solve(h, int(strains[i]), int(leaders[i]), 0, preset, t, solver=solver)
        v1 = BS.solve(h, int(strains[i]), int(leaders[i]), 1, preset, t, solver=solver)
        assert 0 <= v0 <= total and 0 <= v1 <= total
        assert v0 + v1 == total


@pytest.mark.parametrize("preset", PRESETS)
def test_scores_best_card_and_perfect_playout(preset):
    """Four dd_card players realise exactly the solved value of the deal (checked by
    replay); along the way the points banked plus the mover's best dd_scores entry
    stay equal to that value, and dd_card always plays a card with that score."""
    rules = Rules.preset(preset)
    for seed in range(2):
        rec = random_record(500 + seed, rules, n_plays=0)
        hands = rec["hands"]
        strain = rec["contract"]["strain"]
        code = STRAIN_NAMES.index(strain)
        taker_team = rec["contract"]["taker"] % 2
        leader = (rec["dealer"] + 1) % 4
        value = BS.solve(hands, strain, leader, taker_team, preset)
        masks = [parse_hand(h) for h in hands]
        plays = []
        trick_leader = leader
        trick = []
        banked = 0
        for _ in range(32):
            mover = (trick_leader + len(trick)) % 4
            scores = BS.dd_scores(masks, strain, trick_leader, taker_team, preset, trick)
            pick = max if mover % 2 == taker_team else min
            assert banked + pick(scores.values()) == value
            card = BS.dd_card(masks, strain, trick_leader, preset, trick)
            assert scores[card] == pick(scores.values())
            masks[mover] &= ~(1 << parse_card(card))
            plays.append(card)
            trick.append(card)
            if len(trick) == 4:
                idx = np.array([parse_card(x) for x in trick], np.int64)
                trick_leader = int(trick_winner(idx, trick_leader, code))
                if trick_leader % 2 == taker_team:
                    banked += sum(int(CARD_POINTS[code, c]) for c in idx)
                    banked += 10 if not any(masks) else 0
                trick = []
        assert banked == value
        rec["plays"] = plays
        result = replay(rec)
        assert result["illegal"] is None
        assert result["card_points"][taker_team] == value


def test_dd_table_matches_solve():
    hands = [
        "JH 9H AH TS KS QS 7C 8D",
        "7H 8H TH 9S JS 8C 9C AD",
        "QH KH AS 7S TC JC KD QD",
        "8S AC KC QC 7D 9D TD JD",
    ]
    table = BS.dd_table(hands, "common", taker_team=1)
    assert list(table.index) == list(STRAIN_NAMES) and list(table.columns) == [0, 1, 2, 3]
    plain = BS.dd_table(hands, "common", taker_team=1, as_frame=False)
    for strain in ("H", "NT"):
        for leader in (0, 3):
            v = BS.solve(hands, strain, leader, 1, "common")
            assert table.loc[strain, leader] == v == plain[strain][leader]
    # with every card played but the last trick, the table is the trick's points
    last = ["JH", "7H", "QH", "8S"]
    t = BS.dd_table(last, "common", as_frame=False)
    assert t["H"][0] == 20 + 0 + 3 + 10 + 0  # JH wins: team 0 takes 33 (8S plain, 0)


def test_mid_trick_position_and_validation():
    hands = ["9H AH TS", "7H 8H TH", "QH KH AS", "8S AC KC"]
    # seat 0 led JH, seat 1 played 9S? illegal (has hearts): rejected
    with pytest.raises(ValueError, match="follow_suit"):
        BS.solve(["9H AH", "7H 8H", "QH KH AS", "8S AC KC"], "C", 0, trick=["JH", "9S"])
    v = BS.solve(["9H AH", "7H 8H TH", "QH KH AS", "8S AC KC"], "C", 0, trick=["JH"])
    assert 0 <= v <= 10 + 2 + 11 + 0 + 0 + 10 + 3 + 4 + 11 + 0 + 11 + 4
    with pytest.raises(ValueError, match="expected"):
        BS.solve(hands, "C", 0, trick=["JH"])  # seat 0 still holds 3 cards
    with pytest.raises(ValueError, match="held twice"):
        BS.solve(["JH", "JH", "7C", "8C"], "C", 0)
    with pytest.raises(ValueError, match="strain"):
        BS.solve(hands, "X", 0)
    with pytest.raises(ValueError, match="leader"):
        BS.solve(hands, "C", 4)
    with pytest.raises(ValueError, match="taker_team"):
        BS.solve(hands, "C", 0, taker_team=2)
    with pytest.raises(ValueError, match="at most 3"):
        BS.solve(["9H", "7H", "QH", "8S"], "C", 0, trick=["JH", "8H", "KH", "9S"])
    with pytest.raises(ValueError, match="also in a hand"):
        BS.solve(["9H AH", "7H 8H TH", "QH KH AS", "8S AC KC"], "C", 0, trick=["TH"])
    with pytest.raises(ValueError, match="4 hands"):
        BS.solve(hands[:3], "C", 0)
    with pytest.raises(ValueError, match="unknown card"):
        BS.solve(["9H AH ZZ", "7H 8H TH", "QH KH AS", "8S AC KC"], "C", 0)
    with pytest.raises(ValueError, match="rules"):
        BS.solve(hands, "C", 0, rules=3)
    assert BS.solve(["", "", "", ""], "C", 0) == 0
    assert BS.dd_scores(["", "", "", ""], "C", 0) == {}


@pytest.mark.parametrize("preset", PRESETS)
def test_solve_record_full_partial_and_lines(preset):
    rules = Rules.preset(preset)
    for n_plays in (0, 1, 6, 13, 31, 32):
        rec = random_record(900 + n_plays, rules, n_plays=n_plays)
        rec["id"] = n_plays
        res = BS.solve_record(rec)
        assert res["id"] == n_plays
        if n_plays == 32:
            assert res == {"id": 32, "value": 0, "scores": {}}
            continue
        r = replay(rec)
        assert sorted(res["scores"]) == sorted(r["legal"])
        team = rec["contract"]["taker"] % 2
        pick = max if r["to_play"] % 2 == team else min
        assert pick(res["scores"].values()) == res["value"]
        # the remaining points split between the teams
        played = {parse_card(c) for t in r["tricks"] if t["winner"] is not None for c in t["cards"]}
        strain = STRAIN_NAMES.index(rec["contract"]["strain"])
        total = 10 + sum(int(CARD_POINTS[strain, c]) for c in range(32) if c not in played)
        other = dict(rec, contract=dict(rec["contract"], taker=(rec["contract"]["taker"] + 1) % 4))
        assert BS.solve_record(other)["value"] == total - res["value"]
    lines = [
        json.dumps(random_record(4, rules, n_plays=5)),
        "",
        "{not json",
        json.dumps({"hands": []}),
    ]
    out = io.StringIO()
    n, errors = BS.solve_record_lines(lines, out)
    rows = [json.loads(x) for x in out.getvalue().splitlines()]
    assert n == 3 and errors == 2 and "value" in rows[0] and "error" in rows[1]


def test_solve_record_rejects_illegal_cards():
    rec = random_record(12, "common", n_plays=4)
    rec["plays"] = rec["hands"][(rec["dealer"] + 2) % 4].split()[:1]  # not the leader's card
    with pytest.raises(ValueError, match="illegal"):
        BS.solve_record(rec)


# --- PIMC ---------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_inferred_voids_never_contradict_the_real_hands(preset):
    rules_array = options(preset)[0]
    for seed in range(150):
        rec = random_record(seed, preset, n_plays=32)
        strain = STRAIN_NAMES.index(rec["contract"]["strain"])
        hands = [parse_hand(h) for h in rec["hands"]]
        plays = np.array([parse_card(c) for c in rec["plays"]], np.int64)
        out = np.zeros(4, np.int64)
        for n in (5, 14, 23, 31):
            K.infer_forbidden(plays, n, (rec["dealer"] + 1) % 4, strain, rules_array, out)
            gone = mask_of(int(c) for c in plays[:n])
            for s in range(4):
                # no card a seat still held was ever ruled out
                assert int(out[s]) & hands[s] & ~gone == 0


def test_sample_deals_uniform_and_consistent():
    # 6 unseen cards to seats 1, 2, 3 (2 each); seat 1 may not hold hearts
    unseen = mask_of(parse_card(c) for c in ["7H", "8H", "9H", "7S", "8S", "9S"])
    fixed = np.array([0b1, 0, 0, 0], np.int64)
    need = np.array([0, 2, 2, 2], np.int64)
    allowed = np.array([0, unseen & ~(0xFF << 16), unseen, unseen], np.int64)
    n = 6000
    out = np.zeros((n, 4), np.int64)
    total = K.sample_deals(fixed, unseen, need, allowed, n, 7, out)
    # seat 1 takes 2 of the 3 spades (3 ways), the other 4 cards split 2/2 (6 ways)
    assert total == 18
    counts = {}
    for row in out:
        assert row[0] == 1
        assert int(row[1]) & (0xFF << 16) == 0
        assert bin(int(row[1])).count("1") == bin(int(row[2])).count("1") == 2
        assert int(row[1]) | int(row[2]) | int(row[3]) == unseen
        counts[tuple(int(x) for x in row)] = counts.get(tuple(int(x) for x in row), 0) + 1
    assert len(counts) == 18
    assert max(counts.values()) < 1.4 * n / 18 and min(counts.values()) > 0.6 * n / 18
    none = K.sample_deals(
        fixed, unseen, need, np.array([0, 0, unseen, unseen], np.int64), 3, 1, out
    )
    assert none == 0


@pytest.mark.parametrize("preset", PRESETS)
def test_pimc_with_everything_known_is_double_dummy(preset):
    rules = Rules.preset(preset)
    rec = random_record(31, rules, n_plays=9)
    r = replay(rec)
    seat = r["to_play"]
    played = set(rec["plays"])
    hands = [[c for c in h.split() if c not in played] for h in rec["hands"]]
    first = (rec["dealer"] + 1) % 4
    strain = rec["contract"]["strain"]
    team = rec["contract"]["taker"] % 2
    known = {s: hands[s] for s in range(4) if s != seat}
    scores = BS.pimc_scores(
        hands[seat], seat, rec["plays"], first, strain, team, preset, samples=3, known=known
    )
    trick = r["tricks"][-1]
    dd = BS.dd_scores(hands, strain, trick["leader"], team, preset, trick["cards"])
    assert scores == {c: float(v) for c, v in dd.items()}
    card = BS.pimc_card(
        hands[seat], seat, rec["plays"], first, strain, preset, samples=3, known=known
    )
    assert (
        card == BS.dd_card(hands, strain, trick["leader"], preset, trick["cards"])
        or dd[card] == dd[BS.dd_card(hands, strain, trick["leader"], preset, trick["cards"])]
    )


def test_pimc_card_is_legal_and_reproducible():
    rec = random_record(8, "common", n_plays=14)
    r = replay(rec)
    seat = r["to_play"]
    played = set(rec["plays"])
    hand = [c for c in rec["hands"][seat].split() if c not in played]
    first = (rec["dealer"] + 1) % 4
    args = (hand, seat, rec["plays"], first, rec["contract"]["strain"])
    card = BS.pimc_card(*args, rules="common", samples=12, seed=5)
    assert card in r["legal"]
    assert BS.pimc_card(*args, rules="common", samples=12, seed=5) == card
    scores = BS.pimc_scores(*args, taker_team=0, rules="common", samples=12, seed=5)
    assert sorted(scores) == sorted(r["legal"])
    with pytest.raises(ValueError, match="not the player to move"):
        BS.pimc_card(hand, (seat + 1) % 4, rec["plays"], first, rec["contract"]["strain"])
    with pytest.raises(ValueError, match="cards, expected"):
        BS.pimc_card(hand[:-1], seat, rec["plays"], first, rec["contract"]["strain"])
    with pytest.raises(ValueError, match="samples"):
        BS.pimc_scores(*args, samples=0)
    # the deals are drawn before they are shared out: any thread count, same values;
    # and with one solver per thread the values are those of the single-thread search
    by_threads = [
        BS.pimc_scores(*args, taker_team=0, rules="common", samples=12, seed=5, threads=t)
        for t in (1, 2, 5)
    ]
    assert by_threads[0] == by_threads[1] == by_threads[2] == scores
    with pytest.raises(ValueError, match="threads"):
        BS.pimc_scores(*args, samples=3, threads=0)
    # the kernel used by play policies gives the same card
    plays = np.zeros(32, np.int64)
    plays[:14] = [parse_card(c) for c in rec["plays"]]
    s = BS.Solver(16)
    c = K.pimc_best_card(
        mask_of(parse_card(x) for x in hand),
        np.zeros(4, np.int64),
        plays,
        14,
        first,
        STRAIN_NAMES.index(rec["contract"]["strain"]),
        options("common")[0],
        12,
        5,
        s.tt,
        s.ws,
        s.moves,
    )
    assert format_card(int(c)) == card


def test_cached_kernels_reload_in_a_fresh_process():
    """numba's on-disk cache must reload the solver kernels (recursive cached
    functions segfault on reload, hence the iterative search)."""
    code = (
        "from belote_sim.deal import solver as BS\n"
        "h=['JH 9H AH TS KS QS 7C 8D','7H 8H TH 9S JS 8C 9C AD',"
        "'QH KH AS 7S TC JC KD QD','8S AC KC QC 7D 9D TD JD']\n"
        "print(BS.solve(h,'H',0), BS.dd_card(h,'NT',1), len(BS.dd_scores(h,'AT',2)))\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    outs = []
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        outs.append(proc.stdout)
    assert outs[0] == outs[1]
    hands = [
        "JH 9H AH TS KS QS 7C 8D",
        "7H 8H TH 9S JS 8C 9C AD",
        "QH KH AS 7S TC JC KD QD",
        "8S AC KC QC 7D 9D TD JD",
    ]
    assert outs[0].split()[0] == str(BS.solve(hands, "H", 0))


def test_pimc_in_the_simulator_knows_the_announced_declarations():
    """What a simulated PIMC player conditions on (issue: 'declarations announced'):
    the runs and carrés of seats that have played their first card, and the other card
    of an announced belote, while still in hand."""
    from belote_sim.cards import parse_card, parse_hand
    from belote_sim.kernels.play import play_deal
    from belote_sim.kernels.records import announced_cards, new_deal
    from belote_sim.kernels.rng import seed_state
    from belote_sim.kernels.switchboard import policy_buffers, policy_menu

    dealt = np.array(
        [
            parse_hand("JC JD JH JS 7C 8D 9H TS"),  # carré of jacks
            parse_hand("7H 8H QS KS AS AC AD 9C"),  # tierce Q-K-A of spades
            parse_hand("QH KH AH 7S 8S 9S TC QC"),  # two tierces
            parse_hand("8C KC 7D 9D TD QD KD TH"),
        ],
        dtype=np.int64,
    )
    rules = Rules.preset("common").to_array()
    records = new_deal()
    deal = records[0]
    deal["hands"] = dealt
    deal["strain"] = 3  # spades
    deal["leader"] = 0
    deal["n_given"] = 2
    deal["cards"][:2] = [parse_card("7C"), parse_card("9C")]
    # the declarations are made from the hands when the play starts (two cards given)
    replay_only = (np.full(4, -1), np.zeros((4, 1)), policy_menu())
    play_deal(deal, replay_only, rules, seed_state(0), policy_buffers(1))
    known = np.zeros(4, dtype=np.int64)
    # seats 0 and 1 have played (first leader 0, two cards played); 2 and 3 have not
    played = parse_hand("7C 9C", size=None)
    announced_cards(deal, 2, played, -1, known)
    assert known[0] == parse_hand("JC JD JH JS", size=None)
    # seat 1 holds Q-K-A of spades: a tierce, announced with its first card
    assert known[1] == parse_hand("QS KS AS", size=None)
    # seat 2 has a run too (7S 8S 9S) but has not played yet
    assert known[2] == 0 and known[3] == 0
    # an announced belote shows the other card of the pair
    deal["belote_suits"][1] = 1 << 3
    announced_cards(deal, 2, played | parse_hand("KS", size=None), -1, known)
    assert known[1] == parse_hand("QS AS", size=None)
