"""``hand CARDS --auction CALLS``: every legal call of a hand in the middle of an
auction (``belote_sim.auction_answer``), as a table or JSON."""

from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap
import time
from typing import Any

from belote_sim.cli.common import Progress, parse_option, plus_minus

__all__ = ["cmd_hand_auction", "format_auction_answer"]

#: The widest line of the answer (its table's width): the legend is wrapped to it.
WIDTH = 105


def cmd_hand_auction(args: argparse.Namespace) -> int:
    """``belote-sim hand CARDS --auction CALLS``: the options of ``hand`` that apply
    (``--position`` or ``--seat``/``--dealer``, ``--deals``, ``--seed``, ``--ruleset``,
    ``--option``, ``--play``, ``--threads``, ``--json``) and ``--others``."""
    from belote_sim.auction_answer import answer_in_auction

    if args.atlas is not None:
        raise ValueError("--auction always simulates: --atlas is for a hand's answer without one")
    options = dict(parse_option(o) for o in args.option or [])
    if args.position is not None and (args.seat is not None or args.dealer is not None):
        raise ValueError(
            "--position sets the seat and the dealer: give --position or --seat/--dealer, not both"
        )
    seat = 0 if args.seat is None else args.seat
    deals = 20_000 if args.deals is None else args.deals
    seed = 0 if args.seed is None else args.seed
    progress = Progress(deals, "deal", sys.stderr.isatty() and not args.json)
    start = time.perf_counter()
    try:
        answer = answer_in_auction(
            args.cards,
            args.auction,
            position=args.position,
            seat=seat,
            dealer=args.dealer,
            rules=args.ruleset,
            options=options,
            others=args.others or "atlas_auction",
            play=args.play,
            deals=deals,
            seed=seed,
            threads=args.threads,
            progress=progress,
        )
    finally:
        progress.close()
    if args.json:
        print(json.dumps(answer.records(), allow_nan=False))
        return 0
    print(format_auction_answer(answer, time.perf_counter() - start))
    return 0


def format_auction_answer(answer: Any, elapsed: float | None = None) -> str:
    """The text of a ``belote_sim.auction_answer.AuctionAnswer``: the hand, its position
    and the auction so far, the model and the players, how the deals were made and how
    many were kept, one row per legal call, the best call and the paired difference to
    the runner-up."""
    from belote_sim.analysis.names import play_name
    from belote_sim.atlas import POSITION_WORDS
    from belote_sim.auction_answer import auction_words, call_name

    rules = answer.rules
    unit = "pts" if rules.options().get("scoring") == "french" else "MP"
    position = answer.position
    lines = [
        f"hand {answer.hand} at position {position} of 4 ({POSITION_WORDS[position]}; "
        f"seat {answer.seat}, dealer seat {answer.dealer})",
        f"auction so far: {auction_words(answer.auction)}"
        + (f" ({answer.auction})" if answer.auction else ""),
        *textwrap.wrap(
            f"{rules.name} rules; the other seats bid by {answer.others} (and so does this "
            f"seat after its call); all four play {play_name(answer.play)} (play spec "
            f"{answer.play})",
            width=WIDTH,
        ),
        *textwrap.wrap(
            f"deals: {answer.method}: {answer.accepted:,} kept of {answer.tried:,} tried "
            f"(acceptance {answer.acceptance:.1%}; seed {answer.seed}); every call on the "
            "same deals",
            width=WIDTH,
        ),
        *textwrap.wrap(
            f"net x1: this seat's team's {unit} minus the other team's per deal (added now; 0 "
            "when thrown in) ± s.e.; P(made): how often the final contract, whoever took it, "
            "is made, with its 95% interval; ours: how often this seat's team takes; vs best: "
            "the paired difference of net x1 from the best call on the same deals; * the "
            "model's own call",
            width=WIDTH,
        ),
    ]
    if unit == "pts":
        lines.append("french scoring: points are French points (pts), not match points")
    lines.append(
        f"{'call':<13}{'n':>7}{'net x1 ± s.e.':>15}{'P(made)':>9}{'95% interval':>17}"
        f"{'ours':>6}{'vs best ± s.e.':>16}  most frequent contracts"
    )
    best = answer.best_calls
    for r in answer.table.itertuples():
        name = call_name(r.call) + ("*" if r.model else "")
        versus = f"{'best':>16}" if r.call in best else plus_minus(r.vs_best, r.vs_best_se, 16)
        made = (
            f"{r.p_made:>9.3f}   [{r.p_made_low:.3f}, {r.p_made_high:.3f}]"
            if math.isfinite(r.p_made)
            else f"{'-':>9}{'-':>17}"
        )
        mix = ", ".join(f"{label} {share:.0%}" for label, share in r.contracts[:2])
        lines.append(
            f"{name:<13}{r.n:>7,}{plus_minus(r.net_mp_x1, r.net_mp_x1_se, 15)}{made}"
            f"{r.p_ours:>6.2f}{versus}  {mix}"
        )
    top = answer.table.set_index("call").loc[best[0]]
    names = " = ".join(call_name(c) for c in best)
    line = f"best call: {names} (net {top['net_mp_x1']:+.2f} ± {top['net_mp_x1_se']:.2f} {unit} x1)"
    if len(best) > 1:
        line += "; these calls score the same on every deal"
    second = answer.runner_up
    if second:
        diff, se = answer.difference(best[0], second[0])
        line += (
            f"; ahead of {' = '.join(call_name(c) for c in second)} by {diff:+.2f} ± {se:.2f} "
            f"{unit} per deal (paired, same deals)"
        )
    lines.append(line)
    if elapsed is not None:
        lines.append(f"({elapsed * 1000:.0f} ms)" if elapsed < 1 else f"({elapsed:.1f} s)")
    return "\n".join(lines)
