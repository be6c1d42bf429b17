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
from belote_sim.kernels.dealing import SEAT_POSITIONS, french_hands, hands_from_deck
from belote_sim.kernels.play import deal_declarations, play_deal, score_played_deal, search_buffers
from belote_sim.kernels.rng import random_below, seed_state
from belote_sim.kernels.tables import OUTCOME_HANGING, OUTCOME_INSIDE, OUTCOME_MADE, R_BIDDING

(F_N, F_MADE, F_INSIDE, F_HANGING, F_VALAT_BY, F_VALAT_AGAINST, F_CARD, F_CARD2) = range(8)
#: First column of doubling level L (0 = x1, 1 = x2, 2 = x4): F_LEVEL + 6 * L + one of
#: the offsets below.
F_LEVEL = 8
L_TAKER, L_TAKER2, L_DEF, L_DEF2, L_NET, L_NET2 = range(6)
NUM_LEVELS = 3
NUM_FIELDS = F_LEVEL + 6 * NUM_LEVELS


@kernel(parallel=True)
def atlas_cells(
    hands,
    strains,
    positions,
    counts,
    seeds,
    rules,
    play_ids,
    play_params,
    announce_mask,
    search_bits,
    out,
):
    """Play ``counts[c]`` deals of each cell ``c`` and add its sums to ``out[c]``.

    ``hands`` (n,): the taker's five cards (mask); ``strains`` (n,) 0..5;
    ``positions`` (n,) 1..4; ``counts`` (n,) deals; ``seeds`` (n,) int64;
    ``out`` (n, NUM_FIELDS) int64, added to (so rounds accumulate).
    """
    n = hands.shape[0]
    two_round = rules[R_BIDDING] == 1
    for c in prange(n):
        deck = np.empty(32, dtype=np.int64)
        free_cards = np.empty(27, dtype=np.int64)
        free_pos = np.empty(27, dtype=np.int64)
        hand_cards = np.empty(5, dtype=np.int64)
        hands4 = np.empty(4, dtype=np.int64)
        bid = np.empty(4, dtype=np.int64)
        plays = np.zeros(32, dtype=np.int64)
        winners = np.empty(8, dtype=np.int64)
        belote = np.empty(4, dtype=np.int64)
        decl = np.empty((4, 6), dtype=np.int64)
        search = search_buffers(search_bits)
        state = seed_state(seeds[c])
        hand = hands[c]
        strain = strains[c]
        r = positions[c] - 1
        dealer = (4 - positions[c]) & 3
        leader = (dealer + 1) & 3
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
        for _ in range(counts[c]):
            # Fisher-Yates over the 27 other cards (uniform from any starting order).
            for i in range(26, 0, -1):
                m = random_below(state, i + 1)
                tmp = free_cards[i]
                free_cards[i] = free_cards[m]
                free_cards[m] = tmp
            for i in range(27):
                deck[free_pos[i]] = free_cards[i]
            if two_round:
                french_hands(deck, dealer, 0, hands4)
            else:
                hands_from_deck(deck, dealer, hands4, bid)
            res = play_deal(
                hands4,
                leader,
                strain,
                0,
                rules,
                announce_mask,
                plays,
                0,
                play_ids,
                play_params,
                state,
                plays,
                winners,
                belote,
                search,
            )
            deal_declarations(hands4, strain, 15, rules, decl)
            row = out[c]
            row[F_N] += 1
            row[F_CARD] += res[3]
            row[F_CARD2] += res[3] * res[3]
            for level in range(NUM_LEVELS):
                s = score_played_deal(
                    decl,
                    res[5],
                    res[6],
                    res[3],
                    res[4],
                    res[7],
                    res[8],
                    strain,
                    0,
                    level,
                    leader,
                    8,
                    rules,
                )
                if level == 0:
                    outcome = s[5]
                    row[F_MADE] += outcome == OUTCOME_MADE
                    row[F_INSIDE] += outcome == OUTCOME_INSIDE
                    row[F_HANGING] += outcome == OUTCOME_HANGING
                    row[F_VALAT_BY] += s[6] == 0
                    row[F_VALAT_AGAINST] += s[6] == 1
                base = F_LEVEL + 6 * level
                taker_mp = s[7]
                def_mp = s[8]
                net = taker_mp - def_mp
                row[base + L_TAKER] += taker_mp
                row[base + L_TAKER2] += taker_mp * taker_mp
                row[base + L_DEF] += def_mp
                row[base + L_DEF2] += def_mp * def_mp
                row[base + L_NET] += net
                row[base + L_NET2] += net * net
