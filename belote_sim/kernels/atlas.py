"""The hand atlas's build loop: many deals for each (hand class, strain, position) cell.

A cell fixes the taker's five bidding cards (seat 0), the strain and the taker's
position (1 = first after the dealer, who leads, .. 4 = the dealer, so the dealer is
seat ``(4 - position) & 3``).  Each deal puts those five cards at the taker's
bidding-packet positions of the deck (``dealing.SEAT_POSITIONS``), shuffles the other
27 cards into the other positions, deals as the rules say (auction deal, or the french
deal where the taker gets the turned card plus 2), plays the fixed contract with the
play policies and scores it at every doubling level x1, x2, x4 (the play does not
depend on the doubling).  Cell ``c`` uses one RNG stream seeded from ``seeds[c]``, so
its sums do not depend on the thread count.

Sums per cell (int64 columns ``F_*``; MP are what each team adds now, hanging points
excluded; card points are the taker's team's, last trick included): deals, made,
inside, hanging, valat by / against the taker, card points and their squares, and
for each level the taker's MP, the defenders' MP and the net MP (taker - defenders),
each with its sum of squares.
"""

import numpy as np
from numba import prange

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.atomics import fetch_add
from belote_sim.kernels.dealing import SEAT_POSITIONS, french_hands, hands_from_deck
from belote_sim.kernels.play import play_deal, score_deal_record
from belote_sim.kernels.rng import random_below, reseed
from belote_sim.kernels.simulate import thread_buffers
from belote_sim.kernels.tables import (
    BIDDING_TWO_ROUND,
    OUTCOME_HANGING,
    OUTCOME_INSIDE,
    OUTCOME_MADE,
    R_BIDDING,
)

(F_N, F_MADE, F_INSIDE, F_HANGING, F_VALAT_BY, F_VALAT_AGAINST, F_CARD, F_CARD2) = range(8)
#: First column of doubling level L (0 = x1, 1 = x2, 2 = x4): F_LEVEL + 6 * L + one of
#: the offsets below.
F_LEVEL = 8
L_TAKER, L_TAKER2, L_DEF, L_DEF2, L_NET, L_NET2 = range(6)
NUM_LEVELS = 3
NUM_FIELDS = F_LEVEL + 6 * NUM_LEVELS


@kernel(parallel=True)
def atlas_cells(hands, strains, positions, counts, seeds, rules, policies, search_bits, out, stop):
    """Play ``counts[c]`` deals of each cell ``c`` and add its sums to ``out[c]``.

    ``hands`` (n,): the taker's five cards (mask); ``strains`` (n,) 0..5;
    ``positions`` (n,) 1..4; ``counts`` (n,) deals; ``seeds`` (n,) int64;
    ``policies = (play_ids (4,), play_params (4, k), announce_mask, menu)``;
    ``out`` (n, NUM_FIELDS) int64, added to (so rounds accumulate);
    ``stop`` (1,) int64: set non-zero by another thread (a Ctrl-C), every thread
    returns before its next deal and ``out`` is incomplete (to be thrown away).
    """
    play_ids, play_params, announce_mask, menu = policies
    n = hands.shape[0]
    # As in ``simulate.simulate_deals``: each iteration of the parallel loop allocates
    # its thread's buffers once, then takes blocks of cells from a shared counter
    # (with the buffers allocated per cell inside the parallel loop, the ``expert``
    # policy crashed on 2 threads).  A cell's sums depend only on its seed.
    n_blocks = min(n, 256)
    next_block = np.zeros(1, dtype=np.int64)
    for _ in prange(n_blocks):
        work = thread_buffers(search_bits)
        buffers = (
            np.empty(32, dtype=np.int64),
            np.empty(27, dtype=np.int64),
            np.empty(27, dtype=np.int64),
            np.empty(5, dtype=np.int64),
            np.empty(4, dtype=np.int64),
            np.empty(1, dtype=np.uint64),
        )
        block_play = (play_ids, play_params, announce_mask, menu)
        b = fetch_add(next_block, 0, 1)
        while b < n_blocks and fetch_add(stop, 0, 0) == 0:
            for c in range(b * n // n_blocks, (b + 1) * n // n_blocks):
                play_cell(
                    hands[c],
                    strains[c],
                    positions[c],
                    counts[c],
                    seeds[c],
                    rules,
                    block_play,
                    out[c],
                    work,
                    buffers,
                    stop,
                )
            b = fetch_add(next_block, 0, 1)


@kernel
def play_cell(hand, strain, position, count, seed, rules, play, row, work, buffers, stop):
    """``count`` deals of one cell (``atlas_cells``), added to its sums ``row``, until
    ``stop[0]`` is set (read atomically before each deal);
    ``work``: ``simulate.thread_buffers``; ``buffers``: scratch (deck (32,), free cards
    and positions (27,), hand cards (5,), bidding cards (4,), the generator (1,))."""
    play_ids, play_params, announce_mask, menu = play
    deals, _, search = work
    deal = deals[0]
    deck, free_cards, free_pos, hand_cards, bid, state = buffers
    two_round = rules[R_BIDDING] == BIDDING_TWO_ROUND
    reseed(state, seed)
    r = position - 1
    dealer = (4 - position) & 3
    deal.leader = (dealer + 1) & 3
    deal.strain = strain
    deal.taker = 0
    deal.doubling = 0
    deal.announce = announce_mask
    deal.n_given = 0
    k = 0
    j = 0
    for card in range(32):
        if (hand >> card) & 1:
            hand_cards[k] = card
            k += 1
        else:
            free_cards[j] = card
            j += 1
    taker_pos = 0
    for k in range(5):
        taker_pos |= 1 << SEAT_POSITIONS[r, k]
    j = 0
    for pos in range(32):
        if not (taker_pos >> pos) & 1:
            free_pos[j] = pos
            j += 1
    for k in range(5):
        deck[SEAT_POSITIONS[r, k]] = hand_cards[k]
    for _ in range(count):
        if fetch_add(stop, 0, 0) != 0:
            return
        # Fisher-Yates over the 27 other cards (uniform from any starting order).
        for i in range(26, 0, -1):
            m = random_below(state, i + 1)
            tmp = free_cards[i]
            free_cards[i] = free_cards[m]
            free_cards[m] = tmp
        for i in range(27):
            deck[free_pos[i]] = free_cards[i]
        if two_round:
            french_hands(deck, dealer, 0, deal.hands)
        else:
            hands_from_deck(deck, dealer, deal.hands, bid)
        play_deal(deal, (play_ids, play_params, menu), rules, state, search)
        card_pts = deal.card_points[0]
        row[F_N] += 1
        row[F_CARD] += card_pts
        row[F_CARD2] += card_pts * card_pts
        for level in range(NUM_LEVELS):
            if level > 0:  # the same play, scored at the next doubling level
                score_deal_record(deal, level, rules)
            if level == 0:
                outcome = deal.outcome
                row[F_MADE] += outcome == OUTCOME_MADE
                row[F_INSIDE] += outcome == OUTCOME_INSIDE
                row[F_HANGING] += outcome == OUTCOME_HANGING
                row[F_VALAT_BY] += deal.valat == 0
                row[F_VALAT_AGAINST] += deal.valat == 1
            base = F_LEVEL + 6 * level
            taker_mp = deal.mp[0]
            def_mp = deal.mp[1]
            net = taker_mp - def_mp
            row[base + L_TAKER] += taker_mp
            row[base + L_TAKER2] += taker_mp * taker_mp
            row[base + L_DEF] += def_mp
            row[base + L_DEF2] += def_mp * def_mp
            row[base + L_NET] += net
            row[base + L_NET2] += net * net


__all__ = [
    "F_CARD",
    "F_CARD2",
    "F_HANGING",
    "F_INSIDE",
    "F_LEVEL",
    "F_MADE",
    "F_N",
    "F_VALAT_AGAINST",
    "F_VALAT_BY",
    "L_DEF",
    "L_DEF2",
    "L_NET",
    "L_NET2",
    "L_TAKER",
    "L_TAKER2",
    "NUM_FIELDS",
    "NUM_LEVELS",
    "atlas_cells",
    "play_cell",
]
