"""Commands on single deals: replay, perft, solve."""

from __future__ import annotations

import argparse
import sys
import time

from belote_sim.cli.common import json_text, nullcontext, open_lines

__all__ = ["cmd_perft", "cmd_replay", "cmd_solve"]


def cmd_replay(args: argparse.Namespace) -> int:
    from belote_sim.deal.replay import replay_lines

    try:
        source = open_lines(args.input)
    except OSError as exc:  # one line (main's), whatever the name holds
        raise ValueError(f"cannot read {args.input}: {exc.strerror}") from None
    with source:  # closed too when the output cannot be opened
        out = sys.stdout if args.output in (None, "-") else open(args.output, "w", encoding="utf-8")  # noqa: SIM115 (or stdout)
        with out if out is not sys.stdout else nullcontext():
            n, errors = replay_lines(source, out)
    if errors:
        print(f"belote-sim replay: {errors} of {n} records failed", file=sys.stderr)
    return 1 if errors else 0


def cmd_perft(args: argparse.Namespace) -> int:
    from belote_sim.deal.perft import perft, read_perft_file

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


def cmd_solve(args: argparse.Namespace) -> int:
    from belote_sim.deal import solver

    if args.records and (args.hands or args.strain is not None):
        raise ValueError(
            "give either the 4 hands (with --strain) or --records FILE, not both: "
            "--records solves the deals of the records"
        )
    if args.records:
        source = sys.stdin.buffer if args.records == "-" else open(args.records, "rb")  # noqa: SIM115
        out = sys.stdout
        try:  # the records are closed too when the output cannot be opened
            if args.output not in (None, "-"):
                out = open(args.output, "w", encoding="utf-8")  # noqa: SIM115 (or stdout)
            n, errors = solver.solve_record_lines(source, out)
        finally:
            if source is not sys.stdin.buffer:
                source.close()
            if out is not sys.stdout:
                out.close()
        if errors:
            print(f"belote-sim solve: {errors} of {n} records failed", file=sys.stderr)
        return 1 if errors else 0
    if not args.hands or args.strain is None:
        raise ValueError("give the 4 hands and --strain (or --records FILE)")
    hands = [h.strip() for h in args.hands.replace("/", "|").split("|")]
    empty = [seat for seat, hand in enumerate(hands) if not hand]
    if empty:
        raise ValueError(
            f"the hand of seat {empty[0]} is empty: give the cards of the 4 hands, e.g. "
            '"JC 9C AC TC | ... | ... | ..."'
        )
    start = time.perf_counter()
    value = solver.solve(hands, args.strain, args.leader, args.taker_team, args.ruleset)
    scores = solver.dd_scores(hands, args.strain, args.leader, args.taker_team, args.ruleset)
    elapsed = time.perf_counter() - start
    print(json_text({"value": value, "scores": scores}))
    print(
        f"team {args.taker_team} wins {value} card points with perfect play "
        f"({elapsed * 1000:.1f} ms)",
        file=sys.stderr,
    )
    return 0
