"""Play and bidding policies by name: ids, parameter vectors and their meaning.

A policy spec is a name (``"greedy"``), optionally with parameters
(``"greedy:1,0"`` or ``PolicySpec("greedy", (1, 0))``); per-seat specs are a list of
four.  The algorithms are documented in ``belote_sim.kernels.policies`` (play) and
``belote_sim.kernels.bidding`` (bidding).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from belote_sim.kernels import bidding as B
from belote_sim.kernels import policies as P
from belote_sim.kernels.expert import EXPERT_DEFAULTS

__all__ = [
    "BID_POLICIES",
    "EXPERT_SEARCH_BITS",
    "MAX_PARAMS",
    "MAX_PIMC_SAMPLES",
    "PLAY_POLICIES",
    "SEARCH_BITS",
    "PolicyInfo",
    "PolicySpec",
    "parse_policy",
    "per_seat",
    "policy_usage",
    "search_bits",
    "to_arrays",
]


@dataclass(frozen=True)
class PolicyInfo:
    """A built-in policy: kernel id, default parameters and their names."""

    id: int
    defaults: tuple[float, ...]
    param_names: tuple[str, ...]
    doc: str


PLAY_POLICIES = {
    "random": PolicyInfo(P.POLICY_RANDOM, (), (), "uniform among the legal cards"),
    "greedy": PolicyInfo(
        P.POLICY_GREEDY,
        (1.0, 1.0),
        ("draw_trumps", "give_points"),
        "rule-based: cheapest winning card, feeds a winning partner, "
        "leads masters, taker's side draws trumps",
    ),
    "dd": PolicyInfo(
        P.POLICY_DD,
        (),
        (),
        "double-dummy: the best card with every hand visible (an upper bound for studies)",
    ),
    "pimc": PolicyInfo(
        P.POLICY_PIMC,
        (30.0,),
        ("samples",),
        "perfect-information Monte Carlo: solves sampled deals of the unseen "
        "cards consistent with what the player saw, plays the best average",
    ),
    "expert": PolicyInfo(
        P.POLICY_EXPERT,
        EXPERT_DEFAULTS,
        ("endgame_tricks", "samples", "switches", "thin", "model"),
        "a strong player from what it sees: infers voids and missing trumps, "
        "scores each card with a model learned from exact values (model 2: a small "
        "network, 1: linear, 0: hand-written rules); solves the last tricks on "
        "sampled consistent deals",
    ),
}

#: log2 of the transposition-table entries of the search policies (per thread).
SEARCH_BITS = 18
#: ... and of ``expert``'s endgame searches (a few tricks: a small table will do).
EXPERT_SEARCH_BITS = 12

BID_POLICIES = {
    "threshold": PolicyInfo(
        B.BID_THRESHOLD,
        B.THRESHOLD_DEFAULTS,
        ("suit", "nt", "at", "double", "redouble"),
        "bids the best strain whose 5-card score clears its threshold",
    ),
    "fixed": PolicyInfo(
        B.BID_FIXED,
        (0.0, 2.0, 0.0),
        ("seat", "strain", "doubling"),
        "the given seat takes the given strain (0..5 = C D H S NT AT) at the given doubling level",
    ),
    "take": PolicyInfo(
        B.BID_TAKE,
        B.TAKE_DEFAULTS,
        ("round1", "round2", "nt", "at"),
        "french two rounds: takes the turned card when its suit scores "
        "enough, else names its best suit in round two",
    ),
    "atlas": PolicyInfo(
        B.BID_ATLAS,
        (),
        (),
        "atlas[:PATH]: bids the strain with the best expected net MP in the "
        "hand atlas (default: the shipped one), doubles when it pays",
    ),
}

MAX_PARAMS = 8
#: most sampled deals per decision of the pimc policy
MAX_PIMC_SAMPLES = 10_000


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
    if info is BID_POLICIES.get("atlas"):
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
    if name == "pimc":
        samples = params[0]
        if samples != int(samples) or not 1 <= samples <= MAX_PIMC_SAMPLES:
            raise ValueError(
                f"{what} policy {spec!r}: pimc samples must be an integer "
                f"1..{MAX_PIMC_SAMPLES}, got {samples:g}"
            )
    if name == "expert" and params[4] not in (0.0, 1.0, 2.0):
        raise ValueError(
            f"{what} policy {spec!r}: expert model must be 0 (rules), 1 (linear) or "
            f"2 (network), got {params[4]:g}"
        )
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
    """Transposition-table size (log2) the play policies need."""
    if any(s.name in ("dd", "pimc") for s in specs):
        return SEARCH_BITS
    return EXPERT_SEARCH_BITS if any(s.name == "expert" for s in specs) else 1


def to_arrays(
    specs: list[PolicySpec], table: dict[str, PolicyInfo]
) -> tuple[np.ndarray, np.ndarray]:
    """(ids (4,), params (4, MAX_PARAMS)) for the kernels."""
    ids = np.array([table[s.name].id for s in specs], dtype=np.int64)
    params = np.zeros((4, MAX_PARAMS), dtype=np.float64)
    for seat, s in enumerate(specs):
        params[seat, : len(s.params)] = s.params
    return ids, params


def policy_usage(table: dict[str, PolicyInfo]) -> str:
    """``name[:param,...]`` of every policy of ``table``, comma-separated (for help texts)."""
    return ", ".join(
        f"{name}[:{','.join(info.param_names)}]" if info.param_names else name
        for name, info in table.items()
    )
