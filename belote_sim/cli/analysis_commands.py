"""Commands that answer questions: atlas, study bidding, duel (``hand`` and ``atlas
show``: ``hand_commands``)."""

from __future__ import annotations

import argparse
import math
import sys
import time

from belote_sim.cli.common import (
    Progress,
    check_workers,
    csv_output,
    json_text,
    parse_numbers,
    parse_option,
    write_csv,
)
from belote_sim.cli.hand_commands import show_atlas
from belote_sim.cli.page_command import cmd_atlas_page

__all__ = ["cmd_atlas", "cmd_duel", "cmd_study"]


def cmd_atlas(args: argparse.Namespace) -> int:
    from belote_sim import atlas

    if args.action == "page":
        return cmd_atlas_page(args)
    if args.action == "build":  # its own options only (each action has its parser)
        check_workers(args.workers)
        options = dict(parse_option(o) for o in args.option or [])
        output = args.output or "atlas.npz"
        progress = Progress(None, "deal", sys.stderr.isatty() and not args.quiet)
        try:
            table = atlas.build_atlas(
                output,
                args.ruleset or "common",
                args.play,
                seed=args.seed,
                se_target=args.se,
                first_deals=args.first_deals,
                max_deals=args.max_deals,
                net_se_target=args.net_se,
                net_max_deals=args.net_max_deals,
                rounds=args.rounds,
                threads=args.threads,
                workers=args.workers,
                scheduler=args.scheduler,
                work_dir=args.work_dir,
                progress=progress,
                options=options,
                overwrite=args.overwrite,
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
    return show_atlas(args)


def _cmd_bid_duel(args: argparse.Namespace) -> int:
    from belote_sim.analysis.comparisons import bidding_duel
    from belote_sim.atlas import rules_words
    from belote_sim.policies import BID_POLICIES, PLAY_POLICIES, default_play, describe_policy
    from belote_sim.rules import Rules

    if not (args.bid_a and args.bid_b):
        raise ValueError("give both --bid-a and --bid-b")
    if args.a and args.b and args.a != args.b:
        raise ValueError("a bidding duel plays one play policy for everyone: give --a only")
    if args.bid is not None:
        raise ValueError(
            "--bid is everyone's bidding policy in a play duel: a bidding duel "
            "takes --bid-a and --bid-b only"
        )
    options = dict(parse_option(o) for o in args.option or [])
    rules = Rules.from_spec(args.ruleset, options)
    play = args.a or args.b or default_play(rules.players, rules.variant)
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
        options=options or None,
    )
    if args.json:
        print(json_text(r))
        return 0
    print(
        f"bidding duel {r['a']} vs {r['b']}, {play} play: {r['deals']:,} mirrored deals "
        f"({rules_words(rules)}, seed {args.seed}) in {time.perf_counter() - start:.1f} s"
    )
    print(f"  A: {describe_policy(args.bid_a, BID_POLICIES, 'bidding')}")
    print(f"  B: {describe_policy(args.bid_b, BID_POLICIES, 'bidding')}")
    print(f"  everyone plays {describe_policy(play, PLAY_POLICIES, 'play')}")
    n = max(r["deals"], 1)
    a_only, b_only = r["thrown_in_a"] - r["thrown_in"], r["thrown_in_b"] - r["thrown_in"]
    # the difference of the two counts, with its paired s.e. (per deal: +1, -1 or 0)
    m = (a_only - b_only) / n
    spread = max((a_only + b_only) / n - m * m, 0.0) * n / max(n - 1, 1)
    diff_se = n * math.sqrt(spread / n)
    print(
        f"thrown in (all four pass): {r['thrown_in_a']:,} of {r['deals']:,} deals with "
        f"{r['a']} bidding for team 0 ({r['thrown_in_a'] / n:.1%}), {r['thrown_in_b']:,} "
        f"with {r['b']} bidding for team 0 ({r['thrown_in_b'] / n:.1%}); "
        f"{r['thrown_in']:,} both times, {a_only:,} only the first time, {b_only:,} only "
        f"the second (difference {r['thrown_in_a'] - r['thrown_in_b']:+,} ± {diff_se:.0f} s.e.)"
    )
    print(
        f"{r['same_contract']:,} ({r['same_contract'] / n:.1%}) reach the same contract "
        "both ways (the deals thrown in both times included) and score 0: the policies "
        "differ on the others"
    )
    print(
        f"{r['a']} gains {r['mean']:+.3f} MP per deal over {r['b']} (paired s.e. "
        f"{r['se']:.3f}; 95% interval {r['low']:+.3f} .. {r['high']:+.3f})"
    )
    if r["by_strain"]:
        print(
            f"by the strain of the contract when {r['a']} bids for team 0 (thrown_in: "
            f"the {r['thrown_in_a']:,} deals thrown in then, each worth half the other "
            "play's net):"
        )
        for strain, cell in r["by_strain"].items():
            se = "" if cell["se"] != cell["se"] else f" ± {cell['se']:.3f}"  # NaN: 1 deal
            print(f"  {strain:>9}  {cell['pairs']:>9,} deals  {cell['mean']:+.3f}{se}")
    if args.games:
        print(
            f"{r['a']} wins {r['win_rate']:.2%} of {r['games']:,} mirrored games "
            f"(s.e. {r['win_se']:.2%})"
        )
    return 0


def cmd_study(args: argparse.Namespace) -> int:
    from belote_sim.analysis.comparisons import SWEEP_ALPHA, bidding_sweep, default_values

    values = (
        default_values(args.param)
        if args.values is None
        else parse_numbers(args.values, "--values")
    )
    with csv_output(args.output, "the table", args.overwrite) as out:  # checked first
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
        if out is not None:
            write_csv(table, out)
    base = table[table["baseline"]].iloc[0]
    tried = int(table["settings_tried"].iloc[0])
    print(
        f"bidding study: threshold '{args.param}' against its default "
        f"{base['value']:g} (the baseline, the other team); {tried} setting"
        f"{'s' if tried != 1 else ''} tried, {args.deals:,} deals each, every deal "
        f"played twice with the teams swapped (mirrored), seed {args.seed}"
    )
    print(
        "net MP = MP per deal the setting gains over the baseline (mirrored; the "
        "baseline is 0 by construction); p = one-sided p-value of 'no gain'; "
        f"significant: after a Holm correction over the {tried} settings tried "
        f"(family-wise {SWEEP_ALPHA:.1%})"
    )
    show = table.assign(
        setting=[
            f"{v:g}" + (" (baseline)" if b else "")
            for v, b in zip(table["value"], table["baseline"])
        ],
        p=[f"{p:.2g}" if p == p else "" for p in table["p_value"]],
        signif=[
            "" if b else ("yes" if s else "no")
            for b, s in zip(table["baseline"], table["significant"])
        ],
    )
    cols = ["setting", "mean_net_mp", "se", "low", "high", "p", "signif"]
    if args.games:
        cols += ["win_rate", "win_delta", "win_delta_se"]
    print(
        show[cols]
        .rename(
            columns={
                "mean_net_mp": "net MP",
                "low": "95% low",
                "high": "95% high",
                "signif": "significant",
            }
        )
        .to_string(index=False, float_format=lambda v: f"{v:.3f}")
    )
    if table["best"].any():
        best = table[table["best"]].iloc[0]
        print(
            f"best: {args.param} = {best['value']:g} ({best['mean_net_mp']:+.3f} ± "
            f"{best['se']:.3f} MP per deal over the baseline {base['value']:g}), the "
            f"highest of the {int(table['significant'].sum())} significant setting(s)"
        )
        if best["edge"]:
            print("  (at the edge of the values tried: the optimum may lie beyond)")
    else:
        print(
            f"no significant difference: no setting beats the baseline {args.param} = "
            f"{base['value']:g} after the Holm correction over the {tried} settings tried"
        )
    print(
        "caveat: the more settings are tried, the likelier one looks better by chance "
        "(hence the correction), and a winner's gain tends to be overstated: confirm it "
        "with another --seed"
    )
    if args.output:
        print(f"wrote {args.output}")
    return 0


def cmd_duel(args: argparse.Namespace) -> int:
    from belote_sim.analysis.comparisons import DUEL_KEYS, duel

    if args.bid_a or args.bid_b:
        return _cmd_bid_duel(args)
    if not (args.a and args.b):
        raise ValueError("give --a and --b (play policies), or --bid-a and --bid-b")
    if args.games:
        raise ValueError(
            "--games plays a bidding duel's games: a play duel (--a, --b) scores deals only"
        )
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
            progress=progress.ticks,  # pairs as they are computed, None without a bar
        )
    finally:
        progress.close()
    if args.json:
        print(json_text({k: r[k] for k in DUEL_KEYS}))
        return 0
    how = "mirrored" if r.get("players", 4) == 4 else f"rotated ({r['a']} at each seat in turn)"
    print(
        f"duel {r['a']} vs {r['b']}: {r['played']:,} {how} deals played, "
        f"{r['thrown_in']:,} of {r['deals']:,} thrown in and left out ({r['ruleset']}, seed "
        f"{args.seed}) in {time.perf_counter() - start:.1f} s"
    )
    print(
        f"{r['a']} gains {r['mean']:+.3f} MP per deal over {r['b']} "
        f"(paired s.e. {r['se']:.3f}; 95% interval {r['low']:+.3f} .. {r['high']:+.3f})"
    )
    return 0
