"""A random agent and belote-sim's ``expert`` at one PettingZoo table (trains nothing).

Question: how does a belote-sim player sit at a PettingZoo table, and by how much does
``expert`` beat an agent that picks uniformly among its legal actions?

Players 0 and 2 pick uniformly among the legal actions of their action mask; players
1 and 3 are belote-sim's players, reading what they know from ``info["view"]``: calls
by ``choose_call`` (``atlas_auction``; ``take`` in french), cards by ``choose_card``
(``expert``).  Prints, as one JSON object, the deals played, how many were thrown in,
each team's mean points per deal and the expert team's lead per deal with its standard
error (match points; French points under french).  Seed: ``--seed`` fixes the deals
(``reset(seed=...)``) and the random agent's and the players' draws.

    python analyses/pettingzoo_example.py --deals 20 --rules bulgarian --seed 1
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np

from belote_sim import choose_call, choose_card, parse_card
from belote_sim.games.table import action_of_call
from belote_sim.pettingzoo import env


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
    points, thrown_in = [], 0  # per deal: (random team, expert team)
    for deal in range(args.deals):
        table.reset(seed=args.seed * 1_000_003 + deal)
        for agent in table.agent_iter():
            obs, _, terminated, truncated, info = table.last()
            if terminated or truncated:
                if agent == "player_0":
                    points.append((table.rewards["player_0"], table.rewards["player_1"]))
                    thrown_in += info["outcome"] == "thrown_in"
                table.step(None)
                continue
            seat = int(agent[-1])
            if seat % 2 == 0:  # the random agent: any legal action of the mask
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            else:
                action = expert_action(info, args.rules, int(rng.integers(1 << 62)))
            table.step(action)
    totals = np.array(points, dtype=np.float64)
    lead = totals[:, 1] - totals[:, 0]
    lead_se = lead.std(ddof=1) / np.sqrt(len(lead)) if len(lead) > 1 else float("nan")
    print(
        json.dumps(
            dict(
                rules=args.rules,
                deals=args.deals,
                thrown_in=int(thrown_in),
                random_team_mean=round(float(totals[:, 0].mean()), 2),
                expert_team_mean=round(float(totals[:, 1].mean()), 2),
                expert_lead=round(float(lead.mean()), 2),
                expert_lead_se=round(float(lead_se), 2),
            )
        )
    )


if __name__ == "__main__":
    main()
