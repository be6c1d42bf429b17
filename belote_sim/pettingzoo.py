"""Belote as a PettingZoo AEC environment: ``belote_sim.pettingzoo.env(rules=...)``.

Needs the ``pettingzoo`` extra (``pip install belote-sim[pettingzoo]``: pettingzoo,
gymnasium).  The guide is docs/guide/openspiel-pettingzoo.md; in short::

    from belote_sim.pettingzoo import env
    e = env(rules="bulgarian")
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        mask = obs["action_mask"]
        e.step(None if terminated or truncated else int(mask.nonzero()[0][0]))

One deal per episode, 4 agents ``player_0`` .. ``player_3`` (team 0 is players 0 and
2).  The environment deals the cards itself (a generator seeded by ``reset(seed=)``)
and the agents call and play.  Actions (``Discrete(42)``) are those of the OpenSpiel
game ``belote``: 0..31 a card (``8 * suit + rank``), 32 pass, 33..38 a bid of C D H S
NT AT (french: taking the turned card is the bid of its suit), 39 double, 40 redouble,
41 third double.  An observation is ``{"observation": int8 (902,), "action_mask": int8
(42,)}``: the observation layout of ``belote_sim.games.encoding`` (no perfect recall,
the agent's own cards) and the legal actions.  ``info["phase"]`` is ``bidding`` or
``play``; the agent to move also finds in ``info["view"]`` what it knows as a dict,
the bidding observation of ``belote_sim.choose_call`` or the observation of
``belote_sim.choose_card``, so that a belote-sim player can sit at the table.
  Rewards come at the end: each agent's team's points of the deal (match
points; French points under french scoring), 0 for a thrown-in deal.  An illegal
action ends the deal with -1 for the agent that made it (``TerminateIllegalWrapper``
of ``env``; ``raw_env`` raises ``ValueError`` instead).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from belote_sim.cards import format_card, format_cards, iter_cards
from belote_sim.games.encoding import Encoding
from belote_sim.games.table import BIDDING, DEALING, NUM_ACTIONS, OVER, PLAY, Table

__all__ = ["NUM_ACTIONS", "env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's usual wrappers (an illegal action ends the
    deal with -1 for its agent; actions out of range and calls out of turn are
    errors).  Arguments: those of ``raw_env``."""
    out: AECEnv = raw_env(**kwargs)
    out = wrappers.TerminateIllegalWrapper(out, illegal_reward=-1)
    out = wrappers.AssertOutOfBoundsWrapper(out)
    return wrappers.OrderEnforcingWrapper(out)


class raw_env(AECEnv):
    """One Belote deal per episode (module docstring).

    ``rules``: ``common``, ``bulgarian`` or ``french``; ``options``: rule options
    (docs/rules.md section 13); ``dealer``: the dealing seat (default 3: player 0
    speaks and leads first); ``render_mode``: ``"human"`` prints the deal after each
    action, ``"ansi"`` makes ``render()`` return it."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "belote_v0",
        "is_parallelizable": False,
    }

    def __init__(self, rules: str = "common", options: dict[str, Any] | None = None,
                 dealer: int = 3, render_mode: str | None = None):  # fmt: skip
        super().__init__()
        self._table_args = (rules, dict(options or {}), dealer)
        self.table = Table(rules, options, dealer=dealer)  # checks the arguments
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode must be None, human or ansi, got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{p}" for p in range(4)]
        self.agents = list(self.possible_agents)
        self._encoding = Encoding("single", True, False)
        size = self._encoding.tensor.size
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0, 1, (size,), dtype=np.int8),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The observation space of ``agent`` (the same for every agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """``Discrete(42)``: cards 0..31, calls 32..41."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new deal: the first 5 cards (and the french turned card) dealt from a
        generator seeded by ``seed``; ``options`` is not read (the rule options are
        the constructor's)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        rules, rule_options, dealer = self._table_args
        self.table = Table(rules, rule_options, dealer=dealer)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._deal()
        self._next()

    def _deal(self) -> None:
        """Deal the cards the table waits for (uniformly, from the generator)."""
        table = self.table
        while table.phase == DEALING:
            cards = list(iter_cards(table.deck))
            table.deal_card(cards[int(self._rng.integers(len(cards)))])

    def _next(self) -> None:
        table = self.table
        if table.phase == OVER:
            mp = table.mp or [0, 0]
            for p, a in enumerate(self.agents):
                self.rewards[a] = float(mp[p % 2])
                self.terminations[a] = True
                self.infos[a] = {"phase": "over", "outcome": table.outcome, "points": list(mp)}
            self.agent_selection = self.agents[0]
        else:
            seat = table.to_move
            self.agent_selection = f"player_{seat}"
            for a in self.agents:
                self.infos[a] = {"phase": table.phase}
            view = (
                table.bidding_observation(seat)
                if table.phase == BIDDING
                else table.observation(seat)
            )
            self.infos[self.agent_selection]["view"] = view
        self._accumulate_rewards()

    def legal_actions(self) -> list[int]:
        """The legal actions of the agent to move."""
        return self.table.legal_actions()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent`` knows now and its action mask (zeros unless it is to move)."""
        seat = int(agent.rsplit("_", 1)[1])
        obs = self._encoding.fill(self.table, seat).astype(np.int8)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.table.phase in (BIDDING, PLAY) and self.table.to_move == seat:
            mask[self.legal_actions()] = 1
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        """The agent to move calls or plays ``action``; at the end of the deal every
        agent steps once more with ``None``."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = int(action)
        if action not in self.legal_actions():
            raise ValueError(f"{agent}: illegal action {action} (legal: {self.legal_actions()})")
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        self.table.apply(action)
        self._deal()
        self._next()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The deal as text (printed with ``render_mode="human"``)."""
        t = self.table
        lines = [f"dealer {t.dealer}, {t.phase}"]
        lines += [f"player_{s}: {' '.join(format_cards(t.hands[s]))}" for s in range(4)]
        if t.turned >= 0:
            lines.append(f"turned {format_card(t.turned)}")
        lines.append(f"calls {''.join(t.calls)}")
        lines.append(f"plays {' '.join(format_card(c) for c in t.plays)}")
        if t.mp is not None:
            lines.append(f"points {t.mp[0]} {t.mp[1]} ({t.outcome})")
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""
