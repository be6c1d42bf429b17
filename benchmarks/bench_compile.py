"""The first five minutes: what a first command costs with an empty numba cache, and
what it costs once the kernels are cached; printed as one JSON object.

Each command runs as a newcomer runs it, ``belote-sim ...`` in a fresh process, with
``NUMBA_CACHE_DIR`` pointing at a new empty folder (cold: every kernel it needs is
compiled), then once more with the same folder (warm: loaded from the disk cache).  The
wall seconds of each, keys ``cold_<name>_s`` and ``warm_<name>_s``:

- ``simulate_greedy``: ``simulate --play greedy --bid threshold --deals 1000``;
- ``main``: ``main --deals 20000`` (the default study: atlas bidding, expert:0 play,
  then the report);
- ``hand_simulate``: ``hand "JC TD AD AH 9S" --simulate --deals 2000`` (expert:0);
- ``duel_expert``: ``duel --a expert --b greedy --deals 200``.

It also keeps, per command, the deals per second the command printed (``*_printed_rate``
where it prints one: a cold run's printed rate leaves the compile out, so it should be
close to the warm one's) and the first line that says it compiles.  Each command is run
``--repeat`` times cold (a new folder each time) and warm; the figure is the best
(least disturbed) run.  ``--only NAME`` runs one of the commands.

    python benchmarks/bench_compile.py [--repeat N] [--only NAME]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "belote_sim"]

COMMANDS = {
    "simulate_greedy": ["simulate", "--play", "greedy", "--bid", "threshold", "--deals", "1000",
                        "-o", "{out}/deals.parquet"],
    "main": ["main", "--deals", "20000", "-o", "{out}/main"],
    "hand_simulate": ["hand", "JC TD AD AH 9S", "--simulate", "--deals", "2000"],
    "duel_expert": ["duel", "--a", "expert", "--b", "greedy", "--deals", "200"],
}  # fmt: skip

RATE = re.compile(r"\(([\d,]+) deals/s\)")


def run(name: str, cache: str) -> dict:
    """One run of command ``name`` with numba's cache in ``cache``: wall seconds, the
    rate it printed (or None) and its compile line (or None)."""
    with tempfile.TemporaryDirectory() as out:
        argv = [a.format(out=out) for a in COMMANDS[name]]
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        start = time.perf_counter()
        done = subprocess.run(CLI + argv, capture_output=True, text=True, env=env, cwd=ROOT)
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{name} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    rate = RATE.search(done.stdout)
    notice = next((ln for ln in done.stderr.splitlines() if ln.startswith("compiling")), None)
    return {
        "s": seconds,
        "rate": int(rate.group(1).replace(",", "")) if rate else None,
        "notice": notice,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs of each, best kept")
    parser.add_argument("--only", choices=sorted(COMMANDS), help="one command")
    args = parser.parse_args()
    result: dict = {"cpus": os.cpu_count(), "repeat": args.repeat}
    for name in [args.only] if args.only else list(COMMANDS):
        colds, warms = [], []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as cache:
                colds.append(run(name, cache))
                warms.append(run(name, cache))
        cold = min(colds, key=lambda r: r["s"])
        warm = min(warms, key=lambda r: r["s"])
        result[f"cold_{name}_s"] = round(cold["s"], 1)
        result[f"warm_{name}_s"] = round(warm["s"], 1)
        if cold["rate"] is not None:
            result[f"cold_{name}_printed_rate"] = cold["rate"]
            result[f"warm_{name}_printed_rate"] = warm["rate"]
        result[f"{name}_notice"] = cold["notice"]
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
