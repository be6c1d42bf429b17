"""Deals per second through the game interfaces, random players, one thread.

Four loops over whole deals (dealt, bid and played by uniformly random legal actions;
thrown-in deals count as deals): the ``Table`` alone, the OpenSpiel game ``belote``
(``apply_action``, ``legal_actions``, ``chance_outcomes``), the same asking every
player's information-state tensor at every decision (what a learning agent reads),
and the PettingZoo environment (``env()``, its wrappers, an observation and action
mask a step).  Prints one JSON object: deals per second of each, and with
``--profile`` the functions where the PettingZoo and OpenSpiel loops spend their time
(cProfile, cumulative seconds, to standard error).

    python benchmarks/bench_games.py [--deals N] [--ruleset R] [--profile]
"""

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np

from belote_sim.cards import iter_cards
from belote_sim.games.table import DEALING, OVER, Table


def table_loop(n, ruleset):
    rng = random.Random(1)
    for _ in range(n):
        t = Table(ruleset)
        while t.phase != OVER:
            if t.phase == DEALING:
                t.deal_card(rng.choice(list(iter_cards(t.deck))))
            else:
                t.apply(rng.choice(t.legal_actions()))


def openspiel_loop(n, ruleset, tensors=False):
    import pyspiel

    import belote_sim.openspiel  # noqa: F401 -- registers the game

    game = pyspiel.load_game("belote", {"rules": ruleset})
    rng = random.Random(1)
    for _ in range(n):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                if tensors:
                    state.information_state_tensor(state.current_player())
                state.apply_action(rng.choice(state.legal_actions()))


def pettingzoo_loop(n, ruleset):
    from belote_sim.pettingzoo import env

    e = env(rules=ruleset)
    rng = np.random.default_rng(1)
    for k in range(n):
        e.reset(seed=k)
        for _agent in e.agent_iter():
            obs, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
            else:
                e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def rate(loop, n, *args):
    loop(5, *args)  # warm up (kernels loaded)
    start = time.perf_counter()
    loop(n, *args)
    return round(n / (time.perf_counter() - start), 1)


def profile(loop, n, *args):
    prof = cProfile.Profile()
    prof.enable()
    loop(n, *args)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(25)
    print(out.getvalue(), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--ruleset", default="bulgarian")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    n, r = args.deals, args.ruleset
    result = dict(ruleset=r, deals=n)
    result["table_deals_per_s"] = rate(table_loop, n, r)
    result["openspiel_deals_per_s"] = rate(openspiel_loop, n, r)
    result["openspiel_with_infostate_tensors_deals_per_s"] = rate(
        lambda k, rr: openspiel_loop(k, rr, tensors=True), n, r
    )
    result["pettingzoo_deals_per_s"] = rate(pettingzoo_loop, n, r)
    print(json.dumps(result))
    if args.profile:
        profile(pettingzoo_loop, n, r)
        profile(openspiel_loop, n, r)


if __name__ == "__main__":
    main()
