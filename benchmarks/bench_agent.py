"""The agent API's cost per call (microseconds, warm), as one JSON object.

The observations are every decision of ``--deals`` simulated deals (``common``, greedy
play, threshold bidding): 32 play observations a deal, from the first card to the
last, and every call of their auctions.  Each key is the mean time of one call over
those observations (each one's best of ``--repeat`` timings), after one untimed pass
(compiling or loading the kernels, reading the atlas):

- ``agent_call_us``: ``choose_card(obs, "greedy")``, unseeded (the relabelling drawn
  from the observation);
- ``agent_expert0_us`` / ``agent_expert_us``: ``choose_card`` with ``expert:0`` (the
  card model alone) and ``expert`` (with its endgame search over the last tricks);
- ``agent_legal_cards_us``, ``agent_read_us``: ``legal_cards`` and
  ``read_observation`` (the validation every play call starts with);
- ``agent_choose_call_us`` (``atlas_auction``), ``agent_legal_calls_us``;
- ``engine_card_us`` / ``engine_call_us``: one ``card?`` (greedy; the first card of
  each deal, given with its contract) / ``call?`` (atlas_auction; the first call)
  request to ``belote-sim engine`` through its pipes, answer read back (the
  protocol's cost on top of the API's; the other requests of a deal are not timed).

    python benchmarks/bench_agent.py [--deals N] [--repeat R]
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from belote_sim import __version__, choose_call, choose_card, legal_calls, legal_cards
from belote_sim.cards import format_cards
from belote_sim.deal.agent import read_observation
from belote_sim.simulation.runner import simulate

CALL_WORDS = {"p": "pass", "x": "double", "r": "redouble", "t": "third_double", "N": "NT"}
CALL_WORDS["A"] = "AT"


def observations(n_deals: int) -> tuple[list[dict], list[dict]]:
    """(play observations, bidding observations) of every decision of simulated deals."""
    df = simulate(4 * n_deals, play="greedy", seed=7, trick_log=True)
    df = df[df["outcome"] != "thrown_in"].head(n_deals)
    plays_obs, calls_obs = [], []
    for row in df.itertuples():
        calls = [CALL_WORDS.get(c, c) for c in row.auction]
        for k in range(len(calls)):
            seat = (row.dealer + 1 + k) % 4
            hand = format_cards(int(getattr(row, f"bid{seat}")))
            calls_obs.append(
                {"dealer": int(row.dealer), "seat": seat, "hand": hand, "calls": calls[:k]}
            )
        plays = row.plays.split()
        hands = [set(format_cards(int(getattr(row, f"hand{s}")))) for s in range(4)]
        contract = {"strain": str(row.strain), "taker": int(row.taker)}
        for k, card in enumerate(plays):
            # the seat that played card k: the one whose hand held it
            seat = next(s for s in range(4) if card in hands[s])
            plays_obs.append(
                {
                    "dealer": int(row.dealer),
                    "seat": seat,
                    "hand": sorted(hands[seat]),
                    "contract": contract,
                    "plays": plays[:k],
                }
            )
            hands[seat].discard(card)
    return plays_obs, calls_obs


def per_call_us(func, items: list, repeat: int) -> float:
    """Microseconds of ``func(item)``: each item's best of ``repeat`` timings (a best
    time is the one least disturbed by other processes), averaged over ``items``."""
    for item in items:
        func(item)
    best = [float("inf")] * len(items)
    clock = time.perf_counter
    for _ in range(repeat):
        for i, item in enumerate(items):
            start = clock()
            func(item)
            took = clock() - start
            if took < best[i]:
                best[i] = took
    return round(sum(best) / len(items) * 1e6, 1)


def engine_us(deals, ask: str, repeat: int, settings: dict) -> float:
    """Microseconds of one ``ask`` request (``card?`` or ``call?``) to a ``belote-sim
    engine`` subprocess, each deal's best of ``repeat``, averaged over ``deals``
    (requests that start each deal)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "belote_sim", "engine"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
    )  # fmt: skip

    def send(request: dict) -> dict:
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    send({"cmd": "set", **settings})
    best = [float("inf")] * len(deals)
    for rep in range(repeat + 1):
        for i, deal in enumerate(deals):
            send(deal)
            start = time.perf_counter()
            send({"cmd": ask})
            took = time.perf_counter() - start
            if rep:  # the first pass loads the kernels
                best[i] = min(best[i], took)
    send({"cmd": "quit"})
    proc.wait()
    return round(sum(best) / len(deals) * 1e6, 1)


def engine_deals(n_deals: int) -> tuple[list[dict], list[dict]]:
    """``deal`` requests: (at the play, the leader's 8 cards; at the bidding, the first
    caller's 5 cards)."""
    df = simulate(2 * n_deals, play="greedy", seed=9)
    df = df[df["outcome"] != "thrown_in"].head(n_deals)
    plays, calls = [], []
    for row in df.itertuples():
        seat = (int(row.dealer) + 1) % 4
        contract = {"strain": str(row.strain), "taker": int(row.taker)}
        cards = format_cards(int(getattr(row, f"hand{seat}")))
        plays.append({"cmd": "deal", "seat": seat, "dealer": int(row.dealer), "cards": cards,
                      "contract": contract})  # fmt: skip
        cards = format_cards(int(getattr(row, f"bid{seat}")))
        calls.append({"cmd": "deal", "seat": seat, "dealer": int(row.dealer), "cards": cards})
    return plays, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    plays_obs, calls_obs = observations(args.deals)
    play_deals, call_deals = engine_deals(8 * args.deals)
    r = args.repeat
    result = {
        "agent_call_us": per_call_us(lambda o: choose_card(o, "greedy"), plays_obs, r),
        "agent_expert0_us": per_call_us(lambda o: choose_card(o, "expert:0"), plays_obs, r),
        "agent_expert_us": per_call_us(lambda o: choose_card(o, "expert"), plays_obs, r),
        "agent_legal_cards_us": per_call_us(legal_cards, plays_obs, r),
        "agent_read_us": per_call_us(read_observation, plays_obs, r),
        "agent_choose_call_us": per_call_us(choose_call, calls_obs, r),
        "agent_legal_calls_us": per_call_us(legal_calls, calls_obs, r),
        "engine_card_us": engine_us(play_deals, "card?", r, {"play": "greedy"}),
        "engine_call_us": engine_us(call_deals, "call?", r, {"bidding": "atlas_auction"}),
        "play_observations": len(plays_obs),
        "bidding_observations": len(calls_obs),
        "version": __version__,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
