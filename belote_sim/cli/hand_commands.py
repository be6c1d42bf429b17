"""``hand`` and ``atlas show CARDS``: one hand's answer, the same table whichever path
(the atlas or a simulation) gives it; ``atlas show --parquet``."""

from __future__ import annotations

import argparse
import json
import os
import textwrap
import time
from collections.abc import Sequence
from typing import Any

from belote_sim.cli.common import csv_output, parse_option, plus_minus, write_csv

__all__ = ["LINE_WIDTH", "cmd_hand", "format_answer", "show_atlas"]

#: The widest line of a hand's answer (its table's width): the legend is wrapped to it.
LINE_WIDTH = 105


def cmd_hand(args: argparse.Namespace) -> int:
    from belote_sim.atlas import answer_hand

    if args.auction is not None:  # every call in the middle of an auction
        from belote_sim.cli.auction_commands import cmd_hand_auction

        return cmd_hand_auction(args)
    if args.others is not None:
        raise ValueError("--others is the model of the other seats' bidding: give --auction")
    options = dict(parse_option(o) for o in args.option or [])
    if args.position is not None:
        if args.seat is not None or args.dealer is not None:
            raise ValueError(
                "--position sets the seat and the dealer: give --position or --seat/--dealer, "
                "not both"
            )
        seat, dealer = 0, (4 - args.position) % 4
    else:
        seat = 0 if args.seat is None else args.seat
        dealer = args.dealer
        if dealer is None:  # the dealer of position 1 (the hand speaks first)
            from belote_sim.rules import Rules

            players = Rules.from_spec(args.ruleset or "common", options).players
            if players != 4:
                raise ValueError(
                    f"hand answers a hand of the 4-player game, not the {players}-player one"
                )
            dealer = 3
    start = time.perf_counter()
    answer = answer_hand(
        args.cards,
        seat,
        dealer,
        args.ruleset,
        options,
        args.play,
        deals=args.deals,
        seed=args.seed,
        simulate=args.simulate,
        atlas=args.atlas,
        threads=args.threads,
    )
    if args.json:
        print(json.dumps(answer.records(), allow_nan=False))
        return 0
    print(format_answer(answer, time.perf_counter() - start))
    return 0


def format_answer(answer: Any, elapsed: float | None = None, strains: Sequence[str] = ()) -> str:
    """The text of a ``belote_sim.atlas.HandAnswer``: the header (the hand, its position
    and seat in words, the rules and the players), the path and why, one row per strain
    (``strains``: only these rows; the best call is still over every strain), the best
    call and whether bid-or-pass is within noise."""
    from belote_sim.analysis.names import play_name
    from belote_sim.atlas import POSITION_WORDS
    from belote_sim.stats import Z95

    rules = answer.rules
    unit = "pts" if rules.options().get("scoring") == "french" else "MP"
    position = answer.position
    lines = [
        f"hand {answer.hand} at position {position} of 4 ({POSITION_WORDS[position]}; "
        f"seat {answer.seat}, dealer seat {answer.dealer})",
        f"{rules.name} rules; all four players play {play_name(answer.play)} "
        f"(play spec {answer.play})",
        *textwrap.wrap(
            "P(made): how often the taker's team makes it, with its 95% interval; net "
            f"{unit} x1, x2, x4: its {unit} minus the defenders' per deal (added now) ± s.e., the "
            "contract undoubled, doubled, redoubled (net x2 is what it pays if doubled); "
            "vs best: the paired difference of net x1 from the best strain on the same "
            "deals (simulation only)",
            width=LINE_WIDTH,
        ),
    ]
    if unit == "pts":
        lines.append("french scoring: points are French points (pts), not match points")
    lines.append(answer.reason)
    table = answer.table
    missing = [s for s in ("C", "D", "H", "S", "NT", "AT") if s not in set(table["strain"])]
    if missing:
        lines.append(f"not played under these rules: {', '.join(missing)}")
    lines.append(
        f"{'strain':<7}{'n':>8}{'P(made)':>9}{'95% interval':>17}{'net x1 ± s.e.':>16}"
        f"{'net x2 ± s.e.':>16}{'net x4 ± s.e.':>16}{'vs best ± s.e.':>16}"
    )
    best = answer.best_strain
    for r in table.itertuples():
        if strains and r.strain not in strains:
            continue
        if r.source == "atlas":
            versus = f"{'-':>16}"
        elif r.strain == best:
            versus = f"{'best':>16}"
        else:
            versus = plus_minus(r.vs_best, r.vs_best_se, 16)
        lines.append(
            f"{r.strain:<7}{r.n:>8,}{r.p_made:>9.3f}   [{r.p_made_low:.3f}, {r.p_made_high:.3f}]"
            f"{plus_minus(r.net_mp_x1, r.net_mp_x1_se, 16)}"
            f"{plus_minus(r.net_mp_x2, r.net_mp_x2_se, 16)}"
            f"{plus_minus(r.net_mp_x4, r.net_mp_x4_se, 16)}{versus}"
        )
    row = table.set_index("strain").loc[best]
    net = f"{row['net_mp_x1']:+.2f} ± {row['net_mp_x1_se']:.2f} {unit} x1 per deal"
    call = answer.best_call
    if call == "pass":
        line = f"best call: pass (no strain's net x1 is above 0; the best, {best}: {net})"
    else:
        line = f"best call: {call} (net {net})"
    if answer.within_noise:
        line += (
            f"; within noise: |net x1| < {Z95:.2f} s.e., so bidding or passing cannot be told "
            "apart at this precision"
        )
    else:
        line += f"; bid-or-pass is clear: |net x1| >= {Z95:.2f} s.e."
    lines.append(line)
    lines.extend(textwrap.wrap(_strain_line(answer, unit), width=LINE_WIDTH))
    if elapsed is not None:
        lines.append(f"({elapsed * 1000:.0f} ms)" if elapsed < 1 else f"({elapsed:.1f} s)")
    return "\n".join(lines)


def _strain_line(answer: Any, unit: str) -> str:
    """Whether the best strain beats the runner-up: clear only beyond 1.96 s.e. of
    their difference (paired on the same deals by simulation; unpaired from the atlas,
    which then says it cannot tell)."""
    from belote_sim.atlas import strain_margin
    from belote_sim.stats import Z95

    best, second = answer.best_strain, answer.runner_up
    if second is None:
        return f"best strain: {best}, the only strain played"
    margin, se, paired = strain_margin(answer.table)
    how = "paired, the same deals" if paired else "unpaired: the atlas's cells are separate deals"
    line = (
        f"best strain {best} over the runner-up {second}: {margin:+.2f} ± {se:.2f} {unit} "
        f"x1 ({how})"
    )
    if answer.strain_clear:
        return line + f"; clear: the margin is >= {Z95:.2f} s.e."
    if paired:
        return line + (
            f"; within noise: the margin is < {Z95:.2f} s.e., {best} and {second} are not "
            "told apart"
        )
    return line + (
        f"; cannot tell from the atlas (the margin is < {Z95:.2f} s.e.): run --simulate to "
        "compare them on the same deals"
    )


def show_atlas(args: argparse.Namespace) -> int:
    """``atlas show``: one hand's table (CARDS, ``--position``, ``--strain``), or the
    atlas's metadata and summary, with ``--csv``/``--parquet`` every cell."""
    from belote_sim import atlas

    if args.output is None and args.ruleset is not None:
        # The shipped atlas of the ruleset asked for (else the common one, refused below).
        table = atlas.load_atlas(str(atlas.shipped_atlas(args.ruleset)))
    else:
        table = atlas.load_atlas(args.output)
    if args.cards is not None:
        return _show_hand(args, table)
    for name in ("position", "strain"):
        if getattr(args, name) is not None:
            raise ValueError(f"--{name} is for 'atlas show CARDS' (a hand)")
    if args.csv and args.parquet and os.path.abspath(args.csv) == os.path.abspath(args.parquet):
        raise ValueError(f"--csv and --parquet name the same file {args.csv}: give two files")
    print(json.dumps(table.meta))
    # Both outputs checked and locked before any is written (docs/guide/simulate.md).
    with (
        csv_output(args.csv, "the cells", args.overwrite) as csv_out,
        csv_output(args.parquet, "the cells", args.overwrite) as parquet_out,
    ):
        if csv_out is not None:
            every = atlas.atlas_frame(table)
            every = every[every["n"] > 0]
            write_csv(every, csv_out)
            print(f"wrote {args.csv} ({len(every):,} cells)")
        if parquet_out is not None:
            rows = atlas.atlas_parquet(table, parquet_out.tmp)
            parquet_out.commit()
            print(f"wrote {args.parquet} ({rows:,} cells)")
    frame = atlas.measured_cells(table)
    summary = frame.groupby(["kind", "position"], sort=False).agg(
        cells=("n", "size"),
        mean_n=("n", "mean"),
        max_p_made_se=("p_made_se", "max"),
        p_made=("p_made", "mean"),
        net_mp_x1=("net_mp_x1", "mean"),
    )
    print(summary.to_string(float_format=lambda v: f"{v:.3f}"))
    return 0


def _show_hand(args: argparse.Namespace, table: Any) -> int:
    from belote_sim.atlas import answer_hand, atlas_play, play_spec
    from belote_sim.cards import format_strain, parse_strain
    from belote_sim.rules import Rules

    if args.csv or args.parquet:
        raise ValueError("--csv and --parquet write every cell: give them without CARDS")
    rules = Rules.from_spec(table.meta.get("ruleset"), table.meta.get("options"))
    if args.ruleset is not None or args.option:
        options = dict(parse_option(o) for o in args.option or [])
        if not table.covers(Rules.from_spec(args.ruleset or rules.name, options)):
            raise ValueError(
                f"this atlas covers the {rules.name} rules with its options, not those asked "
                "for: 'belote-sim hand' simulates any rules"
            )
    if args.play is not None and play_spec(args.play, rules) != atlas_play(table, rules):
        raise ValueError(
            f"this atlas's players play {table.meta.get('play')}, not {args.play}: "
            "'belote-sim hand --play' simulates any play policy"
        )
    strains = [format_strain(parse_strain(args.strain))] if args.strain else []
    if strains and not rules.strain_allowed(parse_strain(args.strain)):
        raise ValueError(f"{strains[0]} is not played under the {rules.name} rules")
    built = table.meta.get("positions") or [1, 2, 3, 4]  # a partial build: its positions
    positions = [args.position] if args.position is not None else sorted(built)
    texts = []
    for position in positions:
        start = time.perf_counter()
        answer = answer_hand(
            args.cards,
            0,
            (4 - position) % 4,
            rules,
            play=table.meta.get("play"),
            atlas=table,
            allow_simulation=False,
        )
        texts.append(format_answer(answer, time.perf_counter() - start, strains))
    print("\n\n".join(texts))
    return 0
