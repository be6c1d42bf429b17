"""One 4-player deal as a step-by-step state machine, for the game interfaces.

``Table`` is what ``belote_sim.openspiel`` and ``belote_sim.pettingzoo`` share: the
deal card by card (each card a chance outcome), the bidding call by call, the rest
of the deal after a contract, the play card by card, and the score in match points
(MP; French points under french scoring) once the last card is down.  Every rule
comes from the engine's own helpers, none is written again here:

* dealing order (docs/rules.md section 3): a packet of 3 cards to each seat from
  ``dealer + 1``, then a packet of 2; in ``french`` the turned card; after a contract
  3 more cards to each seat, in ``french`` the taker taking the turned card and 2;
* the calls and the end of the bidding: ``simulation.py_bidding.AuctionState`` (the
  auction that ``run_auction`` runs for the simulator's Python bidding);
* the cards: ``kernels.core.legal_mask``, ``trick_state``, ``trick_winner``;
* what is announced (section 6.2): runs and carrés with a seat's first card
  (``deal.declarations.hand_declarations``), a belote with the first of its two
  cards (``kernels.declarations.belote_suits``, ``announces_belote``);
* the score: the finished deal is replayed as a record (``deal.replay.replay``), which
  scores it exactly as the simulator does.

A thrown-in deal (four passes; in ``french`` eight) ends at once with 0 for both teams.
Held points of a hanging deal (``held_mp``, section 8.5) are reported apart and are
not part of ``mp``: in a single deal nobody has won them yet.

Cards are the engine's indices ``8 * suit + rank`` (suits C D H S, ranks 7 8 9 T J Q K
A); calls are the deals table's letters (``p`` pass, ``C D H S N A`` a bid, ``x r t``
the doubles).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from belote_sim.cards import format_card, format_cards, iter_cards, mask_of, parse_cards
from belote_sim.deal.declarations import hand_declarations
from belote_sim.deal.replay import replay
from belote_sim.kernels.core import legal_mask, legal_masks_batch, trick_state, trick_winner
from belote_sim.kernels.declarations import announces_belote, belote_suits
from belote_sim.kernels.tables import RANK_K, RANK_Q, STRAIN_AT, STRAIN_NAMES
from belote_sim.rules import Rules
from belote_sim.simulation.py_bidding import AuctionState

__all__ = [
    "BIDDING",
    "CALL_ACTIONS",
    "CALL_LETTERS",
    "CALL_WORDS",
    "DEALING",
    "NUM_ACTIONS",
    "OVER",
    "PLAY",
    "Table",
    "action_of_call",
    "call_of_action",
]

#: Phases of a deal.
DEALING, BIDDING, PLAY, OVER = "dealing", "bidding", "play", "over"
#: Every call letter, in the order of the game interfaces' call actions: pass, the six
#: strains (C D H S NT AT), double, redouble, third double.
CALL_LETTERS = "pCDHSNAxrt"
#: The same calls as the words ``choose_call`` answers with.
CALL_WORDS = ("pass", "C", "D", "H", "S", "NT", "AT", "double", "redouble", "third_double")
#: The game interfaces' actions: 0..31 a card, ``CALL_ACTIONS + k`` the call
#: ``CALL_LETTERS[k]``; ``NUM_ACTIONS`` in all.
CALL_ACTIONS = 32
NUM_ACTIONS = CALL_ACTIONS + len(CALL_LETTERS)
_KQ_SWAP = RANK_K ^ RANK_Q
#: first packets: 3 cards then 2 to each seat
_FIRST_PACKETS = (3, 2)


def call_of_action(action: int) -> str:
    """The call letter of a call action (32..41)."""
    if not CALL_ACTIONS <= action < NUM_ACTIONS:
        raise ValueError(f"{action} is not a call action ({CALL_ACTIONS}..{NUM_ACTIONS - 1})")
    return CALL_LETTERS[action - CALL_ACTIONS]


def action_of_call(call: str) -> int:
    """The action of a call: its letter (``p C D H S N A x r t``) or its word (``pass``,
    ``NT``, ``double`` ...)."""
    if call in CALL_WORDS:
        return CALL_ACTIONS + CALL_WORDS.index(call)
    if len(call) == 1 and call in CALL_LETTERS:
        return CALL_ACTIONS + CALL_LETTERS.index(call)
    raise ValueError(f"unknown call {call!r}")


class Table:
    """A 4-player deal from the first card dealt to the score (module docstring).

    ``rules``: a ``Rules`` or a preset name (``common``, ``bulgarian``, ``french``)
    with ``options``; ``dealer``: the dealing seat (seat ``dealer + 1`` speaks and
    leads first).  The 2- and 3-player games and open belot are refused.

    Drive it with ``phase`` and ``to_move``: while ``DEALING``, ``deal_card(card)``
    with a card of ``deck`` (``receiver`` says who gets it, -1 the french turned
    card); while ``BIDDING``, ``call(letter)`` with one of ``legal_calls()``; while
    ``PLAY``, ``play(card)`` with a card of ``legal_cards()``; at ``OVER``, ``mp``
    holds each team's points (team 0 = seats 0 and 2).
    """

    def __init__(self, rules: Rules | str = "common", options: dict[str, Any] | None = None,
                 dealer: int = 3):  # fmt: skip
        self.rules = Rules.from_spec(rules, options)
        if self.rules.players != 4 or self.rules.variant != "standard":
            raise ValueError("the game interfaces play the 4-player game (players 4, standard)")
        if isinstance(dealer, bool) or dealer not in (0, 1, 2, 3):
            raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
        self.rules_array = self.rules.to_array()
        defaults = Rules.preset(self.rules.name).options()
        self._option_diff = {k: v for k, v in self.rules.options().items() if defaults.get(k) != v}
        self.french = self.rules.bidding == "two_round"
        self.dealer = int(dealer)
        self.phase = DEALING
        self.deck = (1 << 32) - 1  #: cards not dealt yet (mask)
        self.hands = [0, 0, 0, 0]  #: cards each seat holds now (masks)
        self.dealt: list[list[int]] = [[], [], [], []]  #: cards dealt to each seat, in order
        self.bidding_cards = [0, 0, 0, 0]  #: the 5 cards each seat bids with (masks)
        self.turned = -1  #: the french turned card (-1: none yet, or not french)
        self.calls: list[str] = []
        self.strain = -1  #: the contract's strain (-1: none yet, or thrown in)
        self.taker = -1
        self.doubling = 0
        self.plays: list[int] = []  #: cards played, in order
        self.leaders: list[int] = [(self.dealer + 1) % 4]  #: leader of each trick
        self.winners: list[int] = []  #: winner of each finished trick
        self.announced: list[dict[str, Any]] = []  #: declarations announced, in order
        self.mp: list[int] | None = None  #: points per team at the end
        self.held_mp: list[int] | None = None
        self.outcome: str | None = None
        self._receivers = self._first_receivers()
        self.auction: AuctionState | None = None  #: the bidding, once it has begun
        self._pending_belote = [0, 0, 0, 0]
        #: per seat, the cards it cannot hold: it played a card that such a card would
        #: have made illegal (a suit not followed, a trump not played, a trump not
        #: raised: ``legal_mask``), or the other card of a belote it did not announce
        self.excluded = [0, 0, 0, 0]
        self._held8 = [0, 0, 0, 0]

    # -- the deal ------------------------------------------------------------------------

    def _first_receivers(self) -> list[int]:
        order = [(self.dealer + 1 + i) % 4 for i in range(4)]
        out = [seat for size in _FIRST_PACKETS for seat in order for _ in range(size)]
        return out + ([-1] if self.french else [])

    def _last_receivers(self) -> list[int]:
        order = [(self.dealer + 1 + i) % 4 for i in range(4)]
        out: list[int] = []
        for seat in order:
            out += [seat] * (2 if self.french and seat == self.taker else 3)
        return out

    @property
    def receiver(self) -> int:
        """The seat the next chance card goes to (-1: the french turned card)."""
        if self.phase != DEALING:
            raise ValueError("no card is being dealt now")
        return self._receivers[0]

    def deal_card(self, card: int) -> None:
        """Deal ``card`` (an index 0..31 still in ``deck``) to ``receiver``."""
        if self.phase != DEALING:
            raise ValueError(f"no card is being dealt now (phase {self.phase})")
        if not isinstance(card, (int, np.integer)) or not 0 <= card < 32:
            raise ValueError(f"a card is an index 0..31, got {card!r}")
        card = int(card)
        if not (self.deck >> card) & 1:
            raise ValueError(f"{format_card(card)} was dealt already")
        self.deck &= ~(1 << card)
        seat = self._receivers.pop(0)
        if seat < 0:
            self.turned = card
        else:
            self.hands[seat] |= 1 << card
            self.dealt[seat].append(card)
        if self._receivers:
            return
        if self.strain < 0:  # the first packets (and the turned card) are out
            self.bidding_cards = list(self.hands)
            self.phase = BIDDING
            self.auction = AuctionState(self.rules, self.dealer, self.turned)
        else:
            self._start_play()

    # -- the bidding ---------------------------------------------------------------------

    def _end_auction(self) -> None:
        """After the last call: throw the deal in, or deal the rest for the contract."""
        assert self.auction is not None
        strain, taker, doubling = self.auction.result()
        if strain < 0:
            self.phase = OVER
            self.outcome = "thrown_in"
            self.mp, self.held_mp = [0, 0], [0, 0]
            return
        self.strain, self.taker, self.doubling = int(strain), int(taker), int(doubling)
        self.phase = DEALING
        if self.french:
            self.hands[self.taker] |= 1 << self.turned
            self.dealt[self.taker].append(self.turned)
        self._receivers = self._last_receivers()

    def _bidding(self) -> AuctionState:
        if self.phase != BIDDING or self.auction is None:
            raise ValueError(f"nobody is bidding now (phase {self.phase})")
        return self.auction

    def legal_actions(self) -> list[int]:
        """The legal actions of the seat to move (cards 0..31, calls 32..41), sorted."""
        if self.phase == PLAY:
            return list(iter_cards(self.legal_cards()))
        if self.phase == BIDDING:
            return sorted(CALL_ACTIONS + CALL_LETTERS.index(c) for c in self.legal_calls())
        return []

    def apply(self, action: int) -> None:
        """Make the action of the seat to move (a card or a call)."""
        if self.phase == BIDDING:
            self.call(call_of_action(action))
        else:
            self.play(action)

    def legal_calls(self) -> list[str]:
        """The call letters the seat to move may make (docs/rules.md section 4)."""
        return self._bidding().legal()

    def call(self, letter: str) -> None:
        """Make the call ``letter`` (one of ``legal_calls()``) for the seat to move."""
        legal = self.legal_calls()
        if letter not in legal:
            raise ValueError(
                f"illegal call {letter!r} for seat {self.to_move} (legal: {' '.join(legal)})"
            )
        auction = self._bidding()
        auction.play(letter)
        self.calls.append(letter)
        if auction.over:
            self._end_auction()

    # -- the play ------------------------------------------------------------------------

    def _start_play(self) -> None:
        self.phase = PLAY
        self._held8 = list(self.hands)
        if self.rules.players == 4:
            self._pending_belote = [int(belote_suits(h, self.strain)) for h in self.hands]

    @property
    def trick(self) -> list[int]:
        """The cards of the trick in progress, in playing order."""
        return self.plays[4 * len(self.winners) :]

    @property
    def to_move(self) -> int:
        """The seat to call or play, -1 while a card is being dealt, -4 at the end."""
        if self.phase == BIDDING:
            return self._bidding().seat
        if self.phase == PLAY:
            return (self.leaders[-1] + len(self.trick)) % 4
        return -1 if self.phase == DEALING else -4

    def _trick_state(self) -> tuple[int, int, int, int]:
        """(cards in the trick, led suit, winning card, its position): ``trick_state``."""
        n = len(self.plays) - 4 * len(self.winners)
        if n == 0:
            return 0, -1, -1, -1
        arr = np.zeros(4, dtype=np.int64)
        arr[:n] = self.plays[-n:]
        led, win_card, win_pos = trick_state(arr, n, self.strain)
        return n, int(led), int(win_card), int(win_pos)

    def legal_cards(self) -> int:
        """The mask of the cards the seat to move may play (docs/rules.md section 5)."""
        if self.phase != PLAY:
            raise ValueError(f"nobody is playing now (phase {self.phase})")
        n, led, win_card, win_pos = self._trick_state()
        hand = self.hands[self.to_move]
        return int(legal_mask(hand, led, n, win_card, win_pos, self.strain, self.rules_array))

    def play(self, card: int) -> None:
        """Play ``card`` (an index in ``legal_cards()``) for the seat to move."""
        legal = self.legal_cards()
        if not isinstance(card, (int, np.integer)) or not 0 <= card < 32:
            raise ValueError(f"a card is an index 0..31, got {card!r}")
        card = int(card)
        seat = self.to_move
        if not (legal >> card) & 1:
            raise ValueError(
                f"illegal card {format_card(card)} for seat {seat} "
                f"(legal: {' '.join(format_cards(legal))})"
            )
        n, led, _, _ = self._trick_state()
        if n and (card >> 3 != led or led == self.strain or self.strain == STRAIN_AT):
            # a plain suit followed breaks no duty whatever else the seat holds
            self._exclude(seat, card, n)
        if self.hands[seat] == self._held8[seat]:
            # the first card: the seat announces its runs and carrés (section 6.2)
            strain = STRAIN_NAMES[self.strain]
            self.announced += hand_declarations(self._held8[seat], strain, self.rules, seat)
        suit = card >> 3
        if (self._pending_belote[seat] >> suit) & 1 and (card & 7) in (RANK_K, RANK_Q):
            self._pending_belote[seat] &= ~(1 << suit)
            if (self.hands[seat] >> (card ^ _KQ_SWAP)) & 1 and announces_belote(
                card, led, n, self.strain, self.rules.belote_on_discard
            ):
                pair = format_cards([8 * suit + RANK_Q, 8 * suit + RANK_K])
                self.announced.append(dict(seat=seat, kind="belote", cards=pair, points=20))
            elif announces_belote(card, led, n, self.strain, self.rules.belote_on_discard):
                self.excluded[seat] |= 1 << (card ^ _KQ_SWAP)
        self.hands[seat] &= ~(1 << card)
        self.plays.append(card)
        if len(self.plays) % 4 == 0:
            trick = np.array(self.plays[-4:], dtype=np.int64)
            winner = int(trick_winner(trick, self.leaders[-1], self.strain))
            self.winners.append(winner)
            if len(self.plays) < 32:
                self.leaders.append(winner)
        if len(self.plays) == 32:
            self._score()

    def _exclude(self, seat: int, card: int, n: int) -> None:
        """Add to ``excluded[seat]`` every card not played yet whose presence in the
        seat's hand would have made ``card`` illegal at this point of the trick (each
        rule of section 5 is "holding such a card, play such a card": one card is
        enough to break it), asked of ``legal_mask`` for the hands {card, c}."""
        unplayed = ((1 << 32) - 1) & ~mask_of(self.plays) & ~(1 << card) & ~self.excluded[seat]
        others = list(iter_cards(unplayed))
        if not others:
            return
        hands = np.array([(1 << card) | (1 << c) for c in others], dtype=np.int64)
        k = len(others)
        tricks = np.zeros((k, 4), dtype=np.int64)
        tricks[:, :n] = self.trick
        sizes = np.empty(k, dtype=np.int64)
        sizes.fill(n)
        strains = np.empty(k, dtype=np.int64)
        strains.fill(self.strain)
        legal = legal_masks_batch(hands, tricks, sizes, strains, self.rules_array)
        for c, mask in zip(others, legal.tolist()):
            if not (mask >> card) & 1:
                self.excluded[seat] |= 1 << c

    def _score(self) -> None:
        result = replay(self.record())
        if result["illegal"] is not None or result["mp"] is None:  # pragma: no cover
            raise RuntimeError(f"the engine refuses the deal: {result['illegal']}")
        self.phase = OVER
        self.mp = [int(x) for x in result["mp"]]
        self.held_mp = [int(x) for x in result["held_mp"]]
        self.outcome = result["outcome"]
        self.result = result

    # -- views ---------------------------------------------------------------------------

    @property
    def contract(self) -> dict[str, Any] | None:
        """``{"strain", "taker", "doubling"}`` once the bidding has made a contract."""
        if self.strain < 0:
            return None
        return dict(strain=STRAIN_NAMES[self.strain], taker=self.taker, doubling=self.doubling)

    def record(self) -> dict[str, Any]:
        """The deal as a replay record (``belote_sim.deal.replay``): needs a contract."""
        if self.strain < 0 or self.phase == DEALING:
            raise ValueError("a replay record needs a contract and every card dealt")
        rec: dict[str, Any] = {
            "ruleset": self.rules.name,
            "dealer": self.dealer,
            "hands": [" ".join(format_cards(h)) for h in self._held8],
            "contract": self.contract,
            "plays": [format_card(c) for c in self.plays],
        }
        options = self._options()
        if options:
            rec["options"] = options
        if self.french:
            rec["turned"] = format_card(self.turned)
        return rec

    def observation(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` (default: the seat to move) knows in the play, as
        ``belote_sim.choose_card``'s observation (its module docstring)."""
        if self.strain < 0 or self.phase == DEALING:
            raise ValueError("the play has not begun")
        seat = self.to_move if seat is None else seat
        obs: dict[str, Any] = {
            "ruleset": self.rules.name,
            "dealer": self.dealer,
            "seat": seat,
            "hand": " ".join(format_cards(self.hands[seat])),
            "contract": self.contract,
            "plays": [format_card(c) for c in self.plays],
            "declarations": [{k: d[k] for k in ("seat", "kind", "cards")} for d in self.announced],
        }
        options = self._options()
        if options:
            obs["options"] = options
        if self.french:
            obs["turned"] = {"card": format_card(self.turned), "seat": self.taker}
        return obs

    def bidding_observation(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` (default: the seat to call) knows in the bidding, as
        ``belote_sim.choose_call``'s bidding observation: its 5 bidding cards, the
        calls so far (letters), the french turned card."""
        if self.phase != BIDDING:
            raise ValueError(f"nobody is bidding now (phase {self.phase})")
        seat = self.to_move if seat is None else seat
        obs: dict[str, Any] = {
            "ruleset": self.rules.name,
            "dealer": self.dealer,
            "seat": seat,
            "hand": " ".join(format_cards(self.bidding_cards[seat])),
            "calls": list(self.calls),
        }
        options = self._options()
        if options:
            obs["options"] = options
        if self.french:
            obs["turned"] = format_card(self.turned)
        return obs

    def _options(self) -> dict[str, Any]:
        """The rule options that differ from the preset's (a copy)."""
        return dict(self._option_diff)

    def played_by(self) -> list[int]:
        """The mask of the cards each seat has played."""
        out = [0, 0, 0, 0]
        for t, leader in enumerate(self.leaders):
            for pos, card in enumerate(self.plays[4 * t : 4 * t + 4]):
                out[(leader + pos) % 4] |= 1 << card
        return out

    def shown_out(self) -> list[int]:
        """Per seat, the mask of the suits it did not follow when they were led."""
        out = [0, 0, 0, 0]
        for t, leader in enumerate(self.leaders):
            trick = self.plays[4 * t : 4 * t + 4]
            for pos, card in enumerate(trick[1:], start=1):
                if card >> 3 != trick[0] >> 3:
                    out[(leader + pos) % 4] |= 1 << (trick[0] >> 3)
        return out

    def announced_cards(self) -> list[int]:
        """Per seat, the mask of the cards it announced (declarations, belote, the
        french turned card it took) and still holds."""
        out = [0, 0, 0, 0]
        for d in self.announced:
            out[d["seat"]] |= mask_of(parse_cards(d["cards"]))
        if self.french and self.taker >= 0 and self.phase != DEALING:
            out[self.taker] |= 1 << self.turned
        return [out[s] & self.hands[s] for s in range(4)]

    def clone(self) -> Table:
        """An independent copy."""
        return copy.deepcopy(self)
