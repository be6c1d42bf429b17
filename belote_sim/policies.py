"""Play and bidding policies by name: ids, parameter vectors and their meaning.

A policy spec is a name (``"greedy"``), optionally with parameters
(``"greedy:1,0"`` or ``PolicySpec("greedy", (1, 0))``); per-seat specs are a list of
four.  The policies themselves -- ids, defaults, parameter names, kernels -- are
the registry of ``belote_sim.kernels.switchboard``; their algorithms are documented
beside their kernels (``kernels.greedy``, ``kernels.search_policies``,
``kernels.expert``, ``kernels.bidding``).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import math
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from belote_sim.bid_rules import load_rule_book
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
#: --deals 20000``; ``analyses/ladder_by_strain.py``, 2026-12-07), for reports and
#: answers that name their players.
PLAY_STRENGTH = {
    "random": "-5.2 MP per deal against greedy",
    "greedy": "rules of thumb, the reference of the strength ladder",
    "expert:0,0,32,0,1": "+1.66 MP per deal over greedy",
    # the feature network (model 2), the default until issue 41
    "expert:0,24,32,0,2": "+2.25 MP per deal over greedy",
    # the network over raw facts (model 3, issue 41: 64/32/32, seeds 41-46), the
    # default since 2026-12-07; pimc:30 on 4,000 mirrored deals (2026-12-06)
    "expert:0": "+2.90 MP per deal over greedy",
    "expert:3,8": "+3.10 MP per deal over greedy",
    "expert": "+3.35 MP per deal over greedy",
    "pimc:30": "level with expert (+0.03 ± 0.10 MP per deal)",
}


def play_strength(spec: str) -> str | None:
    """``PLAY_STRENGTH`` of a play spec, written with or without its default
    parameters (``expert:0`` and ``expert:0,24,32,0,3`` are one setting); None for a
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


#: The bidding "policy" of a user's Python function (``py:MODULE:FUNCTION`` or a
#: callable): not a kernel, its auctions run in Python (``simulation.py_bidding``).
PY_POLICY = "py"


def bid_biddings(name: str) -> tuple[int, ...]:
    """The biddings (``tables.BIDDING_*`` codes) the bidding policy ``name`` bids in."""
    if name == PY_POLICY:
        return tuple(_BID_ENTRIES["rules"].biddings)
    return tuple(_BID_ENTRIES[name].biddings)


def uses_atlas(name: str) -> bool:
    """Whether the bidding policy ``name`` reads the hand atlas."""
    return name in _BID_ENTRIES and bool(_BID_ENTRIES[name].uses_atlas)


def uses_rules(name: str) -> bool:
    """Whether the bidding policy ``name`` reads a rule file (``rules:FILE``)."""
    return name in _BID_ENTRIES and bool(_BID_ENTRIES[name].uses_rules)


@dataclass(frozen=True)
class PolicySpec:
    """A policy name with its parameter vector (defaults filled in)."""

    name: str
    params: tuple[float, ...]
    #: The atlas file of the ``atlas`` bidding policy (None: the shipped atlas), the
    #: rule file of ``rules``, ``MODULE:FUNCTION`` of ``py``.
    path: str | None = None
    #: The function of a ``py`` bidding policy.
    func: Callable[..., Any] | None = field(default=None, compare=False)

    def __str__(self) -> str:
        if self.path is not None:
            return f"{self.name}:{self.path}"
        return self.name + (":" + ",".join(f"{p:g}" for p in self.params) if self.params else "")


def parse_policy(spec: str | PolicySpec, table: dict[str, PolicyInfo], what: str) -> PolicySpec:
    """Parse ``name`` or ``name:p1,p2,...``; missing parameters take their defaults.
    Bidding also takes ``atlas[:PATH]``, ``rules:FILE`` (checked here), ``py:MODULE:
    FUNCTION`` and a Python callable (``bidding_function``)."""
    if isinstance(spec, PolicySpec) and spec.func is not None:
        return spec
    if isinstance(spec, PolicySpec):
        spec = str(spec)
    if table is BID_POLICIES and callable(spec):
        return PolicySpec(PY_POLICY, (), _function_name(spec), spec)
    if not isinstance(spec, str):
        raise ValueError(f"{what} policy must be a name, got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    if table is BID_POLICIES and name == PY_POLICY:
        return PolicySpec(PY_POLICY, (), rest.strip(), bidding_function(rest.strip()))
    if name not in table:
        raise ValueError(f"unknown {what} policy {name!r}: expected one of {', '.join(table)}")
    info = table[name]
    if table is BID_POLICIES and uses_atlas(name):
        return PolicySpec(name, (), rest.strip() or None)
    if table is BID_POLICIES and uses_rules(name):
        if not rest.strip():
            raise ValueError("the rules bidding policy needs a file: rules:FILE")
        load_rule_book(rest.strip())  # one line naming the file and the problem
        return PolicySpec(name, (), rest.strip())
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


def _function_name(func: Callable[..., Any]) -> str:
    """``MODULE:QUALNAME`` of a callable (for provenance)."""
    module = getattr(func, "__module__", None) or "?"
    return f"{module}:{getattr(func, '__qualname__', type(func).__name__)}"


def bidding_function(target: str) -> Callable[..., Any]:
    """The function of ``py:MODULE:FUNCTION``: MODULE a module importable from the
    current directory, or a path to a ``.py`` file; ``ValueError`` with one line when it
    cannot be had."""
    module_name, sep, func_name = target.rpartition(":")
    if not sep or not module_name or not func_name:
        raise ValueError(f"bidding policy 'py:{target}': expected py:MODULE:FUNCTION")
    try:
        # the module's prints go to standard error (standard output is the command's)
        with contextlib.redirect_stdout(sys.stderr):
            module = _import_module(target, module_name)
    except ValueError:
        raise
    except (Exception, SystemExit) as exc:  # the user's module: any error is one line
        raise ValueError(
            f"bidding policy 'py:{target}': importing {module_name} failed: "
            f"{type(exc).__name__}: {exc}"
        ) from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise ValueError(f"bidding policy 'py:{target}': {module_name} has no function {func_name}")
    return func


def _import_module(target: str, module_name: str) -> Any:
    """The module of ``py:MODULE:FUNCTION`` (``bidding_function``)."""
    if module_name.endswith(".py") or os.sep in module_name:
        if not os.path.isfile(module_name):
            raise ValueError(f"bidding policy 'py:{target}': no file {module_name}")
        spec = importlib.util.spec_from_file_location(
            "belote_bidding_" + os.path.splitext(os.path.basename(module_name))[0],
            module_name,
        )
        if spec is None or spec.loader is None:
            raise ValueError(f"bidding policy 'py:{target}': cannot load {module_name}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(module_name)


def per_seat(
    spec: Any,
    table: dict[str, PolicyInfo],
    what: str,
    players: int = 4,
) -> list[PolicySpec]:
    """One spec (a name, a ``PolicySpec``, a bidding function) for every seat, or a list
    of one per player (always 4 entries back: the kernels take (4, k) arrays; seats
    beyond ``players`` repeat the last one)."""
    if isinstance(spec, (str, PolicySpec)) or callable(spec):
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
    ids = np.array(
        [table[s.name].id if s.name in table else SW.POLICY_NONE for s in specs], dtype=np.int64
    )
    params = np.zeros((4, MAX_PARAMS), dtype=np.float64)
    for seat, s in enumerate(specs):
        params[seat, : len(s.params)] = s.params
    return ids, params


#: A play policy whose kernel adds at most this many seconds to a compile (its registry
#: ``compile_s``) is on every menu: random and greedy.
CHEAP_COMPILE_S = 5.0


def menu_of(
    play: Iterable[PolicySpec] = (),
    bid: Iterable[PolicySpec] = (),
    players: int = 4,
    forms: Iterable[str] = (),
    bid_names: Iterable[str] = (),
) -> np.ndarray:
    """The kernels' menu (``switchboard.policy_menu``) of a study that plays ``play``
    and bids ``bid`` (its seats' specs; ``bid_names``: more bidding policies) in a game
    of ``players``: the play policies it names, the expert through its lean kernel
    when that covers every seat that plays it, the cheap play policies
    (``CHEAP_COMPILE_S``: random and greedy) always, its bidding policies, and the
    game ``forms`` (``switchboard.FORMS``).  The kernels compile only what the menu
    names.  Names no registry knows (``py:`` bidding functions, run in Python) are
    left out."""
    play = [s for s in play if s.name in _PLAY_ENTRIES]
    lean = set()
    for name in {s.name for s in play}:
        covers = _PLAY_ENTRIES[name].lean_covers
        if covers is not None and all(
            covers(np.array(s.params, dtype=np.float64), players) for s in play if s.name == name
        ):
            lean.add(name)
    cheap = [p.name for p in SW.PLAY_POLICIES if p.compile_s <= CHEAP_COMPILE_S]
    return SW.policy_menu(
        play=[s.name for s in play] + [n for n in cheap if n not in lean],
        bid=[s.name for s in bid if s.name in _BID_ENTRIES] + list(bid_names),
        lean=lean,
        forms=forms,
    )


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
    "CHEAP_COMPILE_S",
    "DEFAULT_PLAY",
    "EXPERT_SEARCH_BITS",
    "MAX_PARAMS",
    "MAX_PIMC_SAMPLES",
    "PLAY_POLICIES",
    "PLAY_STRENGTH",
    "PY_POLICY",
    "SEARCH_BITS",
    "SOLO_DEFAULT_PLAY",
    "THRESHOLD_SCORE_FORMULA",
    "PolicyInfo",
    "PolicySpec",
    "bid_biddings",
    "bidding_function",
    "default_play",
    "describe_policy",
    "menu_of",
    "parse_policy",
    "per_seat",
    "play_players",
    "play_strength",
    "policy_usage",
    "search_bits",
    "to_arrays",
    "uses_atlas",
    "uses_rules",
]
