"""Independent, deliberately simple reference of the 2-player, 3-player and
open-belot variants (shared/RULES.md §11 plus the readings fixed below).

Like tests/reference.py this is a test oracle: plain Python (card strings,
sets, lists, dicts), written from the rules text alone, never importing
``belote_sim``.  It reuses the 4-player primitives of tests/reference.py
(card order and points, one hand's declarations, rule presets, sorting).

Conventions (a contract with the tests)
---------------------------------------
- Cards are canonical 2-character strings (``"JH"``), as in tests/reference.py.
- Seats 0..P-1 in playing order, P = 2 or 3; every player is alone.  Dealer d;
  seat (d+1) % P leads the first trick; the winner of a trick leads the next.
- ``rules``: ``{"ruleset": ..., "options": {...}}`` as in tests/reference.py,
  plus the variant option ``doubling`` (docs/rules.md §4.3, default off) which
  allows doubling levels 1 and 2 in records.
- Card lists in outputs are sorted by suit C, D, H, S then rank 7..A.

Readings implemented (decided in the brief; each is repeated near the code)
---------------------------------------------------------------------------
V1  Legal moves (§5 without partners): follow suit; a trump lead (any suit in
    AT) must be raised over the highest card of that suit in the trick if
    possible; void in a plain led suit in a suit contract: must trump, must
    overtrump a trump already in the trick if possible, else a lower trump with
    ``undertrump`` on, else any card; no trump held: any card.  NT/AT void: any
    card.  ``raise_over_partner`` is irrelevant.
V2  Decks: 3 players and 2 players use the 24 cards 9..A.  3 players: 8 cards
    each, 8 tricks of 3.  2 players: 9 cards each, 9 tricks of 2 (the other 6
    cards are unseen).  Open belot: 2 players, 32 cards, 8 in hand + 4 piles
    ``[face_down, face_up]`` each, 16 tricks of 2.
V3  Open belot: the playable set is the hand plus the top card of each pile;
    legal-move duties apply to the whole playable set.  Playing a pile's top
    turns the card beneath it face up (playable at once).
V4  Runs and carres: each player's best set (tests/reference.py hand logic) from
    his dealt hand (2/3 players) or his 8 hand cards + 4 initially face-up table
    cards (open belot).  Everybody announces every run and carre.
V5  Belote: 2/3 players as §6.2/§14.8.  Open belot: decided when the player
    plays the first of K/Q of a belote suit; it counts if at that moment (before
    that card leaves, so the card it uncovers does not count) the other one is
    in his hand or face up on his table.  ``belote_on_discard`` and
    ``belote_silent`` apply as usual.
V6  Comparison (each player his own "team"): ``best_run`` - the one player whose
    best run is strictly better than every other player's scores all his runs;
    a tie for the best: nobody scores runs; carres always by their holder.
    ``best_declaration``: the single highest declaration (french order; ties to
    the first in playing order from d+1) - that player scores all his runs and
    carres.  ``declarations_need_trick`` after the comparison.
V7  Outcome: 2 players as §8 (each player a team).  3 players: ``made`` iff the
    taker's raw is strictly more than each opponent's, else ``inside`` (also
    when doubled); never hanging.
V8  Rounding: q, r = divmod(raw, 10), limit L 6/4/5; r < L down, r > L up; among
    the players with r == L: if two or more, the one with strictly the fewest raw
    rounds up, the others down (tie for the fewest: all down); alone: down.
V9  Distribution: made - each his own MP (2 players doubled: the defender is
    inside, the taker gets both).  Inside, 2 players: the other gets both.
    Inside, 3 players: the taker gets nothing, each opponent his own MP plus
    half of the taker's; the odd MP to the opponent with more raw (equal: the
    first in playing order from d+1).  3 players doubled and made: each his own
    MP.  Every MP x 2**doubling; valat MP never.
V10 Valat: the player who won every trick gets 9 MP (18 in NT with
    ``valat_nt_double``).  ``kirtik``: -10 MP, once per player and deal, for the
    inside player (the taker when inside; with 2 players doubled and made, the
    defender, as §8.1) and for every player who won no trick while another
    won them all.
V11 ``scoring = french`` and ``revoke_penalty`` are rejected (ValueError), as
    is a doubling level above 2 or above 0 without the ``doubling`` option.
V12 Replay conventions follow tests/reference.py's ``replay`` (R4 for tricks,
    illegal reports, ``declarations`` entries sorted by (seat, kind, card)).
    ``ruleset`` defaults to ``common``; ``players`` is required except with
    ``variant: "open"`` (then it must be 2 if given).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as ref

__all__ = [
    "DECK24",
    "DECK32",
    "illegal_rule_solo",
    "legal_cards_solo",
    "player_declarations",
    "replay_variant",
    "round_mp_players",
    "score_players",
    "trick_winner_solo",
]

DECK24 = [r + s for s in ref.SUITS for r in "9TJQKA"]
DECK32 = list(ref.ALL_CARDS)
sort_cards = ref.sort_cards


# ---------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------


def _resolve(rules):
    """(ruleset name, option dict incl. ``doubling``) for the variants."""
    doubling = False
    if isinstance(rules, dict):
        rules = dict(rules)
        if "ruleset" in rules or "options" in rules:
            opts_in = dict(rules.get("options") or {})
            if "doubling" in opts_in:
                doubling = opts_in.pop("doubling")
            rules["options"] = opts_in
        elif "doubling" in rules:
            doubling = rules.pop("doubling")
    if not isinstance(doubling, bool):
        raise ValueError(f"option doubling: bool expected, got {doubling!r}")
    name, opts = ref._split_rules(rules)
    opts["doubling"] = doubling
    return name, opts


def resolve_rules(rules):
    return _resolve(rules)[1]


def _is_trump(suit, strain):
    return strain == "AT" or suit == strain


# ---------------------------------------------------------------------------
# Playing a trick without partners (V1)
# ---------------------------------------------------------------------------


def _winning_index(trick, strain):
    """Index of the card that wins ``trick`` if it ended now (§5 Winner).

    Highest trump if a trump is in it, else the highest card of the led suit;
    in AT only cards of the led suit can win (in trump order).
    """
    led = trick[0][1]
    if strain not in ("NT", "AT"):
        trumps = [i for i, c in enumerate(trick) if c[1] == strain]
        if trumps:
            return max(trumps, key=lambda i: ref.TRUMP_STRENGTH[trick[i][0]])
    order = ref.TRUMP_STRENGTH if strain == "AT" or led == strain else ref.PLAIN_STRENGTH
    same = [i for i, c in enumerate(trick) if c[1] == led]
    return max(same, key=lambda i: order[trick[i][0]])


def trick_winner_solo(trick, leader, strain, players):
    """Seat that wins the complete ``trick`` (``players`` cards) led by ``leader``."""
    if len(trick) != players:
        raise ValueError("complete trick expected")
    return (leader + _winning_index(trick, strain)) % players


def _legal(playable, trick, strain, opts):
    playable = set(playable)
    if not trick:
        return playable  # the leader plays any card
    led = trick[0][1]
    follow = {c for c in playable if c[1] == led}
    if follow:
        if _is_trump(led, strain):
            # raise over the highest card of the led (trump) suit in the trick
            top = max(ref.TRUMP_STRENGTH[c[0]] for c in trick if c[1] == led)
            higher = {c for c in follow if ref.TRUMP_STRENGTH[c[0]] > top}
            return higher or follow
        return follow  # plain suit: any card of it
    if strain in ("NT", "AT"):
        return playable  # void in NT / AT: any card
    trumps = {c for c in playable if c[1] == strain}
    if not trumps:
        return playable
    in_trick = [ref.TRUMP_STRENGTH[c[0]] for c in trick if c[1] == strain]
    if not in_trick:
        return trumps  # must trump
    top = max(in_trick)
    higher = {c for c in trumps if ref.TRUMP_STRENGTH[c[0]] > top}
    if higher:
        return higher  # must overtrump (every card in the trick is an opponent's)
    return trumps if opts["undertrump"] else playable


def _check_position(playable, trick, strain):
    ref._check_strain(strain)
    for c in list(playable) + list(trick):
        ref._check_card(c)


def legal_cards_solo(playable, trick, strain, rules):
    """Sorted legal cards from ``playable`` after ``trick`` (opponents' cards)."""
    _check_position(playable, trick, strain)
    return sort_cards(_legal(playable, trick, strain, resolve_rules(rules)))


def _illegal(playable, trick, strain, opts, card):
    playable = set(playable)
    if card not in playable:
        return "not_in_hand"
    if card in _legal(playable, trick, strain, opts):
        return None
    led = trick[0][1]  # leading is always legal
    if any(c[1] == led for c in playable):
        return "follow_suit" if card[1] != led else "raise"
    # void in a plain led suit of a suit contract, holding a trump
    in_trick = [ref.TRUMP_STRENGTH[c[0]] for c in trick if c[1] == strain]
    if not in_trick:
        return "trump"
    top = max(in_trick)
    if any(c[1] == strain and ref.TRUMP_STRENGTH[c[0]] > top for c in playable):
        return "overtrump"  # a lower trump or a plain card where overtrump was possible
    return "undertrump"  # a plain card where a lower trump was due


def illegal_rule_solo(playable, trick, strain, rules, card):
    """None if ``card`` is legal, else the duty broken (§14.16 names)."""
    _check_position(playable, trick, strain)
    ref._check_card(card)
    return _illegal(playable, trick, strain, resolve_rules(rules), card)


# ---------------------------------------------------------------------------
# Declarations among P players (V4, V6)
# ---------------------------------------------------------------------------


def _french_key(d, strain, first_seat, players):
    """§6.3 french order over every player's declarations (bigger is better)."""
    order = -((d["seat"] - first_seat) % players)  # first in play order from d+1 wins ties
    if d["kind"] == "carre":
        return (d["points"], 1, ref.PLAIN_STRENGTH[d["cards"][0][0]], 0, order)
    top = d["cards"][-1]
    return (d["points"], 0, ref.SEQ_INDEX[top[0]], int(_is_trump(top[1], strain)), order)


def player_declarations(seat_decls, strain, first_seat, tricks_won, opts):
    """Per player: the runs/carres he scores (entries carry ``seat``)."""
    players = len(seat_decls)
    entries = [[dict(d, seat=s) for d in seat_decls[s]] for s in range(players)]
    scored = [[] for _ in range(players)]
    if opts["declarations_compare"] == "best_run":
        runs = [[e for e in entries[s] if e["kind"] != "carre"] for s in range(players)]
        best = [max((ref._run_key(e) for e in runs[s]), default=None) for s in range(players)]
        winner = None
        for s in range(players):
            if best[s] is not None and all(
                best[o] is None or best[s] > best[o] for o in range(players) if o != s
            ):
                winner = s  # strictly better than every other player's best run
        for s in range(players):
            scored[s] = [e for e in entries[s] if e["kind"] == "carre"]  # always
            if s == winner:
                scored[s] += runs[s]
    else:  # best_declaration
        every = [
            (_french_key(e, strain, first_seat, players), s)
            for s in range(players)
            for e in entries[s]
        ]
        if every:
            winner = max(every)[1]
            scored[winner] = list(entries[winner])
    if opts["declarations_need_trick"]:  # after the comparison (§14.6)
        for s in range(players):
            if tricks_won[s] == 0:
                scored[s] = []
    return scored


# ---------------------------------------------------------------------------
# Match points among P players (V7-V10)
# ---------------------------------------------------------------------------

_LIMIT = {"AT": 4, "NT": 5}


def round_mp_players(raws, strain):
    """Raw points of each player rounded to match points (V8)."""
    ref._check_strain(strain)
    limit = _LIMIT.get(strain, 6)
    at_limit = [i for i, x in enumerate(raws) if x % 10 == limit]
    up = None
    if len(at_limit) >= 2:
        fewest = min(raws[i] for i in at_limit)
        lowest = [i for i in at_limit if raws[i] == fewest]
        if len(lowest) == 1:
            up = lowest[0]
    out = []
    for i, x in enumerate(raws):
        q, r = divmod(x, 10)
        if r > limit or (r == limit and i == up):
            q += 1
        out.append(q)
    return out


def score_players(raw, taker, strain, doubling, valat, rules, first_seat):
    """{"outcome", "mp", "held_mp"} per player from raw points (MP scoring)."""
    opts = resolve_rules(rules)
    players = len(raw)
    if players not in (2, 3):
        raise ValueError("2 or 3 players expected")
    m = round_mp_players(raw, strain)
    mult = 2**doubling
    mp = [0] * players
    held = [0] * players
    inside = None  # the player who is inside (for kirtik)
    if players == 2:
        t, d = taker, 1 - taker
        if raw[t] > raw[d]:
            outcome = "made"
            if doubling:
                inside = d  # both committed: the defender is inside
                mp[t] = (m[0] + m[1]) * mult
            else:
                mp = list(m)
        elif raw[t] < raw[d]:
            outcome = "inside"
            inside = t
            mp[d] = (m[0] + m[1]) * mult
        else:
            outcome = "hanging"
            if doubling:
                held = [m[0] * mult, m[1] * mult]
            else:
                held[t] = m[t]
                mp[d] = m[d]
    else:
        opps = [s for s in range(players) if s != taker]
        if all(raw[taker] > raw[o] for o in opps):
            outcome = "made"
            mp = [x * mult for x in m]
        else:
            outcome = "inside"
            inside = taker
            half, odd = divmod(m[taker], 2)
            # the odd MP: more raw; equal raw: first in playing order from d+1
            gets_odd = max(opps, key=lambda o: (raw[o], -((o - first_seat) % players)))
            for o in opps:
                mp[o] = (m[o] + half + (odd if o == gets_odd else 0)) * mult
    if valat is not None:
        mp[valat] += 18 if strain == "NT" and opts["valat_nt_double"] else 9
    if opts["kirtik"]:
        hit = set()
        if inside is not None:
            hit.add(inside)
        if valat is not None:
            hit.update(s for s in range(players) if s != valat)
        for s in hit:
            mp[s] -= 10
    return {"outcome": outcome, "mp": mp, "held_mp": held}


# ---------------------------------------------------------------------------
# Replay
# ---------------------------------------------------------------------------

_RECORD_FIELDS = {
    "ruleset",
    "options",
    "players",
    "variant",
    "table",
    "dealer",
    "hands",
    "contract",
    "plays",
    "belote_silent",
}


def _parse_cards(value, what, deck):
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{what}: cards expected")
    out = []
    for c in value:
        ref._check_card(c)
        if c not in deck:
            raise ValueError(f"{what}: {c} is not in this variant's deck")
        out.append(c)
    return out


def _int(value, lo, hi, what):
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ValueError(f"{what}: integer {lo}..{hi} expected, got {value!r}")
    return value


def replay_variant(record):
    """Replay a recorded 2-player, 3-player or open-belot deal."""
    if not isinstance(record, dict):
        raise ValueError("record must be a dict")
    unknown = [
        k for k in record if k not in _RECORD_FIELDS and k != "id" and not str(k).startswith("_")
    ]
    if unknown:
        raise ValueError(f"unknown record fields: {unknown}")
    for k in ("dealer", "hands", "contract"):
        if k not in record:
            raise ValueError(f"record lacks {k!r}")
    variant = record.get("variant")
    if variant not in (None, "open"):
        raise ValueError(f"unknown variant {variant!r}")
    is_open = variant == "open"
    if is_open:
        players = record.get("players", 2)
        if players != 2 or isinstance(players, bool):
            raise ValueError("open belot is for 2 players")
    else:
        if "players" not in record:
            raise ValueError("record lacks 'players'")
        players = record["players"]
        if isinstance(players, bool) or players not in (2, 3):
            raise ValueError(f"players: 2 or 3 expected, got {players!r}")
        if "table" in record:
            raise ValueError("table is only for open belot")

    _, opts = _resolve(
        {"ruleset": record.get("ruleset", "common"), "options": record.get("options") or {}}
    )
    if opts["scoring"] == "french":
        raise ValueError("french scoring is not defined for the variants")
    if opts["revoke_penalty"]:
        raise ValueError("revoke_penalty is not defined for the variants")

    dealer = _int(record["dealer"], 0, players - 1, "dealer")
    deck = set(DECK32) if is_open else set(DECK24)
    hand_size = 8 if is_open or players == 3 else 9
    n_tricks = 16 if is_open else hand_size
    hands_in = record["hands"]
    if not isinstance(hands_in, (list, tuple)) or len(hands_in) != players:
        raise ValueError(f"hands: {players} hands expected")
    hands = [_parse_cards(h, f"hand {i}", deck) for i, h in enumerate(hands_in)]
    if any(len(h) != hand_size for h in hands):
        raise ValueError(f"hands: {hand_size} cards each expected")
    piles = [[] for _ in range(players)]  # open belot: piles[s][i] = [down, up]
    if is_open:
        table = record.get("table")
        if not isinstance(table, (list, tuple)) or len(table) != 2:
            raise ValueError("table: 2 players' piles expected")
        for s in range(2):
            if not isinstance(table[s], (list, tuple)) or len(table[s]) != 4:
                raise ValueError("table: 4 piles per player expected")
            for pile in table[s]:
                cs = _parse_cards(pile, "table pile", deck)
                if len(cs) != 2:
                    raise ValueError("table pile: [face_down, face_up] expected")
                piles[s].append(cs)
    every = [c for h in hands for c in h] + [c for s in piles for p in s for c in p]
    if len(set(every)) != len(every):
        raise ValueError("a card is dealt twice")
    if is_open and len(every) != 32:
        raise ValueError("open belot deals all 32 cards")

    contract = record["contract"]
    if not isinstance(contract, dict) or set(contract) - {"strain", "taker", "doubling"}:
        raise ValueError("contract: {strain, taker, doubling} expected")
    strain = contract.get("strain")
    ref._check_strain(strain)
    taker = _int(contract.get("taker"), 0, players - 1, "taker")
    doubling = _int(contract.get("doubling", 0), 0, 2, "doubling")
    if doubling and not opts["doubling"]:
        raise ValueError("doubling needs the doubling option")
    plays = _parse_cards(record.get("plays", []), "plays", deck)
    n_cards = n_tricks * players
    if len(plays) > n_cards:
        raise ValueError(f"plays: at most {n_cards} cards")
    silent = record.get("belote_silent", []) or []
    if not isinstance(silent, (list, tuple)):
        raise ValueError("belote_silent: list of seats expected")
    silent = {_int(s, 0, players - 1, "belote_silent") for s in silent}

    hand = [set(h) for h in hands]

    def playable(s):
        return hand[s] | {p[-1] for p in piles[s] if p}

    # V4: what each player can see when runs/carres are announced
    visible = [set(hands[s]) | {p[1] for p in piles[s]} for s in range(players)]
    seat_decls = [ref._hand_declarations(visible[s], strain, opts) for s in range(players)]
    belote_suits = [
        ref._belote_suits(playable(s) | set().union(*piles[s]) if is_open else hand[s], strain)
        for s in range(players)
    ]
    belote_decided = set()
    belotes = []
    played = 0
    tricks = []
    trick = []
    leader = (dealer + 1) % players
    tricks_won = [0] * players
    points = [0] * players
    illegal = None
    legal_at_illegal = None

    for card in plays:
        seat = (leader + len(trick)) % players
        can = playable(seat)
        rule = _illegal(can, trick, strain, opts, card)
        if rule is not None:
            k = len(tricks) - 1 if trick else len(tricks)
            illegal = {"trick": k, "seat": seat, "card": card, "rule": rule}
            legal_at_illegal = _legal(can, trick, strain, opts)
            break
        suit = card[1]
        if card[0] in "KQ" and suit in belote_suits[seat] and (seat, suit) not in belote_decided:
            belote_decided.add((seat, suit))
            other = ("Q" if card[0] == "K" else "K") + suit
            # V5: 2/3 players both were in the dealt hand; open belot: the
            # other card must be playable now (before this card leaves).
            holds = other in can
            counts = (
                opts["belote_on_discard"]
                or not trick
                or suit == trick[0][1]
                or (strain not in ("NT", "AT") and suit == strain)
            )
            if holds and counts and seat not in silent:
                belotes.append(
                    {
                        "seat": seat,
                        "kind": "belote",
                        "cards": ["Q" + suit, "K" + suit],
                        "points": 20,
                    }
                )
        if card in hand[seat]:
            hand[seat].discard(card)
        else:  # a face-up table card: the card beneath turns face up
            for p in piles[seat]:
                if p and p[-1] == card:
                    p.pop()
                    break
        played += 1
        if not trick:
            tricks.append({"leader": leader, "cards": trick, "winner": None})
        trick.append(card)
        if len(trick) == players:
            winner = (leader + _winning_index(trick, strain)) % players
            tricks[-1]["winner"] = winner
            tricks_won[winner] += 1
            points[winner] += sum(ref.card_points(c, strain) for c in trick)
            if len(tricks) == n_tricks:
                points[winner] += ref.LAST_TRICK_BONUS
            leader, trick = winner, []

    result = {
        "tricks": [
            {"leader": t["leader"], "cards": list(t["cards"]), "winner": t["winner"]}
            for t in tricks
        ],
        "to_play": None,
        "legal": None,
        "illegal": illegal,
        "card_points": None,
        "declarations": None,
        "raw": None,
        "outcome": None,
        "valat": None,
        "mp": None,
        "held_mp": None,
    }
    if illegal is not None:
        result["to_play"] = illegal["seat"]
        result["legal"] = sort_cards(legal_at_illegal)
        return result
    if played < n_cards:
        seat = (leader + len(trick)) % players
        result["to_play"] = seat
        result["legal"] = sort_cards(_legal(playable(seat), trick, strain, opts))
        return result

    first_seat = (dealer + 1) % players
    valat = next((s for s in range(players) if tricks_won[s] == n_tricks), None)
    scored = player_declarations(seat_decls, strain, first_seat, tricks_won, opts)
    belote_pts = [20 * sum(1 for b in belotes if b["seat"] == s) for s in range(players)]
    factor = 2 if strain == "NT" and opts["nt_double_raw"] else 1
    raw = [
        factor * (points[s] + sum(d["points"] for d in scored[s]) + belote_pts[s])
        for s in range(players)
    ]
    declarations = [
        sorted(scored[s] + [b for b in belotes if b["seat"] == s], key=ref._team_sort_key)
        for s in range(players)
    ]
    sc = score_players(raw, taker, strain, doubling, valat, opts, first_seat)
    result.update(
        card_points=points,
        declarations=declarations,
        raw=raw,
        outcome=sc["outcome"],
        valat=valat,
        mp=sc["mp"],
        held_mp=sc["held_mp"],
    )
    return result
