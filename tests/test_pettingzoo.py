"""The PettingZoo environment (``belote_sim.pettingzoo``; the ``pettingzoo`` extra):
PettingZoo's API test, the engine's deals played through it, the action masks, and
the example of analyses/pettingzoo_example.py."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the pettingzoo extra (pettingzoo) is not installed")

from game_feed import engine_deals

from belote_sim.games.table import action_of_call
from belote_sim.pettingzoo import env, raw_env

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("ruleset", ["common", "french"])
def test_pettingzoo_api_test(ruleset):
    from pettingzoo.test import api_test

    with warnings.catch_warnings():
        # api_test's advice for dict observations (the action-mask convention of the
        # classic environments): not a failure
        warnings.filterwarnings("ignore", "Observation is not a NumPy array")
        warnings.filterwarnings("ignore", "Observation space for each agent probably")
        api_test(env(rules=ruleset), num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("ruleset", ["common", "bulgarian", "french"])
def test_engine_deals_through_the_environment(ruleset):
    for row, moves in engine_deals(ruleset, 40, seed=9):
        e = raw_env(rules=ruleset, dealer=int(row.dealer))
        cards = [v for kind, v in moves if kind == "card"]
        actions = [
            action_of_call(v) if kind == "call" else v for kind, v in moves if kind != "card"
        ]

        class Draw:
            def integers(self, n, cards=cards, e=e):
                left = [c for c in range(32) if e.table.deck >> c & 1]
                assert len(left) == n
                return left.index(cards.pop(0))

        e._rng = Draw()  # the engine's cards instead of random ones
        e.reset()
        for action in actions:
            agent = e.agent_selection
            obs = e.observe(agent)
            assert obs["action_mask"][action] == 1, (agent, action)
            assert obs["action_mask"].sum() >= 1
            for other in e.agents:
                if other != agent:
                    assert e.observe(other)["action_mask"].sum() == 0
            e.step(action)
        assert all(e.terminations.values())
        team = [row.mp0, row.mp1]
        assert [e._cumulative_rewards[f"player_{p}"] for p in range(4)] == [
            team[p % 2] for p in range(4)
        ]


def test_an_illegal_action_ends_the_deal_for_its_agent():
    e = env(rules="bulgarian")
    e.reset(seed=3)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    agent = e.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the wrapper warns about the illegal move
        e.step(illegal)
    assert e.rewards[agent] == -1 and all(e.terminations.values())
    with pytest.raises(ValueError, match="illegal action"):
        r = raw_env(rules="bulgarian")
        r.reset(seed=3)
        r.step(illegal)


def test_the_same_seed_deals_the_same_cards():
    a, b = raw_env(rules="common"), raw_env(rules="common")
    a.reset(seed=11)
    b.reset(seed=11)
    assert a.table.hands == b.table.hands and sum(map(bool, a.table.hands)) == 4


def test_pettingzoo_example_runs():
    out = subprocess.run(
        [sys.executable, str(ROOT / "analyses" / "pettingzoo_example.py"), "--deals", "3",
         "--rules", "common"],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    result = json.loads(out.stdout)
    assert result["deals"] == 3 and 0 <= result["thrown_in"] <= 3
