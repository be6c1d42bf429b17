"""Players and bidders by names a reader understands, for headings and captions.

A policy spec (``expert:0,24,32,0,3,0``) is exact and reproducible but says nothing
to a player; ``play_name`` and ``bid_name`` give the words (``expert (network
only)``) and the pages keep the exact spec in a note for whoever reruns the study.
"""

from __future__ import annotations

from typing import Any

__all__ = ["bid_name", "play_name", "spec_note"]

_STRAINS = ("clubs", "diamonds", "hearts", "spades", "no trumps", "all trumps")
_MODELS = {0: "hand-written rules", 1: "linear model", 2: "feature network", 3: "network"}


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _changed(info: Any, params: tuple[float, ...]) -> list[str]:
    return [
        f"{n.replace('_', ' ')} {_num(v)}"
        for n, v, d in zip(info.param_names, params, info.defaults)
        if v != d
    ]


def play_name(spec: Any) -> str:
    """A play policy's name for a reader: ``expert:0`` -> ``expert (network only)``,
    ``expert`` -> ``expert (network + 4-trick endgame search)``, ``greedy`` -> ``greedy``;
    other settings name the parameters that differ from the defaults.  A spec that
    does not parse (or a list of four) comes back as its text."""
    from belote_sim.policies import PLAY_POLICIES, parse_policy

    try:
        p = parse_policy(str(spec), PLAY_POLICIES, "play")
    except (ValueError, TypeError):
        return str(spec)
    info = PLAY_POLICIES[p.name]
    if p.name == "expert":
        endgame, model = int(p.params[0]), int(p.params[4])
        words = _MODELS.get(model, f"model {model}")
        words += " only" if endgame == 0 else f" + {endgame}-trick endgame search"
        rest = [
            w
            for w in _changed(info, p.params)
            if not w.startswith(("endgame tricks", "model"))
            and not (endgame == 0 and w.startswith(("samples", "switches")))
        ]
        return f"expert ({', '.join([words, *rest])})"
    if p.name == "pimc":
        return f"pimc ({_num(p.params[0])} samples)"
    if p.name == "dd":
        return "double dummy (sees every hand)"
    changed = _changed(info, p.params)
    return f"{p.name} ({', '.join(changed)})" if changed else p.name


def bid_name(spec: Any) -> str:
    """A bidding policy's name for a reader: ``threshold`` -> ``threshold``,
    ``fixed:0,2,0`` -> ``fixed (seat 0 takes hearts)``, ``atlas`` -> ``atlas`` (a
    custom file: ``atlas (FILE)``)."""
    from belote_sim.policies import BID_POLICIES, parse_policy

    try:
        p = parse_policy(str(spec), BID_POLICIES, "bidding")
    except (ValueError, TypeError):
        return str(spec)
    if p.name == "fixed":
        seat, strain, doubling = (int(v) for v in p.params)
        level = {1: ", doubled", 2: ", redoubled"}.get(doubling, "")
        return f"fixed (seat {seat} takes {_STRAINS[strain]}{level})"
    if p.path:
        return f"{p.name} ({p.path})"
    changed = _changed(BID_POLICIES[p.name], p.params) if p.params else []
    return f"{p.name} ({', '.join(changed)})" if changed else p.name


def spec_note(play: Any = None, bidding: Any = None) -> str:
    """The exact specs, for a footnote: ``exact specs: play expert:0,24,32,0,3,0;
    bidding atlas`` (whichever are given)."""
    parts = []
    if play is not None:
        parts.append(f"play {play}")
    if bidding is not None:
        parts.append(f"bidding {bidding}")
    return "exact specs: " + "; ".join(parts)
