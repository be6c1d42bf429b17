"""Play and bidding policies by name: ids, parameter vectors and their meaning.

A policy spec is a name (``"greedy"``), optionally with parameters
(``"greedy:1,0"`` or ``PolicySpec("greedy", (1, 0))``); per-seat specs are a list of
four.  The policies themselves -- ids, defaults, parameter names, kernels -- are
the registry of ``belote_sim.kernels.switchboard``; their algorithms are documented
beside their kernels (``kernels.greedy``, ``kernels.search_policies``,
``kernels.expert``, ``kernels.bidding``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from belote_sim.kernels import switchboard as SW
from belote_sim.kernels.switchboard import (
    EXPERT_SEARCH_BITS,
    MAX_PARAMS,
    MAX_PIMC_SAMPLES,
    SEARCH_BITS,
)

# re-exported: the default play policies and the threshold policy's score, defined
# where the help texts can read them without the kernels
from belote_sim.policy_help import DEFAULT_PLAY, SOLO_DEFAULT_PLAY, THRESHOLD_SCORE_FORMULA


@dataclass(frozen=True)
class PolicyInfo:
    """A built-in policy: kernel id, default parameters and their names (from the
    switchboard's registry, ``kernels.switchboard``)."""

    id: int
    defaults: tuple[float, ...]
    param_names: tuple[str, ...]
    doc: str


#: Play policies by name (the registry ``switchboard.PLAY_POLICIES``).
PLAY_POLICIES = {
    p.name: PolicyInfo(p.id, tuple(p.defaults), tuple(p.param_names), p.doc)
    for p in SW.PLAY_POLICIES
}
#: Bidding policies by name (the registry ``switchboard.BID_POLICIES``).
BID_POLICIES = {
    p.name: PolicyInfo(p.id, tuple(p.defaults), tuple(p.param_names), p.doc)
    for p in SW.BID_POLICIES
}
_PLAY_ENTRIES = {p.name: p for p in SW.PLAY_POLICIES}
_BID_ENTRIES = {p.name: p for p in SW.BID_POLICIES}


#: How strong each common play setting is: MP per deal over ``greedy`` on 20,000
#: mirrored deals under ``common`` rules (``belote-sim duel --a SPEC --b greedy
#: --deals 20000``; docs/benchmarks.md, 2026-12-01), for reports and answers that
#: name their players.
PLAY_STRENGTH = {
    "random": "-5.7 MP per deal against greedy",
    "greedy": "rules of thumb, the reference of the strength ladder",
    "expert:0,0,32,0,1": "+1.62 MP per deal over greedy",
    "expert:0": "+2.27 MP per deal over greedy",
    "expert:3,8": "+2.58 MP per deal over greedy",
    "expert": "+2.94 MP per deal over greedy",
    "pimc:30": "+0.51 MP per deal over expert",
}


def play_strength(spec: str) -> str | None:
    """``PLAY_STRENGTH`` of a play spec, written with or without its default
    parameters (``expert:0`` and ``expert:0,24,32,0,2`` are one setting); None for a
    setting the ladder does not list."""
    try:
        wanted = str(parse_policy(spec, PLAY_POLICIES, "play"))
    except ValueError:
        return None
    for key, text in PLAY_STRENGTH.items():
        if str(parse_policy(key, PLAY_POLICIES, "play")) == wanted:
            return text
    return None


def default_play(players: int = 4, variant: str = "standard") -> str:
    """The default play policy for a game of ``players`` players (``variant`` "open"
    for open belot): ``DEFAULT_PLAY`` where ``expert`` plays, else ``SOLO_DEFAULT_PLAY``."""
    name = DEFAULT_PLAY.split(":")[0]
    if players in play_players(name) and variant == "standard":
        return DEFAULT_PLAY
    return SOLO_DEFAULT_PLAY


def play_players(name: str) -> tuple[int, ...]:
    """The games (numbers of players) the play policy ``name`` plays."""
    return tuple(_PLAY_ENTRIES[name].players)


def bid_biddings(name: str) -> tuple[int, ...]:
    """The biddings (``tables.BIDDING_*`` codes) the bidding policy ``name`` bids in."""
    return tuple(_BID_ENTRIES[name].biddings)


def uses_atlas(name: str) -> bool:
    """Whether the bidding policy ``name`` reads the hand atlas."""
    return bool(_BID_ENTRIES[name].uses_atlas)


@dataclass(frozen=True)
class PolicySpec:
    """A policy name with its parameter vector (defaults filled in)."""

    name: str
    params: tuple[float, ...]
    #: The atlas file of the ``atlas`` bidding policy (None: the shipped atlas).
    path: str | None = None

    def __str__(self) -> str:
        if self.path is not None:
            return f"{self.name}:{self.path}"
        return self.name + (":" + ",".join(f"{p:g}" for p in self.params) if self.params else "")


def parse_policy(spec: str | PolicySpec, table: dict[str, PolicyInfo], what: str) -> PolicySpec:
    """Parse ``name`` or ``name:p1,p2,...``; missing parameters take their defaults."""
    if isinstance(spec, PolicySpec):
        spec = str(spec)
    if not isinstance(spec, str):
        raise ValueError(f"{what} policy must be a name, got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    if name not in table:
        raise ValueError(f"unknown {what} policy {name!r}: expected one of {', '.join(table)}")
    info = table[name]
    if table is BID_POLICIES and uses_atlas(name):
        return PolicySpec(name, (), rest.strip() or None)
    params = list(info.defaults)
    if rest:
        try:
            values = [float(x) for x in rest.split(",")]
        except ValueError:
            raise ValueError(f"{what} policy {spec!r}: parameters must be numbers") from None
        if len(values) > len(info.defaults):
            raise ValueError(
                f"{what} policy {name!r} takes at most {len(info.defaults)} "
                f"parameters ({', '.join(info.param_names) or 'none'})"
            )
        if not all(math.isfinite(v) for v in values):
            raise ValueError(f"{what} policy {spec!r}: parameters must be finite numbers")
        params[: len(values)] = values
    entry = _PLAY_ENTRIES.get(name) if table is PLAY_POLICIES else None
    if entry is not None and entry.check is not None:
        problem = entry.check(tuple(params))
        if problem:
            raise ValueError(f"{what} policy {spec!r}: {problem}")
    return PolicySpec(name, tuple(params))


def per_seat(
    spec: str | PolicySpec | Sequence[str | PolicySpec],
    table: dict[str, PolicyInfo],
    what: str,
    players: int = 4,
) -> list[PolicySpec]:
    """One spec for every seat, or a list of one per player (always 4 entries back: the
    kernels take (4, k) arrays; seats beyond ``players`` repeat the last one)."""
    if isinstance(spec, (str, PolicySpec)):
        return [parse_policy(spec, table, what)] * 4
    specs = list(spec)
    if len(specs) != players:
        raise ValueError(
            f"{what} policies: give one for all seats or a list of {players}, got {len(specs)}"
        )
    parsed = [parse_policy(s, table, what) for s in specs]
    return parsed + [parsed[-1]] * (4 - players)


def search_bits(specs: list[PolicySpec]) -> int:
    """Transposition-table size (log2) the play policies need: the largest any of
    them asks for (``switchboard.PlayPolicy.search_bits``)."""
    return max(_PLAY_ENTRIES[s.name].search_bits for s in specs)


def to_arrays(
    specs: list[PolicySpec], table: dict[str, PolicyInfo]
) -> tuple[np.ndarray, np.ndarray]:
    """(ids (4,), params (4, MAX_PARAMS)) for the kernels."""
    ids = np.array([table[s.name].id for s in specs], dtype=np.int64)
    params = np.zeros((4, MAX_PARAMS), dtype=np.float64)
    for seat, s in enumerate(specs):
        params[seat, : len(s.params)] = s.params
    return ids, params


def describe_policy(spec: str | PolicySpec, table: dict[str, PolicyInfo], what: str) -> str:
    """A policy spec written out with every parameter named: ``threshold`` ->
    ``threshold:50,52,75,60,60 (suit 50, nt 52, at 75, double 60, redouble 60)``;
    ``atlas`` -> ``atlas (the shipped atlas)``; a policy without parameters is its name."""
    parsed = parse_policy(spec, table, what)
    if table is BID_POLICIES and uses_atlas(parsed.name):
        return f"{parsed.name} ({parsed.path or 'the shipped atlas'})"
    if not parsed.params:
        return parsed.name
    names = table[parsed.name].param_names
    named = ", ".join(f"{n} {v:g}" for n, v in zip(names, parsed.params))
    return f"{parsed} ({named})"


def policy_usage(table: dict[str, PolicyInfo]) -> str:
    """``name[:param,...]`` of every policy of ``table``, comma-separated (for help texts)."""
    return ", ".join(
        f"{name}[:{','.join(info.param_names)}]" if info.param_names else name
        for name, info in table.items()
    )


__all__ = [
    "BID_POLICIES",
    "DEFAULT_PLAY",
    "EXPERT_SEARCH_BITS",
    "MAX_PARAMS",
    "MAX_PIMC_SAMPLES",
    "PLAY_POLICIES",
    "PLAY_STRENGTH",
    "SEARCH_BITS",
    "SOLO_DEFAULT_PLAY",
    "THRESHOLD_SCORE_FORMULA",
    "PolicyInfo",
    "PolicySpec",
    "bid_biddings",
    "default_play",
    "describe_policy",
    "parse_policy",
    "per_seat",
    "play_players",
    "play_strength",
    "policy_usage",
    "search_bits",
    "to_arrays",
    "uses_atlas",
]
