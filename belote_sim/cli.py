"""belote-sim command line: replay recorded deals, count legal sequences, run the main job.

Commands::

    belote-sim replay IN.jsonl [-o OUT.jsonl]   replay records (one JSON per line)
    belote-sim perft FILE.perft [--max-nodes N] check a perft suite
    belote-sim main [-o DIR]                    the default job (bundled sample deals)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from importlib import resources
from pathlib import Path

from belote_sim import __version__


def _cmd_replay(args: argparse.Namespace) -> int:
    from belote_sim.replay import replay_lines

    try:
        source = sys.stdin if args.input == "-" else open(args.input, encoding="utf-8")
    except OSError as exc:
        print(f"belote-sim replay: cannot read {args.input}: {exc.strerror}", file=sys.stderr)
        return 2
    out = sys.stdout if args.output in (None, "-") else open(args.output, "w", encoding="utf-8")
    with source, out if out is not sys.stdout else _nullcontext():
        n, errors = replay_lines(source, out)
    if errors:
        print(f"belote-sim replay: {errors} of {n} records failed", file=sys.stderr)
    return 1 if errors else 0


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _cmd_perft(args: argparse.Namespace) -> int:
    from belote_sim.perft import perft, read_perft_file

    failures = 0
    for case in read_perft_file(args.file):
        for depth, expected in case.counts:
            if expected > args.max_nodes:
                continue
            got = perft(case.hands, case.strain, case.leader, depth, case.rules)
            status = "ok" if got == expected else "MISMATCH"
            failures += got != expected
            print(f"{case.id}: perft {depth} = {got} (expected {expected}) {status}")
    return 1 if failures else 0


def _cmd_main(args: argparse.Namespace) -> int:
    from belote_sim.scoring import score_game
    from belote_sim.replay import replay

    out_dir = Path(args.output)
    out_dir.mkdir(parents=True, exist_ok=True)
    sample = resources.files("belote_sim").joinpath("data/sample_deals.jsonl")
    records = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines()
               if line.strip()]
    start = time.perf_counter()
    results = [replay(r) for r in records]
    elapsed = time.perf_counter() - start
    out_path = out_dir / "sample_replay.jsonl"
    with open(out_path, "w", encoding="utf-8") as fh:
        for res in results:
            fh.write(json.dumps(res) + "\n")
    print(f"belote-sim {__version__}: replayed {len(records)} bundled sample deals "
          f"in {elapsed * 1000:.1f} ms (the simulator's default study replaces this job)")
    print(f"{'id':<14}{'ruleset':<11}{'contract':<10}{'raw':>11}{'outcome':>9}{'mp':>11}")
    games: dict[str, list[dict]] = {}
    for rec, res in zip(records, results):
        c = rec["contract"]
        contract = f"{c['strain']}x{2 ** c.get('doubling', 0)} by {c['taker']}"
        print(f"{rec.get('id', ''):<14}{rec['ruleset']:<11}{contract:<10}"
              f"{str(res['raw']):>11}{res['outcome']:>9}{str(res['mp']):>11}")
        games.setdefault(rec["ruleset"], []).append(
            dict(res, taker_team=c["taker"] % 2, doubling=c.get("doubling", 0)))
    for ruleset, deals in games.items():
        game = score_game(deals, ruleset)
        print(f"{ruleset}: running score after {len(deals)} deals {game['scores']}, "
              f"held {game['held']}")
    print(f"wrote {out_path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="belote-sim", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"belote-sim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", help="replay recorded deals (JSON lines)")
    p.add_argument("input", help="input JSON-lines file, or - for standard input")
    p.add_argument("-o", "--output", help="output JSON-lines file (default: standard output)")
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser("perft", help="check the legal-sequence counts of a .perft file")
    p.add_argument("file")
    p.add_argument("--max-nodes", type=int, default=10**8,
                   help="skip counts above this many sequences")
    p.set_defaults(func=_cmd_perft)

    p = sub.add_parser("main", help="run the default job")
    p.add_argument("-o", "--output", default="output", help="output directory")
    p.set_defaults(func=_cmd_main)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``belote-sim`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, OSError) as exc:
        print(f"belote-sim {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
