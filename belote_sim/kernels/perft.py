"""Perft: count the legal card sequences of a given length (all hands known).

Used to pin the legal-move generator against frozen counts and the pure-Python
reference (python-chess / Stockfish style).  The last ply is bulk-counted with
``popcount(legal_mask)``.  The search is an explicit-stack loop, not recursion:
numba's on-disk cache does not reload recursive functions safely.
"""

import numpy as np

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.bits import lowest_card, popcount
from belote_sim.kernels.core import advance_trick, legal_mask


@kernel
def perft_count(hands, leader, strain, rules, depth):
    """Number of legal sequences of ``depth`` cards from the start of a trick led by
    ``leader`` (``hands`` (4,) is modified during the search and restored)."""
    if depth <= 0:
        return 1
    # Per ply: seat to move, trick state before its card, cards still to try.
    seat_at = np.empty(depth, dtype=np.int64)
    lead_at = np.empty(depth, dtype=np.int64)
    n_at = np.empty(depth, dtype=np.int64)
    led_at = np.empty(depth, dtype=np.int64)
    win_card_at = np.empty(depth, dtype=np.int64)
    win_pos_at = np.empty(depth, dtype=np.int64)
    todo = np.empty(depth, dtype=np.int64)
    played = np.empty(depth, dtype=np.int64)
    seat_at[0] = leader
    lead_at[0] = leader
    n_at[0] = 0
    led_at[0] = -1
    win_card_at[0] = -1
    win_pos_at[0] = -1
    todo[0] = legal_mask(hands[leader], -1, 0, -1, -1, strain, rules)
    if depth == 1:
        return popcount(todo[0])
    total = 0
    ply = 0
    while ply >= 0:
        if todo[ply] == 0:
            ply -= 1
            if ply >= 0:
                hands[seat_at[ply]] |= 1 << played[ply]
            continue
        card = lowest_card(todo[ply])
        todo[ply] &= todo[ply] - 1
        seat = seat_at[ply]
        hands[seat] &= ~(1 << card)
        played[ply] = card
        n, led, win_card, win_pos, lead = advance_trick(
            card, n_at[ply], led_at[ply], win_card_at[ply], win_pos_at[ply], lead_at[ply], strain
        )
        if n == 0 and hands[lead] == 0:  # deal over before ``depth`` cards
            hands[seat] |= 1 << card
            continue
        next_seat = (lead + n) & 3
        legal = legal_mask(hands[next_seat], led, n, win_card, win_pos, strain, rules)
        if ply + 2 == depth:
            total += popcount(legal)
            hands[seat] |= 1 << card
            continue
        ply += 1
        seat_at[ply] = next_seat
        lead_at[ply] = lead
        n_at[ply] = n
        led_at[ply] = led
        win_card_at[ply] = win_card
        win_pos_at[ply] = win_pos
        todo[ply] = legal
    return total


__all__ = [
    "perft_count",
]
