"""Game end after a thrown-in deal (rules section 9: the test runs after every deal)."""

import numpy as np
import reference as ref

from belote_sim import Rules
from belote_sim.kernels.scoring import play_game, solo_game_step
from belote_sim.kernels.tables import OUTCOME_NAMES

OUTCOME = {name: i for i, name in enumerate(OUTCOME_NAMES)}


def _kernel_game(deals, rules="common"):
    n = len(deals)
    outcomes = np.array([OUTCOME[d["outcome"]] for d in deals], dtype=np.int64)
    takers = np.array([d.get("taker_team", 0) or 0 for d in deals], dtype=np.int64)
    doublings = np.array([d.get("doubling", 0) for d in deals], dtype=np.int64)
    valats = np.array([-1 if d.get("valat") is None else d["valat"] for d in deals], dtype=np.int64)
    mp = np.array([d.get("mp") or [0, 0] for d in deals], dtype=np.int64).reshape(n, 2)
    held = np.array([d.get("held_mp") or [0, 0] for d in deals], dtype=np.int64).reshape(n, 2)
    s0, s1, pot, ended, winner = play_game(
        outcomes, takers, doublings, valats, mp, held, Rules.preset(rules).to_array()
    )
    return {
        "scores": [int(s0), int(s1)],
        "held": int(pot),
        "ended_after": None if ended < 0 else int(ended),
        "winner": None if winner < 0 else int(winner),
    }


def test_thrown_in_deal_after_a_valat_past_the_target_ends_the_game():
    deals = [
        {"outcome": "made", "taker_team": 0, "mp": [140, 0]},
        # a valat takes team 0 past 151: the game goes on (section 9)
        {"outcome": "made", "taker_team": 0, "mp": [42, 0], "valat": 0},
        # all pass, nothing held: the end test runs after this deal too
        {"outcome": "thrown_in"},
        {"outcome": "made", "taker_team": 1, "mp": [0, 30]},
    ]
    expected = ref.play_game(deals, {"ruleset": "common"})
    assert expected["ended_after"] == 2 and expected["winner"] == 0
    assert _kernel_game(deals) == expected


def test_thrown_in_deal_with_points_held_does_not_end_the_game():
    deals = [
        {"outcome": "made", "taker_team": 0, "mp": [150, 0]},
        {"outcome": "hanging", "taker_team": 1, "mp": [8, 0], "held_mp": [0, 8]},
        {"outcome": "thrown_in"},
        {"outcome": "made", "taker_team": 0, "mp": [10, 6]},
    ]
    expected = ref.play_game(deals, {"ruleset": "common"})
    assert expected["ended_after"] == 3
    assert _kernel_game(deals) == expected


def test_three_players_thrown_in_deal_ends_the_game():
    rules = Rules.preset("bulgarian", players=3).to_array()
    totals = np.array([160, 20, 30], dtype=np.int64)
    mp = np.zeros(3, dtype=np.int64)
    held = np.zeros(3, dtype=np.int64)
    assert solo_game_step(totals, OUTCOME["thrown_in"], 0, -1, mp, held, 3, rules) == 0
    totals = np.array([160, 20, 30], dtype=np.int64)
    # a valat is never the last deal
    assert solo_game_step(totals, OUTCOME["made"], 0, 0, mp, held, 3, rules) == -1
