"""Play-policy throughput: full deals per second on one thread, as one JSON object.

A full deal is: uniform deal, threshold auction, declarations, 32 cards played by the
policy at all four seats, scoring to match points (``common`` rules; thrown-in deals
count as deals).  ``expert_deals_per_s`` and ``greedy_deals_per_s`` (and
``expert_model_only_deals_per_s``, ``expert:0``: the network card model without the
endgame search; ``expert_linear_deals_per_s``, ``expert:0,0,32,0,1``: the linear card
model alone; ``expert_suit_net_deals_per_s``, ``expert:0,24,32,0,3``: the suit network
over raw facts alone, and ``expert_suit_net_endgame_deals_per_s``, ``expert:4,24,32,0,3``:
with the default endgame search, issue 41) come from the same run, one thread, chunks
of ``--chunk`` deals, best of ``--repeat`` timings (the compilation is done first and not
timed); ``--only`` measures some keys only.

    python benchmarks/bench_policies.py [--deals N] [--ruleset R]
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numba

from belote_sim import __version__
from belote_sim.simulation.runner import make_study


def rate(play: str, n_deals: int, chunk: int, repeat: int, ruleset: str) -> float:
    """Deals per second of the compiled simulation with ``play`` at every seat."""
    study = make_study(ruleset, None, play, seed=1, chunk_size=chunk)
    study.run_chunk(0, 200)  # compile / load
    best = float("inf")
    n_chunks = max(1, n_deals // chunk)
    for _ in range(repeat):
        start = time.perf_counter()
        for c in range(n_chunks):
            study.run_chunk(c, chunk)
        best = min(best, time.perf_counter() - start)
    return n_chunks * chunk / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200_000)
    parser.add_argument("--chunk", type=int, default=1 << 16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ruleset", default="common")
    parser.add_argument("--only", help="comma-separated keys to measure (default: all)")
    args = parser.parse_args()
    numba.set_num_threads(1)
    result = {}
    only = None if args.only is None else set(args.only.split(","))
    for key, play in (
        ("expert_deals_per_s", "expert"),
        ("greedy_deals_per_s", "greedy"),
        ("expert_model_only_deals_per_s", "expert:0"),  # the network, no endgame search
        ("expert_linear_deals_per_s", "expert:0,0,32,0,1"),  # the linear model alone
        ("expert_suit_net_deals_per_s", "expert:0,24,32,0,3"),  # the suit network alone
        ("expert_suit_net_endgame_deals_per_s", "expert:4,24,32,0,3"),
    ):
        if only is not None and key not in only:
            continue
        result[key] = round(
            rate(play, args.deals, min(args.chunk, args.deals), args.repeat, args.ruleset)
        )
    result.update(
        ruleset=args.ruleset,
        deals=args.deals,
        threads=1,
        numba=numba.__version__,
        belote_sim=__version__,
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
