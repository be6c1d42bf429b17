"""A deliberately simple reference search for the solver tests (brute force).

Plain minimax or plain alpha-beta over the cards in natural order, sharing with the
solver only the play rule (``core.legal_mask``) and the trick winner
(``core.beats``).  Compiled with ``numba.njit`` directly (test code, outside the
kernels package) and not cached on disk: numba's cache would key it on this file
only, and an edit to the kernels it calls would leave it stale.
"""

import numba
import numpy as np

from belote_sim.kernels.bits import lowest_card, popcount
from belote_sim.kernels.core import beats, legal_mask
from belote_sim.kernels.tables import CARD_POINTS, LAST_TRICK_BONUS

INF = 1 << 20


@numba.njit(nogil=True)
def simple_search(hands, leader, trick, n_trick, strain, max_team, rules, prune):
    """Plain minimax (``prune`` 0) or plain alpha-beta (``prune`` 1) over the cards in
    natural order: no transposition table, no move ordering, no equivalent cards, no
    bounds.  Same value as ``solve_position``; for tests only (exponential)."""
    base = n_trick
    plies = 0
    for s in range(4):
        plies += popcount(hands[s])
    if plies == 0:
        return 0
    seq = np.zeros(base + plies + 1, dtype=np.int64)
    for i in range(base):
        seq[i] = trick[i]
    lead_at = np.zeros(plies + 1, dtype=np.int64)
    score = np.zeros(plies + 1, dtype=np.int64)
    todo = np.zeros(plies + 1, dtype=np.int64)
    best = np.zeros(plies + 1, dtype=np.int64)
    alpha = np.zeros(plies + 1, dtype=np.int64)
    beta = np.zeros(plies + 1, dtype=np.int64)
    k = 0
    lead_at[0] = leader
    alpha[0] = -INF
    beta[0] = INF
    while True:
        # set up ply k: legal cards of the mover
        pos = (base + k) % 4
        start = base + k - pos
        seat = (lead_at[k] + pos) & 3
        if pos == 0:
            todo[k] = hands[seat]
        else:
            led = seq[start] >> 3
            wc = seq[start]
            wpos = 0
            for j in range(1, pos):
                if beats(seq[start + j], wc, led, strain):
                    wc = seq[start + j]
                    wpos = j
            todo[k] = legal_mask(hands[seat], led, pos, wc, wpos, strain, rules)
        best[k] = -INF if (seat & 1) == max_team else INF
        # iterate children of ply k (and unwind) until a new ply is entered
        while True:
            pos = (base + k) % 4
            start = base + k - pos
            seat = (lead_at[k] + pos) & 3
            done = todo[k] == 0 or (prune and alpha[k] >= beta[k])
            if done:
                v = best[k]
                if k == 0:
                    return v
                k -= 1
                pos = (base + k) % 4
                seat = (lead_at[k] + pos) & 3
                hands[seat] |= 1 << seq[base + k]
                if (seat & 1) == max_team:
                    if v > best[k]:
                        best[k] = v
                    if v > alpha[k]:
                        alpha[k] = v
                else:
                    if v < best[k]:
                        best[k] = v
                    if v < beta[k]:
                        beta[k] = v
                continue
            card = lowest_card(todo[k])
            todo[k] &= todo[k] - 1
            hands[seat] &= ~(1 << card)
            seq[base + k] = card
            sc = score[k]
            nl = lead_at[k]
            if pos == 3:
                led = seq[start] >> 3
                wc = seq[start]
                wpos = 0
                pts = CARD_POINTS[strain, seq[start]]
                for j in range(1, 4):
                    cj = seq[start + j]
                    pts += CARD_POINTS[strain, cj]
                    if beats(cj, wc, led, strain):
                        wc = cj
                        wpos = j
                nl = (lead_at[k] + wpos) & 3
                if k + 1 == plies:
                    pts += LAST_TRICK_BONUS
                if (nl & 1) == max_team:
                    sc += pts
            if k + 1 == plies:
                # leaf: undo and report to ply k
                hands[seat] |= 1 << card
                if (seat & 1) == max_team:
                    if sc > best[k]:
                        best[k] = sc
                    if sc > alpha[k]:
                        alpha[k] = sc
                else:
                    if sc < best[k]:
                        best[k] = sc
                    if sc < beta[k]:
                        beta[k] = sc
                continue
            k += 1
            lead_at[k] = nl
            score[k] = sc
            alpha[k] = alpha[k - 1]
            beta[k] = beta[k - 1]
            break


@numba.njit(nogil=True)
def simple_batch(hands, leaders, tricks, n_tricks, strains, max_teams, rules, prune, out):
    """``simple_search`` over arrays of positions."""
    h = np.zeros(4, dtype=np.int64)
    for i in range(hands.shape[0]):
        for s in range(4):
            h[s] = hands[i, s]
        out[i] = simple_search(
            h,
            leaders[i],
            tricks[i],
            n_tricks[i],
            strains[i],
            max_teams[i],
            rules,
            prune,
        )
