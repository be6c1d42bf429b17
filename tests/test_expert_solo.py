"""``expert`` in the games where every player is alone (3 players, 2 players, open
belot): its exact endgame against a brute-force search written here with the
independent reference's rules (tests/reference_variants.py), its inference against
the reference's legal moves and the true hands, and its strength over ``greedy``.
Its legality against the reference is in tests/test_variant_consistency.py."""

import random
import zlib

import numpy as np
import pytest
import reference as ref
import reference_variants as refv

from belote_sim.analysis.comparisons import duel
from belote_sim.cards import format_card, parse_card
from belote_sim.kernels.expert_solo import solo_forbidden, solve_exact
from belote_sim.kernels.records import new_deal
from belote_sim.kernels.solver import MAX_PLY, NUM_FIELDS
from belote_sim.kernels.tables import STRAIN_NAMES
from belote_sim.rules import Rules
from belote_sim.simulation.export import records
from belote_sim.simulation.runner import simulate

GAMES = {"three": dict(players=3), "two": dict(players=2), "open": dict(variant="open")}


def _mask(cards):
    return sum(1 << parse_card(c) for c in cards)


def _play(hands, piles, seat, card):
    """Copies of the hands and piles after ``seat`` plays ``card`` (a pile's top card
    turns up the one under it)."""
    hands = [list(h) for h in hands]
    piles = [[list(p) for p in ps] for ps in piles]
    if card in hands[seat]:
        hands[seat].remove(card)
    else:
        for p in piles[seat]:
            if p and p[0] == card:
                p.pop(0)
    return hands, piles


def _options(hands, piles, trick, leader, strain, players, opts):
    seat = (leader + len(trick)) % players
    playable = list(hands[seat]) + [p[0] for p in piles[seat] if p]
    return seat, refv._legal(playable, trick, strain, opts)


def _value_after(card, hands, piles, trick, leader, strain, taker, players, opts):
    """The taker's card points from the trick in progress on (its cards, the last
    trick's 10) when the player to move plays ``card`` and everyone then plays
    perfectly, every hand visible: plain minimax over the reference's legal cards.
    ``piles[s]``: open belot's ``[top, under]`` piles."""
    seat = (leader + len(trick)) % players
    hands, piles = _play(hands, piles, seat, card)
    trick = trick + [card]
    if len(trick) < players:
        return _best(hands, piles, trick, leader, strain, taker, players, opts)
    winner = refv.trick_winner_solo(trick, leader, strain, players)
    mine = sum(ref.card_points(c, strain) for c in trick) if winner == taker else 0
    if sum(len(h) for h in hands) + sum(len(p) for ps in piles for p in ps) == 0:
        return mine + (ref.LAST_TRICK_BONUS if winner == taker else 0)
    return mine + _best(hands, piles, [], winner, strain, taker, players, opts)


def _best(hands, piles, trick, leader, strain, taker, players, opts):
    seat, options = _options(hands, piles, trick, leader, strain, players, opts)
    values = [
        _value_after(c, hands, piles, trick, leader, strain, taker, players, opts) for c in options
    ]
    return max(values) if seat == taker else min(values)


def _root_values(hands, piles, trick, leader, strain, taker, players, opts):
    _, options = _options(hands, piles, trick, leader, strain, players, opts)
    return {
        c: _value_after(c, hands, piles, trick, leader, strain, taker, players, opts)
        for c in options
    }


def _trick_state(trick, strain):
    """(led suit, winning card, its position) of a trick in progress, from the
    reference's winner rule (kernel card codes)."""
    if not trick:
        return -1, -1, -1
    i = refv._winning_index(trick, strain)
    return parse_card(trick[0]) >> 3, parse_card(trick[i]), i


def _position(rng, game):
    """A random endgame: per player 2 or 3 tricks' worth of cards, a trick perhaps in
    progress; open belot with piles of one or two table cards."""
    players = 3 if game == "three" else 2
    deck = list(refv.DECK32 if game == "open" else refv.DECK24)
    rng.shuffle(deck)
    per = rng.choice([2, 3]) if game != "two" else rng.choice([3, 4])
    leader = rng.randrange(players)
    n_trick = rng.randrange(players)
    hands = []
    for pos in range(players):
        seat = (leader + pos) % players
        n = per - (1 if pos < n_trick else 0)
        cards = [deck.pop() for _ in range(n)]
        seat_piles = []
        if game == "open":
            while len(cards) >= 2 and rng.random() < 0.5:
                seat_piles.append([cards.pop(), cards.pop()])
            if cards and rng.random() < 0.4:
                seat_piles.append([cards.pop()])
        hands.append((seat, cards, seat_piles))
    hands.sort()
    trick = [deck.pop() for _ in range(n_trick)]
    return players, leader, [h[1] for h in hands], [h[2] for h in hands], trick, deck


@pytest.mark.parametrize("game", list(GAMES))
def test_exact_endgame_matches_a_brute_force_search(game):
    rng = random.Random(zlib.crc32(game.encode()))
    ws = np.zeros((MAX_PLY + 1, NUM_FIELDS), np.int64)
    checked = 0
    for ruleset, undertrump in (("bulgarian", False), ("common", True)):
        opts = refv.resolve_rules({"ruleset": ruleset, "options": {"undertrump": undertrump}})
        r = Rules.from_spec(ruleset, {**GAMES[game], "undertrump": undertrump}).to_array()
        for _ in range(60):
            players, leader, hands, piles, trick, rest = _position(rng, game)
            strain_code = rng.randrange(6)
            strain = STRAIN_NAMES[strain_code]
            taker = rng.randrange(players)
            expected = _root_values(hands, piles, trick, leader, strain, taker, players, opts)
            h = np.zeros(4, np.int64)
            for s in range(players):
                h[s] = _mask(hands[s])
            under = np.full(32, -1, np.int64)
            up = [0, 0]
            for s in range(players if game == "open" else 0):
                for p in piles[s]:
                    up[s] |= 1 << parse_card(p[0])
                    if len(p) == 2:
                        under[parse_card(p[0])] = parse_card(p[1])
            led, wc, wp = _trick_state(trick, strain)
            pts = sum(ref.card_points(c, strain) for c in trick)
            played = _mask(rest + trick)
            for card, value in expected.items():
                got = solve_exact(
                    parse_card(card), h.copy(), up[0], up[1], under, leader, len(trick),
                    led, wc, wp, pts, played, strain_code, taker, players, r, ws,
                )  # fmt: skip
                assert got == value, (game, hands, piles, trick, strain, taker, card)
                checked += 1
    assert checked > 150


def _deal_record(rec, n, players):
    """A ``DEAL`` record holding the first ``n`` cards of a replay record."""
    deal = new_deal()[0]
    deal["leader"] = (rec["dealer"] + 1) % players
    for i, card in enumerate(rec["plays"][:n]):
        deal["cards"][i] = parse_card(card)
    return deal


@pytest.mark.parametrize("game", list(GAMES))
def test_inference_agrees_with_the_reference_and_the_true_hands(game):
    """A card is inferred missing from a seat exactly when, held beside a card that
    seat played, the reference would have made that card illegal; no card the seat
    really holds is ever inferred missing."""
    rng = random.Random(7)
    df = simulate(60, "bulgarian", options=GAMES[game], play="greedy", seed=3, trick_log=True)
    r = Rules.from_spec("bulgarian", GAMES[game]).to_array()
    opts = refv.resolve_rules({"ruleset": "bulgarian"})
    players = 3 if game == "three" else 2
    out = np.zeros(4, np.int64)
    n_forbidden = 0
    for rec in records(df, df.attrs["belote_sim"]):
        plays = rec["plays"]
        if not plays:
            continue
        strain = rec["contract"]["strain"]
        n = rng.randrange(1, len(plays) + 1)
        deal = _deal_record(rec, n, players)
        solo_forbidden(deal, n, players, STRAIN_NAMES.index(strain), r, out)
        # the reference's view: walk the tricks, test every card against each play
        expected = [0] * 4
        leader = (rec["dealer"] + 1) % players
        trick = []
        for card in plays[:n]:
            seat = (leader + len(trick)) % players
            if trick:
                for x in (format_card(c) for c in range(32)):
                    if x != card and card not in refv._legal([card, x], trick, strain, opts):
                        expected[seat] |= 1 << parse_card(x)
            trick.append(card)
            if len(trick) == players:
                leader = refv.trick_winner_solo(trick, leader, strain, players)
                trick = []
        assert list(out[:players]) == expected[:players]
        n_forbidden += sum(bin(m).count("1") for m in expected)
        # the true hands: what each seat still held after the n cards (open belot's
        # face-down table cards are not constrained: their owner has not seen them)
        gone = _mask(plays[:n])
        for s in range(players):
            assert _mask(rec["hands"][s].split()) & ~gone & out[s] == 0
    assert n_forbidden > 100


@pytest.mark.parametrize("game", list(GAMES))
def test_expert_beats_greedy_and_greedy_ties_itself(game):
    same = duel("greedy", "greedy", deals=200, rules="bulgarian", options=GAMES[game], seed=4)
    assert same["mean"] == 0 and same["se"] == 0
    r = duel("expert", "greedy", deals=300, rules="bulgarian", options=GAMES[game], seed=4)
    assert r["played"] > 250
    assert r["mean"] - 3 * r["se"] > 0.5, r


def test_solo_expert_tables_do_not_depend_on_the_threads():
    one = simulate(200, "bulgarian", options=dict(players=3), play="expert", seed=5, threads=1)
    two = simulate(200, "bulgarian", options=dict(players=3), play="expert", seed=5, threads=2)
    assert one.equals(two)


@pytest.mark.parametrize("game", list(GAMES))
def test_solo_expert_does_not_read_the_card_model(game):
    """Where every player is alone ``expert`` samples and searches; no card model is
    read (they are 4-player models), so switching the model (``params[4]``: 2, the
    feature network; 3, the suit network of issue 41) leaves every card as it was."""

    def run(spec):  # the cards played (trick_log) as well as the outcomes
        return simulate(
            60, "bulgarian", options=GAMES[game], play=spec, seed=8, threads=1, trick_log=True
        )

    plays = [
        run(spec) for spec in ("expert:4,24,32,0,2", "expert:4,24,32,0,3", "expert:4,24,32,0,0")
    ]
    assert plays[0].equals(plays[1]) and plays[0].equals(plays[2])
    # the parameters the solo expert does read still change its play
    other = run("expert:4,2")
    assert not plays[0].equals(other)
