"""Which bidding system scores most, and where do the systems part ways?

Question: the bidding systems below play every pair on the same mirrored deals
(``belote-sim study systems``), everyone playing the default play policy: what net MP
per deal does each gain over each other, how do their contracts differ, and in which
auction situations and hand classes do they call differently, with the MP those
calls win or lose?  Systems: ``threshold``, ``atlas``, ``atlas_auction`` and every rule file in
``analyses/systems/*.toml`` (``rules:FILE``: a cautious club player, an aggressive
one, the jack convention; each file says what it models), or those named on the
command line.  Seed 2026, 500,000 deals per pair (``--deals N``), ``common`` rules
(``--ruleset bulgarian``), all cores (``--threads N``).

Writes analyses/output/systems_<ruleset>.csv (every table, column ``table``), the page
analyses/output/systems_<ruleset>/index.html, and -- with the default systems -- the
small committed summary analyses/systems/results_<ruleset>.json (what was run, every
pair, the standings, the contract mix, and per pair the 10 situations and 5 hand
classes that contribute most).  Run from the repository root (the rule files are
named by their path from there):

    python analyses/systems_study.py [--deals N] [--ruleset R] [--threads N] [SYSTEM ...]
"""

import json
import os
import sys
import time
from pathlib import Path

from belote_sim.analysis.systems import compare_systems
from belote_sim.analysis.systems_report import write_systems_report
from belote_sim.cli.common import json_text

SEED = 2026
N_DEALS = 500_000
HERE = Path(__file__).parent
OUT = HERE / "output"
SYSTEMS_DIR = HERE / "systems"
#: Rows per pair of the "where they differ" tables kept in the committed summary.
TOP_SITUATIONS = 10
TOP_HANDS = 5


def default_systems() -> list[str]:
    """``threshold``, ``atlas``, ``atlas_auction`` and ``rules:FILE`` of every example
    rule file (its path from the current directory)."""
    files = sorted(SYSTEMS_DIR.glob("*.toml"))
    return ["threshold", "atlas", "atlas_auction"] + [f"rules:{os.path.relpath(f)}" for f in files]


def _option(argv: list[str], name: str, default: str | None) -> tuple[str | None, list[str]]:
    """The value of ``--name VALUE`` in ``argv`` (or ``default``) and ``argv`` without it."""
    if name not in argv:
        return default, argv
    i = argv.index(name)
    if i + 1 >= len(argv):
        raise SystemExit(f"{name} needs a value")
    return argv[i + 1], argv[:i] + argv[i + 2 :]


def summary(study, command: str, seconds: float) -> dict:
    """The committed summary of ``study``: what was run, the pairs, standings and mix,
    and per pair the situations and hand classes that contribute most."""
    out = dict(study.meta)
    out["command"] = command
    out["seconds"] = round(seconds, 1)
    for name in ("pairs", "standings", "mix"):
        out[name] = getattr(study, name).to_dict(orient="records")
    for name, top in (("situations", TOP_SITUATIONS), ("hands", TOP_HANDS)):
        df = getattr(study, name)
        df = df.loc[df["contribution"].abs().sort_values(ascending=False, kind="stable").index]
        out[name] = df.groupby(["a", "b"], sort=False).head(top).to_dict(orient="records")
    return out


def main(argv: list[str]) -> int:
    deals, argv = _option(argv, "--deals", str(N_DEALS))
    ruleset, argv = _option(argv, "--ruleset", "common")
    threads, argv = _option(argv, "--threads", None)
    named = [a for a in argv if not a.startswith("-")]
    systems = named or default_systems()
    OUT.mkdir(exist_ok=True)
    start = time.perf_counter()
    study = compare_systems(
        systems,
        deals=int(deals or N_DEALS),
        rules=ruleset,
        seed=SEED,
        threads=int(threads) if threads else None,
    )
    seconds = time.perf_counter() - start
    study.long_table().to_csv(OUT / f"systems_{ruleset}.csv", index=False)
    write_systems_report(study, OUT / f"systems_{ruleset}")
    print(f"{study.meta['rules']}, {study.meta['play']} play, {deals} deals, {seconds:.0f} s")
    for name in ("pairs", "standings"):
        print(getattr(study, name).to_string(index=False), end="\n\n")
    print(study.mix[study.mix["opponent"] == "all"].to_string(index=False))
    if not named:
        command = "python analyses/systems_study.py " + " ".join(sys.argv[1:])
        results = SYSTEMS_DIR / f"results_{ruleset}.json"
        text = json_text(summary(study, command.strip(), seconds))
        rounded = json.loads(text, parse_float=lambda x: round(float(x), 6))
        results.write_text(json.dumps(rounded, indent=1) + "\n")
        print(f"wrote {results}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
