"""The OpenSpiel game ``belote`` (``belote_sim.openspiel``; the ``openspiel`` extra):
OpenSpiel's own consistency checks, the engine's deals replayed through it, the
observations, determinisations and the belote-sim bot."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra (open-spiel) is not installed")

from game_feed import engine_deals  # noqa: E402

import belote_sim.openspiel as bo  # noqa: E402
from belote_sim.cards import parse_card  # noqa: E402

PRESETS = ["common", "bulgarian", "french"]


def to_action(kind: str, value) -> int:
    return bo.action_of_call(value) if kind == "call" else int(value)


@pytest.mark.parametrize("ruleset", PRESETS)
def test_openspiel_random_simulations_and_serialization(ruleset):
    game = pyspiel.load_game(f"belote(rules={ruleset},dealer=1)")
    pyspiel.random_sim_test(game, num_sims=8, serialize=True, verbose=False)


@pytest.mark.parametrize("ruleset", PRESETS)
def test_engine_deals_through_the_openspiel_state(ruleset):
    game = pyspiel.load_game("belote", {"rules": ruleset})
    for row, moves in engine_deals(ruleset, 60, seed=7):
        game = pyspiel.load_game("belote", {"rules": ruleset, "dealer": int(row.dealer)})
        state = game.new_initial_state()
        for kind, value in moves:
            action = to_action(kind, value)
            if state.is_chance_node():
                assert kind == "card"
                assert action in dict(state.chance_outcomes())
            else:
                assert action in state.legal_actions(), (kind, value)
            state.apply_action(action)
        assert state.is_terminal()
        team = [row.mp0, row.mp1]
        assert state.returns() == [team[0], team[1], team[0], team[1]]


def test_options_parameter_reaches_the_rules():
    game = pyspiel.load_game("belote(rules=bulgarian,options=third_double:true)")
    assert game.rules.third_double and game.rules.name == "bulgarian"
    assert not pyspiel.load_game("belote(rules=bulgarian)").rules.third_double
    with pytest.raises(Exception, match="name:value"):
        pyspiel.load_game("belote(options=third_double)")
    with pytest.raises(Exception, match="4-player"):
        pyspiel.load_game("belote(rules=bulgarian,options=players:3)")


def random_state(game, rng, stop):
    state = game.new_initial_state()
    while not state.is_terminal() and not stop(state):
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_information_state_is_what_a_player_saw():
    """Two deals that differ only in another seat's hidden cards give seat 0 the same
    information state (string and tensor), and different ones to the seat whose
    cards differ."""
    game = pyspiel.load_game("belote(rules=common)")
    a, b = game.new_initial_state(), game.new_initial_state()
    deck = list(range(32))
    swap = {10: 14, 14: 10}  # two cards dealt to other seats swapped between them
    for k in range(20):
        a.apply_action(deck[k])
        b.apply_action(swap.get(deck[k], deck[k]))
    receivers = a.table.dealt
    seat_of = {c: s for s, cards in enumerate(receivers) for c in cards}
    assert seat_of[10] != seat_of[14] and 0 not in (seat_of[10], seat_of[14])
    assert a.information_state_string(0) == b.information_state_string(0)
    assert np.array_equal(a.information_state_tensor(0), b.information_state_tensor(0))
    assert a.observation_string(0) == b.observation_string(0)
    s = seat_of[10]
    assert a.information_state_string(s) != b.information_state_string(s)
    assert not np.array_equal(a.information_state_tensor(s), b.information_state_tensor(s))


def test_tensor_pieces_hold_the_cards():
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("belote(rules=french)")
    rng = random.Random(2)
    state = random_state(game, rng, lambda s: len(s.table.plays) >= 6)
    if state.is_terminal():  # thrown in: try another deal
        state = random_state(game, random.Random(5), lambda s: len(s.table.plays) >= 6)
    obs = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    player = state.current_player()
    obs.set_from(state, player)
    table = state.table
    assert np.flatnonzero(obs.dict["hand"]).tolist() == [
        c for c in range(32) if table.hands[player] >> c & 1
    ]
    assert obs.dict["turned"][table.turned] == 1
    for k, card in enumerate(table.plays):
        assert obs.dict["plays"][k, card] == 1
    assert obs.dict["plays"][len(table.plays) :].sum() == 0
    assert obs.dict["calls"].sum() == len(table.calls)


def test_determinisation_keeps_the_information_state():
    game = pyspiel.load_game("belote(rules=common)")
    rng = random.Random(4)
    done = 0
    for k in range(30):
        stop = 9 + k % 11
        state = random_state(game, rng, lambda s, stop=stop: len(s.table.plays) >= stop)
        if state.is_terminal():
            continue
        player = state.current_player()
        other = bo.determinize(state, player, random.Random(k))
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.table.hands[player] == state.table.hands[player]
        assert sorted(other.legal_actions()) == sorted(state.legal_actions())
        done += 1
    assert done > 10


def test_ismcts_takes_the_game():
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("belote(rules=common)")
    rng = random.Random(1)
    state = random_state(game, rng, lambda s: len(s.table.plays) >= 4)
    assert not state.is_terminal()
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(
        game,
        evaluator,
        uct_c=20.0,
        max_simulations=20,
        random_state=np.random.RandomState(0),
        allow_inconsistent_action_sets=True,
    )
    assert bot.step(state) in state.legal_actions()


def test_bot_plays_the_cards_of_choose_card():
    """The bot asks ``choose_card`` with the seat's own observation: its card is the
    one ``choose_card`` gives that observation with the seed the bot drew."""
    from belote_sim.deal.agent import choose_card

    played = 0
    for row, moves in engine_deals("bulgarian", 12, seed=3):
        if row.outcome == "thrown_in":
            continue
        game = pyspiel.load_game("belote", {"rules": "bulgarian", "dealer": int(row.dealer)})
        state = game.new_initial_state()
        first_play = next(k for k, (kind, _) in enumerate(moves) if kind == "play")
        for kind, value in moves[:first_play]:
            state.apply_action(to_action(kind, value))
        bots = [bo.BeloteSimBot(game, p, policy="expert", seed=p) for p in range(4)]
        draws = [np.random.default_rng(p) for p in range(4)]
        while not state.is_terminal():
            player = state.current_player()
            obs = state.table.observation(player)
            assert obs["seat"] == player and "hands" not in obs
            action = bots[player].step(state)
            seed = int(draws[player].integers(1 << 62))
            assert action == parse_card(choose_card(obs, "expert", seed=seed))
            state.apply_action(action)
        assert len(state.table.plays) == 32
        played += 1
        if played == 2:
            break
    assert played == 2


@pytest.mark.parametrize("ruleset", PRESETS)
def test_bots_bid_by_choose_call_and_finish_deals(ruleset):
    """Four bots play whole deals from the first call: each call is ``choose_call``'s
    on the seat's bidding observation (its 5 cards, the calls so far), and the bots
    bid something in some deal (no pass-only bot)."""
    from belote_sim.simulation.agent_calls import choose_call

    game = pyspiel.load_game("belote", {"rules": ruleset})
    rng = random.Random(6)
    bids = 0
    for k in range(4):
        state = game.new_initial_state()
        bots = [bo.BeloteSimBot(game, p, "greedy", seed=10 * k + p) for p in range(4)]
        draws = [np.random.default_rng(10 * k + p) for p in range(4)]
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            player = state.current_player()
            seed = int(draws[player].integers(1 << 62))
            action = bots[player].step(state)
            if state.table.phase == "bidding":
                view = state.table.bidding_observation(player)
                assert view["seat"] == player and len(view["hand"].split()) == 5
                expected = choose_call(view, bo.default_bidding(game.rules), seed=seed)
                assert action == bo.action_of_call(expected)
                bids += expected != "pass"
            state.apply_action(action)
        assert state.is_terminal()
    assert bids > 0
