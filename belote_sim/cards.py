"""Cards, hands and their text notation (docs/rules.md section 1).

Bit layout (one layout for the whole package)::

    card index c = 8 * suit + rank        suit: C D H S = 0 1 2 3
                                          rank: 7 8 9 T J Q K A = 0 .. 7
    hand = sum of 1 << c over its cards   (a 32-bit mask, CardMask)

    bit  31 .......... 24 23 .......... 16 15 ........... 8 7 ............ 0
         S: A K Q J T 9 8 7  H: A ... 7       D: A ... 7       C: A K Q J T 9 8 7

Each suit is one byte with ranks in sequence order, so a declaration run is a run
of adjacent bits.  Card order and points in play depend on the strain and come
from tables in ``belote_sim.kernels.tables``.

Notation: rank then suit, ``JH`` ``TS`` ``7C``; parsers also accept ``10`` for the
ten, lower case and the suit symbols ♣ ♦ ♥ ♠.  Formatting always gives the
canonical two-character form.  Card lists are ordered by suit C D H S, then rank
7 .. A (i.e. by card index).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeAlias

from belote_sim.kernels.tables import NUM_CARDS, RANK_CHARS, STRAIN_NAMES, SUIT_CHARS

Card: TypeAlias = int
CardMask: TypeAlias = int
Seat: TypeAlias = int

ALL_CARDS_MASK: CardMask = (1 << NUM_CARDS) - 1
SUIT_SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}

__all__ = [
    "ALL_CARDS_MASK",
    "RANK_CHARS",
    "STRAIN_NAMES",
    "SUIT_CHARS",
    "Card",
    "CardMask",
    "Seat",
    "cards_of",
    "format_card",
    "format_cards",
    "format_strain",
    "iter_cards",
    "mask_of",
    "parse_card",
    "parse_cards",
    "parse_hand",
    "parse_hands",
    "parse_strain",
    "popcount",
]


def parse_card(text: str) -> Card:
    """Parse one card (``"TH"``, ``"10h"``, ``"T♥"``) into its index 0..31.

    Raises
    ------
    ValueError
        If the text is not a card of the 32-card deck; the message names it.
    """
    if not isinstance(text, str):
        raise ValueError(f"card must be a string, got {text!r}")
    raw = text.strip()
    s = raw.upper()
    if s[-1:] in SUIT_SYMBOLS:
        s = s[:-1] + SUIT_SYMBOLS[s[-1]]
    if s.startswith("10"):
        s = "T" + s[2:]
    if len(s) != 2 or s[0] not in RANK_CHARS or s[1] not in SUIT_CHARS:
        raise ValueError(
            f"unknown card {raw!r}: expected rank 7 8 9 T(10) J Q K A "
            f"then suit C D H S (or ♣ ♦ ♥ ♠)"
        )
    return 8 * SUIT_CHARS.index(s[1]) + RANK_CHARS.index(s[0])


def format_card(card: Card) -> str:
    """Canonical text of a card index (``31 -> "AS"``)."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card index {card} out of range 0..31")
    return RANK_CHARS[card & 7] + SUIT_CHARS[card >> 3]


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards separated by spaces or commas (or an iterable of card strings).

    Duplicates are rejected with a ``ValueError`` naming the card.
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    cards = [parse_card(t) for t in tokens]
    seen: set[int] = set()
    for card in cards:
        if card in seen:
            raise ValueError(f"duplicate card {format_card(card)}")
        seen.add(card)
    return cards


def mask_of(cards: Iterable[Card]) -> CardMask:
    """Mask of a collection of card indices."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def iter_cards(mask: CardMask) -> Iterator[Card]:
    """Card indices of a mask, lowest first (C 7 .. S A)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cards_of(mask: CardMask) -> list[Card]:
    """Sorted list of the card indices in a mask."""
    return list(iter_cards(mask))


def popcount(mask: CardMask) -> int:
    """Number of cards in a mask."""
    return int(mask).bit_count()


def format_cards(mask_or_cards: CardMask | Iterable[Card]) -> list[str]:
    """Sorted canonical card strings of a mask or of card indices."""
    mask = mask_or_cards if isinstance(mask_or_cards, int) else mask_of(mask_or_cards)
    return [format_card(c) for c in iter_cards(mask)]


def parse_hand(text: str | Iterable[str], size: int | None = 8) -> CardMask:
    """Parse a hand into a mask; ``size`` cards are required (None: any number)."""
    cards = parse_cards(text)
    if size is not None and len(cards) != size:
        raise ValueError(f"a hand must have {size} cards, got {len(cards)}: {text!r}")
    return mask_of(cards)


def parse_hands(hands: Iterable[str | Iterable[str]], size: int | None = 8) -> list[CardMask]:
    """Parse the hands of all seats; a card held twice across hands is an error."""
    masks = []
    seen = 0
    for seat, text in enumerate(hands):
        try:
            mask = parse_hand(text, size)
        except ValueError as exc:
            raise ValueError(f"hand of seat {seat}: {exc}") from None
        both = seen & mask
        if both:
            card = format_card(next(iter_cards(both)))
            raise ValueError(f"card {card} is held twice (seat {seat} and an earlier seat)")
        seen |= mask
        masks.append(mask)
    return masks


def parse_strain(text: str) -> int:
    """Strain code 0..5 of ``C D H S NT AT`` (also suit symbols, lower case)."""
    if not isinstance(text, str):
        raise ValueError(f"strain must be a string, got {text!r}")
    s = text.strip().upper()
    s = SUIT_SYMBOLS.get(s, s)
    if s not in STRAIN_NAMES:
        raise ValueError(f"unknown strain {text!r}: expected one of {', '.join(STRAIN_NAMES)}")
    return STRAIN_NAMES.index(s)


def format_strain(strain: int) -> str:
    """Name of a strain code."""
    return STRAIN_NAMES[strain]
