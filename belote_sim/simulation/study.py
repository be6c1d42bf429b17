"""A study: the rules, the bidding and play policies of the four seats, predealt cards
and constraints, and the seed -- everything that fixes the deals of a simulation.

``make_study`` validates user input into a ``Study``; ``Study.run_chunk`` simulates
one chunk with the kernels (chunk *c* takes its per-deal seeds from
``SeedSequence(seed, spawn_key=(c,))``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from belote_sim._version import __version__
from belote_sim.bid_rules import BIDDINGS, book_arrays, load_rule_book
from belote_sim.cards import format_cards, parse_cards, parse_hand
from belote_sim.kernels import dealing as D
from belote_sim.kernels.auction_atlas import GAINS
from belote_sim.kernels.bidding import MAX_CALLS
from belote_sim.kernels.numba_internals import is_cached
from belote_sim.kernels.rng import seed_sequence_words
from belote_sim.kernels.simulate import (
    COL_TRIES,
    NUM_COLS,
    NUM_SOLO_COLS,
    simulate_deals,
    simulate_solo_deals,
)
from belote_sim.kernels.tables import R_BIDDING, SUIT_CHARS
from belote_sim.policies import (
    BID_POLICIES,
    PLAY_POLICIES,
    PY_POLICY,
    PolicySpec,
    bid_biddings,
    default_play,
    menu_of,
    per_seat,
    play_players,
    search_bits,
    to_arrays,
    uses_atlas,
    uses_rules,
)
from belote_sim.rules import Rules
from belote_sim.simulation.deal_table import kernel_columns

#: The bidding policy that reads the auction table (``simulation.auction_table``).
AUCTION_ATLAS = "atlas_auction"

__all__ = [
    "AUCTION_ATLAS",
    "CONSTRAINT_KEYS",
    "DEFAULT_CHUNK",
    "MAX_TRIES",
    "PART_SECONDS",
    "PILOT_DEALS",
    "Pacer",
    "Study",
    "check_no_failed",
    "make_study",
]

DEFAULT_CHUNK = 1 << 16


def _names_for(bidding_code: int) -> str:
    """The bidding policies that bid in a bidding, quoted: ``'take' (or 'atlas' or ...)``."""
    names = [name for name in BID_POLICIES if bidding_code in bid_biddings(name)]
    first, rest = names[0], names[1:]
    return f"'{first}'" + (f" (or {' or '.join(repr(r) for r in rest)})" if rest else "")


def _bidding_mismatch(name: str, rules: Rules, bid_names: set[str]) -> str:
    """The one-line error for a bidding policy that does not bid in ``rules``'s bidding."""
    code = int(rules.to_array()[R_BIDDING])
    if rules.bidding == "two_round":
        return (
            f"the {rules.name} rules bid in two rounds: use the {_names_for(code)} bidding policy"
        )
    if rules.bidding == "take_or_pass":
        return f"take-or-pass bidding uses the {_names_for(code)} policy"
    biddings = bid_biddings(name)
    if biddings == (int(Rules.preset("french").to_array()[R_BIDDING]),):
        return f"the {name!r} bidding policy is for the french two-round bidding"
    return f"the {name!r} bidding policy does not bid in the {rules.bidding} bidding"


#: About how long one part of a paced chunk takes (seconds): the progress bar of a slow
#: policy moves this often.
PART_SECONDS = 1.0


class Pacer:
    """Cuts chunks into parts that take about ``seconds`` each and reports the deals of
    each part to ``report`` as it ends (``Study.run_chunk(..., pacer=)``).  The first
    part is two deals a thread; each next one is sized from the pace of the last (at
    most 8 times larger), and the size carries over to the next chunk, so a fast policy
    soon runs its chunks in one or two parts.  ``seconds``: default ``PART_SECONDS``."""

    def __init__(self, report: Callable[[int], None], seconds: float | None = None):
        self.report = report
        self.seconds = PART_SECONDS if seconds is None else seconds
        self.size = 0

    def parts(self, n: int) -> Iterator[slice]:
        """Slices covering ``range(n)`` in order; each is timed while its caller runs
        it (between two ``next``), then reported."""
        import numba

        least = max(1, numba.get_num_threads())
        size = self.size or 2 * least
        start = 0
        while start < n:
            stop = min(n, start + size)
            began = time.perf_counter()
            yield slice(start, stop)
            took = time.perf_counter() - began
            self.report(stop - start)
            pace = (stop - start) / max(took, 1e-6)
            size = int(min(max(pace * self.seconds, least), 8 * size))
            self.size = size
            start = stop


def check_no_failed(n_failed: int) -> None:
    """Raise when a simulation kernel reports deals in which a policy gave no legal card
    or call (an id the switchboard does not know, or a policy kernel's bug): such deals
    would otherwise stand in the table as thrown in."""
    if n_failed:
        raise RuntimeError(
            f"a play or bidding policy gave no legal card or call in {int(n_failed)} deals "
            "(a policy kernel is broken): no table was made from them"
        )


def _policies_for(players: int) -> str:
    """The play policies that play a game of ``players``: ``random, greedy and expert``."""
    names = [name for name in PLAY_POLICIES if players in play_players(name)]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


MAX_TRIES = 1_000_000


PILOT_DEALS = 20_000


@dataclass
class Study:
    """Everything that fixes a simulation's output, validated, as kernel inputs."""

    rules: Rules
    bidding: list[PolicySpec]
    play: list[PolicySpec]
    seed: int
    dealer: int | None = None
    predeal: dict[int, list[str]] = field(default_factory=dict)
    constraints: dict[int, dict[str, Any]] = field(default_factory=dict)
    chunk_size: int = DEFAULT_CHUNK
    belote_silent: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        n = self.rules.players
        if not set(self.belote_silent) <= set(range(n)):
            raise ValueError(f"belote_silent: seats must be 0..{n - 1}, got {self.belote_silent!r}")
        self.belote_silent = tuple(sorted(set(self.belote_silent)))
        self.announce_mask = (1 << n) - 1 & ~sum(1 << s for s in self.belote_silent)
        if not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")
        if self.dealer is not None and self.dealer not in range(n):
            raise ValueError(
                f"dealer must be a seat 0..{n - 1} or None (rotate), got {self.dealer!r}"
            )
        if self.chunk_size < 1:
            raise ValueError("chunk_size must be positive")
        bid_names = {s.name for s in self.bidding}
        if len(bid_names) > 1 and "fixed" in bid_names:
            raise ValueError(
                "the fixed bidding policy sets the contract for all seats; "
                "it cannot be mixed with other bidding policies"
            )
        two_round = self.rules.bidding == "two_round"
        bidding_code = int(self.rules.to_array()[R_BIDDING])
        for name in sorted(bid_names):
            if bidding_code not in bid_biddings(name):
                raise ValueError(_bidding_mismatch(name, self.rules, bid_names))
        play_names = {s.name for s in self.play}
        for name in sorted(play_names):
            if n not in play_players(name):
                if self.rules.solo:
                    raise ValueError(
                        f"the games where every player is alone are played by the "
                        f"{_policies_for(n)} policies, not {', '.join(sorted(play_names))}"
                    )
                raise ValueError(f"the {name} play policy does not play the {n}-player game")
        if self.rules.solo and (self.predeal or self.constraints):
            raise ValueError("predeal and constraints are for the 4-player game")
        if any(s.path for s in self.bidding if s.name == AUCTION_ATLAS):
            raise ValueError(
                "atlas_auction bids from the shipped atlas and auction table of the "
                "rules: it takes no atlas file"
            )
        self._atlas = None
        if any(uses_atlas(name) for name in bid_names):
            paths = {s.path for s in self.bidding if uses_atlas(s.name)}
            if len(paths) > 1:
                raise ValueError("the seats bidding by the atlas must use the same atlas file")
            from belote_sim.simulation.atlas_table import load_atlas, shipped_atlas

            path = paths.pop()
            table = load_atlas(path or str(shipped_atlas(self.rules)))
            table.check_covers(self.rules)
            self._atlas = table.kernel_arrays()
        self._gains = None
        if AUCTION_ATLAS in bid_names:
            from belote_sim.simulation.auction_table import (
                load_auction_table,
                shipped_auction_table,
            )

            gains_table = load_auction_table(shipped_auction_table(self.rules))
            gains_table.check_covers(self.rules)
            self._gains = gains_table.gains
        self._books = []
        rule_paths = list(dict.fromkeys(s.path for s in self.bidding if uses_rules(s.name)))
        for path in rule_paths:
            book = load_rule_book(str(path))
            if self.rules.bidding not in book.biddings:
                needed = next(t for t, b in BIDDINGS.items() if b == self.rules.bidding)
                raise ValueError(
                    f"{path}: the rule file does not bid in the {self.rules.name} rules' "
                    f"{self.rules.bidding.replace('_', '-')} bidding (it has no [{needed}] table)"
                )
            self._books.append(book)
        self._book_index = {path: i for i, path in enumerate(rule_paths)}
        self._tables: tuple[Any, ...] | None = None
        if "fixed" in bid_names:
            seat, strain, doubling = self.bidding[0].params[:3]
            if (
                seat not in range(n)
                or strain not in range(6)
                or not self.rules.strain_allowed(int(strain))
            ):
                raise ValueError(f"fixed bidding: bad seat/strain {self.bidding[0]}")
            if doubling not in range(self.rules.max_doubling + 1):
                raise ValueError(f"fixed bidding: doubling must be 0..{self.rules.max_doubling}")
        self.predeal_array, self.constraint_array, self.check_constraints = _conditions(
            self.predeal, self.constraints, two_round
        )

    @property
    def python_bidding(self) -> bool:
        """Whether a seat bids by a Python function (``simulation.py_bidding``)."""
        return any(s.name == PY_POLICY for s in self.bidding)

    @property
    def bid_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids (4,), params (4, MAX_PARAMS)) of the bidding policies; a ``rules`` seat's
        parameter 0 is its rule book's index in ``atlas_arrays``."""
        ids, params = to_arrays(self.bidding, BID_POLICIES)
        for seat, spec in enumerate(self.bidding):
            if uses_rules(spec.name):
                params[seat, 0] = self._book_index[spec.path]
        return ids, params

    @property
    def play_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return to_arrays(self.play, PLAY_POLICIES)

    @property
    def atlas_arrays(self) -> tuple[Any, ...]:
        """The bidding tables of the kernels: the ``atlas`` bidding policy's lookup arrays
        (tiny ones when unused), the ``rules`` policy's rule books
        (``bid_rules.book_arrays``) and the ``atlas_auction`` policy's gains table
        (``auction_atlas.GAINS``; tiny when unused)."""
        if self._tables is None:
            if self._atlas is None:
                from belote_sim.simulation.atlas_table import empty_kernel_arrays

                keys, values = empty_kernel_arrays()[:2]
            else:
                keys, values = self._atlas
            gains = self._gains
            if gains is None:
                from belote_sim.simulation.atlas_table import empty_kernel_arrays

                gains = empty_kernel_arrays()[GAINS]
            self._tables = (keys, values, *book_arrays(self._books), gains)
        return self._tables

    @property
    def menu(self) -> np.ndarray:
        """The kernels' menu of this study's policies and game (``policies.menu_of``):
        what a run compiles."""
        forms = [] if self.rules.solo else ["four"]
        return menu_of(self.play, self.bidding, self.rules.players, forms)

    @property
    def policies(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, np.ndarray]:
        """The kernels' ``policies`` tuple: ``(bid_ids, bid_params, play_ids,
        play_params, announce_mask, menu)`` (``belote_sim.kernels.simulate``)."""
        return (*self.bid_arrays, *self.play_arrays, self.announce_mask, self.menu)

    def conditions(
        self, max_tries: int = MAX_TRIES, check: bool | None = None
    ) -> tuple[np.ndarray, np.ndarray, bool, int]:
        """The kernels' ``conditions`` tuple ``(predeal, cons, check_cons, max_tries)``."""
        check = self.check_constraints if check is None else check
        return (self.predeal_array, self.constraint_array, bool(check), int(max_tries))

    def provenance(self, n_deals: int, mode: str = "deals") -> dict[str, Any]:
        """JSON-ready description of the study (kept with the table)."""
        return {
            "belote_sim": __version__,
            "mode": mode,
            "n": int(n_deals),
            "ruleset": self.rules.name,
            "options": self.rules.options(),
            "bidding": [str(s) for s in self.bidding[: self.rules.players]],
            "play": [str(s) for s in self.play[: self.rules.players]],
            "seed": int(self.seed),
            "dealer": self.dealer,
            "chunk_size": self.chunk_size,
            "predeal": {str(k): v for k, v in self.predeal.items()},
            "constraints": {str(k): v for k, v in self.constraints.items()},
            "belote_silent": list(self.belote_silent),
        }

    def chunk_seeds(self, chunk: int, length: int) -> np.ndarray:
        """The per-deal seeds of chunk ``chunk`` (``length`` deals)."""
        ss = np.random.SeedSequence(int(self.seed), spawn_key=(chunk,))
        seeds = np.empty(length, dtype=np.uint64)
        seed_sequence_words(ss.pool, seeds)  # = ss.generate_state(length, np.uint64)
        return seeds

    def dealers(self, first_deal: int, length: int) -> np.ndarray:
        if self.dealer is not None:
            return np.full(length, self.dealer, dtype=np.int64)
        return (np.arange(first_deal, first_deal + length, dtype=np.int64)) % self.rules.players

    def run_chunk(
        self,
        chunk: int,
        length: int,
        keep_plays: bool = False,
        rows: np.ndarray | None = None,
        pacer: Pacer | None = None,
    ) -> dict[str, Any]:
        """Simulate one chunk (or the given row offsets of it); raw kernel arrays.

        With a ``pacer`` the deals are simulated in parts of about ``pacer.seconds``
        each, and each part's deals are reported to ``pacer.report`` as it ends (a
        live progress bar for the slow policies); a deal is a pure function of its
        seed, so the arrays are the same."""
        if self.python_bidding:
            from belote_sim.simulation.py_bidding import python_chunk

            return python_chunk(self, chunk, length, keep_plays, rows)
        seeds = self.chunk_seeds(chunk, length)
        first = chunk * self.chunk_size
        dealers = self.dealers(first, length)
        ids = np.arange(first, first + length, dtype=np.int64)
        if rows is not None:
            seeds, dealers, ids = seeds[rows], dealers[rows], ids[rows]
        n = len(seeds)
        calls = np.zeros((n, MAX_CALLS), dtype=np.uint8)
        plays = np.zeros((n if keep_plays else 1, 32), dtype=np.int64)
        out = np.zeros((n, NUM_SOLO_COLS if self.rules.solo else NUM_COLS), dtype=np.int64)
        parts = [slice(0, n)] if pacer is None else pacer.parts(n)
        for part in parts:
            self._run_deals(
                seeds[part].view(np.int64),
                dealers[part],
                out[part],
                calls[part],
                plays[part] if keep_plays else plays,
                keep_plays,
            )
        if not self.rules.solo and (out[:, COL_TRIES] < 0).any():
            raise ValueError(
                f"constraints could not be met in {MAX_TRIES} tries for a deal: "
                "they are too rare to sample"
            )
        raw: dict[str, Any] = {
            "deal_id": ids,
            "seed": seeds,
            "out": out,
            "calls": calls,
            "plays": plays if keep_plays else None,
        }
        if self.rules.solo:
            raw["rules"] = self.rules
        return raw

    def _run_deals(
        self,
        seeds: np.ndarray,
        dealers: np.ndarray,
        out: np.ndarray,
        calls: np.ndarray,
        plays: np.ndarray,
        keep_plays: bool,
    ) -> None:
        """The kernel over some deals of a chunk, into (views of) its arrays."""
        driver, args = self._kernel_call(seeds, dealers, out, calls, plays, keep_plays)
        check_no_failed(driver(*args))

    def _first_deal_call(self, keep_plays: bool) -> tuple[Any, tuple[Any, ...]]:
        """The driver call of the first two deals into fresh arrays, their constraints
        tried once: the same argument types as a run's (two deals: the columns of one
        deal are contiguous slices, another type than a run's, ``kernel_columns``)."""
        n_cols = NUM_SOLO_COLS if self.rules.solo else NUM_COLS
        return self._kernel_call(
            self.chunk_seeds(0, 2).view(np.int64),
            self.dealers(0, 2),
            np.zeros((2, n_cols), dtype=np.int64),
            np.zeros((2, MAX_CALLS), dtype=np.uint8),
            np.zeros((2 if keep_plays else 1, 32), dtype=np.int64),
            keep_plays,
            max_tries=1,
        )

    def _kernel_call(
        self,
        seeds: np.ndarray,
        dealers: np.ndarray,
        out: np.ndarray,
        calls: np.ndarray,
        plays: np.ndarray,
        keep_plays: bool,
        max_tries: int = MAX_TRIES,
    ) -> tuple[Any, tuple[Any, ...]]:
        """The driver kernel of these deals and its arguments."""
        if self.rules.solo:
            return simulate_solo_deals, (
                seeds,
                dealers,
                self.rules.to_array(),
                self.policies,
                out,
                calls,
                plays,
                keep_plays,
                self.atlas_arrays,
            )
        return simulate_deals, (
            seeds,
            dealers,
            self.rules.to_array(),
            self.policies,
            self.conditions(max_tries),
            out,
            calls,
            plays,
            keep_plays,
            search_bits(self.play),
            self.atlas_arrays,
        )

    def kernels_cached(self, keep_plays: bool = False) -> bool | None:
        """Whether this study's driver kernel is compiled already, in this process or
        in numba's disk cache (None: cannot be told, e.g. ``py:`` bidding).  Cheap: it
        compiles nothing."""
        if self.python_bidding:
            return None
        return is_cached(*self._first_deal_call(keep_plays))

    def prepare_kernels(self, keep_plays: bool = False) -> float:
        """Compile (or load from the disk cache) every kernel a run of this study calls,
        by simulating its first two deals (thrown away) and converting them to columns; returns
        the seconds it took.  Runs before a run's clock starts, so that rates and ETAs
        leave the compile out (``compile_notice`` says it first)."""
        start = time.perf_counter()
        if self.python_bidding:  # the Python auction calls the kernels deal by deal
            with contextlib.suppress(ValueError):  # constraints too rare: said later
                self.run_chunk(0, 1, keep_plays)
            return time.perf_counter() - start
        driver, args = self._first_deal_call(keep_plays)
        driver(*args)  # what it played is thrown away (failed or not)
        if not self.rules.solo:
            kernel_columns(args[5])  # the chunks' columns ...
            kernel_columns(args[5][:0])  # ... and the empty frame a table's schema is from
        return time.perf_counter() - start

    def check_feasible(self) -> float:
        """Acceptance rate of the rejection constraints on a pilot run (error if none)."""
        if not self.check_constraints:
            return 1.0
        if self.python_bidding:
            from belote_sim.simulation.py_bidding import dealing_study

            return float(dealing_study(self).check_feasible())
        ss = np.random.SeedSequence(int(self.seed), spawn_key=(2**31 - 1,))
        seeds = ss.generate_state(PILOT_DEALS, dtype=np.uint64).view(np.int64)
        out = np.zeros((PILOT_DEALS, NUM_COLS), dtype=np.int64)
        calls = np.zeros((PILOT_DEALS, MAX_CALLS), dtype=np.uint8)
        check_no_failed(
            simulate_deals(
                seeds,
                self.dealers(0, PILOT_DEALS),
                self.rules.to_array(),
                self.policies,
                self.conditions(max_tries=50, check=True),
                out,
                calls,
                np.zeros((1, 32), dtype=np.int64),
                False,
                search_bits(self.play),
                self.atlas_arrays,
            )
        )
        tries = out[:, COL_TRIES]
        accepted = (tries > 0).sum()
        if accepted == 0:
            raise ValueError(
                f"constraints are impossible or too rare: none of {PILOT_DEALS} "
                "pilot deals met them within 50 tries each"
            )
        return float(1.0 / np.mean(tries[tries > 0]))


def make_study(
    rules: Rules | str = "common",
    bidding: Any = None,
    play: Any = None,
    seed: int = 0,
    predeal: Mapping[int, Any] | None = None,
    constraints: Mapping[int, Mapping[str, Any]] | None = None,
    dealer: int | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    options: Mapping[str, Any] | None = None,
    belote_silent: Sequence[int] = (),
) -> Study:
    """Validate the arguments of ``simulate`` into a ``Study``."""
    rules = Rules.from_spec(rules, options)
    if bidding is None:
        bidding = "take" if rules.bidding == "two_round" else "threshold"
    if play is None:
        play = default_play(rules.players, rules.variant)
    elif isinstance(play, (list, tuple)):  # a seat left None plays the default
        play = [default_play(rules.players, rules.variant) if p is None else p for p in play]
    predeal_lists = {}
    for seat, cards in (predeal or {}).items():
        seat = _seat(seat, "predeal")
        predeal_lists[seat] = [format_cards([c])[0] for c in parse_cards(cards)]
    cons = {_seat(seat, "constraints"): dict(c) for seat, c in (constraints or {}).items()}
    return Study(
        rules=rules,
        bidding=per_seat(bidding, BID_POLICIES, "bidding", rules.players),
        play=per_seat(play, PLAY_POLICIES, "play", rules.players),
        seed=seed,
        dealer=dealer,
        predeal=predeal_lists,
        constraints=cons,
        chunk_size=chunk_size,
        belote_silent=tuple(belote_silent),
    )


def _seat(seat: Any, what: str) -> int:
    try:
        value = int(seat)
    except (TypeError, ValueError):
        value = -1
    if value not in (0, 1, 2, 3):
        raise ValueError(f"{what}: seat must be 0..3, got {seat!r}")
    return value


CONSTRAINT_KEYS = ("require", "exclude", "min", "max", "strength")


def _conditions(
    predeal: dict[int, list[str]], constraints: dict[int, dict[str, Any]], two_round: bool
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Predeal and constraints as kernel arrays, with contradictions rejected."""
    pre = np.full((4, 8), -1, dtype=np.int64)
    cons = np.zeros((4, D.NUM_CONSTRAINT_FIELDS), dtype=np.int64)
    cons[:, D.C_MAX_SUIT : D.C_MAX_SUIT + 4] = 8
    cons[:, D.C_MAX_STRENGTH] = 10_000
    used = 0
    for seat, cards in predeal.items():
        if len(cards) > 8:
            raise ValueError(f"predeal: seat {seat} gets {len(cards)} cards, at most 8")
        if two_round and len(cards) > 5:
            raise ValueError(
                "predeal: the french deal fixes at most the 5 bidding cards "
                "(the rest depends on who takes)"
            )
        for k, card in enumerate(cards):
            bit = parse_hand([card], size=None)
            if used & bit:
                raise ValueError(f"predeal: card {card} is given twice")
            used |= bit
            pre[seat, k] = bit.bit_length() - 1
    check = False
    for seat, spec in constraints.items():
        unknown = set(spec) - set(CONSTRAINT_KEYS)
        if unknown:
            raise ValueError(
                f"constraints for seat {seat}: unknown key(s) "
                f"{', '.join(sorted(unknown))}; known: {', '.join(CONSTRAINT_KEYS)}"
            )
        if two_round:
            raise ValueError(
                "constraints are not supported with the french deal (the final "
                "hands depend on the bidding); use predeal for the bidding cards"
            )
        required = parse_hand(spec.get("require", []), size=None)
        excluded = parse_hand(spec.get("exclude", []), size=None)
        if required & excluded:
            card = format_cards(required & excluded)[0]
            raise ValueError(f"constraints for seat {seat}: {card} is both required and excluded")
        if required & used & ~_mask_of_seat(pre, seat):
            card = format_cards(required & used & ~_mask_of_seat(pre, seat))[0]
            raise ValueError(
                f"constraints for seat {seat}: required {card} is predealt "
                "to another seat or required twice"
            )
        if excluded & _mask_of_seat(pre, seat):
            raise ValueError(f"constraints for seat {seat}: an excluded card is predealt to it")
        used |= required
        n_fixed = bin(required | _mask_of_seat(pre, seat)).count("1")
        if n_fixed > 8:
            raise ValueError(f"constraints for seat {seat}: {n_fixed} predealt and required cards")
        cons[seat, D.C_REQUIRED] = required
        cons[seat, D.C_EXCLUDED] = excluded
        for key, base in (("min", D.C_MIN_SUIT), ("max", D.C_MAX_SUIT)):
            for suit, length in dict(spec.get(key, {})).items():
                if suit not in SUIT_CHARS or not isinstance(length, int) or not 0 <= length <= 8:
                    raise ValueError(
                        f"constraints for seat {seat}: {key} needs suit C/D/H/S -> "
                        f"0..8, got {suit!r}: {length!r}"
                    )
                cons[seat, base + SUIT_CHARS.index(suit)] = length
        if "strength" in spec:
            low, high = spec["strength"]
            if low > high:
                raise ValueError(
                    f"constraints for seat {seat}: strength range {low}..{high} is empty"
                )
            cons[seat, D.C_MIN_STRENGTH] = low
            cons[seat, D.C_MAX_STRENGTH] = high
        mins = cons[seat, D.C_MIN_SUIT : D.C_MIN_SUIT + 4]
        maxs = cons[seat, D.C_MAX_SUIT : D.C_MAX_SUIT + 4]
        if (mins > maxs).any() or mins.sum() > 8 or maxs.sum() < 8:
            raise ValueError(
                f"constraints for seat {seat}: suit lengths min {list(mins)} / "
                f"max {list(maxs)} cannot make an 8-card hand"
            )
        check = check or bool(excluded or mins.any() or (maxs < 8).any() or "strength" in spec)
    for suit in range(4):
        if cons[:, D.C_MIN_SUIT + suit].sum() > 8:
            raise ValueError(f"constraints: the seats need more than 8 {SUIT_CHARS[suit]} cards")
    return pre, cons, bool(check)


def _mask_of_seat(pre: np.ndarray, seat: int) -> int:
    return sum(1 << int(c) for c in pre[seat] if c >= 0)
