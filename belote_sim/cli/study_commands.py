"""Commands that simulate and read studies: simulate, export-replay, main, report, dataset."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

from belote_sim._version import __version__
from belote_sim.cli.common import Progress, check_workers, study_from_args

__all__ = ["cmd_dataset", "cmd_export", "cmd_main", "cmd_report", "cmd_simulate"]


def cmd_simulate(args: argparse.Namespace) -> int:
    from belote_sim.simulation.deal_table import format_summary
    from belote_sim.simulation.runner import simulate_to_parquet

    if args.games < 0:
        raise ValueError(f"--games must be positive, got {args.games}")
    if args.games and args.trick_log:
        raise ValueError("--trick-log is for deals (--deals); a games table has no trick log")
    if args.games and (args.workers is not None or args.scheduler):
        raise ValueError("--games runs locally: --workers/--scheduler are for --deals")
    if not args.games and args.deals < 1:
        raise ValueError(f"--deals must be at least 1, got {args.deals}")
    check_workers(args.workers)
    study = study_from_args(args)
    show = sys.stderr.isatty() and not args.quiet
    print(
        f"belote-sim {__version__}: seed {study.seed}, rules {study.rules.name}, "
        f"bidding {', '.join(sorted({str(s) for s in study.bidding}))}, "
        f"play {', '.join(sorted({str(s) for s in study.play}))}"
    )
    if study.predeal or study.constraints:
        from belote_sim.analysis.report_sections import conditions_text

        print(f"conditioned deals: {conditions_text(study.provenance(0))}")
    if args.games:
        return _simulate_games(args, study)
    output = args.output or "deals.parquet"
    progress = Progress(args.deals, "deal", show)
    try:
        if args.scheduler or args.workers:
            from belote_sim.simulation.distributed import run_study

            if args.overwrite:
                raise ValueError(
                    "--overwrite is for a single-file output; a dataset directory "
                    "resumes (delete it to start over)"
                )
            if args.workers:  # local workers then load the kernels from the disk cache
                from belote_sim.simulation.compiling import prepare

                prepare(study, args.trick_log)
            summary = run_study(
                study,
                args.deals,
                output,
                scheduler=args.scheduler,
                workers=args.workers,
                progress=progress,
                trick_log=args.trick_log,
            )
        else:
            summary = simulate_to_parquet(
                output,
                args.deals,
                study,
                args.threads,
                args.trick_log,
                progress,
                overwrite=args.overwrite,
                ticks=progress.ticks,
            )
    finally:
        progress.close()
    print(format_summary(summary))
    print(f"{'kept' if summary.get('already_complete') else 'wrote'} {output}")
    return 0


def _simulate_games(args: argparse.Namespace, study) -> int:
    """simulate --games: the games table, to ``-o`` under the output discipline (checks,
    lock and temporary name before the games are played)."""
    from belote_sim.simulation.output import Output
    from belote_sim.simulation.runner import simulate_games
    from belote_sim.simulation.table_checksum import write_games_table

    output = (
        Output(
            args.output,
            what="the games table",
            overwrite=args.overwrite,
            need=GAME_BYTES * args.games,
        )
        if args.output
        else contextlib.nullcontext()
    )
    with output as out:
        start = time.perf_counter()
        n = study.rules.players
        games = simulate_games(
            args.games,
            study.rules,
            [str(s) for s in study.bidding[:n]],
            [str(s) for s in study.play[:n]],
            study.seed,
            args.threads,
            args.max_deals,
        )
        elapsed = time.perf_counter() - start
        if out is not None:
            write_games_table(games, out.tmp)
            out.commit()
    decided = games["winner"].notna().sum()
    side = "player" if study.rules.solo else "team"
    print(
        f"{args.games:,} games ({games['deals'].sum():,} deals) in {elapsed:.1f} s; "
        f"{side} 0 won {(games['winner'] == 0).sum() / max(decided, 1):.1%} of "
        f"{decided:,} finished games; mean {games['deals'].mean():.1f} deals per game"
    )
    if args.output:
        print(f"wrote {args.output}")
    return 0


#: disk space of a game's row in the games table (25 bytes measured, with a margin)
GAME_BYTES = 32


def cmd_export(args: argparse.Namespace) -> int:
    from belote_sim.simulation.export import export_replay
    from belote_sim.simulation.output import Output

    if args.output in (None, "-"):
        n = export_replay(
            args.table,
            args.rows,
            sys.stdout,
            allow_incomplete=args.allow_incomplete,
            verify=not args.no_verify,
        )
    else:
        with Output(args.output, what="the records", overwrite=args.overwrite) as out:
            with open(out.tmp, "w", encoding="utf-8") as f:
                n = export_replay(
                    args.table,
                    args.rows,
                    f,
                    allow_incomplete=args.allow_incomplete,
                    verify=not args.no_verify,
                )
            out.commit()
    print(f"belote-sim export-replay: {n} records", file=sys.stderr)
    return 0


def cmd_main(args: argparse.Namespace) -> int:
    """The default study: simulate deals with the default policies, then the report."""
    from belote_sim.analysis.html_report import write_report
    from belote_sim.analysis.names import play_name
    from belote_sim.simulation.deal_table import format_summary
    from belote_sim.simulation.runner import make_study, simulate_to_parquet

    out_dir = Path(args.output)
    out_dir.mkdir(parents=True, exist_ok=True)
    study = make_study("common", "atlas", None, seed=args.seed)
    path = out_dir / "deals.parquet"
    print(
        f"belote-sim {__version__}: default study, {args.deals:,} deals, rules common, "
        f"atlas bidding, {play_name(study.play[0])} play, seed {args.seed}"
    )
    progress = Progress(args.deals, "deal", sys.stderr.isatty())
    try:
        summary = simulate_to_parquet(
            str(path),
            args.deals,
            study,
            None,
            False,
            progress,
            overwrite=args.overwrite,
            ticks=progress.ticks,
        )
    finally:
        progress.close()
    print(format_summary(summary))
    print(f"{'kept' if summary.get('already_complete') else 'wrote'} {path}")
    start = time.perf_counter()
    index = write_report(  # the report of the deals above: rewritten each time
        str(path),
        out_dir / "report",
        title=f"belote-sim default study ({args.deals:,} deals)",
        overwrite=True,
    )
    print(f"report written in {time.perf_counter() - start:.1f} s: {index.resolve()}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from belote_sim.analysis.html_report import write_report

    index = write_report(
        args.table,
        args.output,
        title=args.title,
        allow_incomplete=args.allow_incomplete,
        overwrite=args.overwrite,
        verify=not args.no_verify,
        svg=args.svg,
        single_file=args.single_file,
    )
    print(f"report: {index.resolve()}")
    return 0


def cmd_dataset(args: argparse.Namespace) -> int:
    from belote_sim.simulation import dataset, manifest

    if args.action == "rebuild-manifest":
        r = dataset.rebuild_manifest(args.dir, force=args.force)
        for line in r["skipped"]:
            print(f"skipped {line}", file=sys.stderr)
        print(
            f"rebuilt {r['manifest']}: {r['chunks']} of {r['n_chunks']} chunks"
            + ("" if r["complete"] else "; rerun the study's command to finish it")
        )
        return 0
    problems = manifest.verify_dataset(args.dir)
    for line in problems:
        print(line)
    print(
        f"{args.dir}: "
        + (f"{len(problems)} problem(s)" if problems else "complete, every checksum matches")
    )
    return 1 if problems else 0
