"""Which bidding system scores most, and where do the systems part ways?

Question: the bidding systems below play every pair on the same mirrored deals
(``belote-sim study systems``), everyone playing the default play policy: what net MP
per deal does each gain over each other, how do their contracts differ, and in which
auction situations and hand classes do they call differently, with the MP those
calls win or lose?  Systems: ``threshold``, ``atlas`` and every rule file in
``analyses/systems/*.toml`` (``rules:FILE``), or those named on the command line.
Seed 2026, 200,000 deals per pair (``--deals N`` to change).
Writes analyses/output/systems.csv (every table, column ``table``) and the page
analyses/output/systems/index.html.

    python analyses/systems_study.py [--deals N] [SYSTEM ...]
"""

import sys
from pathlib import Path

from belote_sim.cli import main as cli

SEED = 2026
N_DEALS = 200_000
HERE = Path(__file__).parent
OUT = HERE / "output"


def systems(argv: list[str]) -> list[str]:
    """The systems named in ``argv``, or the default ones."""
    named = [a for a in argv if not a.startswith("-")]
    if named:
        return named
    files = sorted((HERE / "systems").glob("*.toml"))
    return ["threshold", "atlas"] + [f"rules:{f}" for f in files]


def main(argv: list[str]) -> int:
    deals = N_DEALS
    if "--deals" in argv:
        i = argv.index("--deals")
        deals = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2 :]
    OUT.mkdir(exist_ok=True)
    return cli(
        ["study", "systems", *systems(argv), "--deals", str(deals), "--seed", str(SEED)]
        + ["-o", str(OUT / "systems.csv"), "--report", str(OUT / "systems"), "--overwrite"]
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
