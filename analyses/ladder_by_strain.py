"""The strength ladder (docs/guide/players-and-duels.md), per strain.

Question: how many match points per deal does each play setting gain over ``greedy``
(``pimc:30``: over ``expert``), in all and in each strain of the contract, under the
``common`` and the ``bulgarian`` rules?  Each row is one mirrored duel
(``comparisons.duel``, threshold bidding; Seed 0 -- the deals of ``belote-sim duel``):
``--deals`` deals (default 20,000; ``random`` 4,000), ``--pimc-deals`` for pimc
(default 4,000, as issue 41 asks; 0 skips it: ~32 minutes a ruleset on one thread).
Per strain the MP per deal of the deals played in that strain, with its paired
standard error.

Writes analyses/output/ladder_by_strain.json and prints the guide's table rows (the
four suit contracts pooled: the suits are played under a random relabelling, so they
differ only by chance) and the full table per strain.

    python analyses/ladder_by_strain.py [--deals N] [--pimc-deals N] [--threads T]
        [--rulesets common,bulgarian]
"""

import argparse
import json
import time
from pathlib import Path

from belote_sim.analysis.comparisons import duel
from belote_sim.cards import STRAIN_NAMES
from belote_sim.simulation.output import Output

OUT = Path(__file__).parent / "output"
#: (setting, opponent, deals: None for ``--deals``, "pimc" for ``--pimc-deals``)
LADDER = [
    ("random", "greedy", 4_000),
    ("expert:0,0,32,0,1", "greedy", None),
    ("expert:0,24,32,0,2", "greedy", None),  # the feature network, the default to issue 41
    ("expert:0", "greedy", None),
    ("expert:3,8", "greedy", None),
    ("expert", "greedy", None),
    ("pimc:30", "expert", "pimc"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--pimc-deals", type=int, default=4_000)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--rulesets", default="common,bulgarian")
    parser.add_argument(
        "--tables-only", action="store_true", help="print the tables of the last run's JSON"
    )
    args = parser.parse_args()
    rulesets = args.rulesets.split(",")
    if args.tables_only:
        results = json.loads((OUT / "ladder_by_strain.json").read_text())
        print("\n".join(tables(results, rulesets)))
        return
    results: dict[str, dict[str, dict]] = {}
    for a, b, size in LADDER:
        n = args.pimc_deals if size == "pimc" else (size or args.deals)
        if n <= 0:
            continue
        for ruleset in rulesets:
            start = time.perf_counter()
            r = duel(a, b, deals=n, rules=ruleset, threads=args.threads)
            r["seconds"] = round(time.perf_counter() - start, 1)
            results.setdefault(a, {})[ruleset] = r
            print(
                f"{a} vs {b} ({ruleset}, {n:,} deals): {r['mean']:+.3f} ± {r['se']:.3f} "
                f"MP/deal, {r['seconds']} s",
                flush=True,
            )
    OUT.mkdir(exist_ok=True)
    # under the output discipline, as every writer (lock, temporary, final name)
    path = str(OUT / "ladder_by_strain.json")
    with Output(path, what="the ladder", overwrite=True) as out, open(out.tmp, "w") as f:
        f.write(json.dumps(results, indent=1) + "\n")
    print()
    print("\n".join(tables(results, rulesets)))


def pooled(r: dict, strains: tuple[str, ...]) -> tuple[float, float, int] | None:
    """MP per deal, its s.e. and the pairs of a duel's deals in ``strains`` pooled
    (each strain's mean weighted by its pairs)."""
    parts = [r["by_strain"][s] for s in strains if s in r["by_strain"]]
    n = sum(p["pairs"] for p in parts)
    if not n:
        return None
    mean = sum(p["pairs"] * p["mean"] for p in parts) / n
    se = sum((p["pairs"] * p["se"]) ** 2 for p in parts) ** 0.5 / n
    return mean, se, n


def tables(results: dict, rulesets: list[str]) -> list[str]:
    """Markdown: the guide's rows (all, the four suit contracts pooled, NT, AT; the
    rulesets as ``a / b``) and the full table per strain."""
    groups = {"all": tuple(STRAIN_NAMES), "suit": tuple(STRAIN_NAMES[:4]), "NT": ("NT",)}
    groups["AT"] = ("AT",)
    lines = ["| players | vs | all | suit contracts | NT | AT |", "|---|---|---|---|---|---|"]
    full = ["| players | vs | rules | " + " | ".join(STRAIN_NAMES) + " |"]
    full.append("|---|---|---|" + "---|" * len(STRAIN_NAMES))
    for a, by_rules in results.items():
        b = next(b for x, b, _ in LADDER if x == a)
        cells = []
        for strains in groups.values():
            parts = []
            for ruleset in rulesets:
                r = by_rules.get(ruleset)
                p = pooled(r, strains) if r else None
                parts.append(f"{p[0]:+.2f} ± {p[1]:.2f}" if p else "-")
            cells.append(" / ".join(parts))
        lines.append(f"| `{a}` | {b} | " + " | ".join(cells) + " |")
        for ruleset in rulesets:
            r = by_rules.get(ruleset)
            if r is None:
                continue
            row = []
            for strain in STRAIN_NAMES:
                s = r["by_strain"].get(strain)
                row.append(f"{s['mean']:+.2f} ± {s['se']:.2f} ({s['pairs']})" if s else "-")
            full.append(f"| `{a}` | {b} | {ruleset} | " + " | ".join(row) + " |")
    return lines + [""] + full


if __name__ == "__main__":
    main()
