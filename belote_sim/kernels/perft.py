"""Perft: count the legal card sequences of a given length (all hands known).

Used to pin the legal-move generator against frozen counts and the pure-Python
reference (python-chess / Stockfish style).  The last ply is bulk-counted with
``popcount(legal_mask)``.
"""

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.core import beats, legal_mask, lowest_card, popcount


@kernel
def perft_count(hands, leader, n_in_trick, led_suit, win_card, win_pos, strain,
                raise_op, undertrump, depth):
    """Number of legal sequences of ``depth`` cards from this state (hands modified
    during the search and restored)."""
    seat = (leader + n_in_trick) & 3
    legal = legal_mask(hands[seat], led_suit, n_in_trick, win_card, win_pos, strain,
                       raise_op, undertrump)
    if depth == 1:
        return popcount(legal)
    total = 0
    cards = legal
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        hands[seat] &= ~(1 << card)
        if n_in_trick == 0:
            n_led, n_win, n_pos = card >> 3, card, 0
        elif beats(card, win_card, led_suit, strain):
            n_led, n_win, n_pos = led_suit, card, n_in_trick
        else:
            n_led, n_win, n_pos = led_suit, win_card, win_pos
        if n_in_trick == 3:
            winner = (leader + n_pos) & 3
            if hands[winner] == 0:
                total += 1 if depth == 1 else 0
            else:
                total += perft_count(hands, winner, 0, -1, -1, -1, strain, raise_op,
                                     undertrump, depth - 1)
        else:
            total += perft_count(hands, leader, n_in_trick + 1, n_led, n_win, n_pos, strain,
                                 raise_op, undertrump, depth - 1)
        hands[seat] |= 1 << card
    return total
