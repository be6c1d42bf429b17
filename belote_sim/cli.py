"""belote-sim command line.

Commands::

    belote-sim simulate --deals N [-o deals.parquet] ...   simulate deals (or --games N)
    belote-sim export-replay deals.parquet --rows A:B     rows as replay records
    belote-sim replay IN.jsonl [-o OUT.jsonl]             replay records (JSON lines)
    belote-sim perft FILE.perft [--max-nodes N]           check a perft suite
    belote-sim report deals.parquet [-o reports/]         HTML report
    belote-sim dataset rebuild-manifest DIR               a dataset's lost manifest
    belote-sim dataset verify DIR                         a dataset's parts and checksums
    belote-sim hand "JH 9H AH TS 7C" [--seat S --dealer D] strength of one hand
    belote-sim study bidding --param suit --values 40,50  bidding threshold sweep
    belote-sim solve "<4 hands>" --strain H --leader 0     double-dummy value and card scores
    belote-sim solve --records IN.jsonl                   the same for replay records
    belote-sim duel --a pimc --b greedy --deals N         compare two play policies
    belote-sim duel --bid-a atlas --bid-b threshold       compare two bidding policies
    belote-sim atlas build -o atlas.npz | atlas show      the hand atlas
    belote-sim main [-o DIR]                              the default study and report

Outputs are crash-safe: a file under the output name is always complete; Ctrl-C or
SIGTERM keeps the finished chunks and says how to resume (README, "Interrupted runs").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from belote_sim._version import __version__

Z95 = 1.959963984540054  # two-sided 95% normal quantile (as analysis.report_tables.Z95)


def _cmd_replay(args: argparse.Namespace) -> int:
    from belote_sim.deal.replay import replay_lines

    try:
        source = _open_lines(args.input)
    except OSError as exc:
        print(f"belote-sim replay: cannot read {args.input}: {exc.strerror}", file=sys.stderr)
        return 2
    out = sys.stdout if args.output in (None, "-") else open(args.output, "w", encoding="utf-8")  # noqa: SIM115 (or stdout)
    with source, out if out is not sys.stdout else _nullcontext():
        n, errors = replay_lines(source, out)
    if errors:
        print(f"belote-sim replay: {errors} of {n} records failed", file=sys.stderr)
    return 1 if errors else 0


def _open_lines(name: str):
    """A JSON-lines input as bytes lines (each decoded on its own by ``map_json_lines``,
    so that a line that is not UTF-8 fails alone)."""
    if name == "-":
        return _nullcontext(sys.stdin.buffer)
    return open(name, "rb")


class _nullcontext:
    def __init__(self, value=None):
        self.value = value

    def __iter__(self):
        return iter(self.value)

    def __enter__(self):
        return self.value

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


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{what} must be an integer, got {text.strip()!r}") from None


def _parse_constraint(text: str) -> dict[str, Any]:
    """``min_H=3,max_S=2,strength=20-60,require=JH AH,exclude=AS`` -> a constraint dict."""
    spec: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep:
            raise ValueError(f"constraint {part!r}: expected key=value")
        if key.startswith(("min_", "max_")):
            spec.setdefault(key[:3], {})[key[4:].upper()] = _int(value, f"constraint {key}")
        elif key == "strength":
            low, _, high = value.partition("-")
            spec["strength"] = (
                _int(low, "constraint strength (LOW-HIGH)"),
                _int(high, "constraint strength (LOW-HIGH)"),
            )
        elif key in ("require", "exclude"):
            spec[key] = value
        else:
            raise ValueError(
                f"unknown constraint {key!r}: use min_S, max_S, strength, require, exclude"
            )
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
    constraints = {
        seat: _parse_constraint(text)
        for seat, text in _parse_seat_map(args.constraint, "constraint").items()
    }
    silent = (
        [_int(x, "--belote-silent seat") for x in args.belote_silent.split(",")]
        if args.belote_silent
        else []
    )
    return make_study(
        args.ruleset,
        bidding,
        play,
        args.seed,
        _parse_seat_map(args.predeal, "predeal"),
        constraints,
        args.dealer,
        args.chunk_size,
        options,
        silent,
    )


class _Progress:
    """A tqdm progress bar with ETA on a terminal, nothing otherwise."""

    def __init__(self, total: int | None, unit: str, enabled: bool):
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

    if args.games < 0:
        raise ValueError(f"--games must be positive, got {args.games}")
    if args.games and args.trick_log:
        raise ValueError("--trick-log is for deals (--deals); a games table has no trick log")
    if args.games and (args.workers is not None or args.scheduler):
        raise ValueError("--games runs locally: --workers/--scheduler are for --deals")
    if not args.games and args.deals < 1:
        raise ValueError(f"--deals must be at least 1, got {args.deals}")
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    study = _study_from_args(args)
    show = sys.stderr.isatty() and not args.quiet
    print(
        f"belote-sim {__version__}: seed {study.seed}, rules {study.rules.name}, "
        f"bidding {', '.join(sorted({str(s) for s in study.bidding}))}, "
        f"play {', '.join(sorted({str(s) for s in study.play}))}"
    )
    if study.predeal or study.constraints:
        from belote_sim.analysis.html_report import conditions_text

        print(f"conditioned deals: {conditions_text(study.provenance(0))}")
    if args.games:
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
        if args.output:
            _write_games(games, args.output, args.overwrite)
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
    output = args.output or "deals.parquet"
    progress = _Progress(args.deals, "deal", show)
    try:
        if args.scheduler or args.workers:
            from belote_sim.simulation.distributed import run_study

            if args.overwrite:
                raise ValueError(
                    "--overwrite is for a single-file output; a dataset directory "
                    "resumes (delete it to start over)"
                )
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
            )
    finally:
        progress.close()
    print(format_summary(summary))
    print(f"{'kept' if summary.get('already_complete') else 'wrote'} {output}")
    return 0


def _write_games(games, output: str, overwrite: bool) -> None:
    """The games table to ``output`` via a temporary file renamed when complete."""
    import os

    if os.path.exists(output) and not overwrite:
        raise ValueError(
            f"{output} exists; add --overwrite to replace it, or choose another output"
        )
    directory, name = os.path.split(os.path.abspath(output))
    tmp = os.path.join(directory, f".{name}.writing")
    try:
        games.to_parquet(tmp, index=False)
        os.replace(tmp, output)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _cmd_export(args: argparse.Namespace) -> int:
    from belote_sim.simulation.export import export_replay

    out = sys.stdout if args.output in (None, "-") else open(args.output, "w", encoding="utf-8")  # noqa: SIM115 (or stdout)
    try:
        n = export_replay(args.table, args.rows, out, allow_incomplete=args.allow_incomplete)
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
    print(
        f"belote-sim {__version__}: default study, {args.deals:,} deals, rules common, "
        f"threshold bidding, greedy play, seed {args.seed}"
    )
    progress = _Progress(args.deals, "deal", sys.stderr.isatty())
    try:
        summary = simulate_to_parquet(
            str(path), args.deals, study, None, False, progress, overwrite=args.overwrite
        )
    finally:
        progress.close()
    print(format_summary(summary))
    print(f"{'kept' if summary.get('already_complete') else 'wrote'} {path}")
    start = time.perf_counter()
    index = write_report(
        str(path), out_dir / "report", title=f"belote-sim default study ({args.deals:,} deals)"
    )
    print(f"report written in {time.perf_counter() - start:.1f} s: {index.resolve()}")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from belote_sim.analysis.html_report import write_report

    index = write_report(
        args.table, args.output, title=args.title, allow_incomplete=args.allow_incomplete
    )
    print(f"report: {index.resolve()}")
    return 0


def _cmd_dataset(args: argparse.Namespace) -> int:
    from belote_sim.simulation import distributed

    if args.action == "rebuild-manifest":
        r = distributed.rebuild_manifest(args.dir, force=args.force)
        for line in r["skipped"]:
            print(f"skipped {line}", file=sys.stderr)
        print(
            f"rebuilt {r['manifest']}: {r['chunks']} of {r['n_chunks']} chunks"
            + ("" if r["complete"] else "; rerun the study's command to finish it")
        )
        return 0
    problems = distributed.verify_dataset(args.dir)
    for line in problems:
        print(line)
    print(
        f"{args.dir}: "
        + (f"{len(problems)} problem(s)" if problems else "complete, every checksum matches")
    )
    return 1 if problems else 0


def _cmd_hand(args: argparse.Namespace) -> int:
    from belote_sim.analysis.strength import hand_strength
    from belote_sim.rules import Rules

    options = dict(_parse_option(o) for o in args.option or [])
    rules = Rules.from_spec(args.ruleset, options)
    unit = "pts" if rules.options().get("scoring") == "french" else "MP"
    start = time.perf_counter()
    if args.position is not None:  # the seat that is `position` after the dealer
        args.seat, args.dealer = 0, (4 - args.position) % 4
    if _hand_from_atlas(args, options, start):
        return 0
    table = hand_strength(
        args.cards,
        seat=args.seat,
        dealer=args.dealer,
        deals=args.deals,
        rules=rules,
        play=args.play,
        seed=args.seed,
    )
    elapsed = time.perf_counter() - start
    print(
        f"hand {args.cards} at seat {args.seat}, dealer {args.dealer}, {args.ruleset} "
        f"rules, {args.play} play; every strain forced on the same {args.deals:,} deals "
        f"(seed {args.seed}); taker's team, 95% intervals"
    )
    if unit == "pts":
        print("french scoring: points are French points (pts), not match points")
    missing = [s for s in ("C", "D", "H", "S", "NT", "AT") if s not in set(table["strain"])]
    if missing:
        print(f"not played under these rules: {', '.join(missing)}")
    print(
        f"{'strain':<7}{'P(made)':>9}{'interval':>17}{'raw':>8}{'interval':>17}"
        f"{unit:>7}{'interval':>15}{'net ' + unit:>9}{'interval':>17}{'vs best':>16}"
    )
    for r in table.itertuples():
        versus = "best" if r.best else f"{r.vs_best:+.2f} ± {r.vs_best_se:.2f}"
        print(
            f"{r.strain:<7}{r.p_made:>9.3f}   [{r.p_low:.3f}, {r.p_high:.3f}]"
            f"{r.mean_raw:>8.1f}   [{r.raw_low:6.1f}, {r.raw_high:6.1f}]"
            f"{r.mean_mp:>7.2f}   [{r.mp_low:5.2f}, {r.mp_high:5.2f}]"
            f"{r.mean_net:>9.2f}   [{r.net_low:6.2f}, {r.net_high:6.2f}]{versus:>16}"
        )
    best = table[table["best"]].iloc[0]
    others = table[~table["best"]]
    line = (
        f"best call: {best['strain']} (net {best['mean_net']:+.2f} {unit} per deal "
        "against the defenders)"
    )
    if len(others):
        runner = others.loc[others["vs_best"].idxmax()]
        if runner["vs_best"] + Z95 * runner["vs_best_se"] >= 0:
            line += (
                f"; not significantly better than {runner['strain']} "
                f"({runner['vs_best']:+.2f} ± {runner['vs_best_se']:.2f} {unit} on the "
                "same deals)"
            )
        else:
            line += (
                f", {-runner['vs_best']:.2f} ± {runner['vs_best_se']:.2f} {unit} "
                f"better than the next, {runner['strain']}, on the same deals"
            )
    print(line)
    print(f"({elapsed:.1f} s)")
    return 0


def _hand_from_atlas(args: argparse.Namespace, options: dict[str, Any], start: float) -> bool:
    """``hand`` answered from the atlas (or, with --json, by simulation); False when the
    caller's simulation table should answer instead."""
    from belote_sim.atlas import best_call, hand_by_simulation, hand_from_atlas, position_of

    position = position_of(args.seat, args.dealer)
    table = None
    if not args.simulate:
        table = hand_from_atlas(
            args.cards, position, rules=args.ruleset, play=args.play, options=options
        )
    if args.json:
        if table is None:
            table = hand_by_simulation(
                args.cards,
                args.seat,
                args.dealer,
                args.deals,
                args.ruleset,
                args.play,
                args.seed,
                options,
            )
        print(json.dumps(table.to_dict("records")))
        return True
    if table is None:
        return False
    print(
        f"hand {args.cards} at position {position} (1 = leads, 4 = dealer), "
        f"{args.ruleset} rules, {args.play} play, from the atlas; taker's team, net MP "
        "= taker's MP - defenders' MP per deal, 95% intervals"
    )
    print(f"{'strain':<7}{'n':>6}{'P(made)':>9}{'interval':>17}{'net x1':>9}{'net x2':>9}")
    for r in table.itertuples():
        print(
            f"{r.strain:<7}{r.n:>6}{r.p_made:>9.3f}   [{r.p_made_low:.3f}, "
            f"{r.p_made_high:.3f}]{r.net_mp_x1:>9.2f}{r.net_mp_x2:>9.2f}"
        )
    print(f"best call: {best_call(table)} ({(time.perf_counter() - start) * 1000:.0f} ms)")
    return True


def _cmd_atlas(args: argparse.Namespace) -> int:
    from belote_sim import atlas

    if args.action == "build":
        options = dict(_parse_option(o) for o in args.option or [])
        output = args.output or "atlas.npz"
        progress = _Progress(None, "deal", sys.stderr.isatty() and not args.quiet)
        try:
            table = atlas.build_atlas(
                output,
                args.ruleset,
                args.play,
                seed=args.seed,
                se_target=args.se,
                first_deals=args.first_deals,
                max_deals=args.max_deals,
                rounds=args.rounds,
                threads=args.threads,
                workers=args.workers,
                scheduler=args.scheduler,
                work_dir=args.work_dir,
                progress=progress,
                options=options,
            )
        finally:
            progress.close()
        m = table.meta
        print(
            f"atlas: {m['cells']:,} cells, {m['deals']:,} deals in {m['build_seconds']:.0f} s "
            f"({m['ruleset']} rules, {m['play']} play, seed {m['seed']})"
        )
        print(f"wrote {output}")
        return 0
    table = atlas.load_atlas(args.output)
    print(json.dumps(table.meta))
    frame = atlas.atlas_frame(table)
    frame = frame[frame["n"] > 0]
    if args.csv:
        frame.to_csv(args.csv, index=False)
        print(f"wrote {args.csv} ({len(frame):,} cells)")
    summary = frame.groupby(["kind", "position"]).agg(
        cells=("n", "size"),
        mean_n=("n", "mean"),
        max_p_made_se=("p_made_se", "max"),
        p_made=("p_made", "mean"),
        net_mp_x1=("net_mp_x1", "mean"),
    )
    print(summary.to_string(float_format=lambda v: f"{v:.3f}"))
    return 0


def _cmd_bid_duel(args: argparse.Namespace) -> int:
    from belote_sim.analysis.comparisons import bidding_duel

    if not (args.bid_a and args.bid_b):
        raise ValueError("give both --bid-a and --bid-b")
    if args.a and args.b and args.a != args.b:
        raise ValueError("a bidding duel plays one play policy for everyone: give --a only")
    play = args.a or args.b or "greedy"
    start = time.perf_counter()
    r = bidding_duel(
        args.bid_a,
        args.bid_b,
        deals=args.deals,
        rules=args.ruleset,
        play=play,
        seed=args.seed,
        threads=args.threads,
        games=args.games,
    )
    if args.json:
        print(json.dumps(r))
        return 0
    print(
        f"bidding duel {r['a']} vs {r['b']}, {play} play: {r['deals']:,} mirrored deals "
        f"({args.ruleset}, seed {args.seed}) in {time.perf_counter() - start:.1f} s"
    )
    print(
        f"{r['a']} gains {r['mean']:+.3f} MP per deal over {r['b']} (paired s.e. "
        f"{r['se']:.3f}; 95% interval {r['low']:+.3f} .. {r['high']:+.3f})"
    )
    if args.games:
        print(
            f"{r['a']} wins {r['win_rate']:.2%} of {r['games']:,} mirrored games "
            f"(s.e. {r['win_se']:.2%})"
        )
    return 0


def _cmd_study(args: argparse.Namespace) -> int:
    from belote_sim.analysis.comparisons import bidding_sweep, default_values

    values = (
        default_values(args.param)
        if args.values is None
        else [float(v) for v in args.values.split(",")]
    )
    table = bidding_sweep(
        args.param,
        values,
        deals=args.deals,
        rules=args.ruleset,
        play=args.play,
        seed=args.seed,
        games=args.games,
        threads=args.threads,
    )
    base = table[table["baseline"]].iloc[0]
    print(
        f"bidding study: threshold '{args.param}' against its default "
        f"{base['value']:g} (the baseline, the other team); {args.deals:,} deals, each "
        f"played twice with the teams swapped (mirrored), seed {args.seed}"
    )
    print(
        "net MP = MP per deal the setting gains over the baseline (mirrored; the "
        "baseline is 0 by construction)"
    )
    show = table.assign(
        setting=[
            f"{v:g}" + (" (baseline)" if b else "")
            for v, b in zip(table["value"], table["baseline"])
        ]
    )
    cols = ["setting", "mean_net_mp", "se", "low", "high"]
    if args.games:
        cols += ["win_rate", "win_delta", "win_delta_se"]
    print(
        show[cols]
        .rename(columns={"mean_net_mp": "net MP", "low": "95% low", "high": "95% high"})
        .to_string(index=False, float_format=lambda v: f"{v:.3f}")
    )
    if table["best"].any():
        best = table[table["best"]].iloc[0]
        print(
            f"best: {args.param} = {best['value']:g} ({best['mean_net_mp']:+.3f} ± "
            f"{best['se']:.3f} MP per deal over the baseline {base['value']:g})"
        )
        if best["edge"]:
            print("  (at the edge of the values tried: the optimum may lie beyond)")
    else:
        print(
            f"no significant difference: no value beats the baseline {args.param} = "
            f"{base['value']:g} at 95%"
        )
    if args.output:
        table.to_csv(args.output, index=False)
        print(f"wrote {args.output}")
    return 0


def _cmd_solve(args: argparse.Namespace) -> int:
    from belote_sim.deal import solver

    if args.records:
        source = sys.stdin.buffer if args.records == "-" else open(args.records, "rb")  # noqa: SIM115
        out = sys.stdout if args.output in (None, "-") else open(args.output, "w", encoding="utf-8")  # noqa: SIM115 (or stdout)
        try:
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
    start = time.perf_counter()
    value = solver.solve(hands, args.strain, args.leader, args.taker_team, args.ruleset)
    scores = solver.dd_scores(hands, args.strain, args.leader, args.taker_team, args.ruleset)
    elapsed = time.perf_counter() - start
    print(json.dumps({"value": value, "scores": scores}))
    print(
        f"team {args.taker_team} wins {value} card points with perfect play "
        f"({elapsed * 1000:.1f} ms)",
        file=sys.stderr,
    )
    return 0


def _cmd_duel(args: argparse.Namespace) -> int:
    from belote_sim.analysis.comparisons import DUEL_KEYS, duel

    if args.bid_a or args.bid_b:
        return _cmd_bid_duel(args)
    if not (args.a and args.b):
        raise ValueError("give --a and --b (play policies), or --bid-a and --bid-b")
    options = dict(_parse_option(o) for o in args.option or [])
    start = time.perf_counter()
    progress = _Progress(args.deals, "deal", sys.stderr.isatty())
    try:
        r = duel(
            args.a,
            args.b,
            deals=args.deals,
            rules=args.ruleset,
            bidding=args.bid,
            seed=args.seed,
            threads=args.threads,
            options=options or None,
            progress=progress,
        )
    finally:
        progress.close()
    if args.json:
        print(json.dumps({k: r[k] for k in DUEL_KEYS}))
        return 0
    print(
        f"duel {r['a']} vs {r['b']}: {r['played']:,} mirrored deals played, "
        f"{r['thrown_in']:,} of {r['deals']:,} thrown in and left out ({r['ruleset']}, seed "
        f"{args.seed}) in {time.perf_counter() - start:.1f} s"
    )
    print(
        f"{r['a']} gains {r['mean']:+.3f} MP per deal over {r['b']} "
        f"(paired s.e. {r['se']:.3f}; 95% interval {r['low']:+.3f} .. {r['high']:+.3f})"
    )
    return 0


class _Defaults(argparse.HelpFormatter):
    """Help that shows each option's default, unless it is None or already said."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            default is not None
            and default is not False
            and default != argparse.SUPPRESS
            and "default" not in text
            and action.option_strings
        ):
            text += " (default: %(default)s)"
        return text


def _at_least_2(text: str) -> int:
    """argparse type: an integer of at least 2 (deals for a mean and its s.e.)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 2:
        raise argparse.ArgumentTypeError(f"needs at least 2 deals, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="belote-sim", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"belote-sim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", help="replay recorded deals (JSON lines)")
    p.add_argument("input", help="input JSON-lines file, or - for standard input")
    p.add_argument("-o", "--output", help="output JSON-lines file (default: standard output)")
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser("perft", help="check the legal-sequence counts of a .perft file")
    p.add_argument("file")
    p.add_argument(
        "--max-nodes", type=int, default=10**8, help="skip counts above this many sequences"
    )
    p.set_defaults(func=_cmd_perft)

    p = sub.add_parser("simulate", help="simulate deals (or whole games) to a Parquet table")
    p.add_argument("--deals", type=int, default=100_000, help="number of deals")
    p.add_argument("--games", type=int, default=0, help="play N whole games instead")
    p.add_argument("--max-deals", type=int, default=200, help="game mode: deals per game cap")
    p.add_argument("--ruleset", default="common", help="common, bulgarian or french")
    p.add_argument(
        "--option",
        action="append",
        metavar="NAME=VALUE",
        help="rule option override, e.g. --option kirtik=true (repeatable)",
    )
    p.add_argument(
        "--dealing", choices=("shuffle", "cut"), help="shorthand for --option dealing=..."
    )
    p.add_argument(
        "--players",
        type=int,
        choices=(2, 3, 4),
        help="2 or 3: the games where every player is alone (24-card deck, "
        "take-or-pass bidding; RULES.md section 11)",
    )
    p.add_argument(
        "--variant",
        choices=("standard", "open"),
        help="open: open belot (2 players, 32 cards, table piles)",
    )
    p.add_argument(
        "--bid",
        default=None,
        help="bidding policy: threshold[:suit,nt,at,double,"
        "redouble], fixed:SEAT,STRAIN,DOUBLING (strain 0..5 = C D H S NT AT), take, "
        "atlas[:PATH] (expected net MP from the hand atlas)",
    )
    p.add_argument("--bid-seat", action="append", metavar="SEAT:POLICY")
    p.add_argument("--play", default="greedy", help="play policy: greedy[:draw,give], random")
    p.add_argument("--play-seat", action="append", metavar="SEAT:POLICY")
    p.add_argument(
        "--predeal",
        action="append",
        metavar="SEAT:CARDS",
        help='cards fixed in a hand, e.g. --predeal "0:JH 9H AH TS 7C"',
    )
    p.add_argument(
        "--constraint",
        action="append",
        metavar="SEAT:SPEC",
        help='e.g. --constraint "1:min_H=3,max_S=2,strength=20-60,exclude=AS"',
    )
    p.add_argument("--dealer", type=int, choices=range(4), help="fixed dealer (default: rotate)")
    p.add_argument(
        "--belote-silent",
        metavar="SEATS",
        help="seats that do not announce a "
        "belote, e.g. 1,3 (default: everyone announces everything)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=None, help="numba threads (default: all)")
    p.add_argument("--chunk-size", type=int, default=1 << 16)
    p.add_argument("--trick-log", action="store_true", help="keep every card played")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--scheduler",
        metavar="tcp://HOST:8786",
        help="run the chunks on this dask.distributed scheduler (-o is then a "
        "dataset directory: part files + manifest; rerunning resumes)",
    )
    p.add_argument("--workers", type=int, help="start a local dask cluster of N workers")
    p.add_argument(
        "-o",
        "--output",
        help="output Parquet file (default deals.parquet), or directory with --scheduler/--workers",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing output "
        "(kept until the new one is complete) and discard an interrupted run's "
        "partial file instead of resuming it",
    )
    p.set_defaults(func=_cmd_simulate)

    p = sub.add_parser("export-replay", help="rows of a deals table as replay records")
    p.add_argument("table")
    p.add_argument("--rows", default="0:10", help="A:B (0-based, B excluded)")
    p.add_argument("-o", "--output", help="output JSON-lines file (default: standard output)")
    p.add_argument(
        "--allow-incomplete", action="store_true", help="read an interrupted run's table too"
    )
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser(
        "report",
        help="HTML report of a deals table",
        description="HTML report of a deals table: summary, contents, one "
        "section per question with figures and tables; CSVs in tables/.",
        formatter_class=_Defaults,
    )
    p.add_argument("table", help="deals Parquet file or dataset directory (belote-sim simulate)")
    p.add_argument("-o", "--output", default="reports", help="output directory")
    p.add_argument("--title", default="belote-sim report", help="title of the report")
    p.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="report an interrupted "
        "run or unfinished dataset too (title: 'incomplete: k of n chunks')",
    )
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("dataset", help="dataset directories: rebuild-manifest, verify")
    p.add_argument("action", choices=["rebuild-manifest", "verify"])
    p.add_argument("dir", help="dataset directory (simulate --workers/--scheduler)")
    p.add_argument("--force", action="store_true", help="rebuild a readable manifest too")
    p.set_defaults(func=_cmd_dataset)

    p = sub.add_parser(
        "hand",
        help="strength of one hand per strain (conditional Monte Carlo)",
        description="Strength of one hand: the hand is predealt to --seat, "
        "the rest dealt at random; each strain is forced (that seat takes, "
        "undoubled) and played out on the same deals, then compared.",
        formatter_class=_Defaults,
    )
    p.add_argument("cards", help='5 bidding cards or 8 cards, e.g. "JH 9H AH TS 7C"')
    p.add_argument(
        "--seat", type=int, default=0, choices=range(4), help="seat holding the hand (and taking)"
    )
    p.add_argument(
        "--dealer",
        type=int,
        default=3,
        choices=range(4),
        help="dealer seat (seat dealer+1 speaks first and leads)",
    )
    p.add_argument(
        "--deals",
        type=_at_least_2,
        default=20_000,
        help="deals per strain (the same deals for every strain)",
    )
    p.add_argument("--ruleset", default="common", help="common, bulgarian or french")
    p.add_argument(
        "--option", action="append", metavar="NAME=VALUE", help="rule option override (repeatable)"
    )
    p.add_argument("--play", default="greedy", help="play policy of all four seats")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals")
    p.add_argument(
        "--position",
        type=int,
        choices=range(1, 5),
        help="1 (first after the dealer, leads) .. 4 (dealer); sets --seat/--dealer",
    )
    p.add_argument(
        "--simulate",
        action="store_true",
        help="simulate even when the atlas covers the rules and play policy",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list, one object per "
        "strain: strain, n, p_made, p_made_low, p_made_high, net_mp_x1, "
        "net_mp_x2, source",
    )
    p.set_defaults(func=_cmd_hand)

    p = sub.add_parser("atlas", help="the hand atlas: build one, or show one")
    p.add_argument("action", choices=["build", "show"])
    p.add_argument(
        "-o",
        "--output",
        help="atlas file (build: default atlas.npz; show: default the shipped atlas)",
    )
    p.add_argument("--ruleset", default="common")
    p.add_argument("--option", action="append", metavar="NAME=VALUE")
    p.add_argument("--play", default="greedy")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--se", type=float, default=0.02, help="target s.e. of P(made) per cell")
    p.add_argument("--first-deals", type=int, default=200)
    p.add_argument("--max-deals", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=16)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--workers", type=int, help="start a local dask cluster of N workers")
    p.add_argument("--scheduler", metavar="tcp://HOST:8786", help="dask.distributed scheduler")
    p.add_argument("--work-dir", help="keep every chunk here (rerunning resumes)")
    p.add_argument("--csv", help="show: write every cell to this CSV")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_atlas)

    p = sub.add_parser(
        "study",
        help="studies: 'study bidding' sweeps a bidding threshold",
        description="study bidding: one threshold of the threshold bidding "
        "policy takes each value in turn against the default thresholds, on "
        "mirrored deals (each deal played twice with the teams swapped); the "
        "baseline (the parameter's default) scores exactly 0.",
        formatter_class=_Defaults,
    )
    p.add_argument("kind", choices=["bidding"], help="the study to run")
    p.add_argument(
        "--param", default="suit", help="threshold to sweep: suit, nt, at, double or redouble"
    )
    p.add_argument(
        "--values",
        default=None,
        help="comma-separated values (default: the "
        "parameter's default and 5 and 10 points either side)",
    )
    p.add_argument(
        "--deals", type=_at_least_2, default=100_000, help="deals per setting (each played twice)"
    )
    p.add_argument("--games", type=int, default=0, help="also play N mirrored games per setting")
    p.add_argument("--ruleset", default="common", help="common or bulgarian")
    p.add_argument("--play", default="greedy", help="play policy of all four seats")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals")
    p.add_argument("--threads", type=int, default=None, help="numba threads (default: all)")
    p.add_argument("-o", "--output", help="write the table as CSV here")
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

    p = sub.add_parser(
        "duel",
        help="play policy A against B on mirrored deals",
        description="Play policy A against B: every deal is played twice, "
        "A in team 0 then in team 1, with the same cards and auction; "
        "thrown-in deals are counted and left out.  With --bid-a/--bid-b: "
        "bidding policy A against B, everyone playing --a (default greedy).",
        formatter_class=_Defaults,
    )
    p.add_argument("--a", help="play policy of the first side (bidding duel: of everyone)")
    p.add_argument("--b", help="play policy of the second side")
    p.add_argument("--bid-a", help="bidding duel: bidding policy of the first side")
    p.add_argument("--bid-b", help="bidding duel: bidding policy of the second side")
    p.add_argument("--games", type=int, default=0, help="bidding duel: also N mirrored games")
    p.add_argument("--deals", type=_at_least_2, default=10_000, help="deals (each played twice)")
    p.add_argument("--ruleset", default="common", help="common, bulgarian or french")
    p.add_argument(
        "--option",
        "--options",
        action="append",
        dest="option",
        metavar="NAME=VALUE",
        help="rule option override (repeatable)",
    )
    p.add_argument(
        "--bid", default=None, help="bidding policy for everyone (default: the ruleset's)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the deals")
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        help="threads for every policy (default: all); same result for any number",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: a, b, ruleset, deals, played, thrown_in, "
        "mean, se, by_strain (a bidding duel adds low, high and game keys)",
    )
    p.set_defaults(func=_cmd_duel)

    p = sub.add_parser("main", help="run the default study")
    p.add_argument("-o", "--output", default="output", help="output directory")
    p.add_argument("--deals", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing deals.parquet of another study",
    )
    p.set_defaults(func=_cmd_main)
    return parser


class _Terminated(KeyboardInterrupt):
    """SIGTERM, turned into an interruption so that a run keeps what it finished."""


def _on_sigterm(signum, frame):
    raise _Terminated()


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``belote-sim`` command; returns the exit status.

    Bad input gives one line on standard error and status 2.  Ctrl-C (SIGINT) and
    SIGTERM stop a run cleanly: one line says what was kept and how to resume;
    status 130 (SIGINT) or 143 (SIGTERM).
    """
    import signal
    import threading

    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "dealing", None):
        args.option = (args.option or []) + [f"dealing={args.dealing}"]
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return args.func(args)
    except (ValueError, OSError) as exc:
        print(f"belote-sim {args.command}: {_one_line(exc)}", file=sys.stderr)
        return 2
    except ImportError as exc:  # an optional extra (dask) that is not installed
        print(f"belote-sim {args.command}: {_one_line(exc)}", file=sys.stderr)
        return 2
    except RecursionError:
        print(f"belote-sim {args.command}: input nested too deeply", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        what = _one_line(exc) if str(exc) else "interrupted"
        terminated = isinstance(exc, _Terminated) or isinstance(exc.__context__, _Terminated)
        print(
            f"belote-sim {args.command}: {what}" + (" (SIGTERM)" if terminated else ""),
            file=sys.stderr,
        )
        return 143 if terminated else 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
