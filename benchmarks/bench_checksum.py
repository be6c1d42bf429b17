"""What the checksum of a single-file table costs, printed as one JSON object.

Simulates ``--deals`` deals (greedy, ``common`` rules, seed 1) to a Parquet file with
``simulate_to_parquet`` (the file is sealed with its SHA-256 as the run's last step),
then times, best of ``--repeat``: ``checksum_s`` the check alone (``table_checksum``:
one read of the file, from the page cache here), ``read_s`` ``read_deals(verify=False)``
and ``read_verified_s`` ``read_deals()`` (the default: checked first).  ``*_s_per_gb``
divide by the file's size (``mb``).

    python benchmarks/bench_checksum.py [--deals N] [--repeat K] [--keep FILE]
"""

import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from belote_sim.simulation.deal_table import read_deals
from belote_sim.simulation.runner import make_study, simulate_to_parquet
from belote_sim.simulation.table_checksum import table_checksum


def best(f, k):
    times = []
    for _ in range(k):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", help="write (or reuse) the table here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or os.path.join(tmp, "deals.parquet")
        simulate_s = None
        if not os.path.exists(path):
            start = time.perf_counter()
            simulate_to_parquet(path, args.deals, make_study("common", seed=1))
            simulate_s = time.perf_counter() - start
        gb = os.path.getsize(path) / 1e9
        checksum = best(lambda: table_checksum(path), args.repeat)
        plain = best(lambda: read_deals(path, verify=False), args.repeat)
        verified = best(lambda: read_deals(path), args.repeat)
    print(
        json.dumps(
            {
                "deals": args.deals,
                "mb": round(gb * 1e3, 1),
                "simulate_s": None if simulate_s is None else round(simulate_s, 2),
                "checksum_s": round(checksum, 3),
                "checksum_s_per_gb": round(checksum / gb, 2),
                "read_s": round(plain, 3),
                "read_verified_s": round(verified, 3),
                "verify_extra_s_per_gb": round((verified - plain) / gb, 2),
                "load_average": round(os.getloadavg()[0], 1),
            }
        )
    )


if __name__ == "__main__":
    main()
