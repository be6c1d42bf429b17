"""Exact double-dummy solving and search-based card play (public, validating API).

Every value here is the number of **card points** (the last-trick 10 included) that
the taker's team (``taker_team``, 0 = seats {0, 2}) wins from the given position on,
the cards already in the trick in progress included, when all four players see all
cards and play perfectly under the play rules of the chosen ruleset
(``raise_over_partner`` and ``undertrump``, docs/rules.md section 5).  Declarations and
belote do not depend on the play and are not part of the value; the one exception,
``belote_on_discard`` off (a belote card played as a discard forfeits the belote), is
ignored: the solver optimises card points only.

- ``solve(hands, strain, leader, taker_team, rules, trick)``: the value of a position.
- ``dd_scores(...)``: the value after each legal card of the player to move.
- ``dd_card(...)``: the best card of the player to move (perfect information).
- ``dd_table(hands, rules, taker_team)``: every strain x first leader.
- ``solve_record(record)``: a (full or partial) replay record, any ruleset:
  ``{"value": v, "scores": {card: v}}`` for the remaining tricks.
- ``pimc_scores`` / ``pimc_card``: perfect-information Monte Carlo for a player who
  sees only his own hand and the cards played: the unseen cards are dealt uniformly
  among the deals consistent with the hand sizes and the voids shown in play, each
  deal is solved, and the card with the best average wins.

A position is ``hands`` (four hands, seats 0..3: card strings such as ``"JH 9H AH"``,
lists of cards, or 32-bit masks; the cards still held), ``leader`` (the seat that
led the trick in progress, or that leads next) and ``trick`` (0 to 3 cards already
played in the trick in progress, in order).  The seats that played in that trick
hold one card fewer than the others.

The search itself (alpha-beta with a transposition table, move ordering,
equivalent-card reduction and cheap bounds) is described in
``belote_sim.kernels.solver``.  A ``Solver`` keeps the transposition table (2**16
entries, 1.5 MB, by default) between calls; the functions use one per thread.  Bad input raises
``ValueError`` naming the problem.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TextIO, TypeAlias, cast

import numba
import numpy as np

from belote_sim.cards import (
    ALL_CARDS_MASK,
    Card,
    CardMask,
    cards_of,
    format_card,
    mask_of,
    parse_card,
    parse_cards,
    parse_strain,
    popcount,
)
from belote_sim.deal.replay import parse_record, replay
from belote_sim.kernels import solver as K
from belote_sim.kernels.core import DUTY_NAMES, broken_duty, trick_state
from belote_sim.kernels.tables import CARD_POINTS, LAST_TRICK_BONUS, STRAIN_NAMES
from belote_sim.rules import Rules

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CardsSpec",
    "HandSpec",
    "RulesSpec",
    "Solver",
    "StrainSpec",
    "dd_card",
    "dd_scores",
    "dd_table",
    "pimc_card",
    "pimc_scores",
    "solve",
    "solve_record",
    "solve_record_lines",
]

#: A hand: card names (``"JH 9H AH"``, or a list of them) or a 32-bit card mask.
HandSpec: TypeAlias = str | Iterable[str] | CardMask
#: Cards in order (a trick, the plays of a deal): names (one string or a list) or
#: indices; None for none.
CardsSpec: TypeAlias = str | Iterable[str | Card] | None
#: A strain: ``C D H S NT AT`` (or a suit symbol), or its code 0..5.
StrainSpec: TypeAlias = str | int
#: Rules: a preset name or a ``Rules``.
RulesSpec: TypeAlias = Rules | str


class Solver:
    """Search state reused between calls: the transposition table and the stack.

    Entries are keyed on the complete position (and strain, maximising team and
    play options), so one table serves any sequence of positions and rulesets.  A
    ``Solver`` is not thread-safe: use one per thread (the module functions do).
    """

    def __init__(self, tt_bits: int = K.TT_BITS) -> None:
        if isinstance(tt_bits, bool) or not isinstance(tt_bits, int) or not 4 <= tt_bits <= 28:
            raise ValueError(f"tt_bits must be an integer 4..28, got {tt_bits!r}")
        self.tt: np.ndarray = K.new_tt(tt_bits)
        self.ws: np.ndarray
        self.moves: np.ndarray
        self.ws, self.moves = K.new_workspace()


_local = threading.local()
_pools: list[ThreadPoolExecutor] = []


def _pool() -> ThreadPoolExecutor:
    """The worker threads of the parallel PIMC (made once; each keeps its Solver)."""
    if not _pools:
        _pools.append(ThreadPoolExecutor(max(1, numba.config.NUMBA_NUM_THREADS)))
    return _pools[0]


def _default_solver(solver: Solver | None) -> Solver:
    if solver is not None:
        if not isinstance(solver, Solver):
            raise ValueError(f"solver must be a Solver, got {type(solver).__name__}")
        return solver
    if getattr(_local, "solver", None) is None:
        _local.solver = Solver()
    return _local.solver


# --- input validation ------------------------------------------------------------
# The checks take any object (what a caller passed) and refuse what is not of the
# documented type with a one-line ValueError.


def _rules(rules: object) -> Rules:
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    raise ValueError(f"rules must be a preset name or a Rules object, got {rules!r}")


def _strain(strain: object) -> int:
    if isinstance(strain, (int, np.integer)) and not isinstance(strain, bool):
        if not 0 <= strain <= 5:
            raise ValueError(f"strain code must be 0..5 (C D H S NT AT), got {strain}")
        return int(strain)
    return parse_strain(cast(str, strain))  # refuses what is not a string


def _seat(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= 3:
        raise ValueError(f"{name} must be a seat 0..3, got {value!r}")
    return int(value)


def _team(value: object, name: str = "taker_team") -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value not in (0, 1):
        raise ValueError(f"{name} must be 0 (seats 0, 2) or 1 (seats 1, 3), got {value!r}")
    return int(value)


def _card(value: object) -> Card:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if not 0 <= value < 32:
            raise ValueError(f"card index {value} out of range 0..31")
        return int(value)
    return parse_card(cast(str, value))  # refuses what is not a string


def _card_list(value: object, what: str) -> list[Card]:
    if value is None:
        return []
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    try:
        cards = [_card(c) for c in cast(Iterable[object], value)]  # TypeError: not a list
    except TypeError:
        raise ValueError(f"{what} must be a list of cards, got {value!r}") from None
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None
    if len(set(cards)) != len(cards):
        dup = next(c for c in cards if cards.count(c) > 1)
        raise ValueError(f"{what}: duplicate card {format_card(dup)}")
    return cards


def _hand_mask(value: object, what: str) -> CardMask:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if not 0 <= value <= ALL_CARDS_MASK:
            raise ValueError(f"{what}: mask {value} is not a 32-bit card mask")
        return int(value)
    try:
        return mask_of(parse_cards(cast(Iterable[str], value)))  # checks what it gets
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None
    except TypeError:
        raise ValueError(f"{what} must be a hand (cards or a mask), got {value!r}") from None


def _hands(hands: object) -> list[CardMask]:
    if isinstance(hands, (str, bytes)) or not hasattr(hands, "__len__") or len(hands) != 4:
        raise ValueError("hands must be 4 hands (seats 0..3)")
    masks: list[int] = []
    seen = 0
    for seat, h in enumerate(cast(Iterable[object], hands)):
        mask = _hand_mask(h, f"hand of seat {seat}")
        both = seen & mask
        if both:
            raise ValueError(
                f"card {format_card(cards_of(both)[0])} is held twice "
                f"(seat {seat} and an earlier seat)"
            )
        seen |= mask
        masks.append(mask)
    return masks


class _Position:
    """A validated position, ready for the kernels."""

    def __init__(
        self,
        hands: object,
        strain: object,
        leader: object,
        rules: object,
        trick: object = None,
    ) -> None:
        self.rules = _rules(rules)
        self.strain = _strain(strain)
        self.leader = _seat(leader, "leader")
        self.masks = _hands(hands)
        cards = _card_list(trick, "trick")
        if len(cards) > 3:
            raise ValueError(
                f"trick: at most 3 cards can be played before the player to move, got {len(cards)}"
            )
        self.trick_cards = cards
        self.n = len(cards)
        held = self.masks[0] | self.masks[1] | self.masks[2] | self.masks[3]
        for c in cards:
            if held >> c & 1:
                raise ValueError(f"trick: card {format_card(c)} is also in a hand")
        self.mover = (self.leader + self.n) % 4
        size = popcount(self.masks[self.mover])
        for pos in range(4):
            seat = (self.leader + pos) % 4
            want = size - 1 if pos < self.n else size
            got = popcount(self.masks[seat])
            if got != want:
                raise ValueError(
                    f"hand of seat {seat} has {got} cards, expected {want}: the hands must "
                    f"have equal sizes, one card fewer for the seats that already played "
                    f"in the trick in progress (leader {self.leader}, {self.n} card(s) "
                    f"played, seat {self.mover} to move with {size})"
                )
        if size == 0 and self.n > 0:
            raise ValueError("the player to move has no card")
        self.rules_array = self.rules.to_array()
        self.trick = np.zeros(4, dtype=np.int64)
        for i, c in enumerate(cards):
            self.trick[i] = c
        # the trick so far must be legal: each card was chosen from hand + that card
        for i, c in enumerate(cards):
            seat = (self.leader + i) % 4
            led, wc, wp = trick_state(self.trick, i, self.strain)
            duty = broken_duty(
                self.masks[seat] | (1 << c),
                c,
                led,
                i,
                wc,
                wp,
                self.strain,
                self.rules_array,
            )
            if duty:
                raise ValueError(
                    f"trick: card {format_card(c)} of seat {seat} breaks the "
                    f"{DUTY_NAMES[duty]} rule"
                )

    def hands_array(self) -> np.ndarray:
        return np.array(self.masks, dtype=np.int64)

    def total(self) -> int:
        """Points still to be won (cards in hands and trick, last-trick 10)."""
        if not any(self.masks) and self.n == 0:
            return 0
        pts = LAST_TRICK_BONUS + sum(int(CARD_POINTS[self.strain, c]) for c in self.trick_cards)
        for m in self.masks:
            pts += sum(int(CARD_POINTS[self.strain, c]) for c in cards_of(m))
        return pts


# --- double dummy ------------------------------------------------------------------


def solve(
    hands: Sequence[HandSpec],
    strain: StrainSpec,
    leader: int,
    taker_team: int = 0,
    rules: RulesSpec = "common",
    trick: CardsSpec = None,
    solver: Solver | None = None,
) -> int:
    """Card points (last-trick 10 included) the team ``taker_team`` wins from this
    position on with perfect play by all four (the trick in progress included).

    ``hands``: 4 hands (strings, card lists or masks) of the cards still held;
    ``strain``: ``C D H S NT AT`` (or 0..5); ``leader``: seat that led the trick in
    progress (or leads next); ``trick``: cards already played in that trick, in order;
    ``rules``: a preset name or ``Rules``.  The defenders' value is the total still to
    play minus this one.
    """
    pos = _Position(hands, strain, leader, rules, trick)
    team = _team(taker_team)
    s = _default_solver(solver)
    return int(
        K.solve_position(
            pos.hands_array(),
            pos.leader,
            pos.trick,
            pos.n,
            pos.strain,
            team,
            pos.rules_array,
            s.tt,
            s.ws,
            s.moves,
            0,
            -1,
        )
    )


def dd_scores(
    hands: Sequence[HandSpec],
    strain: StrainSpec,
    leader: int,
    taker_team: int = 0,
    rules: RulesSpec = "common",
    trick: CardsSpec = None,
    solver: Solver | None = None,
) -> dict[str, int]:
    """Value (see ``solve``) after each legal card of the player to move:
    ``{card: points of taker_team}``, cards in index order."""
    pos = _Position(hands, strain, leader, rules, trick)
    team = _team(taker_team)
    if pos.n == 0 and not any(pos.masks):
        return {}
    s = _default_solver(solver)
    out = np.zeros(32, dtype=np.int64)
    legal = K.dd_card_values(
        pos.hands_array(),
        pos.leader,
        pos.trick,
        pos.n,
        pos.strain,
        team,
        pos.rules_array,
        s.tt,
        s.ws,
        s.moves,
        out,
    )
    return {format_card(c): int(out[c]) for c in cards_of(int(legal))}


def dd_card(
    hands: Sequence[HandSpec],
    strain: StrainSpec,
    leader: int,
    rules: RulesSpec = "common",
    trick: CardsSpec = None,
    solver: Solver | None = None,
) -> str:
    """The best card of the player to move with all hands visible (policy ``dd``):
    the one that maximises his own team's points; ties go to the card the move
    ordering tries first."""
    pos = _Position(hands, strain, leader, rules, trick)
    if pos.n == 0 and not any(pos.masks):
        raise ValueError("the deal is over: no card to play")
    s = _default_solver(solver)
    card, _ = K.dd_best_card(
        pos.hands_array(),
        pos.leader,
        pos.trick,
        pos.n,
        pos.strain,
        pos.rules_array,
        s.tt,
        s.ws,
        s.moves,
    )
    return format_card(int(card))


def dd_table(
    hands: Sequence[HandSpec],
    rules: RulesSpec = "common",
    taker_team: int = 0,
    as_frame: bool = True,
    solver: Solver | None = None,
) -> pd.DataFrame | dict[str, list[int]]:
    """``solve`` for every strain x first leader (hands of equal size, no trick).

    Returns a pandas DataFrame (index: strains ``C D H S NT AT``, columns: leader
    seats 0..3) or, with ``as_frame=False``, ``{strain: [v_leader0, .., v_leader3]}``.
    """
    masks = _hands(hands)
    team = _team(taker_team)
    rules = _rules(rules)
    sizes = {popcount(m) for m in masks}
    if len(sizes) != 1:
        raise ValueError(f"dd_table needs hands of equal size, got {[popcount(m) for m in masks]}")
    s = _default_solver(solver)
    arr = np.array(masks, dtype=np.int64)
    empty = np.zeros(4, dtype=np.int64)
    table: dict[str, list[int]] = {}
    for strain, name in enumerate(STRAIN_NAMES):
        row = []
        for leader in range(4):
            row.append(
                int(
                    K.solve_position(
                        arr,
                        leader,
                        empty,
                        0,
                        strain,
                        team,
                        rules.to_array(),
                        s.tt,
                        s.ws,
                        s.moves,
                        0,
                        -1,
                    )
                )
            )
        table[name] = row
    if not as_frame:
        return table
    import pandas as pd

    frame = pd.DataFrame.from_dict(table, orient="index", columns=[0, 1, 2, 3])
    frame.index.name = "strain"
    frame.columns.name = "leader"
    return frame


def solve_record(record: Mapping[str, Any], solver: Solver | None = None) -> dict[str, Any]:
    """Solve the rest of a replay record (full or partial, any ruleset).

    Returns ``{"value": v, "scores": {card: v, ...}}``: ``value`` is the card points
    (last-trick 10 included) the taker's team wins in the remaining tricks (the
    cards of the trick in progress included) under perfect play, ``scores`` that
    value after each legal card of the player to move (empty when all 32 cards are
    played).  ``id`` is echoed.  A malformed record or one with an illegal card
    raises ``ValueError``.
    """
    rec = parse_record(record)
    if rec["rules"].solo:
        raise ValueError(
            "the double-dummy solver is for the 4-player game (this record is "
            f"a {rec['rules'].players}-player game)"
        )
    result = replay(dict(record))
    if result["illegal"] is not None:
        ill = result["illegal"]
        raise ValueError(
            f"the record has an illegal card: {ill['card']} of seat {ill['seat']} "
            f"in trick {ill['trick']} breaks the {ill['rule']} rule"
        )
    out: dict[str, Any] = {}
    if "id" in record:
        out["id"] = record["id"]
    if result["to_play"] is None:
        out.update(value=0, scores={})
        return out
    played = 0
    for t in result["tricks"]:
        for c in t["cards"]:
            played |= 1 << parse_card(c)
    hands = [int(h) & ~played for h in rec["hands"]]
    tricks = result["tricks"]
    if tricks and tricks[-1]["winner"] is None:
        leader = tricks[-1]["leader"]
        trick = tricks[-1]["cards"]
    else:
        leader = result["to_play"]
        trick = []
    team = rec["taker"] % 2
    rules = rec["rules"]
    value = solve(hands, rec["strain"], leader, team, rules, trick, solver=solver)
    scores = dd_scores(hands, rec["strain"], leader, team, rules, trick, solver=solver)
    out.update(value=value, scores=scores)
    return out


def solve_record_lines(
    lines: Iterable[str | bytes], out: TextIO, solver: Solver | None = None
) -> tuple[int, int]:
    """``solve_record`` for JSON lines (blank lines skipped), one JSON result per line;
    a bad line gives ``{"error": "line N: ..."}``.  Returns ``(n_records, n_errors)``."""
    from belote_sim.deal.replay import map_json_lines

    return map_json_lines(lines, out, lambda record: solve_record(record, solver=solver))


# --- perfect-information Monte Carlo -----------------------------------------------


class _Observation:
    """What the player to move has seen, validated."""

    def __init__(
        self,
        hand: object,
        seat: object,
        plays: object,
        first_leader: object,
        strain: object,
        rules: object,
        known: object,
    ) -> None:
        self.rules = _rules(rules)
        self.strain = _strain(strain)
        self.seat = _seat(seat, "seat")
        self.first_leader = _seat(first_leader, "first_leader")
        self.hand = _hand_mask(hand, "hand")
        self.plays = _card_list(plays, "plays")
        if len(self.plays) >= 32:
            raise ValueError("the deal is over: no card to play")
        played = mask_of(self.plays)
        if played & self.hand:
            raise ValueError(
                f"card {format_card(cards_of(played & self.hand)[0])} is both in "
                f"the hand and among the cards played"
            )
        self.rules_array = self.rules.to_array()
        arr = np.zeros(32, dtype=np.int64)
        arr[: len(self.plays)] = self.plays
        self.plays_arr = arr
        forbidden = np.zeros(4, dtype=np.int64)
        leader, n_trick = K.infer_forbidden(
            arr,
            len(self.plays),
            self.first_leader,
            self.strain,
            self.rules_array,
            forbidden,
        )
        self.leader, self.n_trick = int(leader), int(n_trick)
        to_move = (self.leader + self.n_trick) % 4
        if to_move != self.seat:
            raise ValueError(
                f"seat {self.seat} is not the player to move: after these plays "
                f"seat {to_move} plays"
            )
        want = 8 - len(self.plays) // 4
        if popcount(self.hand) != want:
            raise ValueError(
                f"the hand has {popcount(self.hand)} cards, expected {want} after "
                f"{len(self.plays)} cards played"
            )
        self.fixed = np.zeros(4, dtype=np.int64)
        if known is not None:
            if not isinstance(known, Mapping):
                raise ValueError("known must be a mapping seat -> cards")
            seen = self.hand | played
            for s, cards in known.items():
                s = _seat(s, "known seat")
                if s == self.seat:
                    raise ValueError("known: the mover's own hand is given by 'hand'")
                mask = mask_of(_card_list(cards, f"known cards of seat {s}"))
                if mask & seen:
                    raise ValueError(
                        f"known: card {format_card(cards_of(mask & seen)[0])} of "
                        f"seat {s} is already in the hand, played or known"
                    )
                seen |= mask
                self.fixed[s] = mask
        self.total = LAST_TRICK_BONUS + sum(
            int(CARD_POINTS[self.strain, c])
            for c in range(32)
            if not played >> c & 1 or c in self.plays[len(self.plays) - self.n_trick :]
        )


def pimc_scores(
    hand: HandSpec,
    seat: int,
    plays: CardsSpec,
    first_leader: int,
    strain: StrainSpec,
    taker_team: int = 0,
    rules: RulesSpec = "common",
    samples: int = 30,
    seed: int = 0,
    known: Mapping[int, CardsSpec] | None = None,
    solver: Solver | None = None,
    threads: int | None = None,
) -> dict[str, float]:
    """Average double-dummy value of each legal card of the player to move over
    ``samples`` deals of the cards he has not seen (policy ``pimc``).

    The deals are solved on ``threads`` threads (default: numba's thread count; one
    when a ``solver`` is given, as a Solver serves one thread); the values do not
    depend on it.

    ``hand``: his cards now; ``seat``: his seat; ``plays``: every card played in the
    deal so far, in order (the first trick led by ``first_leader``) -- the order is
    what shows voids; ``known``: optional ``{seat: cards}`` known to be held (e.g.
    announced declarations).  Deals are uniform among those consistent with the hand
    sizes, ``known`` and the voids shown in play (not following suit, not trumping,
    not overtrumping or raising).  Values are the points of ``taker_team`` from here
    on (the trick in progress included), averaged.
    """
    obs = _Observation(hand, seat, plays, first_leader, strain, rules, known)
    team = _team(taker_team)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ValueError(f"samples must be a positive integer, got {samples!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
    ):
        raise ValueError(f"threads must be a positive integer, got {threads!r}")
    deals = np.zeros((samples, 4), dtype=np.int64)
    trick = np.zeros(4, dtype=np.int64)
    ok, leader, n_trick = K.pimc_deals(
        obs.hand, obs.fixed, obs.plays_arr, len(obs.plays), obs.first_leader, obs.strain,
        obs.rules_array, int(seed) & 0x7FFFFFFFFFFFFFFF, deals, trick,
    )  # fmt: skip
    if not ok:
        raise ValueError("no deal of the unseen cards fits the hand sizes and known cards")
    n = samples
    mover_team = (leader + n_trick) % 2

    def solve(chunk: np.ndarray, s: Solver) -> tuple[int, np.ndarray]:
        part = np.zeros(32, dtype=np.int64)
        legal = K.pimc_values(
            chunk, leader, trick, n_trick, obs.strain, mover_team, obs.rules_array,
            s.tt, s.ws, s.moves, part,
        )  # fmt: skip
        return int(legal), part

    # The deals are drawn first, so the sums (exact integers) are the same whatever
    # the number of threads; each thread solves its share with its own Solver.
    n_threads = 1 if solver is not None else min(threads or numba.get_num_threads(), samples)
    if n_threads == 1:
        legal, sums = solve(deals, _default_solver(solver))
    else:
        chunks = np.array_split(deals, n_threads)
        results = list(_pool().map(lambda c: solve(c, _default_solver(None)), chunks))
        legal = results[0][0]
        sums = sum((r[1] for r in results), np.zeros(32, dtype=np.int64))
    mine = obs.seat % 2
    out = {}
    for c in cards_of(int(legal)):
        avg = sums[c] / n
        out[format_card(c)] = float(avg if mine == team else obs.total - avg)
    return out


def pimc_card(
    hand: HandSpec,
    seat: int,
    plays: CardsSpec,
    first_leader: int,
    strain: StrainSpec,
    rules: RulesSpec = "common",
    samples: int = 30,
    seed: int = 0,
    known: Mapping[int, CardsSpec] | None = None,
    solver: Solver | None = None,
    threads: int | None = None,
) -> str:
    """The card with the best average value for the mover's own team over ``samples``
    consistent deals (see ``pimc_scores``, also for ``threads``; ties go to the lowest
    card index)."""
    scores = pimc_scores(
        hand,
        seat,
        plays,
        first_leader,
        strain,
        _seat(seat, "seat") % 2,
        rules,
        samples,
        seed,
        known,
        solver,
        threads,
    )
    best = max(scores.values())
    return next(c for c, v in scores.items() if v == best)
