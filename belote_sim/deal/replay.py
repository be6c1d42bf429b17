"""Replay of recorded deals: JSON record in, tricks / legal cards / scores out.

Record (one JSON object)::

    {"ruleset": "common", "options": {...}, "dealer": 3,
     "hands": ["JH 9H AH TH KS QS 7C 8D", ...4 hands, seats 0..3],
     "contract": {"strain": "H", "taker": 0, "doubling": 0},
     "plays": ["7C", ...0 to 32 cards], "belote_silent": [seats]}

Unknown top-level fields are errors, except ``id`` (echoed) and names starting with
``_`` (docs/rules.md 14.17).  The result's fields are documented on ``replay``.

Fields of the other games (docs/rules.md sections 3, 11):

- ``"players": 3`` (or 2): the games where every player is alone; ``hands`` then
  lists one hand per player (8 cards from the 24-card deck 9..A for 3 players, 9
  for 2 players), seats and ``dealer``/``taker`` are 0..players-1, and every
  per-team result list has one entry per player.  ``players`` may also be given in
  ``options``.
- ``"variant": "open"`` (open belot, 2 players, 32 cards): ``hands`` are the two
  8-card hands and ``"table": [[[down, up], ...4 piles], [...]]`` each player's four
  table piles, a face-down card under a face-up one.
- ``"turned": "JH"`` (french preset only, optional): the card turned up after the
  5-card packets; the taker must hold it.

Reading chosen for ``revoke_penalty`` (docs/rules.md section 12): the non-offending team
scores the deal's card total plus every declaration announced before the illegal
card -- the runs and carrés of each seat that had already legally played a card
(they are announced with the first card) and the belotes already announced -- and
the offending team scores nothing; ``card_points`` then still shows the points of
the tricks completed before the stop.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from belote_sim.cards import format_card, format_cards, parse_card, parse_hands, parse_strain
from belote_sim.deal.declarations import belote_entries, carre_entries, run_entries, sort_entries
from belote_sim.input_limits import RECORD_LINE_LIMIT, limit_words
from belote_sim.kernels.core import DUTY_NAMES
from belote_sim.kernels.declarations import DECL_CARRE_RANKS, DECL_RUN_CARDS
from belote_sim.kernels.play import play_deal
from belote_sim.kernels.records import new_deal
from belote_sim.kernels.rng import seed_state
from belote_sim.kernels.scoring import score_deal
from belote_sim.kernels.switchboard import POLICY_NONE, policy_buffers, policy_menu
from belote_sim.kernels.tables import (
    BELOTE_POINTS,
    DEAL_CARD_TOTAL,
    DECK24_MASK,
    NUM_TRICKS,
    OUTCOME_NAMES,
)
from belote_sim.rules import Rules

RECORD_FIELDS = (
    "ruleset",
    "options",
    "dealer",
    "hands",
    "contract",
    "plays",
    "belote_silent",
    "players",
    "variant",
    "table",
    "turned",
)
CONTRACT_FIELDS = ("strain", "taker", "doubling")


def int_field(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"field {name!r} must be an integer {low}..{high}, got {value!r}")
    return value


def parse_record(record: Any) -> dict[str, Any]:
    """Validate a replay record; returns its parsed parts (rules, masks, card indices).

    Raises ``ValueError`` naming the offending field for anything malformed.
    """
    if not isinstance(record, dict):
        raise ValueError(f"a record must be a JSON object, got {type(record).__name__}")
    unknown = [
        k
        for k in record
        if k not in RECORD_FIELDS and k != "id" and not (isinstance(k, str) and k.startswith("_"))
    ]
    if unknown:
        raise ValueError(
            f"unknown field(s) {', '.join(map(repr, unknown))}; "
            f"known fields: {', '.join(RECORD_FIELDS)}"
        )
    for name in ("dealer", "hands", "contract"):
        if name not in record:
            raise ValueError(f"missing field {name!r}")
    ruleset = record.get("ruleset", "common")
    if not isinstance(ruleset, str):
        raise ValueError(f"field 'ruleset' must be a string, got {ruleset!r}")
    options = record.get("options")
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"field 'options' must be an object, got {options!r}")
    options = dict(options or {})
    for name in ("players", "variant"):
        if name in record:
            if name in options and options[name] != record[name]:
                raise ValueError(
                    f"field {name!r} ({record[name]!r}) contradicts "
                    f"options.{name} ({options[name]!r})"
                )
            options[name] = record[name]
    try:
        rules = Rules.from_spec(ruleset, options)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"field 'options': {exc}") from None
    n_players = rules.players
    dealer = int_field(record["dealer"], "dealer", 0, n_players - 1)
    hands_text = record["hands"]
    if not isinstance(hands_text, list) or len(hands_text) != n_players:
        raise ValueError(
            f"field 'hands' must be a list of {n_players} hands (seats 0..{n_players - 1})"
        )
    try:
        hands = parse_hands(hands_text, size=rules.hand_size)
    except ValueError as exc:
        raise ValueError(f"field 'hands': {exc}") from None
    deck = (1 << 32) - 1 if rules.deck_size == 32 else DECK24_MASK
    for seat, hand in enumerate(hands):
        if hand & ~deck:
            card = format_cards(hand & ~deck)[0]
            raise ValueError(
                f"field 'hands': {card} (seat {seat}) is not in the 24-card deck "
                f"(9 T J Q K A) of the {n_players}-player game"
            )
    table = _parse_table(record.get("table"), rules, sum(hands))

    contract = record["contract"]
    if not isinstance(contract, dict):
        raise ValueError("field 'contract' must be an object {strain, taker, doubling}")
    extra = [k for k in contract if k not in CONTRACT_FIELDS]
    if extra:
        raise ValueError(f"field 'contract': unknown field(s) {', '.join(map(repr, extra))}")
    if "strain" not in contract or "taker" not in contract:
        raise ValueError("field 'contract' needs 'strain' and 'taker'")
    try:
        strain = parse_strain(contract["strain"])
    except ValueError as exc:
        raise ValueError(f"field 'contract.strain': {exc}") from None
    if not rules.strain_allowed(strain):
        raise ValueError(
            f"field 'contract.strain': {contract['strain']} is not a contract "
            f"of the {rules.name} rules (option french_allow_nt_at)"
        )
    taker = int_field(contract["taker"], "contract.taker", 0, n_players - 1)
    doubling = int_field(contract.get("doubling", 0), "contract.doubling", 0, rules.max_doubling)
    if "turned" in record:
        if rules.bidding != "two_round":
            raise ValueError("field 'turned': only the french deal turns a card up")
        try:
            turned = parse_card(record["turned"])
        except (ValueError, TypeError) as exc:
            raise ValueError(f"field 'turned': {exc}") from None
        if not (hands[taker] >> turned) & 1:
            raise ValueError(
                f"field 'turned': the taker (seat {taker}) must hold the turned "
                f"card {format_card(turned)}"
            )

    n_cards = rules.n_tricks * n_players
    plays_raw = record.get("plays", [])
    if isinstance(plays_raw, str):
        plays_raw = plays_raw.replace(",", " ").split()
    if not isinstance(plays_raw, list) or len(plays_raw) > n_cards:
        raise ValueError(f"field 'plays' must be a list of at most {n_cards} cards")
    try:
        plays = [parse_card(c) for c in plays_raw]
    except ValueError as exc:
        raise ValueError(f"field 'plays': {exc}") from None
    for played in plays:
        if not (deck >> played) & 1:
            raise ValueError(
                f"field 'plays': {format_card(played)} is not in the 24-card deck "
                f"(9 T J Q K A) of the {n_players}-player game"
            )

    silent = record.get("belote_silent", [])
    if not isinstance(silent, list):
        raise ValueError("field 'belote_silent' must be a list of seats")
    silent_seats = {int_field(s, "belote_silent", 0, n_players - 1) for s in silent}
    return dict(
        rules=rules,
        dealer=dealer,
        hands=hands,
        strain=strain,
        taker=taker,
        doubling=doubling,
        plays=plays,
        silent=silent_seats,
        table=table,
    )


def _parse_table(value: Any, rules: Rules, held: int) -> np.ndarray:
    """The open-belot table piles as a (P, 4, 2) array of cards (-1 without a table)."""
    table = np.full((rules.players, 4, 2), -1, dtype=np.int64)
    if rules.variant != "open":
        if value is not None:
            raise ValueError("field 'table': only open belot (variant open) has table cards")
        return table
    shape_error = (
        "field 'table' must list each player's 4 table piles as [face-down, "
        "face-up] cards: [[[down, up], ...], [[down, up], ...]]"
    )
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError(shape_error)
    seen = held
    for player, piles in enumerate(value):
        if not isinstance(piles, list) or len(piles) != 4:
            raise ValueError(shape_error)
        for pile, cards in enumerate(piles):
            if not isinstance(cards, list) or len(cards) != 2:
                raise ValueError(shape_error)
            for k, text in enumerate(cards):
                try:
                    card = parse_card(text)
                except (ValueError, TypeError) as exc:
                    raise ValueError(
                        f"field 'table' (player {player}, pile {pile}): {exc}"
                    ) from None
                if (seen >> card) & 1:
                    raise ValueError(f"field 'table': card {format_card(card)} is dealt twice")
                seen |= 1 << card
                table[player, pile, k] = card
    return table


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """Replay one recorded deal (see the module docstring for the record).

    Returns a dict with ``tricks`` (each ``{"leader", "cards", "winner"}``, the trick
    in progress last with winner ``None``), ``to_play`` and ``legal`` (the next
    decision, or the one where an illegal card was played; ``None`` when the deal
    is over), ``illegal`` (``None`` or ``{"trick", "seat", "card", "rule"}``) and the
    scoring fields, ``None`` unless all 32 cards were legally played:
    ``card_points`` (card points per team, last-trick 10 included), ``declarations``
    (per team, the runs, carrés and belotes it scores), ``raw`` (raw points),
    ``outcome`` (``made`` / ``inside`` / ``hanging``, seen from the taker's team),
    ``valat`` (team that won every trick, or ``None``), ``mp`` (match points each
    team adds now -- French points under french scoring) and ``held_mp`` (points
    held as hanging).  Team 0 is seats {0, 2}.  ``id`` is echoed when present.

    Raises ``ValueError`` naming the field when the record is malformed.
    """
    rec = parse_record(record)
    rules: Rules = rec["rules"]
    n = rules.players
    strain, dealer, taker, doubling = rec["strain"], rec["dealer"], rec["taker"], rec["doubling"]
    n_cards = rules.n_tricks * n
    records = new_deal()
    deal = records[0]
    deal["leader"] = (dealer + 1) % n
    deal["strain"] = strain
    deal["taker"] = taker
    deal["doubling"] = doubling
    deal["announce"] = sum(1 << s for s in range(n) if s not in rec["silent"])
    deal["hands"][:n] = rec["hands"]
    if rules.variant == "open":
        deal["table"][:] = rec["table"]
    deal["n_given"] = len(rec["plays"])
    deal["cards"][: len(rec["plays"])] = rec["plays"]
    no_policy = np.full(4, POLICY_NONE, dtype=np.int64)
    play_deal(
        records[0],
        (no_policy, np.zeros((4, 1)), policy_menu()),
        rules.to_array(),
        seed_state(0),
        policy_buffers(1),
    )
    played = _Played(
        deal["cards"],
        deal["winners"],
        int(deal["n_played"]),
        int(deal["duty"]),
        int(deal["next_legal"]),
        int(deal["leader"]),
    )
    result = _play_fields(record, rec, played, n_seats=n, n_cards=n_cards)
    decl = deal["declarations"]
    sides = 2 if n == 4 else n
    if result["to_play"] is None:
        scored = int(deal["decl_scored"])
        entries: list[list[dict[str, Any]]] = [[] for _ in range(sides)]
        for seat in range(n):
            side = seat % sides
            # which declarations score: bits (team, 2 + team) in the 4-player game,
            # (player, 8 + player) when every player is alone
            runs_bit, carres_bit = (side, 2 + side) if n == 4 else (seat, 8 + seat)
            if (scored >> runs_bit) & 1:
                entries[side] += run_entries(seat, int(decl[seat, DECL_RUN_CARDS]))
            if (scored >> carres_bit) & 1:
                entries[side] += carre_entries(seat, int(decl[seat, DECL_CARRE_RANKS]), strain)
            entries[side] += belote_entries(seat, int(deal["belote_suits"][seat]))
        result.update(
            card_points=deal["card_points"][:sides].tolist(),
            declarations=[sort_entries(t) for t in entries],
            raw=deal["raw"][:sides].tolist(),
            outcome=OUTCOME_NAMES[int(deal["outcome"])],
            valat=None if deal["valat"] < 0 else int(deal["valat"]),
            mp=deal["mp"][:sides].tolist(),
            held_mp=deal["held"][:sides].tolist(),
        )
    elif deal["duty"] and rules.revoke_penalty and n == 4:
        result.update(
            _revoke_scores(
                rec,
                played,
                result["to_play"],
                decl,
                deal["belote_suits"],
                int(deal["card_points"][0]),
                int(deal["card_points"][1]),
            )
        )
    return result


@dataclass(frozen=True)
class _Played:
    """What the play kernel reports of a replayed deal."""

    plays: np.ndarray  # the cards played, in order
    winners: np.ndarray  # the winner of each finished trick
    n_played: int  # cards played (legally)
    duty: int  # the rule the next recorded card breaks (0: none)
    next_legal: int  # the legal cards of the next decision (mask)
    leader: int  # the first leader


def _play_fields(
    record: dict[str, Any], rec: dict[str, Any], played: _Played, n_seats: int, n_cards: int
) -> dict[str, Any]:
    """The play part of a replay result (``id``, ``tricks``, ``to_play``, ``legal``,
    ``illegal``) with every scoring field ``None``, for ``n_seats`` seats and a deal of
    ``n_cards`` cards; ``to_play`` is ``None`` exactly when the deal is over."""
    out_plays, winners, n_played = played.plays, played.winners, played.n_played
    duty, next_legal, leader = played.duty, played.next_legal, played.leader
    result: dict[str, Any] = {}
    if "id" in record:
        result["id"] = record["id"]
    tricks = []
    trick_leader = leader
    for k in range(-(-n_played // n_seats)):
        cards = [int(c) for c in out_plays[n_seats * k : min(n_seats * (k + 1), n_played)]]
        winner = int(winners[k]) if len(cards) == n_seats else None
        tricks.append(
            dict(leader=trick_leader, cards=[format_card(c) for c in cards], winner=winner)
        )
        if winner is not None:
            trick_leader = winner
    over = n_played == n_cards and duty == 0
    to_play = None if over else (trick_leader + n_played % n_seats) % n_seats
    result.update(
        tricks=tricks,
        to_play=to_play,
        legal=None if over else format_cards(int(next_legal)),
        illegal=None,
        card_points=None,
        declarations=None,
        raw=None,
        outcome=None,
        valat=None,
        mp=None,
        held_mp=None,
    )
    if duty:
        result["illegal"] = dict(
            trick=n_played // n_seats,
            seat=to_play,
            card=format_card(rec["plays"][n_played]),
            rule=DUTY_NAMES[duty],
        )
    return result


def _revoke_scores(
    rec: dict[str, Any],
    played: _Played,
    offender: int,
    decl: np.ndarray,
    belote_suits: np.ndarray,
    card0: int,
    card1: int,
) -> dict[str, Any]:
    """Scores of a deal stopped by an illegal card under ``revoke_penalty`` (section 12):
    the contract comes from the parsed record ``rec``, the cards played before the
    illegal one from ``played``, the offender is the seat that played it."""
    rules: Rules = rec["rules"]
    strain, taker, doubling = rec["strain"], rec["taker"], rec["doubling"]
    leader, n_played = played.leader, played.n_played
    other = 1 - offender % 2
    announced: list[dict[str, Any]] = []
    for seat in range(4):
        if (seat - leader) % 4 < n_played:  # this seat's first card was legally played
            announced += run_entries(seat, int(decl[seat, DECL_RUN_CARDS]))
            announced += carre_entries(seat, int(decl[seat, DECL_CARRE_RANKS]), strain)
    decl_points = sum(d["points"] for d in announced)
    belote_points = 0
    for seat in range(4):
        belotes = belote_entries(seat, int(belote_suits[seat]))
        announced += belotes
        belote_points += BELOTE_POINTS * len(belotes)
    card = [0, 0]
    card[other] = int(DEAL_CARD_TOTAL[strain])
    d = [0, 0]
    d[other] = decl_points
    b = [0, 0]
    b[other] = belote_points
    raw0, raw1, outcome, _valat, mp0, mp1, held0, held1 = score_deal(
        card[0],
        card[1],
        d[0],
        d[1],
        b[0],
        b[1],
        0,
        0,
        strain,
        taker % 2,
        doubling,
        NUM_TRICKS,
        rules.to_array(),
    )
    team_decl: list[list[dict[str, Any]]] = [[], []]
    team_decl[other] = sort_entries(announced)
    return dict(
        card_points=[int(card0), int(card1)],
        declarations=team_decl,
        raw=[int(raw0), int(raw1)],
        outcome=OUTCOME_NAMES[outcome],
        valat=None,
        mp=[int(mp0), int(mp1)],
        held_mp=[int(held0), int(held1)],
    )


#: a line longer than ``RECORD_LINE_LIMIT`` (``_bounded_lines``)
_TOO_LONG: Any = object()


def _bounded_lines(lines: Any) -> Iterator[Any]:
    """The lines of ``lines``; from a stream (``readline``), each read up to
    ``RECORD_LINE_LIMIT`` bytes, and a longer one given as ``_TOO_LONG`` (then the
    reading stops: ``/dev/zero`` has no end of line)."""
    if not hasattr(lines, "readline"):
        yield from lines
        return
    while True:
        line = lines.readline(RECORD_LINE_LIMIT + 1)
        if not line:
            return
        if len(line) > RECORD_LINE_LIMIT and not line.endswith(
            b"\n" if isinstance(line, bytes) else "\n"
        ):
            yield _TOO_LONG
            return
        yield line


def map_json_lines(
    lines: Iterable[str | bytes], out: TextIO, handle: Callable[[Any], dict[str, Any]]
) -> tuple[int, int]:
    """Apply ``handle`` to each JSON line of ``lines`` and write one JSON result per line.

    ``lines`` are text or bytes (decoded as UTF-8 line by line).  Blank lines are
    skipped; a line that is not UTF-8 or not JSON, is nested too deeply, or for which
    ``handle`` raises, yields ``{"error": "line N: ..."}`` (with the record's ``id``
    when it has one) and the next line is read: a bad line never stops the others.
    Returns ``(n_records, n_errors)``.
    """
    n_records = n_errors = 0
    for lineno, line in enumerate(_bounded_lines(lines), 1):
        if line is _TOO_LONG:
            n_records += 1
            n_errors += 1
            out.write(
                json.dumps(
                    {
                        "error": f"line {lineno}: longer than {limit_words(RECORD_LINE_LIMIT)}, "
                        "the size limit of a record; the rest of the input was not read"
                    }
                )
                + "\n"
            )
            break
        if isinstance(line, (bytes, bytearray)):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                n_records += 1
                n_errors += 1
                out.write(
                    json.dumps({"error": f"line {lineno}: not UTF-8 text (byte {exc.start + 1})"})
                    + "\n"
                )
                continue
        if not line.strip():
            continue
        n_records += 1
        record = None
        try:
            record = json.loads(line)
            result = handle(record)
        except json.JSONDecodeError as exc:
            n_errors += 1
            result = {"error": f"line {lineno}: not valid JSON: {exc.msg} at column {exc.colno}"}
        except RecursionError:
            n_errors += 1
            result = {"error": f"line {lineno}: JSON nested too deeply"}
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
            n_errors += 1
            text = " ".join(str(exc).split())
            if not isinstance(exc, ValueError):
                text = f"bad record ({type(exc).__name__}: {text})"
            result = {"error": f"line {lineno}: {text}"}
            if isinstance(record, dict) and "id" in record:
                try:
                    json.dumps(record["id"])
                    result["id"] = record["id"]
                except (TypeError, ValueError, RecursionError):
                    pass
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
    return n_records, n_errors


def replay_lines(lines: Iterable[str | bytes], out: TextIO) -> tuple[int, int]:
    """Replay JSON lines from ``lines`` into ``out`` (see ``map_json_lines``)."""
    return map_json_lines(lines, out, replay)


__all__ = ["int_field", "map_json_lines", "parse_record", "replay", "replay_lines"]
