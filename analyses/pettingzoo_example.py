"""A random agent and belote-sim's ``expert`` at one PettingZoo table (trains nothing).

Players 0 and 2 pick uniformly among the legal actions of their action mask; players
1 and 3 are belote-sim's players, reading what they know from ``info["view"]``: calls
by ``choose_call`` (``atlas_auction``; ``take`` in french), cards by ``choose_card``
(``expert``).  Prints, as one JSON object, the deals played, how many were thrown in,
and each team's mean points per deal (match points; French points under french).

    python analyses/pettingzoo_example.py --deals 20 --rules bulgarian --seed 1
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np

from belote_sim.cards import parse_card
from belote_sim.deal.agent import choose_card
from belote_sim.games.table import action_of_call
from belote_sim.pettingzoo import env
from belote_sim.simulation.agent_calls import choose_call


def expert_action(info, rules, seed):
    """The expert's action from the agent's own view (``info["view"]``)."""
    view = info["view"]
    if info["phase"] == "bidding":
        policy = "take" if rules == "french" else "atlas_auction"
        return action_of_call(choose_call(view, policy, seed=seed))
    return parse_card(choose_card(view, "expert", seed=seed))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--rules", default="bulgarian", choices=["common", "bulgarian", "french"])
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    table = env(rules=args.rules)
    rng = np.random.default_rng(args.seed)
    totals, thrown_in = np.zeros(2), 0
    for deal in range(args.deals):
        table.reset(seed=args.seed * 1_000_003 + deal)
        for agent in table.agent_iter():
            obs, _, terminated, truncated, info = table.last()
            if terminated or truncated:
                if agent == "player_0":
                    totals += [table.rewards["player_0"], table.rewards["player_1"]]
                    thrown_in += info["outcome"] == "thrown_in"
                table.step(None)
                continue
            seat = int(agent[-1])
            if seat % 2 == 0:  # the random agent: any legal action of the mask
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            else:
                action = expert_action(info, args.rules, int(rng.integers(1 << 62)))
            table.step(action)
    print(
        json.dumps(
            dict(
                rules=args.rules,
                deals=args.deals,
                thrown_in=int(thrown_in),
                random_team_mean=round(totals[0] / args.deals, 2),
                expert_team_mean=round(totals[1] / args.deals, 2),
            )
        )
    )


if __name__ == "__main__":
    main()
