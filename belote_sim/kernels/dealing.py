"""Dealing (docs/rules.md section 3): deck order -> hands, predeal and constraints.

A deck is an int64 array of the 32 cards, top first.  The deal gives packets in
seat order from dealer + 1: 3 cards each (deck positions 3r..3r+2 for the r-th
seat), 2 each (12+2r, 13+2r), then after bidding 3 each (20+3r..22+3r).  The
french deal turns up position 20 and deals positions 21..31 after the bidding.

Conditional dealing stays exactly uniform: predealt cards are fixed at given
positions of their seat (the first five are its bidding cards), required cards
are put at uniformly chosen free positions of their seat, the other cards are
shuffled into the free positions, and deals that break a remaining constraint
(excluded cards, suit lengths, strength range) are rejected and redealt.
"""

import numpy as np

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.bits import popcount
from belote_sim.kernels.rng import random_below
from belote_sim.kernels.tables import DECK24_MASK, NUM_CARDS, PLAIN_POINTS

#: Deck positions of the r-th seat from dealer + 1 (bidding packets first).
SEAT_POSITIONS = np.array(
    [
        [3 * r, 3 * r + 1, 3 * r + 2, 12 + 2 * r, 13 + 2 * r, 20 + 3 * r, 21 + 3 * r, 22 + 3 * r]
        for r in range(4)
    ],
    dtype=np.int64,
)
TURNED_POSITION = 20

# Constraint array layout per seat (cons[seat, k]).
C_REQUIRED = 0  # mask of cards the seat must hold
C_EXCLUDED = 1  # mask of cards it must not hold
C_MIN_SUIT = 2  # 2..5: minimum length of suits C D H S
C_MAX_SUIT = 6  # 6..9: maximum length of suits C D H S
C_MIN_STRENGTH = 10  # plain card points of the 8 cards (A11 T10 K4 Q3 J2)
C_MAX_STRENGTH = 11
NUM_CONSTRAINT_FIELDS = 12


@kernel
def hand_strength(hand):
    """Plain card points of a hand (A 11, T 10, K 4, Q 3, J 2): the constraint measure."""
    total = 0
    for suit in range(4):
        byte = (hand >> (8 * suit)) & 0xFF
        for rank in range(8):
            if (byte >> rank) & 1:
                total += PLAIN_POINTS[rank]
    return total


@kernel
def shuffle_deal(state, hands):
    """Deal 32 shuffled cards, 8 to each seat, into ``hands`` (4,) masks."""
    shuffle_deal_into(state, hands, np.empty(NUM_CARDS, dtype=np.int64))


@lean_kernel
def shuffle_deal_into(state, hands, cards):
    """``shuffle_deal`` with a caller's (32,) work array ``cards`` (no allocation)."""
    for c in range(NUM_CARDS):
        cards[c] = c
    for i in range(NUM_CARDS - 1, 0, -1):
        j = random_below(state, i + 1)
        tmp = cards[i]
        cards[i] = cards[j]
        cards[j] = tmp
    for seat in range(4):
        mask = 0
        for k in range(8):
            mask |= 1 << cards[8 * seat + k]
        hands[seat] = mask


@lean_kernel
def hands_from_deck(deck, dealer, out_hands, out_bid):
    """Eight-card hands and five bidding cards of each seat from a deck (auction deal)."""
    for r in range(4):
        seat = (dealer + 1 + r) & 3
        bid = 0
        for k in range(5):
            bid |= 1 << deck[SEAT_POSITIONS[r, k]]
        hand = bid
        for k in range(5, 8):
            hand |= 1 << deck[SEAT_POSITIONS[r, k]]
        out_bid[seat] = bid
        out_hands[seat] = hand


@lean_kernel
def french_hands(deck, dealer, taker, out_hands):
    """Final hands of the french deal: the taker gets the turned card plus 2, others 3."""
    pos = TURNED_POSITION + 1
    for r in range(4):
        seat = (dealer + 1 + r) & 3
        hand = 0
        for k in range(5):
            hand |= 1 << deck[SEAT_POSITIONS[r, k]]
        if seat == taker:
            hand |= 1 << deck[TURNED_POSITION]
            extra = 2
        else:
            extra = 3
        for _ in range(extra):
            hand |= 1 << deck[pos]
            pos += 1
        out_hands[seat] = hand


@lean_kernel
def shuffle_deck(state, deck):
    """Fisher-Yates shuffle of a deck (32 or 24 cards) in place."""
    for i in range(deck.shape[0] - 1, 0, -1):
        j = random_below(state, i + 1)
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp


@kernel
def solo_deck(open_table):
    """The unshuffled deck of a game where every player is alone: the 24 cards 9..A
    (2 and 3 players), or all 32 (open belot), in card order."""
    deck = np.zeros(32 if open_table else 24, dtype=np.int64)
    k = 0
    for card in range(32):
        if open_table or (DECK24_MASK >> card) & 1:
            deck[k] = card
            k += 1
    return deck


@lean_kernel
def _packet(deck, start, size):
    """Mask of the ``size`` cards at deck positions ``start``.."""
    mask = 0
    for k in range(size):
        mask |= 1 << deck[start + k]
    return mask


@lean_kernel
def solo_hands_from_deck(deck, dealer, n_players, open_table, out_hands, out_bid, out_table):
    """Hands of the games where every player is alone (docs/rules.md section 11).

    Packets go in seat order from dealer + 1 (the r-th seat from there):
    3 players (24 cards): 3 each (deck positions 3r..), 2 each (9+2r..), after the
    bidding 3 each (15+3r..).  2 players (24 cards): 3 each (3r..), 3 each (6+3r..),
    after the bidding 3 each (12+3r..); positions 18..23 stay unseen.  Open belot (32
    cards): 3 each (3r..), 2 each (6+2r..), the table one card at a time -- pile k's
    face-down card at 10+2k+r, its face-up card at 18+2k+r -- and after the bidding 3
    each (26+3r..).  Fills ``out_hands`` (P,) with the final hands, ``out_bid`` (P,)
    with the cards each player sees of his own during the bidding (open belot: his
    five hand cards and four face-up table cards) and, for open belot,
    ``out_table`` (2, 4, 2) with ``[player, pile, 0 face-down / 1 face-up]`` cards.
    """
    for r in range(n_players):
        seat = (dealer + 1 + r) % n_players
        if open_table:
            second, second_size, third = 6 + 2 * r, 2, 26 + 3 * r
        elif n_players == 3:
            second, second_size, third = 9 + 2 * r, 2, 15 + 3 * r
        else:
            second, second_size, third = 6 + 3 * r, 3, 12 + 3 * r
        bid = _packet(deck, 3 * r, 3) | _packet(deck, second, second_size)
        hand = bid | _packet(deck, third, 3)
        if open_table:
            for pile in range(4):
                out_table[seat, pile, 0] = deck[10 + 2 * pile + r]
                out_table[seat, pile, 1] = deck[18 + 2 * pile + r]
                bid |= 1 << deck[18 + 2 * pile + r]
        out_hands[seat] = hand
        out_bid[seat] = bid


@lean_kernel
def cut_deck(state, deck, work):
    """Cut a deck at a uniform position leaving at least 3 cards on each side."""
    cut = 3 + random_below(state, NUM_CARDS - 5)
    for i in range(NUM_CARDS):
        work[i] = deck[(i + cut) % NUM_CARDS]
    for i in range(NUM_CARDS):
        deck[i] = work[i]


@lean_kernel
def hand_ok(hand, cons):
    """Whether a hand meets one seat's rejection constraints (not required cards)."""
    if hand & cons[C_EXCLUDED]:
        return False
    for suit in range(4):
        length = popcount((hand >> (8 * suit)) & 0xFF)
        if length < cons[C_MIN_SUIT + suit] or length > cons[C_MAX_SUIT + suit]:
            return False
    strength = hand_strength(hand)
    return cons[C_MIN_STRENGTH] <= strength <= cons[C_MAX_STRENGTH]


@lean_kernel
def deal_conditioned(
    state, dealer, predeal, cons, check_cons, max_tries, deck, free_pos, free_cards, hands, bid
):
    """Deal a deck under predeal / constraints (uniform given them); fills ``deck``,
    ``hands`` and ``bid`` and returns the number of tries (-1 if ``max_tries`` ran out).

    ``predeal``: (4, 8) cards per seat at its packet positions (-1 = free);
    ``cons``: (4, NUM_CONSTRAINT_FIELDS) constraints; ``check_cons``: whether any
    rejection constraint is set.
    """
    plain = not check_cons  # no predealt card, required card or constraint
    for seat in range(predeal.shape[0]):
        for k in range(predeal.shape[1]):
            plain &= predeal[seat, k] < 0
    for seat in range(cons.shape[0]):
        plain &= cons[seat, C_REQUIRED] == 0
    if plain:
        # Fast path: a plain uniform shuffle.
        for i in range(NUM_CARDS):
            deck[i] = i
        shuffle_deck(state, deck)
        hands_from_deck(deck, dealer, hands, bid)
        return 1
    for tries in range(1, max_tries + 1):
        taken = 0
        for i in range(NUM_CARDS):
            deck[i] = -1
        for r in range(4):
            seat = (dealer + 1 + r) & 3
            for k in range(8):
                card = predeal[seat, k]
                if card >= 0:
                    deck[SEAT_POSITIONS[r, k]] = card
                    taken |= 1 << card
        # Required cards: uniformly chosen free positions of their seat.
        for r in range(4):
            seat = (dealer + 1 + r) & 3
            required = cons[seat, C_REQUIRED] & ~taken
            n_seat_free = 0
            for k in range(8):
                if deck[SEAT_POSITIONS[r, k]] < 0:
                    free_pos[n_seat_free] = SEAT_POSITIONS[r, k]
                    n_seat_free += 1
            while required:
                low = required & -required
                card = 0
                while (low >> card) != 1:
                    card += 1
                required &= required - 1
                j = random_below(state, n_seat_free)
                deck[free_pos[j]] = card
                taken |= 1 << card
                n_seat_free -= 1
                free_pos[j] = free_pos[n_seat_free]
        n_cards = 0
        for card in range(NUM_CARDS):
            if not (taken >> card) & 1:
                free_cards[n_cards] = card
                n_cards += 1
        for i in range(n_cards - 1, 0, -1):
            j = random_below(state, i + 1)
            tmp = free_cards[i]
            free_cards[i] = free_cards[j]
            free_cards[j] = tmp
        k = 0
        for i in range(NUM_CARDS):
            if deck[i] < 0:
                deck[i] = free_cards[k]
                k += 1
        hands_from_deck(deck, dealer, hands, bid)
        if not check_cons:
            return tries
        ok = True
        for seat in range(4):
            if not hand_ok(hands[seat], cons[seat]):
                ok = False
                break
        if ok:
            return tries
    return -1


__all__ = [
    "C_EXCLUDED",
    "C_MAX_STRENGTH",
    "C_MAX_SUIT",
    "C_MIN_STRENGTH",
    "C_MIN_SUIT",
    "C_REQUIRED",
    "NUM_CONSTRAINT_FIELDS",
    "SEAT_POSITIONS",
    "TURNED_POSITION",
    "cut_deck",
    "deal_conditioned",
    "french_hands",
    "hand_ok",
    "hand_strength",
    "hands_from_deck",
    "shuffle_deal",
    "shuffle_deal_into",
    "shuffle_deck",
    "solo_deck",
    "solo_hands_from_deck",
]
