"""The policy switchboard: every play and bidding policy, its id, parameters and kernel.

``PLAY_POLICIES`` and ``BID_POLICIES`` are the one registry of the policies: a name,
the integer id the kernels are given, the default parameters and their names, a
line of documentation, the games it can play and its kernel.  ``play_card`` and
``bid_call`` are the switchboard the play loop (``play``) and the auction
(``auction``) call: each sends a decision to the kernel whose id matches exactly,
and an id that matches no entry gets ``NO_CARD`` / ``CALL_NONE`` (the loop then
stops the deal and says which seat's policy failed) -- never another policy's card.
The two dispatchers are built from the registry when a kernel that calls them is
compiled (an if-chain over the entries, inlined into the caller), so adding a policy
is one entry plus its kernel.  Each chain holds only the policies of a *menu*
(``policy_menu``): a zero-length array passed with the policy ids, whose dtype names
the policies the kernel may call.  A menu is a type, not a value, so numba compiles
(and caches on disk) one version of a driver per menu, holding those policies'
kernels and no others: a greedy study never compiles the expert's network or the
solver.  An id outside the menu gets ``NO_CARD`` / ``CALL_NONE`` like an unknown one.


* a play policy's kernel is ``card(params, turn, deal, rules, state, search) -> card``:
  ``params`` its (MAX_PARAMS,) float64 parameters, ``turn`` the decision
  (``records.Turn``), ``deal`` the ``records.DEAL`` record (a policy reads only what
  its seat may see), ``rules`` the rules array, ``state`` the deal's random
  generator (``rng``), ``search`` the scratch of ``policy_buffers``; it returns a
  legal card;
* a bidding policy's kernel is ``call(params, turn, rules, atlas) -> (call, strain)``:
  ``turn`` a ``records.BidTurn``, ``atlas`` the bidding tables: the hand atlas's
  lookup arrays (``bidding.atlas_value``), the rule books of the ``rules`` policy
  (``bidding_rules``) and the gains table of ``atlas_auction`` (``auction_atlas``);
  it returns a call (``bidding.CALL_*``) and, for a bid,
  its strain (else -1).  ``CALL_FIXED`` ends the auction with the contract the
  policy's parameters name (``[seat, strain, doubling]``, the ``fixed`` policy).

The Python layer (``belote_sim.policies``) reads names, defaults and checks from
here; docs/architecture.md has the recipe.
"""

import functools
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import numpy as np
from numba.extending import overload

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.auction_atlas import auction_atlas_call
from belote_sim.kernels.bidding import (
    CALL_NONE,
    TAKE_DEFAULTS,
    THRESHOLD_DEFAULTS,
    atlas_bid_call,
    fixed_call,
    take_call,
    threshold_call,
)
from belote_sim.kernels.bidding_rules import rules_call
from belote_sim.kernels.expert import EXPERT_DEFAULTS, EXPERT_MODEL, WORK_ROWS
from belote_sim.kernels.expert_model import MODEL_INDEXES, MODEL_SCRATCH
from belote_sim.kernels.expert_seat import expert_card, expert_lean_card, lean_expert_covers
from belote_sim.kernels.greedy import greedy_card, random_card
from belote_sim.kernels.search_policies import PIMC_SAMPLES, dd_card, pimc_card
from belote_sim.kernels.solver import MAX_PLY, NUM_FIELDS
from belote_sim.kernels.tables import (
    BIDDING_AUCTION,
    BIDDING_TAKE_OR_PASS,
    BIDDING_TWO_ROUND,
)

#: What ``play_card`` returns for an id that matches no policy.
NO_CARD = -1
#: The id that is no policy: replay stops when the recorded cards run out.
POLICY_NONE = -1
#: Length of each seat's parameter vector in the kernels.
MAX_PARAMS = 8
#: Most sampled deals per decision of the pimc policy.
MAX_PIMC_SAMPLES = 10_000


class PlayPolicy(NamedTuple):
    """A play policy: ``card`` is its kernel (see the module docstring)."""

    name: str
    id: int
    card: Any
    defaults: tuple[float, ...] = ()
    param_names: tuple[str, ...] = ()
    doc: str = ""
    #: the games it plays (numbers of players)
    players: tuple[int, ...] = (4,)
    #: log2 of the transposition-table entries of its search (1: it searches nothing)
    search_bits: int = 1
    #: a check of a full parameter vector: a one-line problem, or None when fine
    check: Callable[[tuple[float, ...]], str | None] | None = None
    #: seconds its kernel adds to compiling a driver, 2 cores (benchmarks/bench_compile.py)
    compile_s: float = 0.0
    #: a lean kernel, compiled instead of ``card`` when every seat's parameters are
    #: covered (``lean_covers(params array, players)``): the same cards, less code
    lean_card: Any = None
    lean_covers: Callable[[np.ndarray, int], bool] | None = None
    #: seconds the lean kernel adds instead of ``compile_s``
    lean_compile_s: float = 0.0


class BidPolicy(NamedTuple):
    """A bidding policy: ``call`` is its kernel (see the module docstring)."""

    name: str
    id: int
    call: Any
    defaults: tuple[float, ...] = ()
    param_names: tuple[str, ...] = ()
    doc: str = ""
    #: the biddings it can bid in (``tables.BIDDING_*``)
    biddings: tuple[int, ...] = (BIDDING_AUCTION,)
    #: whether it reads the hand atlas (``atlas[:PATH]``) instead of parameters
    uses_atlas: bool = False
    #: whether it reads a rule file (``rules:FILE``, its parameter 0 the book's index)
    uses_rules: bool = False
    #: seconds its kernel adds to compiling a driver, 2 cores (benchmarks/bench_compile.py)
    compile_s: float = 0.0


def _check_greedy(params: tuple[float, ...]) -> str | None:
    for name, value in zip(("draw_trumps", "give_points"), params, strict=False):
        if value not in (0.0, 1.0):
            return f"greedy {name} must be 0 (off) or 1 (on), got {value:g}"
    return None


def _check_pimc(params: tuple[float, ...]) -> str | None:
    samples = params[PIMC_SAMPLES]
    if samples != int(samples) or not 1 <= samples <= MAX_PIMC_SAMPLES:
        return f"pimc samples must be an integer 1..{MAX_PIMC_SAMPLES}, got {samples:g}"
    return None


def _check_expert(params: tuple[float, ...]) -> str | None:
    if params[EXPERT_MODEL] not in (0.0, 1.0, 2.0, 3.0):
        return (
            "expert model must be 0 (rules), 1 (linear), 2 (feature network) or 3 (network), "
            f"got {params[EXPERT_MODEL]:g}"
        )
    return None


#: log2 of the transposition-table entries of the search policies (per thread) ...
SEARCH_BITS = 18
#: ... and of ``expert``'s endgame searches (a few tricks: a small table will do).
EXPERT_SEARCH_BITS = 12

PLAY_POLICIES = (
    PlayPolicy(
        "random",
        0,
        random_card,
        doc="uniform among the legal cards",
        players=(2, 3, 4),
        compile_s=0.0,
    ),
    PlayPolicy(
        "greedy",
        1,
        greedy_card,
        (1.0, 1.0),
        ("draw_trumps", "give_points"),
        "rule-based: cheapest winning card, feeds a winning partner, "
        "leads masters, taker's side draws trumps",
        players=(2, 3, 4),
        check=_check_greedy,
        compile_s=3.0,
    ),
    PlayPolicy(
        "dd",
        2,
        dd_card,
        doc="double-dummy: the best card with every hand visible (an upper bound for studies)",
        search_bits=SEARCH_BITS,
        compile_s=33.0,
    ),
    PlayPolicy(
        "pimc",
        3,
        pimc_card,
        (30.0,),
        ("samples",),
        "perfect-information Monte Carlo: solves sampled deals of the unseen "
        "cards consistent with what the player saw, plays the best average",
        search_bits=SEARCH_BITS,
        check=_check_pimc,
        compile_s=34.0,
    ),
    PlayPolicy(
        "expert",
        4,
        expert_card,
        EXPERT_DEFAULTS,
        ("endgame_tricks", "samples", "switches", "thin", "model", "at_extra"),
        "a strong player from what it sees: infers voids and missing trumps, "
        "scores each card with a model learned from exact values (model 3: a network "
        "over raw facts, 2: a network over hand-made features, 1: linear, 0: hand-written "
        "rules); "
        "solves the last tricks on sampled consistent deals (2/3 players, open belot: "
        "every card tried on sampled deals finished by greedy, the last tricks exactly)",
        players=(2, 3, 4),
        search_bits=EXPERT_SEARCH_BITS,
        check=_check_expert,
        lean_card=expert_lean_card,
        lean_covers=lambda params, players: bool(lean_expert_covers(params, players)),
        # the suit network (model 3) is compiled in with the other models (a run-time
        # parameter): +10-14 s on a 68-71 s cold `hand --simulate` (2026-12-06)
        compile_s=65.0,
        lean_compile_s=20.0,
    ),
)

BID_POLICIES = (
    BidPolicy(
        "threshold",
        0,
        threshold_call,
        THRESHOLD_DEFAULTS,
        ("suit", "nt", "at", "double", "redouble"),
        "bids the best strain whose 5-card score clears its threshold",
        biddings=(BIDDING_AUCTION, BIDDING_TAKE_OR_PASS),
        compile_s=0.0,
    ),
    BidPolicy(
        "fixed",
        1,
        fixed_call,
        (0.0, 2.0, 0.0),
        ("seat", "strain", "doubling"),
        "the given seat takes the given strain (0..5 = C D H S NT AT) at the given doubling level",
        biddings=(BIDDING_AUCTION, BIDDING_TWO_ROUND, BIDDING_TAKE_OR_PASS),
        compile_s=0.0,
    ),
    BidPolicy(
        "take",
        2,
        take_call,
        TAKE_DEFAULTS,
        ("round1", "round2", "nt", "at"),
        "french two rounds: takes the turned card when its suit scores "
        "enough, else names its best suit in round two",
        biddings=(BIDDING_TWO_ROUND,),
        compile_s=1.0,
    ),
    BidPolicy(
        "atlas",
        3,
        atlas_bid_call,
        doc="atlas[:PATH]: bids the strain with the best expected net MP in the "
        "hand atlas (default: the shipped one), doubles when it pays",
        biddings=(BIDDING_AUCTION, BIDDING_TWO_ROUND),
        uses_atlas=True,
        compile_s=0.5,
    ),
    BidPolicy(
        "rules",
        4,
        rules_call,
        doc="rules:FILE: a bidding system written as rules in a TOML file "
        "(docs/bidding_rules.md); belote_sim/data/bidding/threshold.toml is threshold's",
        biddings=(BIDDING_AUCTION, BIDDING_TWO_ROUND, BIDDING_TAKE_OR_PASS),
        uses_rules=True,
        compile_s=1.0,
    ),
    BidPolicy(
        "atlas_auction",
        5,
        auction_atlas_call,
        doc="the atlas bidder that listens to the auction: departs from atlas's call "
        "where a table measured by self-play says another call scores more in this "
        "auction situation (common and bulgarian rules)",
        biddings=(BIDDING_AUCTION,),
        uses_atlas=True,
        compile_s=2.0,
    ),
)


def _check_registry() -> None:
    """Ids and names are unique and ids are not the reserved POLICY_NONE."""
    for table in (PLAY_POLICIES, BID_POLICIES):
        ids = [p.id for p in table]
        names = [p.name for p in table]
        if len(set(ids)) != len(ids) or len(set(names)) != len(names):
            raise RuntimeError(f"policy registry: duplicate ids or names in {names}")
        if POLICY_NONE in ids:
            raise RuntimeError(f"policy registry: id {POLICY_NONE} is reserved")


_check_registry()


def _play_chain(entries: tuple[PlayPolicy, ...]) -> Any:
    """The body of ``play_card`` for ``entries``: the first entry's kernel when the id
    matches it exactly, else the chain of the rest; ``NO_CARD`` past the last.  The
    links are inlined into the caller, never compiled alone, and never cached on
    their own (they are closures of one source line: only the caller's cache entry,
    keyed on every kernel source, holds their code)."""
    if not entries:

        def no_policy(menu, policy, params, turn, deal, rules, state, search):
            return NO_CARD

        return no_policy
    policy_id = entries[0].id
    card = entries[0].card
    rest = kernel(inline="always", cache=False)(_play_chain(entries[1:]))

    def dispatch(menu, policy, params, turn, deal, rules, state, search):
        if policy == policy_id:
            return card(params, turn, deal, rules, state, search)
        return rest(menu, policy, params, turn, deal, rules, state, search)

    return dispatch


def _bid_chain(entries: tuple[BidPolicy, ...]) -> Any:
    """The body of ``bid_call`` for ``entries`` (as ``_play_chain``)."""
    if not entries:

        def no_policy(menu, policy, params, turn, rules, atlas):
            return CALL_NONE, -1

        return no_policy
    policy_id = entries[0].id
    call = entries[0].call
    rest = kernel(inline="always", cache=False)(_bid_chain(entries[1:]))

    def dispatch(menu, policy, params, turn, rules, atlas):
        if policy == policy_id:
            return call(params, turn, rules, atlas)
        return rest(menu, policy, params, turn, rules, atlas)

    return dispatch


#: Prefixes of a menu's field names: ``play_greedy``, ``lean_expert``, ``bid_atlas``,
#: ``form_four`` ...
PLAY_PREFIX = "play_"
LEAN_PREFIX = "lean_"
BID_PREFIX = "bid_"
FORM_PREFIX = "form_"

#: The game forms a menu may name, each compiled alone when named: ``four`` the
#: 4-player game (no table cards).  A menu that names none compiles every game's play
#: loop (decided at run time).  (Forms of the bidding were tried: ~3 s less to compile
#: each, but one more compiled driver per bidding in the test suite.)
FORMS = ("four",)


class _Named(NamedTuple):
    name: str


def policy_menu(
    play: Iterable[str] = (),
    bid: Iterable[str] = (),
    lean: Iterable[str] = (),
    forms: Iterable[str] = (),
) -> np.ndarray:
    """The menu of a kernel call: a zero-length array whose dtype names the play and
    bidding policies (registry names) the kernels may call, the play policies they
    call through their lean kernel (``PlayPolicy.lean_card``) and the game forms
    (``FORMS``) they play, sorted, so that the same sets are the same type (one compiled
    version, one cache entry).  ``ValueError`` for a name that is in neither registry,
    in ``lean`` without a lean kernel, or not a form."""
    lean_names = tuple(sorted(set(lean)))
    play_names = tuple(sorted(set(play) - set(lean_names)))
    return _menu(play_names, tuple(sorted(set(bid))), lean_names, tuple(sorted(set(forms))))


@functools.lru_cache(maxsize=256)
def _menu(
    play_names: tuple[str, ...],
    bid_names: tuple[str, ...],
    lean_names: tuple[str, ...],
    form_names: tuple[str, ...] = (),
) -> np.ndarray:
    leans = tuple(p for p in PLAY_POLICIES if p.lean_card is not None)
    for names, table, kind in (
        (play_names, PLAY_POLICIES, "play"),
        (bid_names, BID_POLICIES, "bidding"),
        (lean_names, leans, "lean play"),
        (form_names, tuple(_Named(f) for f in FORMS), "game form"),
    ):
        known = {p.name for p in table}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(
                f"no {kind} policy named {unknown[0]!r} (known: {', '.join(sorted(known))})"
            )
    fields = [(PLAY_PREFIX + n, np.uint8) for n in play_names]
    fields += [(LEAN_PREFIX + n, np.uint8) for n in lean_names]
    fields += [(BID_PREFIX + n, np.uint8) for n in bid_names]
    fields += [(FORM_PREFIX + n, np.uint8) for n in form_names]
    # a dtype needs a field: an empty menu is one field that names no policy
    menu = np.zeros(0, dtype=np.dtype(fields or [("nothing", np.uint8)]))
    menu.flags.writeable = False  # shared by every caller (cached)
    return menu


#: The menu of no policy (replays of recorded cards only) and of ``random`` play
#: alone, for the kernels that make their own policies (``np.zeros(0, MENU_...)``).
MENU_NOTHING = policy_menu().dtype
MENU_RANDOM = policy_menu(play=("random",)).dtype


def menu_names(menu: Any, prefix: str) -> set[str]:
    """The policy names of a menu's numba type (or numpy array) under ``prefix``."""
    dtype = getattr(menu, "dtype", None)
    fields = getattr(dtype, "fields", None)
    if not fields:
        raise TypeError(
            f"a policy menu is a zero-length record array (switchboard.policy_menu), got {menu}"
        )
    return {name[len(prefix) :] for name in fields if name.startswith(prefix)}


def play_card(menu, policy, params, turn, deal, rules, state, search):
    """The card the play policy with id ``policy`` plays (``NO_CARD`` for an id that
    is unknown or not in ``menu``).  Callable from kernels only: its body is made from
    the entries of ``PLAY_POLICIES`` that ``menu`` names."""
    raise TypeError("play_card is called from compiled kernels only")


def bid_call(menu, policy, params, turn, rules, atlas):
    """``(call, strain)`` of the bidding policy with id ``policy`` (``(CALL_NONE, -1)``
    for an id that is unknown or not in ``menu``).  Callable from kernels only: its body
    is made from the entries of ``BID_POLICIES`` that ``menu`` names."""
    raise TypeError("bid_call is called from compiled kernels only")


@overload(play_card, inline="always")
def _play_card_body(menu, policy, params, turn, deal, rules, state, search):
    names = menu_names(menu, PLAY_PREFIX)
    lean = menu_names(menu, LEAN_PREFIX)
    return _play_chain(
        tuple(p for p in PLAY_POLICIES if p.name in names)
        + tuple(p._replace(card=p.lean_card) for p in PLAY_POLICIES if p.name in lean)
    )


# Not inlined: the auction calls it from the open auction, the french rounds and
# take-or-pass, and one compiled chain serves the three (inlined, each bidding policy
# was compiled three times: ~10 s more for a study's first run; a call per bid costs
# nothing measurable).
@overload(bid_call)
def _bid_call_body(menu, policy, params, turn, rules, atlas):
    names = menu_names(menu, BID_PREFIX)
    return _bid_chain(tuple(p for p in BID_POLICIES if p.name in names))


@kernel
def decide(menu, policy, params, turn, deal, rules, state, search):
    """``play_card`` callable from Python: one decision (``deal.agent``)."""
    return play_card(menu, policy, params, turn, deal, rules, state, search)


@kernel
def bid_decide(menu, policy, params, turn, rules, atlas):
    """``bid_call`` callable from Python: one bidding call ``(call, strain)`` (the
    auctions that ``simulation.py_bidding`` runs in Python ask the kernel policies'
    seats through it)."""
    return bid_call(menu, policy, params, turn, rules, atlas)


@kernel
def policy_buffers(bits):
    """The scratch of the play policies ``(tt, ws, moves, work, feats, cards, index)``:
    the solver's, with a ``2**bits``-entry transposition table (bits = 1 for deals
    without a search policy), and the ``expert``'s work rows (``expert.WORK_ROWS``, 4),
    its card model's float32 scratch, a copy of the cards played (32,) and the model's
    int64 scratch, so that a deal allocates nothing."""
    return (
        np.zeros((1 << bits, 3), dtype=np.int64),
        np.zeros((MAX_PLY + 1, NUM_FIELDS), dtype=np.int64),
        np.zeros((MAX_PLY, 16), dtype=np.int64),
        np.zeros((WORK_ROWS, 4), dtype=np.int64),
        np.zeros(MODEL_SCRATCH, dtype=np.float32),
        np.zeros(32, dtype=np.int64),
        np.zeros(MODEL_INDEXES, dtype=np.int64),
    )


__all__ = [
    "BID_POLICIES",
    "BID_PREFIX",
    "EXPERT_SEARCH_BITS",
    "FORMS",
    "FORM_PREFIX",
    "LEAN_PREFIX",
    "MAX_PARAMS",
    "MAX_PIMC_SAMPLES",
    "MENU_NOTHING",
    "MENU_RANDOM",
    "NO_CARD",
    "PLAY_POLICIES",
    "PLAY_PREFIX",
    "POLICY_NONE",
    "SEARCH_BITS",
    "BidPolicy",
    "PlayPolicy",
    "bid_call",
    "bid_decide",
    "decide",
    "menu_names",
    "play_card",
    "policy_buffers",
    "policy_menu",
]
