"""Per-decision entry point: let another engine or a GUI ask a belote-sim player for a card.

``choose_card(observation, policy="greedy")`` takes what the player to move knows and
returns the card it plays; ``legal_cards(observation)`` the cards it may play (both
public in ``belote_sim``; the bidding side is ``simulation.agent_calls``; the
observations' JSON Schema is ``observation_schema()``, docs/guide/agent-api.md).  The
observation is a dict::

    {"ruleset": "common", "options": {...}, "dealer": 3, "seat": 0,
     "hand": "JH 9H AH ...",               # the cards the player still holds
     "contract": {"strain": "H", "taker": 0, "doubling": 0},
     "plays": ["7C", "8C", ...],           # every card played so far, in order
     "declarations": [{"seat": 1, "kind": "tierce", "cards": "7S 8S 9S"}],  # announced
     "turned": {"card": "JH", "seat": 2},  # french: the turned card and who took it
     "hands": [...4 hands...]}             # only for the perfect-information "dd"

Seats follow from the plays: seat ``dealer + 1`` leads the first trick, each trick's
winner the next.  Policies: ``random``, ``greedy`` (see ``belote_sim.kernels.greedy``),
``expert`` (``belote_sim.kernels.expert``),
``dd`` (double-dummy best card; needs ``hands``) and ``pimc`` (samples the unseen
cards consistent with what the player saw; ``pimc:N`` samples N deals, plain ``pimc``
``samples``).  Announced declarations (kinds ``tierce`` ``quarte`` ``quinte`` ``carre``
``belote``, checked for their shape and against the cards played) and the french
turned card are cards their seat is known to hold: ``pimc`` and ``expert`` deal the
unseen cards accordingly.

What each policy reads (``POLICY_READS``; every field is validated whoever reads it):

========  ==========================================================  =====================
policy    observation fields                                          arguments
========  ==========================================================  =====================
random    ruleset, options, dealer, seat, hand, plays, contract       seed, suit_perm
          strain
greedy    the same + contract taker                                   seed, suit_perm
expert    the same + declarations, turned                             seed, suit_perm
pimc      the same as expert                                          seed, samples
dd        ruleset, options, dealer, seat, hand, plays, contract       --
          strain, hands
========  ==========================================================  =====================

``seed`` draws the random card (``random``), the suit relabelling (``random``,
``greedy``, ``expert``) and the sampled deals (``pimc``); ``expert``'s endgame draws
come from the observation itself.  Without a seed, the seed is drawn from the
observation: ``observation_seed`` (a SHA-256) of the fields the policy reads, so the
same observation always gets the same card, and two observations get independent
relabellings -- never one fixed relabelling for every call (ties never fall by suit
index).  The relabelling of a seed is ``perm_of_seed(seed)``.  ``contract["doubling"]``
is read by no policy (the doubling changes the score, not the best card under these
policies).  An input that the policy does not read is refused with one line --
``hands`` to any policy but ``dd``, a ``seed`` or ``suit_perm`` to ``dd``, a
``suit_perm`` to ``pimc``, ``samples`` to any policy but ``pimc`` (or to ``pimc:N``
with another N) -- never ignored silently.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

import numpy as np

from belote_sim.cards import (
    format_card,
    format_cards,
    mask_of,
    parse_card,
    parse_cards,
    parse_strain,
)
from belote_sim.deal.replay import int_field
from belote_sim.kernels.core import legal_mask
from belote_sim.kernels.records import DEAL, Turn, new_deal
from belote_sim.kernels.rng import seed_state
from belote_sim.kernels.suit_symmetry import (
    INVERSE_PERM,
    NUM_SUIT_PERMS,
    SUIT_PERMS,
    relabel_card,
    relabel_strain,
)
from belote_sim.kernels.switchboard import EXPERT_SEARCH_BITS, decide, policy_buffers, policy_menu
from belote_sim.kernels.switchboard import PLAY_POLICIES as PLAY_TABLE
from belote_sim.kernels.tables import (
    PLAIN_STRENGTH,
    RANK_K,
    RANK_Q,
    STRAIN_AT,
    STRAIN_NT,
    TRUMP_STRENGTH,
)
from belote_sim.policies import MAX_PARAMS, MAX_PIMC_SAMPLES, PLAY_POLICIES, parse_policy
from belote_sim.rules import Rules

OBSERVATION_FIELDS = (
    "ruleset",
    "options",
    "dealer",
    "seat",
    "hand",
    "contract",
    "plays",
    "declarations",
    "turned",
    "hands",
)
RUN_SIZES = {"tierce": 3, "quarte": 4, "quinte": 5}
_DECIDING = ("ruleset", "options", "dealer", "seat", "hand", "plays", "contract strain")
#: Per play policy: the observation fields and the ``choose_card`` arguments it reads.
POLICY_READS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "random": (_DECIDING, ("seed", "suit_perm")),
    "greedy": ((*_DECIDING, "contract taker"), ("seed", "suit_perm")),
    "expert": ((*_DECIDING, "contract taker", "declarations", "turned"), ("seed", "suit_perm")),
    "pimc": ((*_DECIDING, "contract taker", "declarations", "turned"), ("seed", "samples")),
    "dd": ((*_DECIDING, "hands"), ()),
}
#: the largest seed (the kernels' generators take a 64-bit signed integer)
MAX_SEED = (1 << 63) - 1


#: The version of the agent API (``legal_cards``, ``choose_card``, ``legal_calls``,
#: ``choose_call``) and of its observations' JSON Schema (``observation_schema``): a
#: change that breaks a caller raises it.
AGENT_API_VERSION = 1


def observation_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the agent API's observations, versioned
    (``AGENT_API_VERSION``): ``$defs/play`` (``choose_card``, ``legal_cards``) and
    ``$defs/bidding`` (``choose_call``, ``legal_calls``); shipped as
    ``belote_sim/data/observation.schema.json``."""
    from importlib.resources import files

    text = files("belote_sim").joinpath("data", "observation.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


def observation_seed(text: str) -> int:
    """A seed 0..2**63-1 drawn from an observation's canonical text: the first 8 bytes
    (little-endian) of the SHA-256 of ``text`` (UTF-8), the top bit cleared.  The same
    text always gives the same seed (no salt, unlike ``hash()``); any other text an
    unrelated seed.  The canonical texts: ``play_text`` and
    ``agent_calls.bidding_text``."""
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "little") & MAX_SEED


def perm_of_seed(seed: int) -> int:
    """The suit relabelling (0..23, a row of ``suit_symmetry.SUIT_PERMS``) that ``seed``
    draws: the top bits of ``seed`` times 0x9E3779B97F4A7C15 (mod 2**64), mod 24."""
    return (((int(seed) * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF) >> 32) % NUM_SUIT_PERMS


DECLARATION_KINDS = ("tierce", "quarte", "quinte", "carre", "belote")


def read_declaration(entry: Any, strain: int) -> tuple[int, int]:
    """(seat, card mask) of one announced declaration (``{"seat", "kind", "cards"}``,
    kinds ``DECLARATION_KINDS``), checked for its shape under the contract's
    ``strain`` (a belote is the king and queen of a trump suit); ``ValueError``."""
    if (
        not isinstance(entry, dict)
        or "seat" not in entry
        or "kind" not in entry
        or "cards" not in entry
    ):
        raise ValueError("a declaration needs 'seat', 'kind' and 'cards'")
    seat = entry["seat"]
    if isinstance(seat, bool) or seat not in (0, 1, 2, 3):
        raise ValueError(f"declaration seat must be 0..3, got {seat!r}")
    kind = entry["kind"]
    if kind not in DECLARATION_KINDS:
        raise ValueError(
            f"declaration kind must be one of {', '.join(DECLARATION_KINDS)}, got {kind!r}"
        )
    cards = parse_cards(entry["cards"])
    if len(set(cards)) != len(cards):
        raise ValueError(f"declaration {kind}: a card is given twice")
    suits = {c >> 3 for c in cards}
    ranks = sorted(c & 7 for c in cards)
    if kind in RUN_SIZES:
        if (
            len(cards) != RUN_SIZES[kind]
            or len(suits) != 1
            or ranks != list(range(ranks[0], ranks[0] + len(cards)))
        ):
            raise ValueError(
                f"a {kind} is {RUN_SIZES[kind]} cards in sequence in one suit, "
                f"got {' '.join(format_card(c) for c in cards)}"
            )
    elif kind == "carre":
        if len(cards) != 4 or len(set(ranks)) != 1:
            raise ValueError("a carre is the four cards of one rank")
    else:
        if (
            len(cards) != 2
            or len(suits) != 1
            or ranks != [RANK_Q, RANK_K]
            or strain == STRAIN_NT
            or (strain != STRAIN_AT and suits != {strain})
        ):
            raise ValueError("a belote is the king and queen of a trump suit")
    return int(seat), mask_of(cards)


def _seat_value(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= 3:
        raise ValueError(f"{what} must be a seat 0..3 (an integer), got {value!r}")
    return int(value)


#: Canonical card texts ("JH") -> card index: the fast path of ``card_texts``.
_CARD_INDEX = {format_card(c): c for c in range(32)}


def card_texts(value: Any, what: str) -> list[int]:
    """The card indices of ``value``, cards as one text (``"JH 9H"``) or a list of card
    texts, each once; ``ValueError`` naming ``what`` (an observation field) or the
    card.  Canonical texts (``"JH"``) are read by a table, others by ``parse_cards``."""
    if isinstance(value, str):
        items: Any = value.replace(",", " ").split()
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        items = None
    if items is not None:
        index = _CARD_INDEX
        try:
            cards = [index.get(c, -1) for c in items]
        except TypeError:  # an unhashable item
            cards = [-1]
        if -1 not in cards and len(set(cards)) == len(cards):
            return cards
    if items is None or not (isinstance(value, str) or all(isinstance(c, str) for c in value)):
        raise ValueError(
            f'observation {what!r} must be cards as text ("JH 9H") or a list of '
            f"card strings, got {type(value).__name__}"
        )
    return parse_cards(value)  # other spellings; the errors name the card


#: Per strain and led suit: each card's rank in the trick (higher wins; -1: cannot win).
_TRICK_RANK = [
    [
        [
            (16 + int(TRUMP_STRENGTH[c & 7]))
            if (c >> 3 == strain or (strain == STRAIN_AT and c >> 3 == led))
            else (8 + int(PLAIN_STRENGTH[c & 7]) if c >> 3 == led else -1)
            for c in range(32)
        ]
        for led in range(4)
    ]
    for strain in range(6)
]


def _trick_winner(trick: list[int], leader: int, strain: int) -> int:
    """The seat that wins a complete trick (docs/rules.md section 5): the highest trump,
    else the highest card of the suit led."""
    rank = _TRICK_RANK[strain][trick[0] >> 3]
    best, win = rank[trick[0]], 0
    for pos in (1, 2, 3):
        if rank[trick[pos]] > best:
            best, win = rank[trick[pos]], pos
    return (leader + win) % 4


def _trick_state(trick: list[int], strain: int) -> tuple[int, int, int]:
    """``(led suit, winning card, its position)`` of a trick in progress, as
    ``kernels.core.trick_state`` (-1s for an empty trick)."""
    if not trick:
        return -1, -1, -1
    rank = _TRICK_RANK[strain][trick[0] >> 3]
    best, win = rank[trick[0]], 0
    for pos in range(1, len(trick)):
        if rank[trick[pos]] > best:
            best, win = rank[trick[pos]], pos
    return trick[0] >> 3, trick[win], win


#: Rules read from (ruleset, options): ``(rules, rules array, canonical text)``.
_RULES: dict[Any, tuple[Rules, np.ndarray, str]] = {}


def rules_of(ruleset: Any, options: Any) -> tuple[Rules, np.ndarray, str]:
    """``Rules.from_spec(ruleset, options)``, its kernel array and a canonical text of
    it (the name and every option as JSON), cached by the exact input (types
    included, so that ``1`` is not taken for ``True``)."""
    try:
        key: Any = (
            ruleset,
            None
            if options is None
            else tuple(sorted((k, type(v).__name__, v) for k, v in options.items())),
        )
        hash(key)
    except (AttributeError, TypeError):
        key = None
    found = _RULES.get(key) if key is not None else None
    if found is not None:
        return found
    rules = Rules.from_spec(ruleset, options)
    text = json.dumps([rules.name, rules.options()], sort_keys=True, separators=(",", ":"))
    found = (rules, rules.to_array(), text)
    if key is not None:
        if len(_RULES) >= 64:
            _RULES.clear()
        _RULES[key] = found
    return found


def _walk(
    plays: list[int], dealer: int, strain: int
) -> tuple[list[list[int]], int, list[int], str]:
    """One pass over the cards played: per seat the cards it played, the leader of the
    trick in progress (of the next one after a complete trick), per seat a mask of the
    suits it has shown out of (did not follow when led), and the first card played of
    a suit its seat had shown out of in an earlier trick ('' if none: that card was not
    in its hand)."""
    by_seat: list[list[int]] = [[], [], [], []]
    out = [0, 0, 0, 0]
    problem = ""
    leader = (dealer + 1) % 4
    for t in range(0, len(plays), 4):
        trick = plays[t : t + 4]
        led = trick[0] >> 3
        for pos, card in enumerate(trick):
            player = (leader + pos) % 4
            by_seat[player].append(card)
            if out[player] >> (card >> 3) & 1 and not problem:
                problem = (
                    f"seat {player} showed out of {'CDHS'[card >> 3]} earlier, yet plays "
                    f"{format_card(card)} in trick {t // 4 + 1}"
                )
            if card >> 3 != led:
                out[player] |= 1 << led
        if len(trick) == 4:
            leader = _trick_winner(trick, leader, strain)
    return by_seat, leader, out, problem


def walk_plays(plays: list[int], dealer: int, strain: int) -> dict[str, Any]:
    """What the cards ``plays`` (indices, in playing order from seat ``dealer + 1``)
    say under ``strain``: ``turn`` the seat to play next (after a complete trick: its
    winner), ``played`` per seat the mask of the cards it played, ``shown_out`` per seat
    a mask of the suits it did not follow (bit s: suit s).  No check of the history."""
    by_seat, leader, shown, _ = _walk(plays, dealer, strain)
    turn = (leader + len(plays) % 4) % 4
    return {"turn": turn, "played": [mask_of(c) for c in by_seat], "shown_out": shown}


def _showed_out(plays: list[int], dealer: int, strain: int) -> list[int]:
    """Per seat, a mask of the suits it has shown out of (did not follow when led).

    ``ValueError`` for a history where a seat plays a card of a suit it showed out of
    in an earlier trick (whichever seat: that card was not in its hand)."""
    _, _, out, problem = _walk(plays, dealer, strain)
    if problem:
        raise ValueError(problem)
    return out


def _check_shown_out(hand: int, seat: int, shown: list[int], what: str) -> None:
    for suit in range(4):
        if shown[seat] >> suit & 1 and hand >> (8 * suit) & 0xFF:
            card = format_card(
                ((hand >> (8 * suit)) & -(hand >> (8 * suit)) & 0xFF).bit_length() - 1 + 8 * suit
            )
            raise ValueError(
                f"seat {seat} showed out of {'CDHS'[suit]} earlier, yet {what} holds {card}"
            )


def read_observation(obs: dict[str, Any]) -> dict[str, Any]:
    """Validate an observation; returns rules, strain, seats and the trick so far.

    Every field is checked (types included): seats are integers 0..3, cards are text,
    the plays are a legal-looking history (no card twice, none still in the hand,
    the mover's turn, no card of a suit the mover showed out of); ``ValueError`` names
    the problem."""
    if not isinstance(obs, dict):
        raise ValueError("an observation must be a dict")
    unknown = [k for k in obs if k not in OBSERVATION_FIELDS and not str(k).startswith("_")]
    if unknown:
        raise ValueError(f"unknown observation field(s): {', '.join(map(repr, unknown))}")
    for key in ("dealer", "seat", "hand", "contract"):
        if key not in obs:
            raise ValueError(f"observation lacks {key!r}")
    rules, rules_array, rules_text = rules_of(obs.get("ruleset", "common"), obs.get("options"))
    if rules.players != 4:
        raise ValueError("choose_card plays the 4-player game")
    contract = obs["contract"]
    if not isinstance(contract, dict) or "strain" not in contract or "taker" not in contract:
        raise ValueError("observation 'contract' needs strain and taker")
    if not isinstance(contract["strain"], str):
        raise ValueError(
            f"contract strain must be text (C D H S NT AT), got {contract['strain']!r}"
        )
    strain = parse_strain(contract["strain"])
    taker = _seat_value(contract["taker"], "contract taker")
    # read by no policy, but checked as replay checks it: a typo is an error, not ignored
    int_field(contract.get("doubling", 0), "contract.doubling", 0, rules.max_doubling)
    dealer, seat = _seat_value(obs["dealer"], "dealer"), _seat_value(obs["seat"], "seat")
    hand = mask_of(card_texts(obs["hand"], "hand"))
    plays = card_texts(obs.get("plays", []), "plays")
    if len(plays) >= 32:
        raise ValueError("the deal is over: no card to play")
    if len(set(plays)) != len(plays):
        raise ValueError("a card is played twice in 'plays'")
    everyone = mask_of(plays)
    if hand & everyone:
        raise ValueError("the hand holds a card that was already played")
    by_seat, leader, shown, problem = _walk(plays, dealer, strain)
    current = plays[4 * (len(plays) // 4) :]
    to_play = (leader + len(current)) % 4
    if to_play != seat:
        raise ValueError(f"it is seat {to_play}'s turn, not seat {seat}'s")
    if bin(hand).count("1") != 8 - len(by_seat[seat]):
        raise ValueError(
            f"seat {seat} should hold {8 - len(by_seat[seat])} cards, "
            f"the hand has {bin(hand).count('1')}"
        )
    if problem:
        raise ValueError(problem)
    _check_shown_out(hand, seat, shown, "its hand")
    # Cards announced (declarations, the french turned card) that a seat still holds.
    known = [0, 0, 0, 0]
    announced = []
    declarations = obs.get("declarations")
    if declarations is not None and not isinstance(declarations, (list, tuple)):
        raise ValueError(
            "observation 'declarations' must be a list of announced declarations, got "
            f"{type(declarations).__name__}"
        )
    for entry in declarations or []:
        announced.append(read_declaration(entry, strain))
    turned = obs.get("turned")
    if turned is not None:
        if not isinstance(turned, dict) or set(turned) != {"card", "seat"}:
            raise ValueError(
                '\'turned\' must be {"card": ..., "seat": ...} (the french '
                "turned card and the seat that took it)"
            )
        t_seat = turned["seat"]
        if isinstance(t_seat, bool) or t_seat not in (0, 1, 2, 3):
            raise ValueError(f"turned card seat must be 0..3, got {t_seat!r}")
        announced.append((int(t_seat), 1 << parse_card(turned["card"])))
    played_by = [mask_of(cards) for cards in by_seat] if announced else []
    for s, cards in announced:
        if cards & everyone & ~played_by[s]:
            raise ValueError(f"seat {s} announced a card another seat played")
        if s == seat:
            if cards & ~(hand | played_by[s]):
                raise ValueError(f"seat {s} (the mover) announced a card he does not hold")
            continue
        if cards & hand:
            raise ValueError(f"seat {s} announced a card in the mover's hand")
        for other in range(4):
            if other != s and known[other] & cards:
                raise ValueError("two seats announced the same card")
        known[s] |= cards & ~played_by[s]
    for s in range(4):
        left = 8 - len(by_seat[s])
        if bin(known[s]).count("1") > left:
            raise ValueError(f"seat {s} announced more cards than it still holds")
    return dict(
        rules=rules,
        rules_array=rules_array,
        rules_text=rules_text,
        strain=strain,
        taker=taker,
        dealer=dealer,
        seat=seat,
        hand=hand,
        plays=plays,
        played=everyone,
        dealt=hand | mask_of(by_seat[seat]),
        leader=leader,
        trick=current,
        by_seat=by_seat,
        known=known,
    )


def legal_cards(observation: dict[str, Any]) -> list[str]:
    """The cards (texts such as ``"JH"``, in card order: suits C D H S, ranks 7 to A)
    that the seat to play may play in this observation (docs/rules.md section 5, under
    the observation's rules).  ``ValueError`` (one line) for a bad observation."""
    obs = read_observation(observation)
    return format_cards(_legal(obs))


def _legal(obs: dict[str, Any]) -> int:
    """The legal cards (mask) of a read observation."""
    n = len(obs["trick"])
    if n == 0:
        return int(obs["hand"])  # the leader plays any card
    led, win_card, win_pos = _trick_state(obs["trick"], obs["strain"])
    return int(
        legal_mask(obs["hand"], led, n, win_card, win_pos, obs["strain"], obs["rules_array"])
    )


#: Per suit relabelling: each card's new index, each suit's new suit, each strain's.
_PERM_CARD = [[int(relabel_card(c, k)) for c in range(32)] for k in range(NUM_SUIT_PERMS)]
_PERM_SUIT = [[int(SUIT_PERMS[k, s]) for s in range(4)] for k in range(NUM_SUIT_PERMS)]
_PERM_STRAIN = [[int(relabel_strain(s, k)) for s in range(6)] for k in range(NUM_SUIT_PERMS)]


def _relabel_mask(mask: int, perm: int) -> int:
    to = _PERM_SUIT[perm]
    return (
        (mask & 0xFF) << 8 * to[0]
        | (mask >> 8 & 0xFF) << 8 * to[1]
        | (mask >> 16 & 0xFF) << 8 * to[2]
        | (mask >> 24 & 0xFF) << 8 * to[3]
    )


def _relabelled(obs: dict[str, Any], perm: int) -> dict[str, Any]:
    """What the policies read of a read observation, relabelled: the hand, the cards
    played, the trick, the mover's dealt cards, the announced cards, the strain."""
    out = dict(obs)
    to = _PERM_CARD[perm]
    out["hand"] = _relabel_mask(obs["hand"], perm)
    out["dealt"] = _relabel_mask(obs["dealt"], perm)
    out["plays"] = [to[c] for c in obs["plays"]]
    out["played"] = _relabel_mask(obs["played"], perm)
    out["trick"] = [to[c] for c in obs["trick"]]
    out["known"] = [_relabel_mask(m, perm) for m in obs["known"]]
    out["strain"] = _PERM_STRAIN[perm][obs["strain"]]
    return out


def relabel_observation(obs: dict[str, Any], perm: int) -> dict[str, Any]:
    """A read observation (``read_observation``) with its suits relabelled by
    ``suit_symmetry.SUIT_PERMS[perm]``: every card, mask and the strain."""
    out = _relabelled(obs, perm)
    to = _PERM_CARD[perm]
    out["by_seat"] = [[to[c] for c in cards] for cards in obs["by_seat"]]
    return out


#: Parsed play policies by their text.
_POLICIES: dict[str, Any] = {}


def _play_policy(policy: Any) -> Any:
    """``parse_policy(policy, PLAY_POLICIES, "play")``, cached by the text."""
    found = _POLICIES.get(policy) if isinstance(policy, str) else None
    if found is None:
        found = parse_policy(policy, PLAY_POLICIES, "play")
        if isinstance(policy, str) and len(_POLICIES) < 256:
            _POLICIES[policy] = found
    return found


def choose_card(
    observation: dict[str, Any],
    policy: str = "greedy",
    seed: int | None = None,
    samples: int | None = None,
    suit_perm: int | None = None,
) -> str:
    """The card (text) that ``policy`` plays in this observation.

    As in the simulator, ``random``, ``greedy`` and ``expert`` decide under a random
    relabelling of the suits, so that their ties never fall by suit index:
    ``suit_perm`` (0..23, a row of ``kernels.suit_symmetry.SUIT_PERMS``) is the
    relabelling, by default drawn from ``seed`` (``perm_of_seed``); without a seed, the
    seed is drawn from the observation (``observation_seed`` of the fields the policy
    reads: the same observation, the same card).  ``samples``: the deals
    plain ``pimc`` samples (default 30).  What each policy reads: ``POLICY_READS`` (the
    module's docstring); an argument or the ``hands`` field given to a policy that does
    not read it is refused.  ``ValueError`` (one line) for a bad observation, policy,
    seed or sample count."""
    parsed = _play_policy(policy)
    _refuse_unread(parsed, ":" in policy, observation, seed, samples, suit_perm)
    if samples is None:
        samples = 30
    if seed is not None and (
        isinstance(seed, bool)
        or not isinstance(seed, (int, np.integer))
        or not 0 <= seed <= MAX_SEED
    ):
        raise ValueError(f"seed must be an integer 0..2**63-1, got {seed!r}")
    if suit_perm is not None and (
        isinstance(suit_perm, bool)
        or not isinstance(suit_perm, (int, np.integer))
        or not 0 <= suit_perm < NUM_SUIT_PERMS
    ):
        raise ValueError(f"suit_perm must be an integer 0..{NUM_SUIT_PERMS - 1}, got {suit_perm!r}")
    if (
        isinstance(samples, bool)
        or not isinstance(samples, (int, np.integer))
        or not 1 <= samples <= MAX_PIMC_SAMPLES
    ):
        raise ValueError(f"samples must be an integer 1..{MAX_PIMC_SAMPLES}, got {samples!r}")
    obs = read_observation(observation)
    if seed is None:
        seed = observation_seed(play_text(obs, parsed.name))
    if suit_perm is None:
        suit_perm = perm_of_seed(seed)
    seed, samples = int(seed), int(samples)
    spec = parsed.name
    if spec in ("dd", "pimc"):
        from belote_sim.deal import solver

        rules = obs["rules"]
        if spec == "dd":
            if "hands" not in observation:
                raise ValueError("the dd policy plays with all cards visible: give 'hands'")
            given = observation["hands"]
            if not isinstance(given, (list, tuple)) or len(given) != 4:
                raise ValueError("'hands' must be a list of the 4 hands still held")
            hands = [mask_of(card_texts(h, "hands")) for h in given]
            if hands[obs["seat"]] != obs["hand"]:
                raise ValueError(
                    "'hands' must be the 4 hands still held, the mover's equal to 'hand'"
                )
            shown = _showed_out(obs["plays"], obs["dealer"], obs["strain"])
            for s, held in enumerate(hands):
                _check_shown_out(held, s, shown, "its hand in 'hands'")
            trick_leader = (obs["seat"] - len(obs["trick"])) % 4
            return solver.dd_card(
                hands,
                obs["strain"],
                trick_leader,
                rules,
                trick=[format_card(c) for c in obs["trick"]],
            )
        n = parse_policy(policy, PLAY_POLICIES, "play").params[0] if ":" in policy else samples
        if n != int(n) or n < 1:
            raise ValueError(f"pimc samples must be a positive integer, got {n:g}")
        known = {s: format_cards(m) for s, m in enumerate(obs["known"]) if m}
        return solver.pimc_card(
            obs["hand"],
            obs["seat"],
            [format_card(c) for c in obs["plays"]],
            (obs["dealer"] + 1) % 4,
            obs["strain"],
            rules,
            samples=int(n),
            seed=seed,
            known=known,
        )
    obs = _relabelled(obs, int(suit_perm))
    back = _PERM_CARD[int(INVERSE_PERM[suit_perm])]
    params = np.zeros(MAX_PARAMS)
    params[: len(parsed.params)] = parsed.params
    if parsed.name == "expert":
        card = _expert_card(obs, params)
    else:
        card = _switchboard_card(obs, PLAY_POLICIES[parsed.name].id, params, seed)
    return format_card(back[card])


def _expert_card(obs: dict[str, Any], params: np.ndarray) -> int:
    """The card of the ``expert`` policy, asked through its seat adapter."""
    from belote_sim.kernels.expert_seat import expert_decide

    kept = getattr(_SCRATCH, "expert", None)
    if kept is None:
        kept = _SCRATCH.expert = policy_buffers(EXPERT_SEARCH_BITS)[:3]
    tt, ws, moves = kept
    plays = np.zeros(32, dtype=np.int64)
    plays[: len(obs["plays"])] = obs["plays"]
    work = np.zeros((4, 4), dtype=np.int64)
    work[0] = obs["known"]
    work[0, obs["seat"]] = 0
    return int(
        expert_decide(
            params, obs["hand"], plays, len(obs["plays"]), (obs["dealer"] + 1) % 4,
            obs["strain"], obs["taker"], obs["rules_array"], tt, ws, moves, work,
        )
    )  # fmt: skip


def play_text(obs: dict[str, Any], policy: str) -> str:
    """The canonical text of a read play observation (``read_observation``) as
    ``policy`` reads it (``POLICY_READS``: a field it does not read is left out, so that
    it changes nothing), fields joined by ``|``: ``play``, the rules as JSON (name and
    every option, sorted keys, no spaces), dealer, seat, the hand's card mask, the
    cards played (indices, comma-separated), the strain (0..5), then, when the policy
    reads them, the taker and the announced cards still held per seat (4 masks,
    comma-separated).  ``observation_seed`` of it seeds an unseeded ``choose_card``."""
    fields = POLICY_READS.get(policy, (("contract taker", "declarations"), ()))[0]
    parts = [
        "play", obs["rules_text"], str(obs["dealer"]), str(obs["seat"]), str(obs["hand"]),
        ",".join(map(str, obs["plays"])), str(obs["strain"]),
    ]  # fmt: skip
    if "contract taker" in fields:
        parts.append(str(obs["taker"]))
    if "declarations" in fields:
        parts.append(",".join(map(str, obs["known"])))
    return "|".join(parts)


def _refuse_unread(
    parsed: Any, with_params: bool, observation: Any, seed: Any, samples: Any, suit_perm: Any
) -> None:
    """One line for an input the policy would not read (``POLICY_READS``)."""
    name = parsed.name
    reads = POLICY_READS.get(name)
    if reads is None:  # a policy added to the switchboard after this table
        return
    fields, arguments = reads
    if isinstance(observation, dict) and "hands" in observation and "hands" not in fields:
        raise ValueError(
            f"the {name} policy does not read 'hands' (only dd plays with every hand "
            "visible): leave it out"
        )
    for arg, value in (("seed", seed), ("samples", samples), ("suit_perm", suit_perm)):
        if value is not None and arg not in arguments:
            raise ValueError(f"the {name} policy does not use {arg}: leave it out")
    if name == "pimc" and samples is not None and with_params:
        given = parsed.params[0]
        if not (isinstance(samples, (int, np.integer)) and not isinstance(samples, bool)) or (
            samples != given
        ):
            raise ValueError(
                f"pimc:{given:g} already says how many deals it samples: leave samples "
                "out (or give plain pimc)"
            )


#: Per play policy id: its menu (made once).
_MENUS: dict[int, np.ndarray] = {}
#: A blank deal record as int64 words (every field of ``DEAL`` is int64), and the word
#: offsets of the fields set here: a record is filled by word, which costs a fraction
#: of a structured copy or of a field assignment.
_BLANK_WORDS = new_deal().view(np.int64)
_DEAL_FIELDS: Any = DEAL.fields
_AT = {name: _DEAL_FIELDS[name][1] // 8 for name in ("leader", "strain", "taker", "hands",
       "n_given", "cards")}  # fmt: skip
#: Per thread: the kernels' scratch (a deal record, the play policies' buffers, the
#: expert's), made on a thread's first call; the kernels run without the GIL, so two
#: threads never share one.
_SCRATCH = threading.local()


def _switchboard_scratch() -> Any:
    """This thread's deal record (as int64 words), its record view and the play
    policies' buffers."""
    kept = getattr(_SCRATCH, "switchboard", None)
    if kept is None:
        words = _BLANK_WORDS.copy()
        kept = _SCRATCH.switchboard = (words, words.view(DEAL)[0], policy_buffers(1))
    return kept


def _switchboard_card(obs: dict[str, Any], policy: int, params: np.ndarray, seed: int) -> int:
    """The card of a policy that decides from what its own seat holds and sees (the
    trick, the cards played, the contract): asked through the switchboard, with a
    deal record that holds only the mover's cards."""
    n = len(obs["trick"])
    led, win_card, win_pos = _trick_state(obs["trick"], obs["strain"])
    legal = _legal(obs)
    words, deal, buffers = _switchboard_scratch()
    words[:] = _BLANK_WORDS
    seat = obs["seat"]
    n_plays = len(obs["plays"])
    words[_AT["hands"] + seat] = obs["dealt"]
    words[_AT["leader"]] = (obs["dealer"] + 1) % 4
    words[_AT["strain"]] = obs["strain"]
    words[_AT["taker"]] = obs["taker"]
    start = _AT["cards"]
    words[start : start + n_plays] = obs["plays"]
    words[_AT["n_given"]] = n_plays
    turn = Turn(
        seat, n, obs["leader"], led, win_card, win_pos, obs["hand"], legal, obs["played"],
        n_plays, 4,
    )  # fmt: skip
    menu = _MENUS.get(policy)
    if menu is None:
        menu = _MENUS[policy] = policy_menu(play=[p.name for p in PLAY_TABLE if p.id == policy])
    return int(decide(menu, policy, params, turn, deal, obs["rules_array"], seed_state(seed),
                      buffers))  # fmt: skip


__all__ = [
    "AGENT_API_VERSION",
    "DECLARATION_KINDS",
    "MAX_SEED",
    "POLICY_READS",
    "card_texts",
    "choose_card",
    "legal_cards",
    "observation_schema",
    "observation_seed",
    "perm_of_seed",
    "play_text",
    "read_declaration",
    "read_observation",
    "relabel_observation",
    "rules_of",
    "walk_plays",
]
