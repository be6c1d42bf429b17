"""Commands that answer questions: hand, atlas, study bidding, duel."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from belote_sim.cli.common import Progress, check_workers, json_text, parse_option
from belote_sim.stats import Z95

__all__ = ["cmd_atlas", "cmd_duel", "cmd_hand", "cmd_study"]


def cmd_hand(args: argparse.Namespace) -> int:
    from belote_sim.analysis.strength import hand_strength
    from belote_sim.rules import Rules

    options = dict(parse_option(o) for o in args.option or [])
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
        print(json_text(table.to_dict("records")))
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


def cmd_atlas(args: argparse.Namespace) -> int:
    from belote_sim import atlas

    if args.action == "build":
        check_workers(args.workers)
        options = dict(parse_option(o) for o in args.option or [])
        output = args.output or "atlas.npz"
        progress = Progress(None, "deal", sys.stderr.isatty() and not args.quiet)
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
    print(json_text(table.meta))
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
        print(json_text(r))
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


def cmd_study(args: argparse.Namespace) -> int:
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


def cmd_duel(args: argparse.Namespace) -> int:
    from belote_sim.analysis.comparisons import DUEL_KEYS, duel

    if args.bid_a or args.bid_b:
        return _cmd_bid_duel(args)
    if not (args.a and args.b):
        raise ValueError("give --a and --b (play policies), or --bid-a and --bid-b")
    options = dict(parse_option(o) for o in args.option or [])
    start = time.perf_counter()
    progress = Progress(args.deals, "deal", sys.stderr.isatty())
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
        print(json_text({k: r[k] for k in DUEL_KEYS}))
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
