"""OpenSpiel's information-set MCTS against a belote-sim player, in mirrored deals.

The deals and their contracts come from the engine (``simulate``: threshold bidding,
the preset's rules), so the comparison is about card play only: each deal is played
from its first card twice, OpenSpiel's ISMCTS (``open_spiel.python.algorithms.ismcts``,
over the ``belote`` game's determinisations) holding seats 0 and 2 in one play and
seats 1 and 3 in the other, the belote-sim ``--opponent`` (``choose_card`` through
``belote_sim.openspiel.BeloteSimBot``) the other two.  Reported, as one JSON object:
the mean per deal of (ISMCTS team's MP - the opponents' MP) over the two plays, its
standard error over deals, and the settings.

    python benchmarks/ismcts_duel.py --opponent expert --deals 40 --simulations 100
"""

import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import belote_sim.openspiel as bo
from belote_sim import simulate
from belote_sim.cards import cards_of


def opening_actions(row, ruleset):
    """The chance cards and calls of a simulated deal (a deals-table row), in the
    order the ``belote`` game asks for them."""
    dealer = int(row.dealer)
    order = [(dealer + 1 + i) % 4 for i in range(4)]
    bid = [cards_of(int(getattr(row, f"bid{s}"))) for s in range(4)]
    actions = [c for lo, hi in ((0, 3), (3, 5)) for s in order for c in bid[s][lo:hi]]
    turned = int(row.turned) if ruleset == "french" else -1
    if turned >= 0:
        actions.append(turned)
    actions += [bo.action_of_call(c) for c in str(row.auction)]
    for s in order:
        rest = int(getattr(row, f"hand{s}")) & ~int(getattr(row, f"bid{s}"))
        actions += cards_of(rest & ~(1 << turned) if turned >= 0 else rest)
    return actions


def play(game, actions, bots):
    state = game.new_initial_state()
    for a in actions:
        state.apply_action(a)
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    return state.returns()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--opponent", default="expert", help="belote-sim play policy")
    ap.add_argument("--ruleset", default="bulgarian")
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--simulations", type=int, default=100, help="ISMCTS simulations a move")
    ap.add_argument("--uct-c", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    df = simulate(4 * args.deals, args.ruleset, bidding=None, play="greedy", seed=args.seed)
    df = df[df["outcome"] != "thrown_in"].head(args.deals)
    diffs = []
    start = time.perf_counter()
    for k, row in enumerate(df.itertuples(index=False)):
        game = pyspiel.load_game("belote", {"rules": args.ruleset, "dealer": int(row.dealer)})
        actions = opening_actions(row, args.ruleset)
        pair = []
        for side in (0, 1):
            rs = np.random.RandomState(args.seed * 100003 + 2 * k + side)
            evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
            search = ismcts.ISMCTSBot(
                game,
                evaluator,
                uct_c=args.uct_c,
                max_simulations=args.simulations,
                random_state=rs,
                allow_inconsistent_action_sets=True,
            )
            worlds = random.Random(rs.randint(1 << 30))
            search.set_resampler(lambda s, p, w=worlds: bo.determinize(s, p, w))
            bots = [
                search if p % 2 == side else bo.BeloteSimBot(game, p, args.opponent, seed=k)
                for p in range(4)
            ]
            returns = play(game, actions, bots)
            pair.append(returns[side] - returns[1 - side])
        diffs.append(sum(pair) / 2)
        print(f"deal {k}: {pair}", file=sys.stderr, flush=True)
    d = np.array(diffs, dtype=float)
    print(
        json.dumps(
            dict(
                ruleset=args.ruleset,
                opponent=args.opponent,
                deals=len(d),
                plays=2 * len(d),
                ismcts_minus_opponent_mp=round(float(d.mean()), 2),
                standard_error=round(float(d.std(ddof=1) / np.sqrt(len(d))), 2),
                simulations=args.simulations,
                uct_c=args.uct_c,
                evaluator="random rollout, 1 a leaf",
                final_policy="max visit count",
                seconds=round(time.perf_counter() - start, 1),
            )
        )
    )


if __name__ == "__main__":
    main()
