"""What a seat knows of a deal, as a tensor and as text: the information state and the
observation of ``belote_sim.openspiel``, the observation of ``belote_sim.pettingzoo``.

``Encoding(private, public, perfect_recall)`` lays out one flat ``float32`` tensor
(``tensor``) with a named view of each piece (``dict``); ``fill(table, seat)`` writes
what ``seat`` knows of a ``Table``, ``text(table, seat)`` says it in one line.  The
pieces, in order (card bits are card indices ``8 * suit + rank``):

=================  ========  =========================================================
piece              size      meaning
=================  ========  =========================================================
player             4         the observing seat, one-hot
dealer             4         the dealer, one-hot
bidding_cards      32        (private ``single``) its first 5 cards
hand               32        (private ``single``) the cards it holds now
dealt_later        32        (``single``, perfect recall) its cards dealt after the
                             bidding (the french turned card included)
hands              4 x 32    (private ``all``) every seat's cards now
turned             32        (public) the french turned card
calls              40 x 10   (public) call k one-hot over ``p C D H S N A x r t``
contract           14        (public) strain 6 (C D H S NT AT), taker 4, doubling 4
plays              32 x 36   (public, perfect recall) card k: the card one-hot, then
                             the seat that played it one-hot
trick              4 x 32    (public, no perfect recall) each seat's card in the
                             trick in progress
played_by          4 x 32    (public, no perfect recall) the cards each seat played
announced          4 x 32    (public) the cards of each seat's announced
                             declarations and belotes
=================  ========  =========================================================

The information state (perfect recall, private ``single``) is 1830 numbers; the
observation (no perfect recall) 902.
"""

from __future__ import annotations

import functools

import numpy as np

from belote_sim.cards import format_card, format_cards, iter_cards, parse_card
from belote_sim.games.table import CALL_LETTERS, Table
from belote_sim.kernels.bidding import MAX_CALLS
from belote_sim.kernels.tables import STRAIN_NAMES

__all__ = ["Encoding"]


@functools.cache
def _pieces(private: str, public: bool, perfect_recall: bool) -> tuple[tuple[str, int], ...]:
    out: list[tuple[str, int]] = [("player", 4), ("dealer", 4)]
    if private == "single":
        out += [("bidding_cards", 32), ("hand", 32)]
        if perfect_recall:
            out.append(("dealt_later", 32))
    elif private == "all":
        out += [("hands", 4 * 32)]
    if public:
        out += [("turned", 32), ("calls", MAX_CALLS * len(CALL_LETTERS)), ("contract", 14)]
        if perfect_recall:
            out += [("plays", 32 * 36)]
        else:
            out += [("trick", 4 * 32), ("played_by", 4 * 32)]
        out += [("announced", 4 * 32)]
    return tuple(out)


class Encoding:
    """A seat's knowledge of a ``Table`` as a tensor and text (the module docstring).

    ``private``: ``"single"`` (the seat's own cards), ``"all"`` (every hand) or
    ``"none"``; ``public``: the calls, contract, cards played and announcements;
    ``perfect_recall``: the whole history (information state) or the present
    (observation)."""

    def __init__(self, private: str = "single", public: bool = True, perfect_recall: bool = False):
        if private not in ("single", "all", "none"):
            raise ValueError(f"private must be single, all or none, got {private!r}")
        self.private = private
        self.public = public
        self.perfect_recall = perfect_recall
        pieces = _pieces(private, public, perfect_recall)
        self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        index = 0
        shapes = {"calls": (MAX_CALLS, len(CALL_LETTERS)), "plays": (32, 36)}
        for name, size in pieces:
            view = self.tensor[index : index + size]
            shape = shapes.get(name, (4, 32) if size == 128 else (size,))
            self.dict[name] = view.reshape(shape)
            index += size

    def fill(self, table: Table, seat: int) -> np.ndarray:
        """Write what ``seat`` knows of ``table`` into ``tensor`` (returned)."""
        t = table
        self.tensor.fill(0)
        d = self.dict
        d["player"][seat] = 1
        d["dealer"][t.dealer] = 1
        if "bidding_cards" in d:
            _set_mask(d["bidding_cards"], _first5(t, seat))
            _set_mask(d["hand"], t.hands[seat])
        if "dealt_later" in d:
            _set_mask(d["dealt_later"], sum(1 << c for c in t.dealt[seat][5:]))
        if "hands" in d:
            for s in range(4):
                _set_mask(d["hands"][s], t.hands[s])
        if self.public:
            if t.turned >= 0:
                d["turned"][t.turned] = 1
            for k, letter in enumerate(t.calls):
                d["calls"][k, CALL_LETTERS.index(letter)] = 1
            if t.strain >= 0:
                d["contract"][t.strain] = 1
                d["contract"][6 + t.taker] = 1
                d["contract"][10 + t.doubling] = 1
            seats = _seats_of_plays(t)
            if "plays" in d:
                for k, (card, s) in enumerate(zip(t.plays, seats)):
                    d["plays"][k, card] = 1
                    d["plays"][k, 32 + s] = 1
            else:
                n_done = 4 * len(t.winners)
                for card, s in zip(t.plays[n_done:], seats[n_done:]):
                    d["trick"][s, card] = 1
                for card, s in zip(t.plays, seats):
                    d["played_by"][s, card] = 1
            for decl in t.announced:
                for card in decl["cards"]:
                    d["announced"][decl["seat"], parse_card(card)] = 1
        return self.tensor

    def text(self, table: Table, seat: int) -> str:
        """What ``seat`` knows of ``table`` in one line."""
        t = table
        d = self.dict
        parts = [f"p{seat} dealer {t.dealer}"]
        if "bidding_cards" in d:
            parts.append(f"bidding cards {' '.join(format_cards(_first5(t, seat)))}")
            if "dealt_later" in d:
                later = t.dealt[seat][5:]
                if later:
                    parts.append(f"dealt later {' '.join(format_cards(later))}")
            else:
                parts.append(f"hand {' '.join(format_cards(t.hands[seat]))}")
        if "hands" in d:
            parts += [f"seat {s} {' '.join(format_cards(t.hands[s]))}" for s in range(4)]
        if self.public:
            if t.turned >= 0:
                parts.append(f"turned {format_card(t.turned)}")
            if t.calls:
                parts.append(f"calls {''.join(t.calls)}")
            if t.strain >= 0:
                parts.append(f"contract {STRAIN_NAMES[t.strain]} by {t.taker} x{t.doubling}")
            seats = _seats_of_plays(t)
            if "plays" in d:
                if t.plays:
                    pairs = " ".join(f"{s}:{format_card(c)}" for c, s in zip(t.plays, seats))
                    parts.append(f"plays {pairs}")
            else:
                n_done = 4 * len(t.winners)
                trick = [f"{s}:{format_card(c)}" for c, s in zip(t.plays[n_done:], seats[n_done:])]
                parts.append(f"trick {' '.join(trick)}")
                parts += [
                    f"played by {s} {' '.join(format_cards(m))}"
                    for s, m in enumerate(t.played_by())
                    if m
                ]
            parts += [
                f"{a['seat']} announced {a['kind']} {' '.join(a['cards'])}" for a in t.announced
            ]
        return " | ".join(parts)


def _first5(table: Table, seat: int) -> int:
    return sum(1 << c for c in table.dealt[seat][:5])


def _set_mask(view: np.ndarray, mask: int) -> None:
    for card in iter_cards(mask):
        view[card] = 1


def _seats_of_plays(table: Table) -> list[int]:
    return [(table.leaders[k // 4] + k % 4) % 4 for k in range(len(table.plays))]
