"""Bidding by a Python function: ``bidding=callable`` or ``py:MODULE:FUNCTION``.

The auctions run here, in Python, and the kernels do the rest, so that a deal is the
one the engine would play after the same auction:

1. the chunk is dealt with every seat passing (play ``random``: nothing is played), which
   gives each deal's dealer, bidding cards and french turned card;
2. each deal's auction is run in Python (``run_auction``, the rules of
   ``kernels.auction``): a seat bidding by a function is asked with a ``BidView``; a
   seat bidding by a kernel policy is asked through ``switchboard.bid_decide``;
3. the deals are played again, grouped by contract, with the ``fixed`` bidding policy
   naming each group's contract (a fixed contract draws from a deal's random stream
   exactly what an auction does, so the play is the engine's), and each deal's
   auction is written over the ``f`` of the fixed contract.

A thrown-in deal keeps its row of step 1.  An illegal call, or an exception in the
function, raises ``ValueError`` naming the function, the deal, the seat and the
auction so far.  In the french rounds the kernel policies' seats visit the suits of
round two in an order drawn from the deal's seed (``BidTurn.suit_order``), not from
its random stream: mixed with a function, a ``take`` seat may break a tie otherwise
than in the engine.  Only deals (``simulate``, ``duel``, ``study``): whole games
(``simulate_games``) need the auction inside the kernels.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from belote_sim.cards import format_cards
from belote_sim.kernels.bidding import (
    CALL_DOUBLE,
    CALL_PASS,
    CALL_REDOUBLE,
    CALL_THIRD,
    MAX_CALLS,
    STRAIN_CALLS,
    packed_score,
)
from belote_sim.kernels.records import (
    BID_AUCTION,
    BID_FRENCH_ROUND1,
    BID_FRENCH_ROUND2,
    BID_TAKE_OR_PASS,
    HEARD_BITS,
    BidTurn,
)
from belote_sim.kernels.simulate import COL_BID0, COL_DEALER, COL_TURNED, S_BID, S_DEALER
from belote_sim.kernels.switchboard import bid_decide
from belote_sim.kernels.tables import NUM_STRAINS, STRAIN_AT, STRAIN_NAMES, STRAIN_NT
from belote_sim.policies import PY_POLICY, PolicySpec

__all__ = [
    "CALL_WORDS",
    "Asker",
    "BidView",
    "call_word",
    "dealing_study",
    "legal_call_letters",
    "python_chunk",
    "run_auction",
]

#: The call letters of the deals table (the kernels' ``CALL_*`` codes) and the words a
#: function may answer with.
_PASS, _DOUBLE, _REDOUBLE, _THIRD = (
    chr(c) for c in (CALL_PASS, CALL_DOUBLE, CALL_REDOUBLE, CALL_THIRD)
)
CALL_WORDS = {_PASS: "pass", _DOUBLE: "double", _REDOUBLE: "redouble", _THIRD: "third_double"}
#: The strains' call letters, in strain order (``C D H S N A``).
_STRAIN_LETTERS = "".join(chr(c) for c in STRAIN_CALLS)
#: An answer (lower case: a word, a call letter, a strain's name or letter) -> its letter.
_ANSWERS = {word: letter for letter, word in CALL_WORDS.items()}
_ANSWERS |= {letter: letter for letter in CALL_WORDS} | {"third": _THIRD}
_ANSWERS |= {name.lower(): letter for name, letter in zip(STRAIN_NAMES, _STRAIN_LETTERS)}
_ANSWERS |= {letter.lower(): letter for letter in _STRAIN_LETTERS}


@dataclass(frozen=True)
class BidView:
    """What a bidding function is shown at its turn.

    ``cards``: its bidding cards as text (``"JH 9H AH TS 7C"``); ``seat`` 0..players-1,
    ``position`` 1 (first after the dealer) .. players (the dealer), ``dealer``;
    ``players``; ``ruleset`` (``common``, ``bulgarian``, ``french`` ...); ``bidding``
    (``auction``, ``two_round``, ``take_or_pass``); ``round`` (french: 1 or 2, else 0);
    ``calls``: the calls so far, one letter each (``p`` pass, ``C D H S N A`` a bid,
    ``x r t`` doubles); ``auction``: the same as words (``["pass", "H", "double"]``);
    ``turned``: the french turned card (None otherwise); ``current``: the strain bid so
    far (None), ``holder``: who holds it (``"partner"``, ``"opponent"``, ``"me"``,
    None), ``level``: its doubling level; ``must_bid``: the dealer must take;
    ``legal``: the calls it may answer with (``"pass"``, ``"C"`` .. ``"AT"``,
    ``"double"``, ``"redouble"``, ``"third_double"``)."""

    cards: str
    seat: int
    position: int
    dealer: int
    players: int
    ruleset: str
    bidding: str
    round: int
    calls: str
    auction: tuple[str, ...]
    turned: str | None
    current: str | None
    holder: str | None
    level: int
    must_bid: bool
    legal: tuple[str, ...]


def call_word(letter: str) -> str:
    """A call letter of the deals table as the word a bidding function answers with
    (``"pass"``, ``"double"``, a strain's name such as ``"H"`` or ``"NT"``)."""
    if letter in CALL_WORDS:
        return CALL_WORDS[letter]
    return STRAIN_NAMES[_STRAIN_LETTERS.index(letter)]


def legal_call_letters(kind: int, rules: Any, seat: int, current: int, bidder: int, level: int,
           must_bid: bool, turned: int) -> list[str]:  # fmt: skip
    """The legal call letters of a turn (docs/rules.md section 4): ``kind`` a
    ``records.BID_*``, ``current``/``bidder``/``level`` the strain held (-1: none), its
    seat and doubling level, ``turned`` the french turned card (-1 otherwise)."""
    if kind == BID_FRENCH_ROUND1:
        return [_PASS, _STRAIN_LETTERS[turned >> 3]]
    if kind == BID_FRENCH_ROUND2:
        last = NUM_STRAINS if rules.french_allow_nt_at else STRAIN_NT
        return [_PASS] + [_STRAIN_LETTERS[s] for s in range(last) if s != turned >> 3]
    legal = [] if must_bid else [_PASS]
    legal += [_STRAIN_LETTERS[s] for s in range(current + 1, NUM_STRAINS)]
    if kind == BID_AUCTION and current >= 0:
        theirs = (bidder & 1) != (seat & 1)
        if theirs and level == 0:
            legal.append(_DOUBLE)
        if not theirs and level == 1:
            legal.append(_REDOUBLE)
        if theirs and level == 2 and rules.third_double:
            legal.append(_THIRD)
    return legal


class Asker:
    """Asks each seat of a study for its calls: a function with a ``BidView``, a kernel
    policy through ``bid_decide``."""

    def __init__(self, study: Any):
        self.study = study
        self.rules = study.rules
        self.rules_array = study.rules.to_array()
        self.ids, self.params = study.bid_arrays
        self.menu = study.menu
        self.tables = study.atlas_arrays
        self.deal_id = 0
        self.suit_order = 0

    def deal(self, deal_id: int, seed: int) -> None:
        """Ask for the calls of deal ``deal_id`` (its seed sets the kernel policies'
        french suit order)."""
        self.deal_id = deal_id
        self.suit_order = seed % 24

    def ask(self, kind, seat, dealer, cards, current, bidder, level, calls, must_bid,
            turned, heard) -> tuple[str, int]:  # fmt: skip
        spec = self.study.bidding[seat]
        players = self.rules.players
        legal = legal_call_letters(kind, self.rules, seat, current, bidder, level, must_bid, turned)
        if spec.name != PY_POLICY:
            scores = (
                0
                if kind in (BID_FRENCH_ROUND1, BID_FRENCH_ROUND2)
                else int(packed_score(np.int64(cards)))
            )
            turn = BidTurn(
                kind, seat, dealer, players, cards, scores, current, bidder, level,
                len(calls), bool(must_bid), turned, self.suit_order, heard,
            )  # fmt: skip
            code, strain = bid_decide(
                self.menu, self.ids[seat], self.params[seat], turn, self.rules_array, self.tables
            )
            letter = chr(int(code))
            if letter not in legal:  # pragma: no cover - a kernel policy's bug
                raise RuntimeError(f"bidding policy {spec} gave the illegal call {letter!r}")
            return letter, int(strain)
        holder = None
        if current >= 0:
            holder = "me" if bidder == seat else "opponent"
            if players == 4 and bidder == seat ^ 2:
                holder = "partner"
        view = BidView(
            cards=" ".join(format_cards(cards)),
            seat=seat,
            position=(seat - dealer - 1) % players + 1,
            dealer=dealer,
            players=players,
            ruleset=self.rules.name,
            bidding=self.rules.bidding,
            round={BID_FRENCH_ROUND1: 1, BID_FRENCH_ROUND2: 2}.get(kind, 0),
            calls="".join(calls),
            auction=tuple(call_word(c) for c in calls),
            turned=format_cards(1 << turned)[0] if turned >= 0 else None,
            current=STRAIN_NAMES[current] if current >= 0 else None,
            holder=holder,
            level=level,
            must_bid=bool(must_bid),
            legal=tuple(call_word(c) for c in legal),
        )
        where = f"deal {self.deal_id}, seat {seat}, auction {''.join(calls)!r}"
        func: Callable[[BidView], Any] | None = spec.func
        try:
            # its prints go to standard error: standard output is the command's (--json)
            with contextlib.redirect_stdout(sys.stderr):
                answer = func(view) if func is not None else None
        except (Exception, SystemExit) as exc:  # the user's code: one clear line
            raise ValueError(
                f"bidding function {spec.path} raised {type(exc).__name__}: {exc} ({where})"
            ) from None
        letter = _ANSWERS.get(answer.strip().lower(), "") if isinstance(answer, str) else ""
        if not letter or letter not in legal:
            raise ValueError(
                f"bidding function {spec.path} made the illegal call {answer!r} ({where}; "
                f"legal: {', '.join(view.legal)})"
            )
        strain = _STRAIN_LETTERS.find(letter)
        return letter, strain


def run_auction(study: Any, asker: Asker, bid: list[int], dealer: int, turned: int
                ) -> tuple[int, int, int, list[str]]:  # fmt: skip
    """One deal's bidding, as ``kernels.auction.run_auction``: ``(strain, taker,
    doubling, calls)``, strain -1 when the deal is thrown in."""
    rules = study.rules
    calls: list[str] = []
    heard = 0
    if rules.bidding == "two_round":
        for kind in (BID_FRENCH_ROUND1, BID_FRENCH_ROUND2):
            for i in range(4):
                seat = (dealer + 1 + i) & 3
                letter, strain = asker.ask(
                    kind, seat, dealer, bid[seat], -1, -1, 0, calls, False, turned, 0
                )
                calls.append(letter)
                if strain >= 0:
                    return strain, seat, 0, calls
        return -1, -1, 0, calls
    players = rules.players
    solo = rules.bidding == "take_or_pass"
    kind = BID_TAKE_OR_PASS if solo else BID_AUCTION
    max_level = 3 if rules.third_double else 2
    current, bidder, level, passes = -1, -1, 0, 0
    seat = (dealer + 1) % players
    while len(calls) < MAX_CALLS:
        must_bid = not solo and rules.dealer_must_take and current < 0 and len(calls) == 3
        letter, strain = asker.ask(
            kind, seat, dealer, bid[seat], current, bidder, level, calls, must_bid, -1, heard
        )
        calls.append(letter)
        if letter == _PASS:
            passes += 1
            if (current < 0 and passes == players) or (current >= 0 and passes == players - 1):
                break
        elif strain >= 0:
            current, bidder, level, passes = strain, seat, 0, 0
            heard |= 1 << (HEARD_BITS * seat + strain)
        else:
            level += 1
            passes = 0
            if current == STRAIN_AT and (
                level == max_level or (level == 1 and rules.at_double_ends_auction)
            ):
                break
        seat = (seat + 1) % players
    if current < 0:
        return -1, -1, 0, calls
    return current, bidder, level, calls


def dealing_study(study: Any) -> Any:
    """The study that only deals (every seat passes, nothing is played): step 1."""
    if study.rules.bidding == "two_round":
        passing = PolicySpec("take", (1e9, 1e9, 1e9, 1e9))
    else:
        passing = PolicySpec("threshold", (1e9, 1e9, 1e9, 1e9, 1e9))
    return dataclasses.replace(study, bidding=[passing] * 4, play=[PolicySpec("random", ())] * 4)


def python_chunk(study: Any, chunk: int, length: int, keep_plays: bool,
                 rows: np.ndarray | None) -> dict[str, Any]:  # fmt: skip
    """``Study.run_chunk`` for a study in which some seat bids by a Python function (the
    module docstring): the same raw arrays."""
    rows = np.arange(length) if rows is None else np.asarray(rows)
    raw = dealing_study(study).run_chunk(chunk, length, False, rows)
    out = raw["out"]
    solo = study.rules.solo
    players = study.rules.players
    seeds = raw["seed"]
    contracts: dict[tuple[int, int, int], list[int]] = {}
    calls = np.zeros((len(rows), MAX_CALLS), dtype=np.uint8)
    asker = Asker(study)
    for i in range(len(rows)):
        row = out[i]
        dealer = int(row[S_DEALER if solo else COL_DEALER])
        bid = [int(row[(S_BID if solo else COL_BID0) + p]) for p in range(players)]
        turned = -1 if solo else int(row[COL_TURNED])
        asker.deal(int(raw["deal_id"][i]), int(seeds[i]))
        strain, taker, doubling, letters = run_auction(study, asker, bid, dealer, turned)
        calls[i, : len(letters)] = [ord(c) for c in letters]
        if strain >= 0:
            contracts.setdefault((taker, strain, doubling), []).append(i)
    plays = np.zeros((len(rows) if keep_plays else 1, 32), dtype=np.int64)
    for (taker, strain, doubling), where in contracts.items():
        fixed = dataclasses.replace(
            study, bidding=[PolicySpec("fixed", (taker, strain, doubling))] * 4
        )
        idx = np.array(where)
        part = fixed.run_chunk(chunk, length, keep_plays, rows[idx])
        out[idx] = part["out"]
        if keep_plays:
            plays[idx] = part["plays"]
    raw["calls"] = calls
    raw["plays"] = plays if keep_plays else None
    return raw
