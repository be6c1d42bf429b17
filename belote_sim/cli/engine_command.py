"""``belote-sim engine``: a belote-sim player behind a line-oriented JSON protocol.

One JSON object per line on standard input, one answer line per request on standard
output, flushed at once (docs/guide/engine.md, protocol 1).  The engine plays one seat
of each deal: the table tells it its cards, the other seats' calls and cards as they
happen, and asks ``call?`` / ``card?``; its answer is its call or card, made at once
(the table does not send it back).  The decisions are the agent API's
(``belote_sim.choose_call``, ``belote_sim.choose_card``).  A malformed or illegal line
gets ``{"error": "..."}`` and changes nothing; the engine goes on.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import IO, Any

from belote_sim._version import __version__
from belote_sim.input_limits import RECORD_LINE_LIMIT, limit_words

__all__ = ["PROTOCOL", "Engine", "cmd_engine", "serve"]

#: The protocol's version (``hello``).  A change that breaks a client raises it.
PROTOCOL = 1
#: The play policies the engine plays by (``dd`` needs every hand: not at a table).
ENGINE_PLAY = ("random", "greedy", "expert", "pimc")
#: The default bidding policy of each ruleset.
DEFAULT_BIDDING = {"common": "atlas_auction", "bulgarian": "atlas_auction", "french": "take"}
COMMANDS = ("hello", "set", "deal", "call", "call?", "contract", "hand", "declare", "play",
            "card?", "legal?", "state", "end", "quit")  # fmt: skip


class Engine:
    """The engine's state: its settings and the deal in progress.  ``handle(request)``
    answers one request (a dict); ``ValueError`` for a bad or illegal one (nothing
    changed)."""

    def __init__(self) -> None:
        self.settings: dict[str, Any] = {
            "ruleset": "common",
            "options": {},
            "play": "expert",
            "bidding": None,
            "seed": None,
        }
        self.deals = 0
        self.quit = False
        self._clear()

    # --- the deal -----------------------------------------------------------------

    def _clear(self) -> None:
        self.phase = "idle"
        self.seat = -1
        self.dealer = -1
        self.bid_cards: list[int] = []
        self.turned = -1
        self.auction: Any = None
        self.contract: tuple[int, int, int] | None = None
        self.hand = 0
        self.plays: list[int] = []
        self.declarations: list[dict[str, Any]] = []

    def _rules(self) -> Any:
        from belote_sim.deal.agent import rules_of

        s = self.settings
        return rules_of(s["ruleset"], s["options"] or None)[0]

    def _bidding(self) -> str:
        return self.settings["bidding"] or DEFAULT_BIDDING.get(self.settings["ruleset"], "")

    def state(self) -> dict[str, Any]:
        """Where the deal stands: ``phase`` (idle, bidding, hand, play, over) and
        ``turn``, the seat to call or play (None when nobody is to)."""
        turn = None
        if self.phase == "bidding":
            turn = self.auction.seat
        elif self.phase == "play":
            turn = self._to_play()
        return {"phase": self.phase, "turn": turn}

    def _to_play(self) -> int:
        from belote_sim.deal.agent import walk_plays

        assert self.contract is not None
        return walk_plays(self.plays, self.dealer, self.contract[0])["turn"]

    # --- requests -----------------------------------------------------------------

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """The answer to one request (``{"ok": cmd, ...}``); ``ValueError`` (one line)
        for a malformed or illegal one."""
        cmd = request.get("cmd")
        if not isinstance(cmd, str):
            raise ValueError('a request needs "cmd" (a command name)')
        method = self._handlers().get(cmd)
        if method is None:
            raise ValueError(f"unknown command {cmd!r}: expected one of {', '.join(COMMANDS)}")
        fields = {k: v for k, v in request.items() if k not in ("cmd", "id")}
        return {"ok": cmd, **method(fields)}

    def _handlers(self) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
        return {
            "hello": self._hello,
            "set": self._set,
            "deal": self._deal,
            "call": self._call,
            "call?": self._ask_call,
            "contract": self._contract,
            "hand": self._hand,
            "declare": self._declare,
            "play": self._play,
            "card?": self._ask_card,
            "legal?": self._legal,
            "state": lambda fields: self._no_fields("state", fields) or self.state(),
            "end": self._end,
            "quit": self._quit,
        }

    @staticmethod
    def _no_fields(cmd: str, fields: dict[str, Any], allowed: tuple[str, ...] = ()) -> None:
        unknown = [k for k in fields if k not in allowed]
        if unknown:
            raise ValueError(f"{cmd} takes no field {', '.join(map(repr, unknown))}")

    def _hello(self, fields: dict[str, Any]) -> dict[str, Any]:
        from belote_sim.policies import BID_POLICIES
        from belote_sim.rules import OPTION_NAMES, PRESETS
        from belote_sim.simulation.agent_calls import FIXED

        self._no_fields("hello", fields, ("protocol",))
        asked = fields.get("protocol", PROTOCOL)
        if asked != PROTOCOL:
            raise ValueError(f"this engine speaks protocol {PROTOCOL}, not {asked!r}")
        return {
            "engine": "belote-sim",
            "version": __version__,
            "protocol": PROTOCOL,
            "players": 4,
            "rulesets": list(PRESETS),
            "options": list(OPTION_NAMES),
            "policies": {
                "play": list(ENGINE_PLAY),
                "bidding": [
                    *(name for name in BID_POLICIES if name != FIXED),
                    "rules:FILE",
                    "py:MODULE:FUNCTION",
                ],
            },
            "settings": self._settings(),
        }

    def _settings(self) -> dict[str, Any]:
        return {**self.settings, "bidding": self._bidding()}

    def _set(self, fields: dict[str, Any]) -> dict[str, Any]:
        from belote_sim.deal.agent import MAX_SEED
        from belote_sim.policies import PLAY_POLICIES, parse_policy
        from belote_sim.simulation.agent_calls import check_bidding_policy

        self._no_fields("set", fields, ("ruleset", "options", "play", "bidding", "seed"))
        if self.phase not in ("idle", "over"):
            raise ValueError("a deal is in progress: send end first")
        new = dict(self.settings, **fields)
        if "ruleset" in fields and "options" not in fields:
            new["options"] = {}
        if not isinstance(new["ruleset"], str):
            raise ValueError(f"ruleset must be a name, got {new['ruleset']!r}")
        if new["options"] is None:
            new["options"] = {}
        if not isinstance(new["options"], dict):
            raise ValueError("options must be an object of rule options")
        from belote_sim.rules import Rules

        rules = Rules.from_spec(new["ruleset"], new["options"] or None)
        if rules.players != 4:
            raise ValueError("the engine plays the 4-player game")
        play = new["play"]
        if not isinstance(play, str):
            raise ValueError(f"play must be a policy name, got {play!r}")
        if parse_policy(play, PLAY_POLICIES, "play").name not in ENGINE_PLAY:
            raise ValueError(f"the engine plays by {', '.join(ENGINE_PLAY)}, not {play!r}")
        seed = new["seed"]
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED
        ):
            raise ValueError(f"seed must be an integer 0..2**63-1 or null, got {seed!r}")
        bidding = new["bidding"]
        if bidding is not None and not isinstance(bidding, str):
            raise ValueError(f"bidding must be a policy name or null, got {bidding!r}")
        check_bidding_policy(rules, bidding or DEFAULT_BIDDING.get(rules.name, ""))
        self.settings = new
        return {"settings": self._settings()}

    def _deal(self, fields: dict[str, Any]) -> dict[str, Any]:
        from belote_sim.cards import mask_of, parse_card, parse_cards
        from belote_sim.simulation.agent_calls import read_bidding_observation

        self._no_fields("deal", fields, ("seat", "dealer", "cards", "turned", "contract"))
        for key in ("seat", "dealer", "cards"):
            if key not in fields:
                raise ValueError(f"deal needs {key!r}")
        rules = self._rules()
        contract = fields.get("contract")
        if contract is None:
            obs = {
                "ruleset": self.settings["ruleset"],
                "options": self.settings["options"] or None,
                "dealer": fields["dealer"],
                "seat": fields["seat"],
                "hand": fields["cards"],
            }
            if "turned" in fields:
                obs["turned"] = fields["turned"]
            read = read_bidding_observation(obs, any_turn=True)
            self._clear()
            self.deals += 1
            self.seat, self.dealer = read["seat"], read["dealer"]
            self.bid_cards = parse_cards(fields["cards"])
            self.turned, self.auction = read["turned"], read["state"]
            self.phase = "bidding"
            return self.state()
        # a deal that starts at the play: the contract and the 8 cards given
        seat, dealer = _seat(fields["seat"], "seat"), _seat(fields["dealer"], "dealer")
        strain, taker, doubling = _contract_of(contract, rules)
        cards = parse_cards(_cards_text(fields["cards"], "cards"))
        if len(cards) != 8:
            raise ValueError(f"a deal given with its contract needs the 8 cards, got {len(cards)}")
        turned = -1
        if rules.bidding == "two_round":
            if not isinstance(fields.get("turned"), str):
                raise ValueError("the french deal needs the 'turned' card")
            turned = parse_card(fields["turned"])
            if (turned in cards) != (taker == seat):
                raise ValueError("the taker, and only the taker, holds the turned card")
        elif "turned" in fields:
            raise ValueError(f"only the french deal turns a card ({rules.name} does not)")
        self._clear()
        self.deals += 1
        self.seat, self.dealer, self.turned = seat, dealer, turned
        self.contract = (strain, taker, doubling)
        self.hand = mask_of(cards)
        self.phase = "play"
        return self.state()

    def _need(self, phase: str, what: str) -> None:
        if self.phase != phase:
            raise ValueError(f"no {what} now (the deal is in phase {self.phase})")

    def _after_bidding(self, answer: dict[str, Any]) -> dict[str, Any]:
        """The phase after a call: the contract, or a thrown-in deal."""
        if self.auction.over:
            strain, taker, doubling = self.auction.result()
            if strain < 0:
                self.phase = "over"
                answer["thrown_in"] = True
            else:
                self.contract = (strain, taker, doubling)
                self.phase = "hand"
                answer["contract"] = _contract_json(self.contract)
        return {**answer, **self.state()}

    def _call(self, fields: dict[str, Any]) -> dict[str, Any]:
        from belote_sim.simulation.py_bidding import call_letter

        self._no_fields("call", fields, ("seat", "call"))
        self._need("bidding", "call")
        seat = _seat(fields.get("seat"), "seat")
        if seat != self.auction.seat:
            raise ValueError(f"it is seat {self.auction.seat}'s turn to call, not seat {seat}'s")
        letter = call_letter(fields.get("call"))
        if letter is None:
            raise ValueError(f"{fields.get('call')!r} is not a call")
        self.auction.play(letter)
        return self._after_bidding({})

    def _bidding_observation(self) -> dict[str, Any]:
        from belote_sim.cards import format_cards

        obs: dict[str, Any] = {
            "ruleset": self.settings["ruleset"],
            "options": self.settings["options"] or None,
            "dealer": self.dealer,
            "seat": self.seat,
            "hand": format_cards(self.bid_cards),
            "calls": "".join(self.auction.calls),
        }
        if self.turned >= 0:
            obs["turned"] = format_cards([self.turned])[0]
        return obs

    def _my_turn(self, what: str) -> None:
        turn = self.state()["turn"]
        if turn != self.seat:
            raise ValueError(f"it is seat {turn}'s turn to {what}, not the engine's (seat "
                             f"{self.seat})")  # fmt: skip

    def _decision_seed(self) -> int | None:
        from belote_sim.deal.agent import observation_seed

        seed = self.settings["seed"]
        if seed is None:
            return None
        calls = len(self.auction.calls) if self.auction is not None else 0
        return observation_seed(f"engine|{seed}|{self.deals}|{calls}|{len(self.plays)}")

    def _ask_call(self, fields: dict[str, Any]) -> dict[str, Any]:
        from belote_sim.simulation.agent_calls import choose_call
        from belote_sim.simulation.py_bidding import call_letter

        self._no_fields("call?", fields)
        self._need("bidding", "call to make")
        self._my_turn("call")
        call = choose_call(self._bidding_observation(), self._bidding(), self._decision_seed())
        self.auction.play(call_letter(call))
        return self._after_bidding({"call": call})

    def _contract(self, fields: dict[str, Any]) -> dict[str, Any]:
        self._no_fields("contract", fields, ("strain", "taker", "doubling"))
        self._need("bidding", "contract to set")
        self.contract = _contract_of(fields, self._rules())
        self.phase = "hand"
        return {"contract": _contract_json(self.contract), **self.state()}

    def _hand(self, fields: dict[str, Any]) -> dict[str, Any]:
        from belote_sim.cards import mask_of, parse_cards

        self._no_fields("hand", fields, ("cards",))
        self._need("hand", "hand to take")
        assert self.contract is not None
        cards = parse_cards(_cards_text(fields.get("cards"), "cards"))
        if len(cards) != 8:
            raise ValueError(f"the hand to play is 8 cards, got {len(cards)}")
        missing = [c for c in self.bid_cards if c not in cards]
        if missing:
            raise ValueError("the hand must hold the engine's bidding cards")
        if self.turned >= 0 and (self.turned in cards) != (self.contract[1] == self.seat):
            raise ValueError("the taker, and only the taker, holds the turned card")
        self.hand = mask_of(cards)
        self.phase = "play"
        return self.state()

    def _declare(self, fields: dict[str, Any]) -> dict[str, Any]:
        from belote_sim.cards import mask_of
        from belote_sim.deal.agent import read_declaration

        self._no_fields("declare", fields, ("seat", "kind", "cards"))
        self._need("play", "declaration")
        assert self.contract is not None
        seat, cards = read_declaration(fields, self.contract[0])
        for earlier in self.declarations:
            other, theirs = read_declaration(earlier, self.contract[0])
            if other != seat and theirs & cards:
                raise ValueError(f"seat {other} declared one of these cards already")
        held = cards & ~self._played_by(seat)
        for earlier in self.declarations:
            other, theirs = read_declaration(earlier, self.contract[0])
            if other == seat:
                held |= theirs & ~self._played_by(seat)
        if held.bit_count() > 8 - self._played_by(seat).bit_count():
            raise ValueError(f"seat {seat} declares more cards than it still holds")
        others = mask_of(self.plays) & ~self._played_by(seat)
        if cards & others:
            raise ValueError(f"seat {seat} declares a card another seat played")
        if seat != self.seat and cards & self.hand:
            raise ValueError(f"seat {seat} declares a card the engine holds")
        if seat == self.seat and cards & ~(self.hand | self._played_by(seat)):
            raise ValueError("the engine's seat declares a card it does not hold")
        self.declarations.append(dict(fields))
        return self.state()

    def _played_by(self, seat: int) -> int:
        from belote_sim.deal.agent import walk_plays

        assert self.contract is not None
        return walk_plays(self.plays, self.dealer, self.contract[0])["played"][seat]

    def _play_observation(self) -> dict[str, Any]:
        from belote_sim.cards import format_card, format_cards
        from belote_sim.kernels.tables import STRAIN_NAMES

        assert self.contract is not None
        strain, taker, doubling = self.contract
        obs: dict[str, Any] = {
            "ruleset": self.settings["ruleset"],
            "options": self.settings["options"] or None,
            "dealer": self.dealer,
            "seat": self.seat,
            "hand": format_cards(self.hand),
            "contract": {"strain": STRAIN_NAMES[strain], "taker": taker, "doubling": doubling},
            "plays": [format_card(c) for c in self.plays],
        }
        if self.declarations:
            obs["declarations"] = self.declarations
        if self.turned >= 0:
            obs["turned"] = {"card": format_cards([self.turned])[0], "seat": taker}
        return obs

    def _card_played(self, card: int) -> dict[str, Any]:
        """Record a card; the answer says who won a trick it completes."""
        from belote_sim.deal.agent import walk_plays

        assert self.contract is not None
        self.plays.append(card)
        answer: dict[str, Any] = {}
        if len(self.plays) % 4 == 0:
            winner = walk_plays(self.plays, self.dealer, self.contract[0])["turn"]
            answer = {"trick": len(self.plays) // 4, "winner": winner}
        if len(self.plays) == 32:
            self.phase = "over"
        return {**answer, **self.state()}

    def _play(self, fields: dict[str, Any]) -> dict[str, Any]:
        from belote_sim.cards import format_card, parse_card
        from belote_sim.deal.agent import legal_cards, read_declaration, walk_plays

        self._no_fields("play", fields, ("seat", "card"))
        self._need("play", "card to play")
        assert self.contract is not None
        seat = _seat(fields.get("seat"), "seat")
        turn = self._to_play()
        if seat != turn:
            raise ValueError(f"it is seat {turn}'s turn to play, not seat {seat}'s")
        if not isinstance(fields.get("card"), str):
            raise ValueError('play needs "card" (text, e.g. "JH")')
        card = parse_card(fields["card"])
        if card in self.plays:
            raise ValueError(f"{format_card(card)} was played already")
        if seat == self.seat:
            if format_card(card) not in legal_cards(self._play_observation()):
                raise ValueError(f"{format_card(card)} is not a legal card for the engine's seat")
            self.hand &= ~(1 << card)
        else:
            if self.hand >> card & 1:
                raise ValueError(f"{format_card(card)} is in the engine's hand")
            for entry in self.declarations:
                other, cards = read_declaration(entry, self.contract[0])
                if other != seat and cards >> card & 1:
                    raise ValueError(f"seat {other} declared {format_card(card)}: it holds it")
            shown = walk_plays(self.plays, self.dealer, self.contract[0])["shown_out"]
            if shown[seat] >> (card >> 3) & 1:
                raise ValueError(
                    f"seat {seat} showed out of {'CDHS'[card >> 3]} earlier: it holds no "
                    f"{format_card(card)}"
                )
        return self._card_played(card)

    def _ask_card(self, fields: dict[str, Any]) -> dict[str, Any]:
        from belote_sim.cards import format_card, parse_card
        from belote_sim.deal.agent import choose_card

        self._no_fields("card?", fields)
        self._need("play", "card to play")
        self._my_turn("play")
        card = choose_card(
            self._play_observation(), self.settings["play"], seed=self._decision_seed()
        )
        self.hand &= ~(1 << parse_card(card))
        return {"card": format_card(parse_card(card)), **self._card_played(parse_card(card))}

    def _legal(self, fields: dict[str, Any]) -> dict[str, Any]:
        from belote_sim.deal.agent import legal_cards
        from belote_sim.simulation.agent_calls import legal_calls

        self._no_fields("legal?", fields)
        if self.phase == "bidding":
            self._my_turn("call")
            return {"calls": legal_calls(self._bidding_observation())}
        self._need("play", "legal card or call")
        self._my_turn("play")
        return {"cards": legal_cards(self._play_observation())}

    def _end(self, fields: dict[str, Any]) -> dict[str, Any]:
        self._no_fields("end", fields)
        self._clear()
        return self.state()

    def _quit(self, fields: dict[str, Any]) -> dict[str, Any]:
        self._no_fields("quit", fields)
        self.quit = True
        return {}


def _seat(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise ValueError(f"{what} must be a seat 0..3, got {value!r}")
    return value


def _cards_text(value: Any, what: str) -> Any:
    if isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(c, str) for c in value)
    ):
        return value
    raise ValueError(f'{what} must be cards as text ("JH 9H") or a list of card texts')


def _contract_of(fields: Any, rules: Any) -> tuple[int, int, int]:
    """(strain, taker, doubling) of a contract object, checked against the rules."""
    from belote_sim.cards import parse_strain

    if not isinstance(fields, dict) or "strain" not in fields or "taker" not in fields:
        raise ValueError('a contract needs "strain" and "taker"')
    if not isinstance(fields["strain"], str):
        raise ValueError(f"strain must be text (C D H S NT AT), got {fields['strain']!r}")
    strain = parse_strain(fields["strain"])
    if not rules.strain_allowed(strain):
        raise ValueError(f"the {rules.name} rules have no {fields['strain']} contract")
    taker = _seat(fields["taker"], "taker")
    doubling = fields.get("doubling", 0)
    if isinstance(doubling, bool) or doubling not in range(rules.max_doubling + 1):
        raise ValueError(f"doubling must be 0..{rules.max_doubling}, got {doubling!r}")
    return strain, taker, int(doubling)


def _contract_json(contract: tuple[int, int, int]) -> dict[str, Any]:
    from belote_sim.kernels.tables import STRAIN_NAMES

    strain, taker, doubling = contract
    return {"strain": STRAIN_NAMES[strain], "taker": taker, "doubling": doubling}


def serve(source: IO[bytes], out: IO[str]) -> int:
    """Answer the requests of ``source`` (JSON lines) on ``out`` until ``quit`` or the
    end of the input; every answer line is flushed.  Returns 0."""
    engine = Engine()
    while not engine.quit:
        raw = source.readline(RECORD_LINE_LIMIT + 1)
        if not raw:
            break
        answer: dict[str, Any]
        request: Any = None
        if len(raw) > RECORD_LINE_LIMIT and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # the rest of the line, dropped
                raw = source.readline(RECORD_LINE_LIMIT + 1)
            answer = {"error": f"a line longer than {limit_words(RECORD_LINE_LIMIT)}"}
        elif not raw.strip():
            continue
        else:
            try:
                request = json.loads(raw)
            except (ValueError, RecursionError) as exc:
                answer = {"error": f"not JSON: {_one_line(exc)}"}
            else:
                answer = _answer(engine, request)
        if isinstance(request, dict) and "id" in request:
            answer["id"] = request["id"]
        out.write(json.dumps(answer, allow_nan=False) + "\n")
        out.flush()
    return 0


def _answer(engine: Engine, request: Any) -> dict[str, Any]:
    if not isinstance(request, dict):
        return {"error": "a request is a JSON object"}
    try:
        return engine.handle(request)
    except (ValueError, OSError, ImportError, RecursionError) as exc:
        return {"error": _one_line(exc)}
    except Exception as exc:  # never a traceback: the engine goes on
        return {"error": f"internal error ({type(exc).__name__}): {_one_line(exc)}"}


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def cmd_engine(args: argparse.Namespace) -> int:
    """``belote-sim engine``: serve the protocol on standard input and output."""
    return serve(sys.stdin.buffer, sys.stdout)
