"""belote-sim command line.

Commands::

    belote-sim simulate --deals N [-o deals.parquet] ...   simulate deals (or --games N)
    belote-sim export-replay deals.parquet --rows A:B     rows as replay records
    belote-sim replay IN.jsonl [-o OUT.jsonl]             replay records (JSON lines)
    belote-sim perft FILE.perft [--max-nodes N]           check a perft suite
    belote-sim report deals.parquet [-o reports/]         HTML report
    belote-sim hand "JH 9H AH TS 7C" [--seat S --dealer D] strength of one hand
    belote-sim study bidding --param suit --values 40,50  bidding threshold sweep
    belote-sim solve "<4 hands>" --strain H --leader 0     double-dummy value and card scores
    belote-sim solve --records IN.jsonl                   the same for replay records
    belote-sim duel --a pimc --b greedy --deals N         compare two play policies
    belote-sim main [-o DIR]                              the default study and report
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from belote_sim._version import __version__


def _cmd_replay(args: argparse.Namespace) -> int:
    from belote_sim.deal.replay import replay_lines

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


def _parse_option(text: str) -> tuple[str, Any]:
    """``name=value`` with value parsed as JSON when it can be (true, 3, "x")."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise ValueError(f"--option needs name=value, got {text!r}")
    try:
        return name.strip(), json.loads(value)
    except json.JSONDecodeError:
        return name.strip(), value.strip()


def _parse_seat_map(items: list[str] | None, what: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for item in items or []:
        seat, sep, value = item.partition(":")
        if not sep or seat.strip() not in ("0", "1", "2", "3"):
            raise ValueError(f"--{what} needs SEAT:VALUE with seat 0..3, got {item!r}")
        out[int(seat)] = value.strip()
    return out


def _parse_constraint(text: str) -> dict[str, Any]:
    """``min_H=3,max_S=2,strength=20-60,require=JH AH,exclude=AS`` -> a constraint dict."""
    spec: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep:
            raise ValueError(f"constraint {part!r}: expected key=value")
        if key.startswith(("min_", "max_")):
            spec.setdefault(key[:3], {})[key[4:].upper()] = int(value)
        elif key == "strength":
            low, _, high = value.partition("-")
            spec["strength"] = (int(low), int(high))
        elif key in ("require", "exclude"):
            spec[key] = value
        else:
            raise ValueError(f"unknown constraint {key!r}: use min_S, max_S, strength, "
                             "require, exclude")
    return spec


def _study_from_args(args: argparse.Namespace):
    from belote_sim.simulation.runner import make_study

    options = dict(_parse_option(o) for o in args.option or [])
    for name in ("players", "variant"):
        if getattr(args, name, None) is not None:
            options[name] = getattr(args, name)
    play: Any = args.play
    if args.play_seat:
        play = [args.play] * 4
        for seat, spec in _parse_seat_map(args.play_seat, "play-seat").items():
            play[seat] = spec
    bidding: Any = args.bid
    if args.bid_seat:
        bidding = [args.bid or ("take" if args.ruleset == "french" else "threshold")] * 4
        for seat, spec in _parse_seat_map(args.bid_seat, "bid-seat").items():
            bidding[seat] = spec
    constraints = {seat: _parse_constraint(text)
                   for seat, text in _parse_seat_map(args.constraint, "constraint").items()}
    silent = [int(x) for x in args.belote_silent.split(",")] if args.belote_silent else []
    return make_study(args.ruleset, bidding, play, args.seed,
                      _parse_seat_map(args.predeal, "predeal"), constraints, args.dealer,
                      args.chunk_size, options, silent)


class _Progress:
    """A tqdm progress bar with ETA on a terminal, nothing otherwise."""

    def __init__(self, total: int, unit: str, enabled: bool):
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit=unit, unit_scale=True, file=sys.stderr)

    def __call__(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _cmd_simulate(args: argparse.Namespace) -> int:
    from belote_sim.simulation.deal_table import format_summary
    from belote_sim.simulation.runner import simulate_games, simulate_to_parquet

    study = _study_from_args(args)
    show = sys.stderr.isatty() and not args.quiet
    print(f"belote-sim {__version__}: seed {study.seed}, rules {study.rules.name}, "
          f"bidding {', '.join(sorted({str(s) for s in study.bidding}))}, "
          f"play {', '.join(sorted({str(s) for s in study.play}))}")
    if args.games:
        start = time.perf_counter()
        n = study.rules.players
        games = simulate_games(args.games, study.rules, [str(s) for s in study.bidding[:n]],
                               [str(s) for s in study.play[:n]], study.seed, args.threads,
                               args.max_deals)
        elapsed = time.perf_counter() - start
        if args.output:
            games.to_parquet(args.output, index=False)
        decided = games["winner"].notna().sum()
        side = "player" if study.rules.solo else "team"
        print(f"{args.games:,} games ({games['deals'].sum():,} deals) in {elapsed:.1f} s; "
              f"{side} 0 won {(games['winner'] == 0).sum() / max(decided, 1):.1%} of "
              f"{decided:,} finished games; mean {games['deals'].mean():.1f} deals per game")
        if args.output:
            print(f"wrote {args.output}")
        return 0
    output = args.output or "deals.parquet"
    progress = _Progress(args.deals, "deal", show)
    try:
        if args.scheduler or args.workers:
            from belote_sim.simulation.distributed import run_study

            summary = run_study(study, args.deals, output, scheduler=args.scheduler,
                                workers=args.workers, progress=progress,
                                trick_log=args.trick_log)
        else:
            summary = simulate_to_parquet(output, args.deals, study, args.threads,
                                          args.trick_log, progress)
    finally:
        progress.close()
    print(format_summary(summary))
    print(f"wrote {output}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from belote_sim.simulation.export import export_replay

    out = sys.stdout if args.output in (None, "-") else open(args.output, "w", encoding="utf-8")
    try:
        n = export_replay(args.table, args.rows, out)
    finally:
        if out is not sys.stdout:
            out.close()
    print(f"belote-sim export-replay: {n} records", file=sys.stderr)
    return 0


def _cmd_main(args: argparse.Namespace) -> int:
    """The default study: simulate deals with the default policies, then the report."""
    from belote_sim.analysis.html_report import write_report
    from belote_sim.simulation.deal_table import format_summary
    from belote_sim.simulation.runner import make_study, simulate_to_parquet

    out_dir = Path(args.output)
    out_dir.mkdir(parents=True, exist_ok=True)
    study = make_study("common", None, "greedy", seed=args.seed)
    path = out_dir / "deals.parquet"
    print(f"belote-sim {__version__}: default study, {args.deals:,} deals, rules common, "
          f"threshold bidding, greedy play, seed {args.seed}")
    progress = _Progress(args.deals, "deal", sys.stderr.isatty())
    try:
        summary = simulate_to_parquet(str(path), args.deals, study, None, False, progress)
    finally:
        progress.close()
    print(format_summary(summary))
    print(f"wrote {path}")
    start = time.perf_counter()
    index = write_report(str(path), out_dir / "report",
                         title=f"belote-sim default study ({args.deals:,} deals)")
    print(f"report written in {time.perf_counter() - start:.1f} s: {index.resolve()}")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from belote_sim.analysis.html_report import write_report

    index = write_report(args.table, args.output)
    print(f"report: {index.resolve()}")
    return 0


def _cmd_hand(args: argparse.Namespace) -> int:
    from belote_sim.analysis.strength import hand_strength

    options = dict(_parse_option(o) for o in args.option or [])
    start = time.perf_counter()
    table = hand_strength(args.cards, seat=args.seat, dealer=args.dealer, deals=args.deals,
                          rules=args.ruleset, play=args.play, seed=args.seed,
                          options=options)
    elapsed = time.perf_counter() - start
    print(f"hand {args.cards} at seat {args.seat}, dealer {args.dealer}, {args.ruleset} "
          f"rules, {args.play} play, {args.deals:,} deals per strain (seed {args.seed}); "
          "taker's team, 95% intervals")
    print(f"{'strain':<7}{'P(made)':>9}{'interval':>17}{'raw':>8}{'interval':>17}"
          f"{'MP':>7}{'interval':>15}")
    for r in table.itertuples():
        print(f"{r.strain:<7}{r.p_made:>9.3f}   [{r.p_low:.3f}, {r.p_high:.3f}]"
              f"{r.mean_raw:>8.1f}   [{r.raw_low:6.1f}, {r.raw_high:6.1f}]"
              f"{r.mean_mp:>7.2f}   [{r.mp_low:5.2f}, {r.mp_high:5.2f}]")
    print(f"({elapsed:.1f} s)")
    return 0


def _cmd_study(args: argparse.Namespace) -> int:
    from belote_sim.analysis.comparisons import bidding_sweep

    values = [float(v) for v in args.values.split(",")]
    table = bidding_sweep(args.param, values, deals=args.deals, rules=args.ruleset,
                          play=args.play, seed=args.seed, games=args.games,
                          threads=args.threads)
    print(f"bidding study: team 0 sweeps threshold '{args.param}', team 1 keeps the "
          f"baseline; {args.deals:,} paired deals, seed {args.seed}")
    cols = ["value", "mean_net_mp", "se", "delta", "delta_se"]
    if args.games:
        cols += ["win_rate", "win_delta", "win_delta_se"]
    print(table[cols].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    best = table[table["best"]].iloc[0]
    print(f"best: {args.param} = {best['value']:g} ({best['mean_net_mp']:.3f} MP per deal, "
          f"{best['delta']:+.3f} ± {best['delta_se']:.3f} vs baseline)")
    if args.output:
        table.to_csv(args.output, index=False)
        print(f"wrote {args.output}")
    return 0


def _cmd_solve(args: argparse.Namespace) -> int:
    from belote_sim.deal import solver

    if args.records:
        source = sys.stdin if args.records == "-" else open(args.records, encoding="utf-8")
        out = sys.stdout if args.output in (None, "-") else open(args.output, "w",
                                                                   encoding="utf-8")
        try:
            n, errors = solver.solve_record_lines(source, out)
        finally:
            if source is not sys.stdin:
                source.close()
            if out is not sys.stdout:
                out.close()
        if errors:
            print(f"belote-sim solve: {errors} of {n} records failed", file=sys.stderr)
        return 1 if errors else 0
    if not args.hands or args.strain is None:
        raise ValueError("give the 4 hands and --strain (or --records FILE)")
    hands = [h.strip() for h in args.hands.replace("/", "|").split("|")]
    start = time.perf_counter()
    value = solver.solve(hands, args.strain, args.leader, args.taker_team, args.ruleset)
    scores = solver.dd_scores(hands, args.strain, args.leader, args.taker_team, args.ruleset)
    elapsed = time.perf_counter() - start
    print(json.dumps({"value": value, "scores": scores}))
    print(f"team {args.taker_team} wins {value} card points with perfect play "
          f"({elapsed * 1000:.1f} ms)", file=sys.stderr)
    return 0


def _cmd_duel(args: argparse.Namespace) -> int:
    from belote_sim.analysis.comparisons import DUEL_KEYS, duel

    options = dict(_parse_option(o) for o in args.option or [])
    start = time.perf_counter()
    progress = _Progress(args.deals, "deal", sys.stderr.isatty())
    try:
        r = duel(args.a, args.b, deals=args.deals, rules=args.ruleset, bidding=args.bid,
                 seed=args.seed, threads=args.threads, options=options or None,
                 progress=progress)
    finally:
        progress.close()
    if args.json:
        print(json.dumps({k: r[k] for k in DUEL_KEYS}))
        return 0
    print(f"duel {r['a']} vs {r['b']}: {r['played']:,} mirrored deals ({r['ruleset']}, seed "
          f"{args.seed}) in {time.perf_counter() - start:.1f} s")
    print(f"{r['a']} gains {r['mean']:+.3f} MP per deal over {r['b']} "
          f"(paired s.e. {r['se']:.3f}; 95% interval {r['low']:+.3f} .. {r['high']:+.3f})")
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

    p = sub.add_parser("simulate", help="simulate deals (or whole games) to a Parquet table")
    p.add_argument("--deals", type=int, default=100_000, help="number of deals")
    p.add_argument("--games", type=int, default=0, help="play N whole games instead")
    p.add_argument("--max-deals", type=int, default=200, help="game mode: deals per game cap")
    p.add_argument("--ruleset", default="common", help="common, bulgarian or french")
    p.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="rule option override, e.g. --option kirtik=true (repeatable)")
    p.add_argument("--dealing", choices=("shuffle", "cut"), help="shorthand for --option dealing=...")
    p.add_argument("--players", type=int, choices=(2, 3, 4),
                   help="2 or 3: the games where every player is alone (24-card deck, "
                        "take-or-pass bidding; RULES.md section 11)")
    p.add_argument("--variant", choices=("standard", "open"),
                   help="open: open belot (2 players, 32 cards, table piles)")
    p.add_argument("--bid", default=None, help="bidding policy: threshold[:suit,nt,at,double,"
                   "redouble], fixed:SEAT,STRAIN,DOUBLING (strain 0..5 = C D H S NT AT), take")
    p.add_argument("--bid-seat", action="append", metavar="SEAT:POLICY")
    p.add_argument("--play", default="greedy", help="play policy: greedy[:draw,give], random")
    p.add_argument("--play-seat", action="append", metavar="SEAT:POLICY")
    p.add_argument("--predeal", action="append", metavar="SEAT:CARDS",
                   help='cards fixed in a hand, e.g. --predeal "0:JH 9H AH TS 7C"')
    p.add_argument("--constraint", action="append", metavar="SEAT:SPEC",
                   help='e.g. --constraint "1:min_H=3,max_S=2,strength=20-60,exclude=AS"')
    p.add_argument("--dealer", type=int, choices=range(4), help="fixed dealer (default: rotate)")
    p.add_argument("--belote-silent", metavar="SEATS", help="seats that do not announce a "
                   "belote, e.g. 1,3 (default: everyone announces everything)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=None, help="numba threads (default: all)")
    p.add_argument("--chunk-size", type=int, default=1 << 16)
    p.add_argument("--trick-log", action="store_true", help="keep every card played")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--scheduler", metavar="tcp://HOST:8786",
                   help="run the chunks on this dask.distributed scheduler (-o is then a "
                   "dataset directory: part files + manifest; rerunning resumes)")
    p.add_argument("--workers", type=int, help="start a local dask cluster of N workers")
    p.add_argument("-o", "--output", help="output Parquet file (default deals.parquet), or "
                   "directory with --scheduler/--workers")
    p.set_defaults(func=_cmd_simulate)

    p = sub.add_parser("export-replay", help="rows of a deals table as replay records")
    p.add_argument("table")
    p.add_argument("--rows", default="0:10", help="A:B (0-based, B excluded)")
    p.add_argument("-o", "--output", help="output JSON-lines file (default: standard output)")
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("report", help="HTML report of a deals table")
    p.add_argument("table", help="deals Parquet file or dataset directory")
    p.add_argument("-o", "--output", default="reports", help="output directory")
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("hand", help="strength of one hand per strain (conditional Monte Carlo)")
    p.add_argument("cards", help='5 bidding cards or 8 cards, e.g. "JH 9H AH TS 7C"')
    p.add_argument("--seat", type=int, default=0, choices=range(4))
    p.add_argument("--dealer", type=int, default=3, choices=range(4))
    p.add_argument("--deals", type=int, default=20_000, help="deals per strain")
    p.add_argument("--ruleset", default="common")
    p.add_argument("--option", action="append", metavar="NAME=VALUE")
    p.add_argument("--play", default="greedy")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_cmd_hand)

    p = sub.add_parser("study", help="studies: 'study bidding' sweeps a bidding threshold")
    p.add_argument("kind", choices=["bidding"])
    p.add_argument("--param", default="suit", help="suit, nt, at, double or redouble")
    p.add_argument("--values", default="40,45,50,55,60,65")
    p.add_argument("--deals", type=int, default=100_000)
    p.add_argument("--games", type=int, default=0, help="also play N games per setting")
    p.add_argument("--ruleset", default="common")
    p.add_argument("--play", default="greedy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("-o", "--output", help="CSV of the table")
    p.set_defaults(func=_cmd_study)

    p = sub.add_parser("solve", help="exact double-dummy value of a deal or of records")
    p.add_argument("hands", nargs="?", help='4 hands separated by "|" (seats 0..3)')
    p.add_argument("--strain", help="C D H S NT AT")
    p.add_argument("--leader", type=int, default=0, choices=range(4))
    p.add_argument("--taker-team", type=int, default=0, choices=(0, 1))
    p.add_argument("--ruleset", default="common")
    p.add_argument("--records", help="replay records (JSON lines, full or partial), or -")
    p.add_argument("-o", "--output", help="output JSON lines (with --records)")
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser("duel", help="play policy A against B on mirrored deals")
    p.add_argument("--a", required=True, help="play policy of the first side")
    p.add_argument("--b", required=True, help="play policy of the second side")
    p.add_argument("--deals", type=int, default=10_000)
    p.add_argument("--ruleset", default="common", help="common, bulgarian or french")
    p.add_argument("--option", "--options", action="append", dest="option",
                   metavar="NAME=VALUE", help="rule option override (repeatable)")
    p.add_argument("--bid", default=None, help="bidding policy for everyone")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=None,
                   help="threads for every policy (default: all); same result for any number")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: a, b, ruleset, deals, played, thrown_in, "
                        "mean, se, by_strain")
    p.set_defaults(func=_cmd_duel)

    p = sub.add_parser("main", help="run the default study")
    p.add_argument("-o", "--output", default="output", help="output directory")
    p.add_argument("--deals", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=2026)
    p.set_defaults(func=_cmd_main)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``belote-sim`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "dealing", None):
        args.option = (args.option or []) + [f"dealing={args.dealing}"]
    try:
        return args.func(args)
    except (ValueError, OSError) as exc:
        print(f"belote-sim {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
