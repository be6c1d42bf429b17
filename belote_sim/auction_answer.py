"""A hand's answer in the middle of an auction: every legal call, on consistent deals.

``answer_in_auction(hand, auction, position)`` answers "partner bid hearts, the
opponent doubled -- what now?": for every legal call of the seat now (pass, each bid,
double, redouble), the expected net MP of the seat's team ± s.e. and P(the contract
is made), on deals consistent with what the seat knows -- its 5 cards and the calls
heard -- the other three seats bidding by a named model (``others``, default
``atlas_auction``), the auction continued by that model after the call, and the
contract played by ``play``.

How the deals are made consistent: rejection sampling through the bidding kernels.
Candidate deals are dealt by the engine's own dealing (the seat's 5 cards predealt,
the other 27 uniformly at random; the study's seed stream, ``Study.chunk_seeds``);
the calls so far are replayed with the model's policy at the other three seats (the
seat's own earlier calls forced to those heard), and a deal is kept only when every
call of the other seats is the one heard (``kernels.auction_deals``).  The kept deals
are exactly distributed as the deals given the hand and the auction under the model.
Each kept deal is then bid once per legal call of the seat: the call forced, then
every seat -- the asking seat's later turns too -- calling as the model does until
the auction ends; every call is compared on the same deals (paired differences).
The contracts are played by grouping the (deal, contract) pairs by contract and
playing each group with the ``fixed`` bidding policy on the same seeds
(``simulation.py_bidding`` does the same), so a deal and its play are exactly those
of the engine.  A ``py:`` model runs the replay in Python (``py_bidding.Asker``:
tens of microseconds per call, so slower).

Only the auction of docs/rules.md section 4.1 (the 4-player common and bulgarian
rules): the french two rounds and take-or-pass are refused in one line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from belote_sim.atlas import HAND_DEALS, position_of
from belote_sim.cards import format_cards, parse_cards
from belote_sim.rules import Rules
from belote_sim.stats import mean_se, wilson_interval

__all__ = [
    "ANSWER_COLUMNS",
    "MAX_DEALS",
    "MIN_ACCEPTANCE",
    "PILOT_TRIES",
    "AuctionAnswer",
    "AuctionState",
    "answer_in_auction",
    "auction_state",
    "auction_words",
    "call_name",
    "parse_auction",
]

#: The call letters of the deals table's ``auction`` column.
CALL_LETTERS = "pCDHSNAxrt"
_STRAINS = "CDHSNA"
#: A call letter -> its word in the readable notation.
_WORDS = {
    "p": "pass",
    "C": "clubs",
    "D": "diamonds",
    "H": "hearts",
    "S": "spades",
    "N": "no trumps",
    "A": "all trumps",
    "x": "double",
    "r": "redouble",
    "t": "third double",
}
#: Words (lower case, spaces and underscores removed) -> call letter.
_READ = {w.replace(" ", ""): letter for letter, w in _WORDS.items()}
_READ |= {
    "p": "p",
    "c": "C",
    "club": "C",
    "d": "D",
    "diamond": "D",
    "h": "H",
    "heart": "H",
    "s": "S",
    "spade": "S",
    "n": "N",
    "nt": "N",
    "notrump": "N",
    "sa": "N",
    "a": "A",
    "at": "A",
    "alltrump": "A",
    "ta": "A",
    "x": "x",
    "dbl": "x",
    "xx": "r",
    "r": "r",
    "rdbl": "r",
    "t": "t",
    "xxx": "t",
    "thirddouble": "t",
    "-": "",
}
#: Calls seen so far below this share of tried deals after ``PILOT_TRIES`` tries: the
#: auction is refused as (nearly) impossible under the model.
MIN_ACCEPTANCE = 0.001
#: Candidate deals tried before the acceptance is judged.
PILOT_TRIES = 20_000
#: Most kept deals of one answer (about 20 bytes per deal and call are kept).
MAX_DEALS = 10_000_000
#: Candidate deals per kernel call (the first block; later ones sized to what is left).
_BLOCK = 4096
#: Kept deals played per call of the play kernels (the progress bar's step).
_PLAY_SLICE = 2048

#: The columns of an answer's table: per legal call, ``call`` (letter) and ``words``;
#: ``n`` deals; ``net_mp_x1`` the seat's team's MP minus the other team's per deal
#: (added now; 0 when thrown in) ± ``net_mp_x1_se``; ``p_made`` the share of deals whose
#: final contract (whoever took it) is made, among those played, with its Wilson 95%
#: interval; ``p_ours`` the share in which the seat's team takes; ``p_thrown_in``;
#: ``vs_best`` the paired difference of net MP from the best call on the same deals ±
#: ``vs_best_se``; ``model`` whether the model itself would make this call; ``contracts``
#: the most frequent final contracts with their shares.
ANSWER_COLUMNS = (
    "call",
    "words",
    "n",
    "net_mp_x1",
    "net_mp_x1_se",
    "p_made",
    "p_made_low",
    "p_made_high",
    "p_ours",
    "p_thrown_in",
    "vs_best",
    "vs_best_se",
    "model",
    "contracts",
)


def call_name(letter: str) -> str:
    """A call letter's word in the readable notation (``"H"`` -> ``"hearts"``)."""
    return _WORDS[letter]


def parse_auction(text: str) -> str:
    """The calls of an auction as call letters (``"pHx"``), from the deals table's
    notation (``"pHx"``, any case; ``""`` or ``"-"``: no call yet) or the readable one
    (calls separated by commas: ``"pass, hearts, double"``; a strain by its name or
    letter, ``NT``/``no trumps``, ``AT``/``all trumps``; ``double``/``x``,
    ``redouble``/``xx``, ``third double``).  ``ValueError`` names what is not a call."""
    if not isinstance(text, str):
        raise ValueError(f"auction: give the calls as text, got {text!r}")
    stripped = text.strip()
    if "," in stripped or " " in stripped or stripped.lower().replace("_", "") in _READ:
        words = [w for w in stripped.split(",")] if "," in stripped else [stripped]
        letters = []
        for word in words:
            key = word.strip().lower().replace(" ", "").replace("_", "")
            if key not in _READ:
                raise ValueError(
                    f"auction: {word.strip()!r} is not a call (pass, clubs, diamonds, hearts, "
                    "spades, no trumps, all trumps, double, redouble, third double)"
                )
            letters.append(_READ[key])
        return "".join(letters)
    letters = []
    for ch in stripped:
        letter = ch if ch in CALL_LETTERS else ch.upper() if ch.upper() in _STRAINS else ch.lower()
        if letter not in CALL_LETTERS:
            raise ValueError(
                f"auction: {ch!r} is not a call letter (p pass, C D H S N A a bid, x double, "
                f"r redouble, t third double) in {text!r}"
            )
        letters.append(letter)
    return "".join(letters)


def auction_words(letters: str) -> str:
    """Call letters in the readable notation: ``"pHx"`` -> ``"pass, hearts, double"``
    (``"(none)"`` for no call)."""
    return ", ".join(_WORDS[c] for c in letters) if letters else "(none)"


@dataclass(frozen=True)
class AuctionState:
    """An auction of section 4.1 after some calls: who speaks (``seat``), the strain
    held (``current``, -1 none) by ``bidder`` at doubling ``level``, the strains each
    seat has bid (``heard``, ``records.BidTurn.heard``), the dealer must take
    (``must_bid``), whether the auction is over, and the legal calls now (letters)."""

    seat: int
    current: int
    bidder: int
    level: int
    heard: int
    must_bid: bool
    over: bool
    legal: tuple[str, ...]


def auction_state(letters: str, dealer: int, rules: Rules) -> AuctionState:
    """Replay the calls ``letters`` from ``dealer + 1`` under ``rules`` (the auction of
    section 4.1) and return the state after them; ``ValueError`` in one line for a call
    that is not legal where it stands, or a call after the end of the auction."""
    from belote_sim.kernels.records import BID_AUCTION, HEARD_BITS
    from belote_sim.simulation.py_bidding import legal_call_letters

    max_level = 3 if rules.third_double else 2
    seat = (dealer + 1) % 4
    current, bidder, level, passes, heard = -1, -1, 0, 0, 0
    over = False
    for t, letter in enumerate(letters):
        must_bid = bool(rules.dealer_must_take) and current < 0 and t == 3
        where = f"call {t + 1} ({_WORDS.get(letter, letter)!r}, at position {t % 4 + 1})"
        if over:
            raise ValueError(
                f"auction {letters!r}: the auction is over before {where}: no seat speaks after it"
            )
        legal = legal_call_letters(BID_AUCTION, rules, seat, current, bidder, level, must_bid, -1)
        if letter not in legal:
            raise ValueError(
                f"auction {letters!r}: {where} is not legal there "
                f"(legal: {', '.join(_WORDS[c] for c in legal)})"
            )
        if letter == "p":
            passes += 1
            over = (current < 0 and passes == 4) or (current >= 0 and passes == 3)
        elif letter in _STRAINS:
            current, bidder, level, passes = _STRAINS.index(letter), seat, 0, 0
            heard |= 1 << (HEARD_BITS * seat + current)
        else:
            level += 1
            passes = 0
            over = current == _STRAINS.index("A") and (
                level == max_level or (level == 1 and bool(rules.at_double_ends_auction))
            )
        seat = (seat + 1) % 4
    must_bid = bool(rules.dealer_must_take) and current < 0 and len(letters) == 3
    now: tuple[str, ...] = ()
    if not over:
        now = tuple(
            legal_call_letters(BID_AUCTION, rules, seat, current, bidder, level, must_bid, -1)
        )
    return AuctionState(seat, current, bidder, level, heard, must_bid, over, now)


def _who(taker: int, seat: int) -> str:
    if taker == seat:
        return "me"
    if taker == seat ^ 2:
        return "partner"
    return "next opp." if taker == (seat + 1) % 4 else "prev. opp."


def _contract_code(strain: int, taker: int, doubling: int) -> int:
    """A final contract as one number (-1: thrown in); ``_contract_fields`` reads it."""
    return -1 if strain < 0 else strain * 100 + taker * 10 + doubling


def _contract_fields(code: int) -> tuple[int, int, int]:
    return (-1, -1, 0) if code < 0 else (code // 100, code // 10 % 10, code % 10)


def _contract_label(strain: int, taker: int, doubling: int, seat: int) -> str:
    if strain < 0:
        return "thrown in"
    name = ("C", "D", "H", "S", "NT", "AT")[strain]
    return f"{name} by {_who(taker, seat)}" + (f" {'x' * doubling}" if doubling else "")


@dataclass
class AuctionAnswer:
    """The answer of ``answer_in_auction``: the hand, its seat and dealer, the calls so
    far (``auction``, letters), the rules, the model (``others``) and play specs, one
    row per legal call (``table``, ``ANSWER_COLUMNS``), the deals tried and accepted
    (kept), the deals per call, the seed, how the deals were made (``method``) and how
    many (deal, contract) pairs were played (``plays``: a pair that several calls lead
    to is played once)."""

    hand: str
    seat: int
    dealer: int
    auction: str
    rules: Rules
    others: str
    play: str
    table: pd.DataFrame
    tried: int
    accepted: int
    deals: int
    seed: int
    method: str
    plays: int = 0
    nets: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def position(self) -> int:
        return position_of(self.seat, self.dealer)

    @property
    def acceptance(self) -> float:
        """The share of tried deals consistent with the auction (kept)."""
        return self.accepted / self.tried if self.tried else float("nan")

    @property
    def best_calls(self) -> list[str]:
        """The call with the highest expected net MP x1, with every call that gives the
        same net MP on every deal (they cannot be told apart: no tie is broken by an
        arbitrary order)."""
        return self.ties(str(self.table.loc[self.table["net_mp_x1"].idxmax(), "call"]))

    def ties(self, call: str) -> list[str]:
        """``call`` and every call that scores the same as it on every deal, in the
        table's order."""
        return [c for c in self.table["call"] if np.array_equal(self.nets[c], self.nets[call])]

    @property
    def runner_up(self) -> list[str]:
        """The best call among those not tied with the best, with its ties ([]: every
        call ties with the best)."""
        rest = self.table[~self.table["call"].isin(self.best_calls)]
        return [] if rest.empty else self.ties(str(rest.loc[rest["net_mp_x1"].idxmax(), "call"]))

    def difference(self, call: str, other: str) -> tuple[float, float]:
        """Paired difference of net MP x1 (``call`` minus ``other``) on the same deals
        ± s.e. (match points per deal)."""
        return mean_se(self.nets[call] - self.nets[other])

    def records(self) -> list[dict[str, Any]]:
        """JSON-ready rows, one per call (``ANSWER_COLUMNS``; NaN as None), each with the
        answer's ``hand``, ``position``, ``auction`` (letters and words), ``others``,
        ``play``, ``tried``, ``accepted``, ``acceptance``, ``seed``, ``best_calls`` and
        ``runner_up``."""
        extra = {
            "hand": self.hand,
            "position": self.position,
            "auction": self.auction,
            "auction_words": auction_words(self.auction),
            "others": self.others,
            "play": self.play,
            "tried": self.tried,
            "accepted": self.accepted,
            "acceptance": self.acceptance,
            "seed": self.seed,
            "best_calls": self.best_calls,
            "runner_up": self.runner_up,
        }
        rows = []
        for row in self.table.to_dict("records"):
            rows.append({k: _plain(v) for k, v in row.items()} | extra)
        return rows


def _plain(v: Any) -> Any:
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if np.isfinite(v) else None
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    return v


def _check_rules(rules: Rules) -> None:
    if rules.players != 4 or rules.bidding != "auction":
        raise ValueError(
            f"answers in an auction are for the auction of section 4.1 (the 4-player common "
            f"and bulgarian rules), not the {rules.name} rules' "
            f"{rules.bidding.replace('_', '-')} bidding"
        )
    if rules.max_doubling < 2:
        raise ValueError(
            "answers in an auction need contracts that can be doubled: french scoring "
            "plays none (Rules.max_doubling 0), while the auction of section 4.1 doubles"
        )


def answer_in_auction(
    hand: str,
    auction: str = "",
    position: int | None = None,
    seat: int = 0,
    dealer: int | None = None,
    rules: Rules | str = "common",
    options: dict[str, Any] | None = None,
    others: Any = "atlas_auction",
    play: Any = None,
    deals: int = HAND_DEALS,
    seed: int = 0,
    threads: int | None = None,
    progress: Callable[[int], None] | None = None,
    min_acceptance: float = MIN_ACCEPTANCE,
) -> AuctionAnswer:
    """Every legal call of a 5-card ``hand`` now, after the calls ``auction`` (the deals
    table's letters ``"pHx"`` or words ``"pass, hearts, double"``, ``parse_auction``).

    The seat speaks at ``position`` (1 = first after the dealer .. 4 = the dealer; seat
    0, the dealer set from it; default: the position whose turn the auction reached),
    or give ``seat`` and ``dealer``.  ``others``: the bidding policy of the other seats
    (and of the seat's own later calls) -- any bidding policy spec, ``rules:FILE`` and
    ``py:MODULE:FUNCTION`` included, a Python function, or a list of four, one per seat
    (partner bidding another system than the opponents; the seat's own entry bids its
    later calls); ``play``: every seat's play policy (None: the
    default, ``expert:0``).  ``deals``: consistent deals kept (the same for every call);
    ``seed``: the deals' seed (``SeedSequence``); ``threads``: numba threads (the answer
    does not depend on it); ``progress(n)``: told of each ``n`` more deals kept.

    Returns an ``AuctionAnswer`` whose ``table`` has one row per legal call: expected net
    MP x1 of the seat's team (match points per deal) ± s.e., P(made) of the final
    contract with its Wilson 95% interval, and the paired difference from the best
    call.  ``ValueError`` in one line for a bad hand, position or rules, an illegal
    auction, one already over, or one whose calls the model makes on fewer than
    ``min_acceptance`` of the deals tried (after ``PILOT_TRIES`` tries).
    """
    from belote_sim.atlas import play_spec
    from belote_sim.kernels.auction_deals import (
        MEMO_BITS,
        NUM_CONTRACT_FIELDS,
        auction_answers,
    )
    from belote_sim.kernels.bidding import MAX_CALLS
    from belote_sim.kernels.simulate import (
        COL_BID0,
        COL_DEALER,
    )
    from belote_sim.policies import PY_POLICY, PolicySpec, menu_of
    from belote_sim.simulation.compiling import prepare
    from belote_sim.simulation.py_bidding import dealing_study
    from belote_sim.simulation.runner import numba_threads
    from belote_sim.simulation.study import check_no_failed, make_study

    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 2:
        raise ValueError(f"deals must be an integer of at least 2, got {deals!r}")
    if deals > MAX_DEALS:
        raise ValueError(
            f"deals: at most {MAX_DEALS:,} kept deals (each kept with every call in memory), "
            f"got {deals:,}"
        )
    if not 0 < min_acceptance < 1:
        raise ValueError(f"min_acceptance must be in (0, 1), got {min_acceptance!r}")
    rules = Rules.from_spec(rules, options)
    _check_rules(rules)
    cards = parse_cards(hand)
    if len(cards) != 5:
        raise ValueError(
            f"hand: an answer in an auction takes the 5 bidding cards, got {len(cards)}"
        )
    text = " ".join(format_cards(cards))
    letters = parse_auction(auction)
    if len(letters) >= MAX_CALLS:
        raise ValueError(
            f"auction: {len(letters)} calls; the engine ends an auction at {MAX_CALLS} calls"
        )
    if position is not None:
        if position not in (1, 2, 3, 4):
            raise ValueError(f"position must be 1..4, got {position!r}")
        if dealer is not None:
            raise ValueError("give the position or the dealer, not both")
        seat, dealer = 0, (4 - position) % 4
    elif dealer is None:
        dealer = (seat - 1 - len(letters)) % 4  # the seat whose turn the auction reached
    if seat not in range(4) or dealer not in range(4):
        raise ValueError(f"seat and dealer must be 0..3, got {seat!r} and {dealer!r}")
    speaker = (dealer + 1 + len(letters)) % 4
    state = auction_state(letters, dealer, rules)
    if state.over:
        raise ValueError(f"auction {letters!r}: the auction is over: no call is left to answer")
    if speaker != seat:
        raise ValueError(
            f"auction {letters!r}: after {len(letters)} calls position "
            f"{position_of(speaker, dealer)} speaks, not position {position_of(seat, dealer)} "
            "(the calls so far are those made before this seat speaks)"
        )
    study = make_study(
        rules, others, play_spec(play, rules), seed, predeal={seat: text}, dealer=dealer
    )
    if any(s.name == "fixed" for s in study.bidding):
        raise ValueError("--others: the fixed bidding policy has no auction to model")
    specs = [str(spec) for spec in study.bidding]
    others_text = (
        specs[0]
        if len(set(specs)) == 1
        else ", ".join(f"{_who(s, seat)} {spec}" for s, spec in enumerate(specs))
    )
    play_text = str(study.play[0])
    dealing = dealing_study(study)
    ours = [c for c in CALL_LETTERS if c in state.legal]  # the table's order
    n_ours = len(ours)
    prefix = np.frombuffer(letters.encode(), dtype=np.uint8).copy()
    ours_codes = np.frombuffer("".join(ours).encode(), dtype=np.uint8).copy()
    order = _check_order(letters, dealer, seat)
    python_model = study.python_bidding
    if python_model:
        from belote_sim.simulation.py_bidding import Asker

        asker = Asker(study)
    else:
        rules_array = rules.to_array()
        ids, params = study.bid_arrays
        policies = (ids, params, menu_of((), study.bidding, 4, ()))
        tables = study.atlas_arrays
        memo = np.zeros((max(len(order), 1), 1 << MEMO_BITS), dtype=np.int64)
    model_call = _model_call(study, text, seat, dealer, letters, state)

    prepare(dealing)  # the kernels compiled (or loaded) before the clock, with a notice
    strain = next(s for s in range(6) if rules.strain_allowed(s))
    prepare(dataclasses.replace(study, bidding=[PolicySpec("fixed", (seat, strain, 0))] * 4))
    chunk_size = study.chunk_size
    nets = np.zeros((deals, n_ours))  # per kept deal and call: net MP of our team
    made = np.zeros((deals, n_ours), dtype=bool)
    played = np.zeros((deals, n_ours), dtype=bool)
    takes = np.zeros((deals, n_ours), dtype=bool)
    labels = np.zeros((deals, n_ours), dtype=np.int32)  # the contract: _contract_code
    accepted = tried = first = plays = 0
    chunk, offset = 0, 0
    with numba_threads(threads):
        while accepted < deals:
            left = deals - accepted
            rate = accepted / tried if accepted else 0.0
            want = _BLOCK if rate == 0 else int(min(1.25 * left / rate + 256, 16 * _BLOCK * 4))
            size = min(max(want, _BLOCK), chunk_size - offset)
            rows = np.arange(offset, offset + size)
            raw = dealing.run_chunk(chunk, chunk_size, False, rows)
            out = raw["out"]
            bid = np.ascontiguousarray(out[:, COL_BID0 : COL_BID0 + 4])
            dealers = np.ascontiguousarray(out[:, COL_DEALER])
            ok = np.zeros(size, dtype=np.uint8)
            contracts = np.zeros((size, n_ours, NUM_CONTRACT_FIELDS), dtype=np.int64)
            if python_model:
                _python_answers(
                    study, asker, bid, dealers, seat, letters, ours, raw["seed"], ok, contracts
                )
            else:
                calls = np.zeros((1, 1, MAX_CALLS), dtype=np.uint8)
                n_failed = auction_answers(
                    bid, dealer, prefix, order, ours_codes, rules_array, policies, tables,
                    memo, ok, contracts, calls, False,
                )  # fmt: skip
                check_no_failed(n_failed)
            hits = np.flatnonzero(ok)
            if len(hits) > left:  # the first ``deals`` kept, in the seeds' order
                hits = hits[:left]
                tried += int(hits[-1]) + 1
            else:
                tried += size
            accepted += len(hits)
            if tried >= PILOT_TRIES or accepted >= deals:
                _check_acceptance(accepted, tried, min_acceptance, letters, others_text, text)
            # the kept deals played now, in slices: the progress bar moves as they are
            for at in range(0, len(hits), _PLAY_SLICE):
                some = hits[at : at + _PLAY_SLICE]
                where = slice(first, first + len(some))
                plays += _play(
                    study, chunk, rows[some], contracts[some], seat,
                    nets[where], made[where], played[where], takes[where], labels[where],
                )  # fmt: skip
                first += len(some)
                if progress is not None:
                    progress(len(some))
            offset += size
            if offset >= chunk_size:
                chunk, offset = chunk + 1, 0
    assert first == deals
    answer = _answer(
        text, seat, dealer, letters, rules, others_text, play_text, ours, model_call,
        nets, made, played, takes, labels, tried, accepted, deals, seed,
        python_model and PY_POLICY,
    )  # fmt: skip
    answer.plays = plays
    return answer


def _play(study: Any, chunk: int, rows: np.ndarray, contracts: np.ndarray, seat: int,
          nets: np.ndarray, made: np.ndarray, played: np.ndarray, takes: np.ndarray,
          labels: np.ndarray) -> int:  # fmt: skip
    """Play kept deals (``rows`` of ``chunk``) in the contracts each call leads to
    (``contracts`` (n, calls, K_*)): every distinct (deal, contract) once, grouped by
    contract, with the ``fixed`` bidding policy on the same seeds (the engine's deal and
    play).  Fills the per-deal-and-call arrays; returns the pairs played."""
    from belote_sim.kernels.auction_deals import K_DOUBLING, K_STRAIN, K_TAKER
    from belote_sim.kernels.simulate import COL_MP0, COL_MP1, COL_OUTCOME
    from belote_sim.kernels.tables import OUTCOME_MADE
    from belote_sim.policies import PolicySpec

    team = seat % 2
    mine, theirs = (COL_MP0, COL_MP1) if team == 0 else (COL_MP1, COL_MP0)
    keys = contracts[:, :, K_STRAIN] * 1000 + contracts[:, :, K_TAKER] * 10
    keys = keys + contracts[:, :, K_DOUBLING]
    n_played = 0
    for key in np.unique(keys):
        i_deal, i_call = np.nonzero(keys == key)
        strain, taker, doubling = (
            int(contracts[i_deal[0], i_call[0], f]) for f in (K_STRAIN, K_TAKER, K_DOUBLING)
        )
        labels[i_deal, i_call] = _contract_code(strain, taker, doubling)
        if strain < 0:  # thrown in: net 0, nothing played
            continue
        fixed = dataclasses.replace(
            study, bidding=[PolicySpec("fixed", (taker, strain, doubling))] * 4
        )
        unique = np.unique(i_deal)
        out = fixed.run_chunk(chunk, study.chunk_size, False, rows[unique])["out"]
        n_played += len(unique)
        row = out[np.searchsorted(unique, i_deal)]
        nets[i_deal, i_call] = row[:, mine] - row[:, theirs]
        takes[i_deal, i_call] = taker % 2 == team
        made[i_deal, i_call] = row[:, COL_OUTCOME] == OUTCOME_MADE
        played[i_deal, i_call] = True
    return n_played


def _check_order(letters: str, dealer: int, seat: int) -> np.ndarray:
    """The indices of the other seats' calls in ``letters``, in the order the kernel
    checks them (``kernels.auction_deals.prefix_heard``): doubles first, then bids, then
    passes (the rarer a call, the sooner a deal that does not make it is rejected), later
    calls first among each.  Only the speed depends on it: a deal is kept when every
    call matches."""
    rank = {"p": 2} | {c: 1 for c in _STRAINS}
    others = [t for t in range(len(letters)) if (dealer + 1 + t) % 4 != seat]
    others.sort(key=lambda t: (rank.get(letters[t], 0), -t))
    return np.array(others, dtype=np.int64)


def _check_acceptance(accepted: int, tried: int, least: float, letters: str, others: str,
                      hand: str) -> None:  # fmt: skip
    if accepted >= least * tried:
        return
    what = "impossible" if accepted == 0 else "nearly impossible"
    raise ValueError(
        f"auction {letters!r} ({auction_words(letters)}) is {what} under {others} with {hand}: "
        f"{accepted:,} of {tried:,} deals tried are consistent ({accepted / tried:.3%}; "
        f"at least {least:.1%} needed)"
    )


def _model_call(study: Any, hand: str, seat: int, dealer: int, letters: str,
                state: AuctionState) -> str:  # fmt: skip
    """The call the model itself makes now with ``hand`` (it sees only its cards and the
    auction): asked once through ``py_bidding.Asker``."""
    from belote_sim.kernels.records import BID_AUCTION
    from belote_sim.simulation.py_bidding import Asker

    mask = sum(1 << c for c in parse_cards(hand))
    asker = Asker(study)
    letter, _ = asker.ask(
        BID_AUCTION, seat, dealer, mask, state.current, state.bidder, state.level,
        list(letters), state.must_bid, -1, state.heard,
    )  # fmt: skip
    return letter


def _python_answers(study: Any, asker: Any, bid: np.ndarray, dealers: np.ndarray, seat: int,
                    letters: str, ours: list[str], seeds: np.ndarray, ok: np.ndarray,
                    contracts: np.ndarray) -> None:  # fmt: skip
    """``kernels.auction_deals.auction_answers`` in Python, for a ``py:`` model."""
    for i in range(len(bid)):
        dealer = int(dealers[i])
        cards = [int(c) for c in bid[i]]
        asker.deal(i, int(seeds[i]))
        if _python_auction(study, asker, cards, dealer, seat, letters, stop=True) is None:
            continue
        for k, call in enumerate(ours):
            result = _python_auction(study, asker, cards, dealer, seat, letters + call, stop=False)
            assert result is not None  # the model's calls of the prefix do not change
            contracts[i, k, :3] = result
        ok[i] = 1


def _python_auction(study: Any, asker: Any, cards: list[int], dealer: int, seat0: int,
                    given: str, stop: bool) -> tuple[int, int, int] | None:  # fmt: skip
    """``kernels.auction_deals.forced_auction`` in Python: None when rejected, else the
    contract ``(strain, taker, doubling)`` (strain -1: thrown in or stopped)."""
    from belote_sim.kernels.bidding import MAX_CALLS
    from belote_sim.kernels.records import BID_AUCTION, HEARD_BITS

    rules = study.rules
    max_level = 3 if rules.third_double else 2
    calls: list[str] = []
    current, bidder, level, passes, heard = -1, -1, 0, 0, 0
    seat = (dealer + 1) % 4
    while len(calls) < MAX_CALLS:
        t = len(calls)
        if stop and t == len(given):
            return -1, -1, 0
        if t < len(given) and seat == seat0:
            letter = given[t]
        else:
            must_bid = bool(rules.dealer_must_take) and current < 0 and t == 3
            letter, _ = asker.ask(
                BID_AUCTION, seat, dealer, cards[seat], current, bidder, level, calls,
                must_bid, -1, heard,
            )  # fmt: skip
            if t < len(given) and letter != given[t]:
                return None
        calls.append(letter)
        if letter == "p":
            passes += 1
            if (current < 0 and passes == 4) or (current >= 0 and passes == 3):
                break
        elif letter in _STRAINS:
            current, bidder, level, passes = _STRAINS.index(letter), seat, 0, 0
            heard |= 1 << (HEARD_BITS * seat + current)
        else:
            level += 1
            passes = 0
            if current == 5 and (
                level == max_level or (level == 1 and bool(rules.at_double_ends_auction))
            ):
                break
        seat = (seat + 1) % 4
    if current < 0:
        return -1, -1, 0
    return current, bidder, level


def _answer(hand, seat, dealer, letters, rules, others, play, ours, model_call, nets,
            made, played, takes, labels, tried, accepted, deals, seed,
            python) -> AuctionAnswer:  # fmt: skip
    rows = []
    by_call = {}
    for k, call in enumerate(ours):
        net = nets[:, k]
        by_call[call] = net
        n_played = int(played[:, k].sum())
        n_made = int(made[:, k].sum())
        low, high = wilson_interval(n_made, n_played)
        codes, counts = np.unique(labels[:, k], return_counts=True)
        mix = pd.Series(counts, index=[_contract_label(*_contract_fields(c), seat) for c in codes])
        mix = mix.sort_index(kind="stable").sort_values(ascending=False, kind="stable")
        mean, se = mean_se(net)
        rows.append(
            {
                "call": call,
                "words": call_name(call),
                "n": deals,
                "net_mp_x1": mean,
                "net_mp_x1_se": se,
                "p_made": n_made / n_played if n_played else float("nan"),
                "p_made_low": float(low),
                "p_made_high": float(high),
                "p_ours": float(takes[:, k].mean()),
                "p_thrown_in": float(mix.get("thrown in", 0)) / deals,
                "vs_best": float("nan"),
                "vs_best_se": float("nan"),
                "model": call == model_call,
                "contracts": [(str(lab), float(c / deals)) for lab, c in mix.head(4).items()],
            }
        )
    table = pd.DataFrame(rows, columns=list(ANSWER_COLUMNS))
    method = (
        "rejection sampling: the other 27 cards dealt at random, the calls so far replayed "
        f"with {others} at the other seats (in Python: a py: model), a deal kept when every "
        "call is the one heard"
        if python
        else "rejection sampling: the other 27 cards dealt at random, the calls so far replayed "
        f"through the bidding kernel with {others} at the other seats, a deal kept when every "
        "call is the one heard"
    )
    answer = AuctionAnswer(
        hand, seat, dealer, letters, rules, others, play, table, tried, accepted, deals, seed,
        method, nets=by_call,
    )  # fmt: skip
    best = answer.best_calls[0]
    for i, call in enumerate(table["call"]):
        table.loc[i, "vs_best"], table.loc[i, "vs_best_se"] = (
            answer.difference(call, best) if call not in answer.best_calls else (0.0, 0.0)
        )
    return answer
