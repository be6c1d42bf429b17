"""``belote-sim study systems A B [C ...]``: bidding systems against each other.

The ``study`` command's parser gets its systems arguments here
(``add_systems_arguments``) and its dispatch (``cmd_study_kind``): ``study bidding``
runs ``analysis_commands.cmd_study``, ``study systems`` runs ``cmd_study_systems``
(``belote_sim.analysis.systems``).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

from belote_sim.cli.common import Progress, json_text, parse_option

if TYPE_CHECKING:  # pandas loads when the study runs, not when the parser is built
    import pandas as pd

__all__ = ["TOP_ROWS", "add_systems_arguments", "cmd_study_systems"]

#: Rows of each "where they differ" table printed (all are in --json, -o, --report).
TOP_ROWS = 12


def add_systems_arguments(p: argparse.ArgumentParser) -> None:
    """The ``study systems`` arguments of the ``study`` parser."""
    p.add_argument(
        "systems",
        nargs="*",
        metavar="SYSTEM",
        help="two or more bidding policy specs, as --bid takes them "
        "(threshold, threshold:55, atlas, ...)",
    )
    p.add_argument(
        "--option",
        action="append",
        metavar="NAME=VALUE",
        help="rule option override (repeatable; default: the ruleset's)",
    )
    p.add_argument(
        "--top",
        type=int,
        default=TOP_ROWS,
        help="rows of each 'where they differ' table to print",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: systems, ruleset, rules, play, deals, "
        "games, seed, pairs, standings, mix, situations, hands (lists of rows)",
    )
    p.add_argument(
        "--report",
        metavar="DIR",
        help="write an HTML page (DIR/index.html, its figure and CSVs; default: none)",
    )


def _table(df: pd.DataFrame, columns: dict[str, str], formats: dict[str, str]) -> str:
    """``df``'s ``columns`` (renamed) as text, numbers formatted per column."""
    import pandas as pd

    show = df[list(columns)].copy()
    for col, fmt in formats.items():
        if col in show:
            show[col] = [("" if pd.isna(v) else format(v, fmt)) for v in show[col]]
    return show.rename(columns=columns).to_string(index=False)


def _write_tables(study: Any, out: Any) -> None:
    """Every table (one frame, column ``table``) as Parquet or CSV by the file name."""
    frame = study.long_table()
    if out.path.endswith(".parquet"):
        frame.to_parquet(out.tmp, index=False)
    else:
        from pandas.io.common import infer_compression

        frame.to_csv(out.tmp, index=False, compression=infer_compression(out.path, "infer"))
    out.commit()


def cmd_study_systems(args: argparse.Namespace) -> int:
    """Run ``study systems`` and print (or write) its tables."""
    import contextlib

    from belote_sim.analysis.systems import compare_systems
    from belote_sim.analysis.systems_report import write_systems_report
    from belote_sim.cli.common import csv_output

    if args.values is not None or args.param != "suit":
        raise ValueError("--param and --values are for study bidding")
    if len(args.systems) < 2:
        raise ValueError(
            f"give at least 2 bidding systems to compare, got {len(args.systems)} "
            "(e.g. study systems threshold atlas)"
        )
    if args.top < 0:
        raise ValueError(f"--top must be 0 or more, got {args.top}")
    options = dict(parse_option(o) for o in args.option or [])
    pairs = len(args.systems) * (len(args.systems) - 1) // 2
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(csv_output(args.output, "the tables", args.overwrite))
        report = None
        if args.report:
            from belote_sim.analysis.systems_report import report_output

            report = stack.enter_context(report_output(args.report, args.overwrite))
        start = time.perf_counter()
        progress = Progress(2 * pairs * args.deals, "deal", sys.stderr.isatty() and not args.json)
        try:
            study = compare_systems(
                args.systems,
                deals=args.deals,
                rules=args.ruleset,
                play=args.play,
                seed=args.seed,
                threads=args.threads,
                games=args.games,
                options=options or None,
                progress=progress,
            )
        finally:
            progress.close()
        seconds = time.perf_counter() - start
        if out is not None:
            _write_tables(study, out)
        if report is not None:
            write_systems_report(study, report.tmp)
            report.commit()
    if args.json:
        print(json_text(study.records()))
        return 0
    _print_study(study, args, seconds)
    for path in (args.output, args.report):
        if path:
            print(f"wrote {path}")
    return 0


def _print_study(study: Any, args: argparse.Namespace, seconds: float) -> None:
    m = study.meta
    print(
        f"{len(study.systems)} bidding systems, every pair on the same "
        f"{m['deals']:,} deals, each played twice with the teams swapped ({m['rules']}, "
        f"{m['play']} play, seed {m['seed']}) in {seconds:.1f} s"
    )
    print()
    print(
        "net MP per deal of a over b (paired s.e., 95% interval); differ: share of deals "
        "whose auctions part"
    )
    cols = {
        "a": "a",
        "b": "b",
        "mean": "net MP",
        "se": "s.e.",
        "low": "95% low",
        "high": "95% high",
        "differ": "differ",
    }
    fmts = {"mean": "+.3f", "se": ".3f", "low": "+.3f", "high": "+.3f", "differ": ".1%"}
    if m["games"]:
        cols.update(win_rate="a wins", win_se="win s.e.")
        fmts.update(win_rate=".2%", win_se=".2%")
    print(_table(study.pairs, cols, fmts))
    if len(study.systems) > 2:
        print()
        print("standings: net MP per deal averaged over every opponent")
        print(
            _table(
                study.standings,
                {"system": "system", "mean": "net MP", "se": "s.e."},
                {"mean": "+.3f", "se": ".3f"},
            )
        )
    print()
    print(
        "contract mix (takes, suit, NT, AT: share of plays its team takes; doubled, "
        "redoubled, made: of its contracts; doubles: of the opponents' contracts)"
    )
    mix = study.mix[study.mix["opponent"] == "all"]
    mix_cols = {
        "system": "system",
        "takes": "takes",
        "suit": "suit",
        "nt": "NT",
        "at": "AT",
        "doubled": "doubled",
        "redoubled": "redoubled",
        "made": "made",
        "doubles": "doubles",
        "thrown_in": "thrown in",
    }
    print(_table(mix, mix_cols, {c: ".1%" for c in mix_cols if c != "system"}))
    for pair in study.pairs.itertuples():
        a, b = pair.a, pair.b
        for name, what in (("situations", "situation"), ("hands", "hand class")):
            df = getattr(study, name)
            df = df[(df["a"] == a) & (df["b"] == b)].head(args.top)
            if not args.top:
                continue
            print()
            print(
                f"where {a} (a) and {b} (b) call differently, by {what}, surest first (by the "
                "lower 95% bound of |contribution|; MP: a minus b on those deals; "
                "contribution: MP per deal of all deals)"
            )
            if df.empty:
                print("  none: the two systems made the same calls on every deal")
                continue
            cols = {"situation": "situation", "named": "named"}
            cols.update({"position": "pos"} if name == "situations" else {"hand_class": "hand"})
            cols.update(
                {
                    "call_a": "a calls",
                    "call_b": "b calls",
                    "share": "deals",
                    "mean": "MP",
                    "se": "s.e.",
                    "contribution": "contribution",
                }
            )
            print(
                _table(
                    df, cols, {"share": ".2%", "mean": "+.2f", "se": ".2f", "contribution": "+.4f"}
                )
            )
