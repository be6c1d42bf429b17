"""Simulator throughput: full deals per second, printed as one JSON object.

A full deal is: uniform deal, threshold auction, declarations of all four hands,
32 cards played by the policy, scoring to match points (``common`` rules).  Keys
``random_1thread``, ``random_2threads``, ``greedy_1thread``, ``greedy_2threads`` are
deals per second of the compiled simulation (kernel output arrays, chunks of 65,536
deals); ``greedy_2threads_dataframe`` is the end-to-end ``simulate()`` rate including
the pandas table.  ``cli_deals_per_s`` is ``belote-sim simulate --deals N --threads 2
-o FILE`` (greedy, run in-process, Parquet on disk, crash-safe writing included) and
``bytes_per_deal`` that file's size per deal.  ``three_players_greedy_1thread``,
``two_players_greedy_1thread`` and ``open_belot_greedy_1thread`` are the same kernel
rate for the games where every player is alone (``bulgarian`` rules, take-or-pass
bidding).  ``rules_bidding_deals_per_s`` is ``greedy_1thread`` with the bidding read from
the rule file of ``threshold``'s defaults (``rules:belote_sim/data/bidding/threshold.toml``,
docs/bidding_rules.md); ``atlas_bidding_deals_per_s`` and
``atlas_auction_bidding_deals_per_s`` the same with the ``atlas`` and ``atlas_auction``
bidding policies (the shipped tables).  ``--stream N`` also streams N deals to Parquet
and reports the peak resident memory (``stream_peak_rss_mb``).

    python benchmarks/bench_simulate.py [--deals N] [--stream N]
"""

import argparse
import contextlib
import io
import json
import os
import resource
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numba

from belote_sim import __version__
from belote_sim.bid_rules import THRESHOLD_RULES
from belote_sim.cli import main as cli_main
from belote_sim.simulation.runner import make_study, simulate, simulate_to_parquet


def kernel_rate(play, threads, n_deals, rules="common", options=None, bidding=None):
    study = make_study(rules, bidding, play, seed=1, options=options)
    numba.set_num_threads(threads)
    study.run_chunk(0, 1000)  # compile / load
    chunk = study.chunk_size
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        for c in range(n_deals // chunk):
            study.run_chunk(c, chunk)
        best = min(best, time.perf_counter() - start)
    return (n_deals // chunk) * chunk / best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2_000_000)
    parser.add_argument("--stream", type=int, default=0)
    args = parser.parse_args()
    result = {}
    for play in ("random", "greedy"):
        for threads, key in ((1, "1thread"), (2, "2threads")):
            if threads <= numba.config.NUMBA_NUM_THREADS:
                result[f"{play}_{key}"] = round(kernel_rate(play, threads, args.deals))
    result["rules_bidding_deals_per_s"] = round(
        kernel_rate("greedy", 1, args.deals, bidding=f"rules:{THRESHOLD_RULES}")
    )
    for name in ("atlas", "atlas_auction"):
        result[f"{name}_bidding_deals_per_s"] = round(
            kernel_rate("greedy", 1, args.deals, bidding=name)
        )
    for key, options in (
        ("three_players", {"players": 3}),
        ("two_players", {"players": 2}),
        ("open_belot", {"variant": "open"}),
    ):
        result[f"{key}_greedy_1thread"] = round(
            kernel_rate("greedy", 1, args.deals // 2, "bulgarian", options)
        )
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    start = time.perf_counter()
    simulate(args.deals, play="greedy", seed=2)
    result["greedy_2threads_dataframe"] = round(args.deals / (time.perf_counter() - start))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "deals.parquet")
        threads = str(min(2, numba.config.NUMBA_NUM_THREADS))
        argv = ["simulate", "--deals", str(args.deals), "--play", "greedy", "--seed", "5"]
        argv += ["--threads", threads, "-o", path]
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            status = cli_main(argv)
        seconds = time.perf_counter() - start
        if status != 0:
            raise SystemExit(f"belote-sim {' '.join(argv)} failed ({status})")
        result["cli_deals_per_s"] = round(args.deals / seconds)
        result["bytes_per_deal"] = round(os.path.getsize(path) / args.deals, 1)
    if args.stream:
        with tempfile.TemporaryDirectory() as tmp:
            summary = simulate_to_parquet(
                os.path.join(tmp, "d.parquet"), args.stream, make_study(seed=3)
            )
            result["stream_deals"] = args.stream
            result["stream_deals_per_s"] = round(summary["deals_per_s"])
            result["stream_file_mb"] = round(
                os.path.getsize(os.path.join(tmp, "d.parquet")) / 2**20
            )
        result["stream_peak_rss_mb"] = round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        )
    result.update(
        numba=numba.__version__, belote_sim=__version__, max_threads=numba.config.NUMBA_NUM_THREADS
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
