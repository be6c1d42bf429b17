"""How strong is each play policy?

Question: in mirrored duels on the same deals (``common`` rules, threshold bidding),
how many match points per deal does each play policy gain over the others, and how
many deals per second does it play?  Policies: random, greedy, expert:0,0,32,0,1 (the
linear card model alone), expert:0 (the network card model alone), expert (the network
and the exact endgame), pimc:10, pimc:30 and dd (every hand visible: the
perfect-information upper bound).  Each pair
is measured on its own mirrored duel (MP per deal of the first over the second, with
the paired standard error); the search policies play fewer deals.
Seed 2027; ``--deals`` (default 4,000) deals per duel of the fast policies,
``--search-deals`` (default 200) per duel with pimc or dd.
Writes analyses/output/strength_ladder.csv and prints a Markdown table.

    python analyses/strength_ladder.py [--deals N] [--search-deals N] [--threads T]
        [--policies random greedy ...]
"""

import argparse
import time
from itertools import combinations
from pathlib import Path

import pandas as pd

from belote_sim.analysis.comparisons import duel

SEED = 2027
POLICIES = [
    "random",
    "greedy",
    "expert:0,0,32,0,1",
    "expert:0",
    "expert",
    "pimc:10",
    "pimc:30",
    "dd",
]
SEARCH = ("pimc", "dd")
OUT = Path(__file__).parent / "output"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=4_000)
    parser.add_argument("--search-deals", type=int, default=200)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument(
        "--policies", nargs="+", default=POLICIES, help="play policies (space-separated)"
    )
    args = parser.parse_args()
    policies = args.policies
    rows = []
    for a, b in combinations(policies, 2):
        search = any(p.startswith(SEARCH) for p in (a, b))
        n = args.search_deals if search else args.deals
        start = time.perf_counter()
        r = duel(a, b, deals=n, seed=SEED, threads=args.threads)
        seconds = time.perf_counter() - start
        rows.append(
            {
                "a": a,
                "b": b,
                "deals": n,
                "played": r["played"],
                "mean_mp": r["mean"],
                "se": r["se"],
                "deals_per_s": 2 * n / seconds,
            }
        )
        print(
            f"{a:>8} vs {b:<8} {r['mean']:+7.3f} ± {r['se']:.3f} MP/deal "
            f"({r['played']} pairs, {2 * n / seconds:,.0f} deals/s)",
            flush=True,
        )
    table = pd.DataFrame(rows)
    OUT.mkdir(exist_ok=True)
    table.to_csv(OUT / "strength_ladder.csv", index=False)
    print()
    print("| a | b | pairs | a - b (MP/deal) | deals/s |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['a']} | {row['b']} | {row['played']} | {row['mean_mp']:+.2f} ± "
            f"{row['se']:.2f} | {row['deals_per_s']:,.0f} |"
        )


if __name__ == "__main__":
    main()
