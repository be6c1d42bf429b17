"""Dask cluster overhead: deals per second on a 2-worker LocalCluster against 2 local
threads on the same machine, printed as one JSON object.

Both runs simulate the same study (``common`` rules, threshold bidding, greedy play)
with the same number of deals and the same chunks (default 10,000,000 deals in chunks
of 500,000, about a second or more of work per chunk) and write a Parquet dataset to
a temporary directory:

* ``threads_deals_per_s``: ``simulate_to_parquet`` with 2 numba threads (one file);
* ``dask_deals_per_s``: ``distributed.run_study`` on an already started
  ``LocalCluster`` of 2 worker processes with 1 thread each (one part per chunk);
* ``overhead_pct``: how much longer the cluster run takes, in percent (negative: the
  cluster is faster -- its workers also build and write the tables in parallel);
  the two runs alternate ``--repeat`` times (default 2) and the best of each counts
  (``threads_seconds``, ``dask_seconds``: every run);
* ``cpu_overhead_pct``: the same comparison in CPU time (this process, plus the
  worker processes for the cluster; ``*_cpu_seconds`` every run) -- what the cluster
  costs in work, whatever else the machine is running (``loadavg``: before, after);
* ``dask_with_startup_deals_per_s``: ``run_study(..., workers=2)``, cluster start and
  shutdown included;
* ``threads_inmemory_deals_per_s``: ``simulate()`` with 2 threads into one DataFrame
  (with ``--in-memory``).

    python benchmarks/bench_dask.py [--deals N] [--chunk-size N] [--repeat K] [--in-memory]
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numba

from belote_sim import __version__
from belote_sim.simulation.runner import make_study, simulate, simulate_to_parquet


def cpu_seconds(client=None):
    """CPU time (user + system) of this process, plus the workers' with a client."""
    mine = os.times()
    total = mine.user + mine.system
    if client is not None:
        for t in client.run(os.times).values():
            total += t[0] + t[1]
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10_000_000)
    parser.add_argument("--chunk-size", type=int, default=500_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--in-memory", action="store_true")
    args = parser.parse_args()
    # worker processes import belote_sim from this checkout too
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    os.environ["PYTHONPATH"] = os.path.abspath(root) + (
        os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else ""
    )

    from dask.distributed import Client, LocalCluster

    from belote_sim.simulation import distributed as bd

    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    study = make_study("common", None, "greedy", seed=args.seed, chunk_size=args.chunk_size)
    study.run_chunk(0, 1000)  # compile / load the kernels (and fill the disk cache)
    result = {"deals": args.deals, "chunk_size": args.chunk_size, "repeat": args.repeat}
    load_before = os.getloadavg()[0]
    tmp = tempfile.mkdtemp(prefix="bench_dask_")
    try:
        threads_s, dask_s, threads_cpu, dask_cpu = [], [], [], []
        with (
            LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
            ) as cluster,
            Client(cluster) as client,
        ):
            client.run(study.run_chunk, 0, 1000)  # load the kernels in the workers
            for k in range(args.repeat):  # interleaved, best of each
                cpu = cpu_seconds()
                start = time.perf_counter()
                simulate_to_parquet(
                    os.path.join(tmp, f"threads{k}.parquet"), args.deals, study, threads
                )
                threads_s.append(time.perf_counter() - start)
                threads_cpu.append(cpu_seconds() - cpu)
                os.unlink(os.path.join(tmp, f"threads{k}.parquet"))
                cpu = cpu_seconds(client)
                summary = bd.run_study(
                    study,
                    args.deals,
                    os.path.join(tmp, f"dask{k}"),
                    scheduler=cluster.scheduler_address,
                )
                dask_s.append(summary["seconds"])
                dask_cpu.append(cpu_seconds(client) - cpu)
                shutil.rmtree(os.path.join(tmp, f"dask{k}"))
        result["threads_deals_per_s"] = round(args.deals / min(threads_s))
        result["dask_deals_per_s"] = round(args.deals / min(dask_s))
        result["overhead_pct"] = round(100 * (min(dask_s) / min(threads_s) - 1), 1)
        result["threads_seconds"] = [round(t, 2) for t in threads_s]
        result["dask_seconds"] = [round(t, 2) for t in dask_s]
        result["threads_cpu_seconds"] = [round(t, 2) for t in threads_cpu]
        result["dask_cpu_seconds"] = [round(t, 2) for t in dask_cpu]
        result["cpu_overhead_pct"] = round(100 * (min(dask_cpu) / min(threads_cpu) - 1), 1)

        start = time.perf_counter()
        bd.run_study(study, args.deals, os.path.join(tmp, "dask_startup"), workers=2)
        result["dask_with_startup_deals_per_s"] = round(args.deals / (time.perf_counter() - start))
        if args.in_memory:
            start = time.perf_counter()
            simulate(args.deals, seed=args.seed, chunk_size=args.chunk_size, threads=threads)
            result["threads_inmemory_deals_per_s"] = round(
                args.deals / (time.perf_counter() - start)
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    import dask

    result.update(
        loadavg=[round(load_before, 2), round(os.getloadavg()[0], 2)],
        threads=threads,
        dask=dask.__version__,
        numba=numba.__version__,
        belote_sim=__version__,
        cpus=os.cpu_count(),
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
