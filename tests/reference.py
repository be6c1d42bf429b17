"""Independent, deliberately simple reference implementation of shared/RULES.md.

This module is an oracle for the tests: it is written from docs/rules.md alone, never
imports ``belote_sim``, and uses only plain Python (card strings, sets, lists,
dicts). Clarity wins over speed.

Conventions (a contract with the tests)
---------------------------------------
- Card: a 2-character string rank + suit, ranks ``789TJQKA``, suits ``CDHS``
  (``"JH"``, ``"TS"``, ``"7C"``). Only this canonical form is accepted.
- Seats 0..3 in playing order; ``team = seat % 2``.
- Strain: one of ``C D H S NT AT``.
- ``rules``: ``{"ruleset": "common"|"bulgarian"|"french", "options": {...}}``.
  Functions that take ``rules`` also accept the flat dict returned by
  :func:`resolve_rules`, and ``None`` (= the ``common`` preset).
- Card lists in outputs are sorted by suit C, D, H, S, then rank 7 8 9 T J Q K A.

Readings of docs/rules.md chosen here (each is repeated next to the code)
--------------------------------------------------------------------
R1  Trick winner in AT: every suit is "trump", but a card of another suit than
    the led one never wins; the winner is the highest card of the led suit in
    trump order (§5 "trump order in AT").
R2  Run comparison between teams (§6.3 best_run) uses the *declared* run: a run
    of 6/7 is a quinte topped by its highest card, a run of 8 is a quinte A-T
    (its best run) plus a tierce 9-7 (§14.3).
R3  French best_declaration, "a run in trump beats one that is not": in AT every
    suit is trump, so this tie-break never separates two runs there; the seat
    order from dealer+1 decides.
R4  ``replay`` "tricks": a trick appears once it holds at least one card, so
    ``len(tricks) == ceil(len(legally played cards) / 4)``; no empty trick is
    listed at a trick boundary.
R5  French failed contract: the defenders get the deal's card total as it enters
    raw points (162/258/130, or the capot total when one team took every trick,
    whoever it was) plus every run and carre scored by either team plus their own
    belote; all of it times 2 only if ``nt_double_raw`` is on in NT (off in the
    french preset).
R6  ``kirtik`` is ignored under ``scoring == "french"`` (§13: "not with french
    scoring").  Under MP scoring the "inside team" is the taker's team when the
    outcome is inside; when a doubled contract is made the defenders are inside
    (§8.1, §14.9); an undoubled made contract has no inside team.
R7  Valat MP go to the team that took every trick whatever the outcome (even if
    that team is inside because of the other team's declarations); they are added
    to its ``mp`` now, never multiplied, never held.
R8  revoke_penalty (§12): the non-offending team's raw = (card total + every
    declaration announced so far, both teams' alike, no §6.3 comparison, no
    "need a trick") x 2 in NT when ``nt_double_raw``; the offending team's raw is
    0.  "Announced so far" = runs/carres of seats that had legally played at
    least one card, and belotes already announced (first of K/Q legally played).
    ``declarations`` lists those announced, all under the non-offending team
    (it scores them).
    ``card_points`` = points of the completed tricks (no last-trick 10 since the
    deal did not finish). ``valat`` is None.  MP: outcome from raw as usual, the
    offending team is the inside team (it gets 0, or -10 with kirtik), the other
    team gets both teams' MP x doubling.  French scoring: ``mp = raw``.
R9  play_game: the end-of-game test runs after every deal, thrown-in deals
    included; a thrown-in deal leaves the pending pot untouched.  ``held`` is a
    single number (the pot, both teams' held points together).
R10 perft with ``depth`` larger than the number of cards left returns 0 (no
    sequence of that length exists); depth 0 returns 1.
R11 play_game with ``third_double``: a deal at doubling 3 that is made or inside
    ends the game at once (checked before the target test), won by that deal's
    winner (made -> taker team, inside -> defenders) whatever the totals; a
    hanging doubling-3 deal does not end it.  The pot is paid to that winner too.
R12 legal_cards: only the relative order in the trick matters (partner = the card
    two places before the player), so ``leader`` does not change the answer.
R13 replay: ``doubling`` 3 is accepted only with ``third_double``; doubling > 0
    under ``scoring == "french"`` and NT/AT in the ``french`` ruleset without
    ``french_allow_nt_at`` are ValueErrors (§14.15).  ``plays`` may also be one
    space-separated string; ``ruleset`` defaults to ``common``.
"""

from __future__ import annotations

from itertools import combinations

__all__ = [
    "ALL_CARDS",
    "OPTION_NAMES",
    "PRESETS",
    "RANKS",
    "STRAINS",
    "SUITS",
    "belote_pairs",
    "card_points",
    "hand_declarations",
    "illegal_rule",
    "legal_cards",
    "perft",
    "play_game",
    "replay",
    "resolve_rules",
    "round_mp",
    "score_mp",
    "sort_cards",
    "trick_winner",
]

# ---------------------------------------------------------------------------
# Cards (§1, §2)
# ---------------------------------------------------------------------------

RANKS = "789TJQKA"  # sequence order, low to high (§2 "sequence order")
SUITS = "CDHS"
STRAINS = ("C", "D", "H", "S", "NT", "AT")
ALL_CARDS = [r + s for s in SUITS for r in RANKS]
_CARD_SET = frozenset(ALL_CARDS)
_SORT_KEY = {c: i for i, c in enumerate(ALL_CARDS)}  # suit-major, then rank

# Strength: bigger beats smaller.  Trump order J 9 A T K Q 8 7; plain A T K Q J 9 8 7.
TRUMP_STRENGTH = {"J": 7, "9": 6, "A": 5, "T": 4, "K": 3, "Q": 2, "8": 1, "7": 0}
PLAIN_STRENGTH = {"A": 7, "T": 6, "K": 5, "Q": 4, "J": 3, "9": 2, "8": 1, "7": 0}
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
SEQ_INDEX = {r: i for i, r in enumerate(RANKS)}  # 7=0 ... A=7

LAST_TRICK_BONUS = 10
CARD_TOTAL = {"C": 162, "D": 162, "H": 162, "S": 162, "AT": 258, "NT": 130}


def _check_card(card):
    if card not in _CARD_SET:
        raise ValueError(f"not a card: {card!r}")
    return card


def _check_strain(strain):
    if strain not in STRAINS:
        raise ValueError(f"not a strain: {strain!r}")
    return strain


def sort_cards(cards):
    """Cards sorted by suit C, D, H, S then rank 7..A."""
    return sorted(cards, key=_SORT_KEY.__getitem__)


def _is_trump(suit, strain):
    # §2: in AT every suit counts as trump; in NT none; else the named suit.
    return strain == "AT" or suit == strain


def _strength(card, strain):
    if _is_trump(card[1], strain):
        return TRUMP_STRENGTH[card[0]]
    return PLAIN_STRENGTH[card[0]]


def card_points(card, strain):
    """Card points of ``card`` in ``strain`` (§2)."""
    _check_card(card)
    _check_strain(strain)
    if _is_trump(card[1], strain):
        return TRUMP_POINTS[card[0]]
    return PLAIN_POINTS[card[0]]


# ---------------------------------------------------------------------------
# Rules (§13)
# ---------------------------------------------------------------------------

_COMMON = {
    "raise_over_partner": False,
    "undertrump": True,
    "card_in_one_declaration": True,
    "belote_on_discard": True,
    "nt_four_aces": False,
    "declarations_compare": "best_run",
    "declarations_need_trick": False,
    "nt_double_raw": True,
    "scoring": "mp",
    "valat_nt_double": True,
    "capot_points": 250,
    "kirtik": False,
    "french_allow_nt_at": False,  # "—" in §13: not applicable; False
    "third_double": False,
    "at_double_ends_auction": False,
    "dealer_must_take": False,
    "dealing": "shuffle",
    "revoke_penalty": False,
    "game_target": 151,
}
PRESETS = {
    "common": dict(_COMMON),
    "bulgarian": dict(
        _COMMON,
        raise_over_partner=True,
        undertrump=False,
        belote_on_discard=False,
        declarations_need_trick=True,
        valat_nt_double=False,
    ),
    "french": dict(
        _COMMON,
        raise_over_partner=True,
        undertrump=True,
        declarations_compare="best_declaration",
        nt_double_raw=False,
        scoring="french",
        valat_nt_double=False,
        game_target=1000,
    ),
}
OPTION_NAMES = tuple(_COMMON)
_CHOICES = {
    "declarations_compare": ("best_run", "best_declaration"),
    "scoring": ("mp", "french"),
    "dealing": ("shuffle", "cut"),
}
_INT_OPTIONS = ("capot_points", "game_target")


def _check_option(name, value):
    if name not in _COMMON:
        raise ValueError(f"unknown option: {name!r}")
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            raise ValueError(f"option {name}: {value!r} not in {_CHOICES[name]}")
    elif name in _INT_OPTIONS:
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"option {name}: positive int expected, got {value!r}")
    elif not isinstance(value, bool):
        raise ValueError(f"option {name}: bool expected, got {value!r}")


def _split_rules(rules):
    """Return (ruleset name, resolved option dict)."""
    if rules is None:
        return "common", dict(PRESETS["common"])
    if not isinstance(rules, dict):
        raise ValueError(f"rules must be a dict, got {type(rules).__name__}")
    if "ruleset" not in rules and set(rules) <= set(OPTION_NAMES):
        # An already resolved (flat) option dict, possibly partial: over common,
        # except that french scoring implies the french preset.
        base = "french" if rules.get("scoring") == "french" else "common"
        opts = dict(PRESETS[base])
        for k, v in rules.items():
            _check_option(k, v)
            opts[k] = v
        return base, opts
    extra = set(rules) - {"ruleset", "options"}
    if extra:
        raise ValueError(f"unknown rules fields: {sorted(extra)}")
    name = rules.get("ruleset", "common")
    if name not in PRESETS:
        raise ValueError(f"unknown ruleset: {name!r}")
    opts = dict(PRESETS[name])
    overrides = rules.get("options") or {}
    if not isinstance(overrides, dict):
        raise ValueError("options must be a dict")
    for k, v in overrides.items():
        _check_option(k, v)
        opts[k] = v
    return name, opts


def resolve_rules(rules):
    """Every §13 option for the preset, with the overrides applied."""
    return _split_rules(rules)[1]


# ---------------------------------------------------------------------------
# Bidding (§4.1 auction, §4.2 french two rounds)
# ---------------------------------------------------------------------------

BID_STRAINS = ("C", "D", "H", "S", "NT", "AT")


def auction(calls, dealer, rules, turned=None):
    """Where the bidding stands after ``calls`` (words: ``pass``, a strain, ``double``,
    ``redouble``, ``third_double``; the first from seat dealer+1): ``{"over", "turn",
    "legal", "contract"}``, ``contract`` ``(strain, taker, doubling)`` or None, ``legal``
    the calls of the seat to call ([] when over).  ``turned``: the french turned card.
    ``ValueError`` for a call that is not legal."""
    ruleset, opts = _split_rules(rules)
    french = ruleset == "french"
    bid, bidder, level, passes = None, None, 0, 0
    over = False
    legal = []
    for k in range(len(calls) + 1):
        seat = (dealer + 1 + k) % 4
        if french:
            # §4.2: round 1 take the turned suit or pass; round 2 another suit or pass
            if bid is not None or k >= 8:
                over, legal = True, []
            elif k < 4:
                legal = ["pass", turned[1]]
            else:
                others = [s for s in "CDHS" if s != turned[1]]
                if opts["french_allow_nt_at"]:
                    others += ["NT", "AT"]
                legal = ["pass"] + others
        else:
            max_level = 3 if opts["third_double"] else 2
            if (bid is None and passes == 4) or (bid is not None and passes == 3):
                over = True
            if bid == "AT" and (
                level == max_level or (level == 1 and opts["at_double_ends_auction"])
            ):
                over = True
            if over:
                legal = []
            else:
                must = opts["dealer_must_take"] and bid is None and k == 3
                legal = [] if must else ["pass"]
                first = 0 if bid is None else BID_STRAINS.index(bid) + 1
                legal += list(BID_STRAINS[first:])
                if bid is not None:
                    theirs = bidder % 2 != seat % 2
                    if theirs and level == 0:
                        legal.append("double")
                    if not theirs and level == 1:
                        legal.append("redouble")
                    if theirs and level == 2 and opts["third_double"]:
                        legal.append("third_double")
        if k == len(calls):
            break
        call = calls[k]
        if call not in legal:
            raise ValueError(f"call {k + 1} {call!r} is not legal (legal: {legal})")
        if call == "pass":
            passes += 1
        elif call in BID_STRAINS:
            bid, bidder, level, passes = call, seat, 0, 0
        else:
            level, passes = level + 1, 0
    contract = (bid, bidder, level) if over and bid is not None else None
    turn = None if over else (dealer + 1 + len(calls)) % 4
    return {"over": over, "turn": turn, "legal": legal, "contract": contract}


# ---------------------------------------------------------------------------
# Playing a trick (§5)
# ---------------------------------------------------------------------------


def _winning_index(trick, strain):
    """Index in ``trick`` of the card that wins it if it ended now (§5 Winner).

    The current best card is always of the led suit or a trump, so a card beats
    it iff it is of the same suit and stronger, or it is a trump (suit contract)
    and the best card is not.  In AT a card of another suit never wins (R1).
    """
    best = 0
    for i in range(1, len(trick)):
        card, top = trick[i], trick[best]
        if card[1] == top[1]:
            if _strength(card, strain) > _strength(top, strain):
                best = i
        elif card[1] == strain:  # a trump over a plain card (suit contracts)
            best = i
    return best


def trick_winner(trick, leader, strain):
    """Seat that wins the complete 4-card ``trick`` led by ``leader``."""
    if len(trick) != 4:
        raise ValueError("trick_winner needs a complete 4-card trick")
    for c in trick:
        _check_card(c)
    _check_strain(strain)
    return (leader + _winning_index(trick, strain)) % 4


def _legal(hand, trick, strain, opts):
    """Legal cards (a new set) for the player to move; §5 priorities literally."""
    if not trick:
        return set(hand)  # the leader may play any card
    led = trick[0][1]
    n = len(trick)
    # "Partner is currently winning": the card that would win now is his
    # partner's, i.e. the card played two places before him.
    partner_winning = n >= 2 and _winning_index(trick, strain) == n - 2
    follow = {c for c in hand if c[1] == led}
    if follow:
        # 1. Follow suit.
        if _is_trump(led, strain):
            # Led suit is trump (any suit in AT): raise, unless exempt.
            if partner_winning and not opts["raise_over_partner"]:
                return follow
            top = max(TRUMP_STRENGTH[c[0]] for c in trick if c[1] == led)
            higher = {c for c in follow if TRUMP_STRENGTH[c[0]] > top}
            return higher or follow
        return follow
    # 3. NT / AT: a player who cannot follow may play any card.
    if strain in ("NT", "AT"):
        return set(hand)
    # 2. Trump duty (suit contracts).
    if partner_winning:
        return set(hand)
    trumps = {c for c in hand if c[1] == strain}
    if not trumps:
        return set(hand)
    in_trick = [TRUMP_STRENGTH[c[0]] for c in trick if c[1] == strain]
    if not in_trick:
        return trumps
    # A trump is in the trick and partner is not winning, so the highest trump
    # (the winning card) is an opponent's: overtrump it if possible.
    top = max(in_trick)
    higher = {c for c in trumps if TRUMP_STRENGTH[c[0]] > top}
    if higher:
        return higher
    return trumps if opts["undertrump"] else set(hand)


def _check_position(hand, trick, strain):
    _check_strain(strain)
    if len(trick) > 3:
        raise ValueError("trick must hold 0..3 cards")
    for c in hand:
        _check_card(c)
    for c in trick:
        _check_card(c)


def legal_cards(hand, trick, leader, strain, rules):
    """Set of cards the player to move (seat ``(leader+len(trick)) % 4``) may play."""
    _check_position(hand, trick, strain)
    return _legal(hand, trick, strain, resolve_rules(rules))


def _illegal(hand, trick, strain, opts, card):
    if card not in hand:
        return "not_in_hand"
    if card in _legal(hand, trick, strain, opts):
        return None
    # An illegal card implies a non-empty trick (leading is free).
    led = trick[0][1]
    if any(c[1] == led for c in hand):
        return "follow_suit" if card[1] != led else "raise"
    # Void in a plain led suit of a suit contract, partner not winning, holds a
    # trump (otherwise every card would be legal).
    in_trick = [TRUMP_STRENGTH[c[0]] for c in trick if c[1] == strain]
    if not in_trick:
        return "trump"
    top = max(in_trick)
    if any(c[1] == strain and TRUMP_STRENGTH[c[0]] > top for c in hand):
        return "overtrump"  # lower trump or plain card where overtrump possible
    return "undertrump"  # plain card where a lower trump was due


def illegal_rule(hand, trick, leader, strain, rules, card):
    """None if ``card`` is legal, else the duty broken (§14.16)."""
    _check_position(hand, trick, strain)
    _check_card(card)
    return _illegal(set(hand), trick, strain, resolve_rules(rules), card)


# ---------------------------------------------------------------------------
# Declarations (§6, §14.1-14.8)
# ---------------------------------------------------------------------------

RUN_POINTS = {3: 20, 4: 50, 5: 100}
RUN_KIND = {3: "tierce", 4: "quarte", 5: "quinte"}
CARRE_POINTS = {"J": 200, "9": 150, "A": 100, "T": 100, "K": 100, "Q": 100}
KIND_ORDER = {"carre": 0, "quinte": 1, "quarte": 2, "tierce": 3, "belote": 4}
RUN_LENGTH = {"tierce": 3, "quarte": 4, "quinte": 5}


def _run_decl(suit, ranks):
    return {
        "kind": RUN_KIND[len(ranks)],
        "cards": [r + suit for r in ranks],  # already in sort order
        "points": RUN_POINTS[len(ranks)],
    }


def _carre_decl(rank):
    return {"kind": "carre", "cards": [rank + s for s in SUITS], "points": CARRE_POINTS[rank]}


def _runs(cards):
    """Maximal runs (length >= 3) in ``cards`` converted per §6.1 / §14.3."""
    out = []
    for suit in SUITS:
        run = []
        for r in RANKS + " ":  # sentinel closes the last run
            if r != " " and r + suit in cards:
                run.append(r)
                continue
            n = len(run)
            if n == 8:  # quinte A-T plus tierce 9-7
                out.append(_run_decl(suit, run[3:]))
                out.append(_run_decl(suit, run[:3]))
            elif n >= 6:  # one quinte of the five highest cards
                out.append(_run_decl(suit, run[-5:]))
            elif n >= 3:
                out.append(_run_decl(suit, run))
            run = []
    return out


def _hand_decl_key(d):
    """§6.3 french order within one hand: points, carre > run, then rank."""
    if d["kind"] == "carre":
        return (d["points"], 1, PLAIN_STRENGTH[d["cards"][0][0]])
    return (d["points"], 0, SEQ_INDEX[d["cards"][-1][0]])


def _decl_sort_key(d):
    return (KIND_ORDER[d["kind"]], _SORT_KEY[d["cards"][0]])


def _hand_declarations(cards, strain, opts):
    if strain == "NT":
        # §6.1 / §14.7: only four aces, with nt_four_aces; nothing else.
        if opts["nt_four_aces"] and all("A" + s in cards for s in SUITS):
            return [{"kind": "carre", "cards": ["AC", "AD", "AH", "AS"], "points": 200}]
        return []
    # Four 7s / four 8s are no declaration and use no cards (§14.4).
    carres = [r for r in CARRE_POINTS if all(r + s in cards for s in SUITS)]
    if not opts["card_in_one_declaration"]:
        decls = [_carre_decl(r) for r in carres] + _runs(cards)
    else:
        # Try every subset of the carres held (at most two in 8 cards); the rest
        # of the cards form maximal runs, each declared whole (converted by the
        # 6/7/8 rule), which is always the most points from those cards.
        best_key, decls = None, []
        for k in range(len(carres) + 1):
            for chosen in combinations(carres, k):
                used = {r + s for r in chosen for s in SUITS}
                cand = [_carre_decl(r) for r in chosen] + _runs(cards - used)
                key = (
                    sum(d["points"] for d in cand),
                    max((_hand_decl_key(d) for d in cand), default=(-1,)),
                )
                if best_key is None or key > best_key:
                    best_key, decls = key, cand
    decls.sort(key=_decl_sort_key)
    return decls


def hand_declarations(hand, strain, rules):
    """Runs and carres the hand declares (not belote), sorted by kind then card."""
    _check_strain(strain)
    cards = {_check_card(c) for c in hand}
    return _hand_declarations(cards, strain, resolve_rules(rules))


def _belote_suits(cards, strain):
    if strain == "NT":
        return []
    suits = SUITS if strain == "AT" else strain
    return [s for s in suits if "K" + s in cards and "Q" + s in cards]


def belote_pairs(hand, strain):
    """Suits in which the hand holds a belote K+Q (trump suit; every suit in AT)."""
    _check_strain(strain)
    return _belote_suits({_check_card(c) for c in hand}, strain)


def _run_key(d):
    # §6.3 best_run / §14.5: longer declared run wins, then higher top card in
    # sequence order; trump does not matter.  (R2: a 6/7-run is a quinte.)
    return (RUN_LENGTH[d["kind"]], SEQ_INDEX[d["cards"][-1][0]])


def _french_key(d, strain, dealer):
    """§6.3 french order over all seats' declarations (bigger is better)."""
    if d["kind"] == "carre":
        return (d["points"], 1, PLAIN_STRENGTH[d["cards"][0][0]], 0, 0)
    top = d["cards"][-1]
    seat_first = -((d["seat"] - dealer - 1) % 4)  # d+1 first
    # R3: in AT every run is "in trump", so that tie-break never separates.
    return (d["points"], 0, SEQ_INDEX[top[0]], int(_is_trump(top[1], strain)), seat_first)


def _scored_runs_carres(seat_decls, strain, dealer, tricks_won, opts):
    """[team0 list, team1 list] of the runs/carres each team scores (§6.3)."""
    entries = [[], []]
    for seat in range(4):
        for d in seat_decls[seat]:
            entries[seat % 2].append(dict(d, seat=seat))
    scored = [[], []]
    if opts["declarations_compare"] == "best_run":
        runs = [[e for e in entries[t] if e["kind"] != "carre"] for t in (0, 1)]
        best = [max((_run_key(e) for e in runs[t]), default=None) for t in (0, 1)]
        winner = None
        if best[0] is not None and (best[1] is None or best[0] > best[1]):
            winner = 0
        elif best[1] is not None and (best[0] is None or best[1] > best[0]):
            winner = 1
        # equal best runs: no team scores runs
        for t in (0, 1):
            scored[t] = [e for e in entries[t] if e["kind"] == "carre"]  # always
            if winner == t:
                scored[t] += runs[t]
    else:  # best_declaration
        every = [(_french_key(e, strain, dealer), t) for t in (0, 1) for e in entries[t]]
        if every:
            winner = max(every)[1]
            scored[winner] = list(entries[winner])
    if opts["declarations_need_trick"]:
        # §14.6: applied after the comparison.
        for t in (0, 1):
            if tricks_won[t] == 0:
                scored[t] = []
    return scored


def _team_sort_key(d):
    return (d["seat"], KIND_ORDER[d["kind"]], _SORT_KEY[d["cards"][0]])


# ---------------------------------------------------------------------------
# Match points (§8)
# ---------------------------------------------------------------------------

_LIMIT = {"AT": 4, "NT": 5}  # suit contracts: 6


def round_mp(raw, strain):
    """[m0, m1]: raw points rounded to match points (§8.2, §14.12)."""
    limit = _LIMIT.get(strain, 6)
    rem = [raw[0] % 10, raw[1] % 10]
    both = rem[0] == limit and rem[1] == limit
    out = []
    for t in (0, 1):
        q, r = divmod(raw[t], 10)
        if r > limit or (r == limit and both and raw[t] < raw[1 - t]):
            q += 1
        out.append(q)
    return out


def _outcome(raw, taker_team):
    t, d = raw[taker_team], raw[1 - taker_team]
    return "made" if t > d else "inside" if t < d else "hanging"


def _score_mp(raw, taker_team, strain, doubling, valat, opts, inside_team=None):
    """(outcome, mp, held_mp) under MP scoring (§8, §14.9-14.13).

    ``inside_team`` forces the inside side (revoke penalty, R8).
    """
    m = round_mp(raw, strain)
    mult = 2**doubling
    taker, defender = taker_team, 1 - taker_team
    outcome = _outcome(raw, taker_team)
    mp, held = [0, 0], [0, 0]
    if inside_team is not None:
        mp[1 - inside_team] = (m[0] + m[1]) * mult
    elif outcome == "made":
        if doubling:
            inside_team = defender  # both committed: defenders are inside
            mp[taker] = (m[0] + m[1]) * mult
        else:
            mp = [m[0], m[1]]
    elif outcome == "inside":
        inside_team = taker
        mp[defender] = (m[0] + m[1]) * mult
    else:  # hanging
        if doubling:
            held = [m[0] * mult, m[1] * mult]
        else:
            held[taker] = m[taker]
            mp[defender] = m[defender]
    if valat is not None:
        nt_double = strain == "NT" and opts["valat_nt_double"]
        mp[valat] += 18 if nt_double else 9  # R7
    if opts["kirtik"]:
        hit = set()
        if inside_team is not None:
            hit.add(inside_team)
        if valat is not None:
            hit.add(1 - valat)
        for t in hit:
            mp[t] -= 10
    return outcome, mp, held


def score_mp(raw, taker_team, strain, doubling=0, valat=None, rules=None):
    """Public wrapper: {"outcome", "mp", "held_mp"} for raw points (MP scoring)."""
    _check_strain(strain)
    outcome, mp, held = _score_mp(
        list(raw), taker_team, strain, doubling, valat, resolve_rules(rules)
    )
    return {"outcome": outcome, "mp": mp, "held_mp": held}


def _score_french(card_comp, runs_carres, belote_pts, taker_team, factor=1):
    """(outcome, mp, held_mp) under French scoring (§10, §14.14-14.15, R5).

    ``card_comp``: each team's card points as they enter raw (capot already
    applied); ``runs_carres``: points of the runs/carres each team scores after
    §6.3; ``belote_pts``: each team's counted belote points; ``factor``: 2 in NT
    with ``nt_double_raw``, else 1.
    """
    raw = [factor * (card_comp[t] + runs_carres[t] + belote_pts[t]) for t in (0, 1)]
    outcome = _outcome(raw, taker_team)
    mp, held = [0, 0], [0, 0]
    t, d = taker_team, 1 - taker_team
    if outcome == "made":
        mp = list(raw)
    elif outcome == "inside":  # failed (dedans)
        mp[d] = factor * (
            card_comp[0] + card_comp[1] + runs_carres[0] + runs_carres[1] + belote_pts[d]
        )
        mp[t] = factor * belote_pts[t]
    else:  # litige: defenders score now, the taker's team its belote now
        mp[d] = raw[d]
        mp[t] = factor * belote_pts[t]
        held[t] = raw[t] - mp[t]
    return outcome, mp, held


# ---------------------------------------------------------------------------
# Replay (§5-§8, §10, §12, §14.16-14.17)
# ---------------------------------------------------------------------------

_RECORD_FIELDS = {"ruleset", "options", "dealer", "hands", "contract", "plays", "belote_silent"}


def _parse_cards(value, what):
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{what}: cards expected")
    return [_check_card(c) for c in value]


def _seat(value, what):
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 3:
        raise ValueError(f"{what}: seat 0..3 expected, got {value!r}")
    return value


def replay(record):
    """Replay a recorded 4-player deal (see the module docstring and the brief)."""
    if not isinstance(record, dict):
        raise ValueError("record must be a dict")
    unknown = [
        k for k in record if k not in _RECORD_FIELDS and k != "id" and not str(k).startswith("_")
    ]
    if unknown:
        raise ValueError(f"unknown record fields: {unknown}")  # §14.17
    for k in ("dealer", "hands", "contract"):
        if k not in record:
            raise ValueError(f"record lacks {k!r}")
    ruleset, opts = _split_rules(
        {"ruleset": record.get("ruleset", "common"), "options": record.get("options") or {}}
    )
    dealer = _seat(record["dealer"], "dealer")
    hands_in = record["hands"]
    if not isinstance(hands_in, (list, tuple)) or len(hands_in) != 4:
        raise ValueError("hands: 4 hands expected")
    hands = [_parse_cards(h, f"hand {i}") for i, h in enumerate(hands_in)]
    if any(len(h) != 8 or len(set(h)) != 8 for h in hands):
        raise ValueError("hands: 8 distinct cards each expected")
    if len(set().union(*hands)) != 32:
        raise ValueError("hands: the 32 cards must be dealt once each")
    contract = record["contract"]
    if not isinstance(contract, dict) or set(contract) - {"strain", "taker", "doubling"}:
        raise ValueError("contract: {strain, taker, doubling} expected")
    strain = contract.get("strain")
    _check_strain(strain)
    taker = _seat(contract.get("taker"), "taker")
    doubling = contract.get("doubling", 0)
    if not isinstance(doubling, int) or isinstance(doubling, bool) or not 0 <= doubling <= 3:
        raise ValueError(f"doubling: 0..3 expected, got {doubling!r}")
    if doubling == 3 and not opts["third_double"]:
        raise ValueError("doubling 3 needs the third_double option")
    french = opts["scoring"] == "french"
    if french and doubling:
        raise ValueError("french scoring has no doubling")  # §14.15
    if ruleset == "french" and strain in ("NT", "AT") and not opts["french_allow_nt_at"]:
        raise ValueError("french: NT/AT need french_allow_nt_at")  # §14.15
    plays = _parse_cards(record.get("plays", []), "plays")
    if len(plays) > 32:
        raise ValueError("plays: at most 32 cards")
    silent = record.get("belote_silent", []) or []
    if not isinstance(silent, (list, tuple)):
        raise ValueError("belote_silent: list of seats expected")
    silent = {_seat(s, "belote_silent") for s in silent}

    start = [set(h) for h in hands]
    hand = [set(h) for h in hands]
    belote_suits = [_belote_suits(start[s], strain) for s in range(4)]
    belote_decided = set()  # (seat, suit) whose first card has been played
    belotes = []  # announced (and counting) belote entries
    played = [0, 0, 0, 0]  # legal cards played per seat
    tricks = []
    trick = []
    leader = (dealer + 1) % 4
    tricks_won = [0, 0]
    points = [0, 0]
    illegal = None
    legal_at_illegal = None

    for card in plays:
        seat = (leader + len(trick)) % 4
        rule = _illegal(hand[seat], trick, strain, opts, card)
        if rule is not None:
            # the in-progress trick is already listed once it holds a card (R4)
            k = len(tricks) - 1 if trick else len(tricks)
            illegal = {"trick": k, "seat": seat, "card": card, "rule": rule}
            legal_at_illegal = _legal(hand[seat], trick, strain, opts)
            break
        # §6.2 belote: decided when the first of K/Q of a pair is played.
        suit = card[1]
        if card[0] in "KQ" and suit in belote_suits[seat] and (seat, suit) not in belote_decided:
            belote_decided.add((seat, suit))
            counts = (
                opts["belote_on_discard"]
                or not trick  # led
                or suit == trick[0][1]  # followed the led suit
                or (strain not in ("NT", "AT") and suit == strain)  # a trump
            )
            if counts and seat not in silent:
                belotes.append(
                    {
                        "seat": seat,
                        "kind": "belote",
                        "cards": ["Q" + suit, "K" + suit],
                        "points": 20,
                    }
                )
        hand[seat].discard(card)
        played[seat] += 1
        if not trick:
            tricks.append({"leader": leader, "cards": trick, "winner": None})
        trick.append(card)
        if len(trick) == 4:
            winner = (leader + _winning_index(trick, strain)) % 4
            tricks[-1]["winner"] = winner
            tricks_won[winner % 2] += 1
            points[winner % 2] += sum(card_points(c, strain) for c in trick)
            if len(tricks) == 8:
                points[winner % 2] += LAST_TRICK_BONUS
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
    n_played = sum(played)
    if illegal is not None:
        result["to_play"] = illegal["seat"]
        result["legal"] = sort_cards(legal_at_illegal)
    elif n_played < 32:
        seat = (leader + len(trick)) % 4
        result["to_play"] = seat
        result["legal"] = sort_cards(_legal(hand[seat], trick, strain, opts))

    factor = 2 if strain == "NT" and opts["nt_double_raw"] else 1
    taker_team = taker % 2
    seat_decls = [_hand_declarations(start[s], strain, opts) for s in range(4)]

    if illegal is not None:
        if not opts["revoke_penalty"]:
            return result
        # R8: revoke penalty.
        offender = illegal["seat"] % 2
        announced = [[], []]
        for s in range(4):
            if played[s] > 0:  # runs/carres are announced with the first card
                announced[1 - offender] += [dict(d, seat=s) for d in seat_decls[s]]
        # "declarations" lists what each team scores: all of it goes to the
        # non-offending team (owner's decision on the output contract).
        for b in belotes:
            announced[1 - offender].append(b)
        for t in (0, 1):
            announced[t].sort(key=_team_sort_key)
        decl_points = sum(d["points"] for t in (0, 1) for d in announced[t])
        raw = [0, 0]
        raw[1 - offender] = factor * (CARD_TOTAL[strain] + decl_points)
        if french:
            outcome, mp, held = _outcome(raw, taker_team), list(raw), [0, 0]
        else:
            outcome, mp, held = _score_mp(
                raw, taker_team, strain, doubling, None, opts, inside_team=offender
            )
        result.update(
            card_points=points,
            declarations=announced,
            raw=raw,
            outcome=outcome,
            valat=None,
            mp=mp,
            held_mp=held,
        )
        return result
    if n_played < 32:
        return result

    # Complete deal.
    valat = 0 if tricks_won[0] == 8 else 1 if tricks_won[1] == 8 else None
    scored = _scored_runs_carres(seat_decls, strain, dealer, tricks_won, opts)
    runs_carres = [sum(d["points"] for d in scored[t]) for t in (0, 1)]
    belote_pts = [0, 0]
    for b in belotes:
        belote_pts[b["seat"] % 2] += 20
    declarations = [
        sorted(scored[t] + [b for b in belotes if b["seat"] % 2 == t], key=_team_sort_key)
        for t in (0, 1)
    ]
    card_comp = list(points)
    if french and valat is not None:
        # §10 / §14.15: the capot team counts capot_points (+ the AT/NT difference)
        card_comp[valat] = CARD_TOTAL[strain] + opts["capot_points"] - 162
    raw = [factor * (card_comp[t] + runs_carres[t] + belote_pts[t]) for t in (0, 1)]

    if french:
        outcome, mp, held = _score_french(card_comp, runs_carres, belote_pts, taker_team, factor)
    else:
        outcome, mp, held = _score_mp(raw, taker_team, strain, doubling, valat, opts)
    result.update(
        card_points=points,
        declarations=declarations,
        raw=raw,
        outcome=outcome,
        valat=valat,
        mp=mp,
        held_mp=held,
    )
    return result


# ---------------------------------------------------------------------------
# The game (§9)
# ---------------------------------------------------------------------------


def play_game(deals, rules):
    """Accumulate deal results into a game (§9); stops when the game ends."""
    opts = resolve_rules(rules)
    target = opts["game_target"]
    scores = [0, 0]
    pending = 0
    for i, deal in enumerate(deals):
        outcome = deal["outcome"]
        if outcome not in ("made", "inside", "hanging", "thrown_in"):
            raise ValueError(f"deal {i}: unknown outcome {outcome!r}")
        taker_team = deal.get("taker_team")
        mp = deal.get("mp") or [0, 0]
        held = deal.get("held_mp") or [0, 0]
        scores[0] += mp[0]
        scores[1] += mp[1]
        deal_winner = None
        if outcome == "hanging":
            pending += held[0] + held[1]
        elif outcome in ("made", "inside"):
            if taker_team not in (0, 1):
                raise ValueError(f"deal {i}: taker_team 0/1 expected")
            deal_winner = taker_team if outcome == "made" else 1 - taker_team
            scores[deal_winner] += pending
            pending = 0
        # thrown_in: wins nothing, the pot stays (R9)
        if opts["third_double"] and deal.get("doubling", 0) == 3 and deal_winner is not None:
            # R11: a third-level double decides the game.
            return {"scores": scores, "held": pending, "ended_after": i, "winner": deal_winner}
        if (
            max(scores) >= target
            and pending == 0
            and deal.get("valat") is None
            and scores[0] != scores[1]
        ):
            winner = 0 if scores[0] > scores[1] else 1
            return {"scores": scores, "held": pending, "ended_after": i, "winner": winner}
    return {"scores": scores, "held": pending, "ended_after": None, "winner": None}


# ---------------------------------------------------------------------------
# Perft
# ---------------------------------------------------------------------------


def perft(hands, strain, leader, rules, depth):
    """Number of legal card sequences of length ``depth`` from this position."""
    _check_strain(strain)
    opts = resolve_rules(rules)
    if len(hands) != 4:
        raise ValueError("perft: 4 hands expected")
    hs = [{_check_card(c) for c in h} for h in hands]
    if len({len(h) for h in hs}) != 1 or any(len(h) != len(l) for h, l in zip(hs, hands)):
        raise ValueError("perft: hands of equal length with distinct cards expected")
    if len(set().union(*hs)) != sum(len(h) for h in hs):
        raise ValueError("perft: a card is in two hands")
    _seat(leader, "leader")
    if depth < 0:
        raise ValueError("perft: depth >= 0 expected")

    def count(trick, lead, d):
        seat = (lead + len(trick)) % 4
        legal = _legal(hs[seat], trick, strain, opts)
        if d == 1:
            return len(legal)  # bulk counting at the last ply
        total = 0
        for c in legal:
            hs[seat].remove(c)
            if len(trick) == 3:
                full = trick + [c]
                total += count([], (lead + _winning_index(full, strain)) % 4, d - 1)
            else:
                total += count(trick + [c], lead, d - 1)
            hs[seat].add(c)
        return total

    if depth == 0:
        return 1
    return count([], leader, depth)  # R10: too deep -> 0 (an empty hand has no move)
