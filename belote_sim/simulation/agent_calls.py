"""Per-call entry point: let another engine ask a belote-sim bidding policy for a call.

``choose_call(observation, policy="atlas_auction")`` takes what the seat to call knows
during the bidding and returns its call; ``legal_calls(observation)`` the calls it may
make.  The bidding observation is a dict (``belote_sim/data/observation.schema.json``,
``$defs/bidding``)::

    {"ruleset": "common", "options": {...}, "dealer": 3, "seat": 1,
     "hand": "JH 9H AH TS 7C",      # the cards the seat sees while bidding
     "calls": ["pass", "H"],        # the calls so far from seat dealer + 1, in order
     "turned": "JS"}                # french only: the turned card

``hand`` is the seat's bidding cards: 5 in the 4-player game (french: plus the turned
card, given apart) and the 3-player game, 6 in the 2-player game, 9 in open belot (its
five cards and its four face-up table cards).  ``calls`` are words (``"pass"``, a
strain's name ``C D H S NT AT``, ``"double"``, ``"redouble"``, ``"third_double"``) or
call letters (``p C D H S N A x r t``; a string of letters such as ``"pHx"`` is read
one call a letter).  The calls are replayed under the rules of docs/rules.md
section 4: an illegal one, or an observation where it is not ``seat``'s turn or the
bidding is over, is a ``ValueError``.  Answers are words.

Policies: every bidding policy of the package (``belote-sim simulate --help``) that bids in
the ruleset's bidding -- ``atlas_auction``, ``atlas``, ``threshold``, ``take``,
``rules:FILE``, ``py:MODULE:FUNCTION`` or a Python function (``BidView`` ->
answer) ...  The kernel policies are deterministic except where they visit the
suits of the french second round in a random order (``BidTurn.suit_order``): that
order is drawn from ``seed``, or, without a seed, from the observation itself (a
SHA-256 of its canonical text, ``bidding_text``), so that one observation
always gets the same call and ties between suits never fall by suit index.
"""

from __future__ import annotations

import copy
import os
from collections import OrderedDict
from typing import Any

from belote_sim.cards import mask_of, parse_card
from belote_sim.deal.agent import card_texts, observation_seed, rules_of
from belote_sim.kernels.suit_symmetry import NUM_SUIT_PERMS
from belote_sim.policies import BID_POLICIES, parse_policy, uses_rules
from belote_sim.rules import Rules
from belote_sim.simulation.py_bidding import (
    Asker,
    AuctionState,
    call_letter,
    call_word,
)
from belote_sim.simulation.study import make_study

__all__ = [
    "BIDDING_FIELDS",
    "FIXED",
    "bidding_cards",
    "bidding_text",
    "check_bidding_policy",
    "choose_call",
    "legal_calls",
    "read_bidding_observation",
]

#: The bidding policy that makes no calls (a simulation's fixed contract).
FIXED = "fixed"
#: The fields of a bidding observation.
BIDDING_FIELDS = ("ruleset", "options", "dealer", "seat", "hand", "calls", "turned")


def bidding_cards(rules: Rules) -> int:
    """How many cards a seat sees of its own while bidding under ``rules``
    (docs/rules.md sections 3 and 11): 5, 6 in the 2-player game, 9 in open belot."""
    if rules.variant == "open":
        return 9
    return 6 if rules.players == 2 else 5


def _seat(value: Any, what: str, players: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < players:
        raise ValueError(f"{what} must be a seat 0..{players - 1} (an integer), got {value!r}")
    return int(value)


def _call_letters(calls: Any) -> list[str]:
    if isinstance(calls, str):
        items = list(calls.replace(" ", ""))
    elif isinstance(calls, (list, tuple)) and all(isinstance(c, str) for c in calls):
        items = list(calls)
    else:
        raise ValueError(
            "observation 'calls' must be a list of calls (words or letters) or a string "
            f"of call letters, got {type(calls).__name__}"
        )
    letters = []
    for k, text in enumerate(items):
        letter = call_letter(text)
        if letter is None:
            raise ValueError(
                f"call {k + 1} {text!r} is not a call (pass, C D H S NT AT, double, "
                "redouble, third_double, or a letter p C D H S N A x r t)"
            )
        letters.append(letter)
    return letters


def read_bidding_observation(obs: Any, any_turn: bool = False) -> dict[str, Any]:
    """Validate a bidding observation (the module docstring); returns ``rules``,
    ``dealer``, ``seat``, ``hand`` (card mask), ``turned`` (card, -1 none) and
    ``state`` (a ``py_bidding.AuctionState`` with the calls so far replayed).
    ``ValueError`` (one line) names the problem.  ``any_turn``: ``seat`` need not be
    the seat to call (a table telling a player its cards)."""
    if not isinstance(obs, dict):
        raise ValueError("a bidding observation must be a dict")
    unknown = [k for k in obs if k not in BIDDING_FIELDS and not str(k).startswith("_")]
    if unknown:
        raise ValueError(f"unknown bidding observation field(s): {', '.join(map(repr, unknown))}")
    for key in ("dealer", "seat", "hand"):
        if key not in obs:
            raise ValueError(f"bidding observation lacks {key!r}")
    rules, _, rules_text = rules_of(obs.get("ruleset", "common"), obs.get("options"))
    n = rules.players
    dealer, seat = _seat(obs["dealer"], "dealer", n), _seat(obs["seat"], "seat", n)
    cards = card_texts(obs["hand"], "hand")
    if len(cards) != bidding_cards(rules):
        raise ValueError(
            f"a seat sees {bidding_cards(rules)} cards of its own while bidding in "
            f"{rules.name}, the hand has {len(cards)}"
        )
    if rules.deck_size == 24 and any(c & 7 < 2 for c in cards):
        raise ValueError("the 24-card deck has no 7s and 8s")
    turned = -1
    if rules.bidding == "two_round":
        if not isinstance(obs.get("turned"), str):
            raise ValueError("the french bidding needs the 'turned' card (text, e.g. \"JS\")")
        turned = parse_card(obs["turned"])
        if turned in cards:
            raise ValueError("the turned card is in the hand")
    elif obs.get("turned") is not None:
        raise ValueError(f"only the french two-round bidding turns a card ({rules.name} does not)")
    state = AuctionState(rules, dealer, turned)
    for k, letter in enumerate(_call_letters(obs.get("calls", []))):
        if state.over:
            raise ValueError(f"the bidding ended at call {k}: call {k + 1} is one too many")
        try:
            state.play(letter)
        except ValueError as exc:
            raise ValueError(f"call {k + 1}: {exc}") from None
    if state.over:
        raise ValueError("the bidding is over: no call to make")
    if state.seat != seat and not any_turn:
        raise ValueError(f"it is seat {state.seat}'s turn to call, not seat {seat}'s")
    return dict(rules=rules, rules_text=rules_text, dealer=dealer, seat=seat,
                hand=mask_of(cards), turned=turned, state=state)  # fmt: skip


def bidding_text(read: dict[str, Any]) -> str:
    """The canonical text of a read bidding observation (``read_bidding_observation``),
    fields joined by ``|``: ``bidding``, the rules as JSON (name and every option,
    sorted keys, no spaces), dealer, seat, the hand's card mask, the turned card (-1:
    none), the call letters so far.  ``agent.observation_seed`` of it seeds an
    unseeded ``choose_call``."""
    parts = [
        "bidding",
        read["rules_text"],
        read["dealer"],
        read["seat"],
        read["hand"],
        read["turned"],
    ]
    return "|".join(map(str, parts)) + "|" + "".join(read["state"].calls)


def legal_calls(bidding_observation: dict[str, Any]) -> list[str]:
    """The calls the seat to call may make (words: ``"pass"``, a strain's name such as
    ``"H"`` or ``"NT"``, ``"double"``, ``"redouble"``, ``"third_double"``), in the
    order pass, the strains low to high, the doubles.  ``ValueError`` (one line) for a
    bad observation."""
    read = read_bidding_observation(bidding_observation)
    return [call_word(c) for c in read["state"].legal()]


#: Askers (policy arrays, atlas and rule books loaded) by rules and policy: the most
#: recent few.
_ASKERS: OrderedDict[tuple[Any, ...], Asker] = OrderedDict()
_ASKERS_KEPT = 16


def _asker(rules: Rules, policy: Any) -> Asker:
    """What asks ``policy`` under ``rules``: the study's policy arrays, atlas and rule
    books (cached; a rule file is read again when it changes)."""
    if isinstance(policy, str):
        key: tuple[Any, ...] = (policy.strip(),)
        name, _, path = policy.strip().partition(":")
        if name in BID_POLICIES and uses_rules(name) and path:
            try:
                stat = os.stat(path.strip())
                key += (stat.st_mtime_ns, stat.st_size)
            except OSError:
                key += (None,)
    elif callable(policy):
        key = (policy,)
    else:
        raise ValueError(f"bidding policy must be a name or a function, got {policy!r}")
    key = (rules, *key)
    asker = _ASKERS.get(key)
    if asker is None:
        spec = parse_policy(policy, BID_POLICIES, "bidding")
        if spec.name == FIXED:
            raise ValueError(
                "the fixed bidding policy sets a simulation's contract and makes no call: "
                "give a policy that bids"
            )
        asker = Asker(make_study(rules, bidding=spec))
        _ASKERS[key] = asker
        if len(_ASKERS) > _ASKERS_KEPT:
            _ASKERS.popitem(last=False)
    else:
        _ASKERS.move_to_end(key)
    return asker


def check_bidding_policy(rules: Rules, policy: Any) -> None:
    """``ValueError`` (one line) unless ``policy`` is a bidding policy that bids in
    ``rules``'s bidding (its tables are loaded, for the calls to come)."""
    _asker(rules, policy)


def choose_call(
    bidding_observation: dict[str, Any], policy: Any = "atlas_auction", seed: int | None = None
) -> str:
    """The call (a word, as ``legal_calls``) that the bidding ``policy`` makes in this
    observation: any bidding policy that bids in the ruleset's bidding (a name with
    parameters, ``rules:FILE``, ``py:MODULE:FUNCTION``, a Python function).  ``seed``
    (0..2**64-1; a deal's ``seed`` in a deals table gives the simulator's order) draws
    the order in which the french second round visits suits;
    without it the order is drawn from the observation (the module docstring).
    ``ValueError`` (one line) for a bad observation, policy or seed, or a function that
    answers an illegal call."""
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 64
    ):
        raise ValueError(f"seed must be an integer 0..2**64-1, got {seed!r}")
    read = read_bidding_observation(bidding_observation)
    rules, state = read["rules"], read["state"]
    asker = copy.copy(_asker(rules, policy))  # its suit order is this call's
    if seed is None:
        seed = observation_seed(bidding_text(read))
    asker.deal(0, int(seed) % NUM_SUIT_PERMS)
    letter, _ = asker.ask(
        state.kind, state.seat, read["dealer"], read["hand"], state.current, state.bidder,
        state.level, list(state.calls), state.must_bid, read["turned"], state.heard,
    )  # fmt: skip
    return call_word(letter)
