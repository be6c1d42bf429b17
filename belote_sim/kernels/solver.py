"""Exact double-dummy solver: card points of a Belote deal under perfect play.

The value of a position is the number of card points (last-trick 10 included) that
the *maximising* team (the taker's team) wins from here on -- the cards of the
trick in progress included -- when all four hands are visible and both teams play
perfectly under the play rules of RULES.md section 5 (``raise_over_partner`` and
``undertrump`` are kernel arguments).  Declarations and belote are fixed by the
deal and do not depend on the play, so they are not part of the search (the one
exception, ``belote_on_discard`` off, where a K/Q of a belote played as a discard
forfeits it, is ignored: the solver optimises card points only).

Algorithm
---------
* **Bitboards.**  A hand is a 32-bit mask (``card = 8 * suit + rank``); legal cards
  come from ``core.legal_mask``, the trick winner from ``core.beats``.
* **Alpha-beta, fail-soft, iterative.**  The search is one loop over an explicit
  stack of frames (``ws[field, ply]`` and ``moves[ply, :]``): numba's on-disk cache
  does not reload recursive functions safely.  Values are absolute (points banked
  for the maximising team since the root plus the points still to come), so the
  window ``(alpha, beta)`` is passed down unchanged; a seat of the maximising team
  raises ``alpha``, the other team lowers ``beta``.
* **Driver.**  ``solve_position`` runs MTD(f)-style null-window tests (``value >=
  g?``) in a bisection of the interval of possible values, starting at a guess,
  each test reusing the transposition table of the previous ones; per-card
  scores and the best card use a principal-variation (scout) root.
* **Transposition table.**  An ``(N, 3)`` int64 array, one entry per slot
  (always-replace), keyed on the position at trick boundaries: the four hands
  (two words ``h0 | h1 << 32`` and ``h2 | h3 << 32``, checked in full, so there are
  no false hits) plus the leader, strain, maximising team and both play options
  (``meta``, low 10 bits of the data word).  The value from a trick boundary on
  depends only on these, so entries stay valid across searches and deals and the
  table never needs clearing.  The data word holds a lower and an upper bound on
  the points still to come and the best card found (for move ordering); bounds
  from different searches of the same position are intersected.
* **Move ordering.**  At a trick boundary the table's best card first.  Then, by
  position in the trick: the leader cashes master cards (highest remaining of their
  suit) with the most points first, otherwise leads low; a follower who can take the
  trick plays the winning card (the last player: the one with most points) and,
  when partner wins, throws points; a player who cannot win plays his cheapest card.
* **Equivalent cards.**  Two cards of one suit in one hand are interchangeable when
  no other card still in play (other hands and the trick in progress) lies between
  them in that suit's order *and* their points are equal.  Card points of Belote
  differ for almost every rank, so this merges exactly the zero-point ranks at the
  bottom of a suit: 7 8 9 of a plain suit (they are also the lowest three of the
  plain order) and 7 8 of a trump suit (lowest two of the trump order).  Only one
  card of each such group is searched.
* **Cheap bounds.**  Every node knows the points already banked for the maximising
  team (``acc``) and the points still unbanked (``rem``: cards in hands and in the
  trick, plus the last-trick 10): a node whose ``[acc, acc + rem]`` lies outside
  the window is cut at once.  The last trick (one card per hand) is played out
  without search.
"""

import numpy as np

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.core import beats, legal_mask, lowest_card, popcount, trick_state
from belote_sim.kernels.rng import next_random, random_below, seed_state
from belote_sim.kernels.tables import (
    CARD_POINTS,
    HIGHER_TRUMP_BYTE,
    PLAIN_STRENGTH,
    STRAIN_AT,
    STRAIN_NT,
    WIN_KEY,
)

LAST_TRICK_BONUS = 10
#: Stack depth: 32 cards + 1.
MAX_PLY = 34
#: Default transposition-table size (log2 of the number of entries).
TT_BITS = 20
INF = 1 << 20


def _higher_plain_bytes():
    out = np.zeros(8, dtype=np.int64)
    for r in range(8):
        for q in range(8):
            if PLAIN_STRENGTH[q] > PLAIN_STRENGTH[r]:
                out[r] |= 1 << q
    return out


#: HIGHER_PLAIN_BYTE[r]: ranks (as a suit byte) that beat rank r in plain order.
HIGHER_PLAIN_BYTE = _higher_plain_bytes()

# Frame fields of the search stack ws[field, ply].
F_LEAD, F_N, F_LED, F_WC, F_WP, F_TP, F_TM, F_ACC, F_REM, F_A, F_B, F_BEST, F_BC, F_I, \
    F_CNT, F_CARD, F_SLOT, F_A0, F_B0 = range(19)
NUM_FIELDS = 19

HASH_M0 = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64
HASH_M1 = -4417276706812531889  # 0xC2B2AE3D27D4EB4F as int64


def new_tt(bits=TT_BITS):
    """An empty transposition table with ``2**bits`` entries (plain numpy)."""
    return np.zeros((1 << bits, 3), dtype=np.int64)


def new_workspace():
    """Search stack buffers ``(ws, moves)`` (plain numpy)."""
    return np.zeros((NUM_FIELDS, MAX_PLY), dtype=np.int64), np.zeros((MAX_PLY, 8),
                                                                      dtype=np.int64)


@kernel
def _is_trump_suit(suit, strain):
    return strain == STRAIN_AT or suit == strain


@kernel
def _higher_byte(rank, trump_suit):
    if trump_suit:
        return HIGHER_TRUMP_BYTE[rank]
    return HIGHER_PLAIN_BYTE[rank]


@kernel
def _reduce_equivalent(legal, others, strain):
    """Drop all but one card of each group of equivalent zero-point cards."""
    out = legal
    for suit in range(4):
        zero = 0x3 if _is_trump_suit(suit, strain) else 0x7
        shift = 8 * suit
        mine = (legal >> shift) & zero
        if mine & (mine - 1) == 0:
            continue
        oth = (others >> shift) & zero
        prev = -1
        for r in range(3):
            if (mine >> r) & 1:
                if prev >= 0:
                    between = ((1 << r) - 1) & ~((1 << (prev + 1)) - 1)
                    if oth & between == 0:
                        out &= ~(1 << (shift + r))
                prev = r
    return out


@kernel
def _order_moves(cand, hands, seat, n, led, wc, wp, tm, strain, ttbest, row):
    """Write the cards of ``cand`` into ``row`` best first; returns their number."""
    others = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hands[seat]
    scores = np.empty(8, dtype=np.int64)
    cnt = 0
    m = cand
    while m:
        c = lowest_card(m)
        m &= m - 1
        pts = CARD_POINTS[strain, c]
        suit = c >> 3
        if c == ttbest:
            sc = 1 << 20
        elif n == 0:
            trump_suit = _is_trump_suit(suit, strain)
            higher = (_higher_byte(c & 7, trump_suit) << (8 * suit)) & others
            if higher == 0:
                sc = 2000 + pts  # master: cash it
                if trump_suit and strain != STRAIN_AT:
                    sc += 50
            else:
                sc = 1000 - pts - 4 * WIN_KEY[strain, c]
        else:
            wins = beats(c, wc, led, strain)
            partner = n >= 2 and wp == n - 2
            if n == 3:
                if wins or partner:
                    sc = 2000 + pts - (WIN_KEY[strain, c] if wins and partner else 0)
                else:
                    sc = 1000 - pts - WIN_KEY[strain, c]
            elif partner:
                sc = 1500 + pts - (8 * WIN_KEY[strain, c] if wins else 0)
            elif wins:
                sc = 1800 + WIN_KEY[strain, c] + pts
            else:
                sc = 1000 - 2 * pts - WIN_KEY[strain, c]
        # insertion
        j = cnt
        while j > 0 and scores[j - 1] < sc:
            scores[j] = scores[j - 1]
            row[j] = row[j - 1]
            j -= 1
        scores[j] = sc
        row[j] = c
        cnt += 1
    return cnt


@kernel
def _meta(leader, strain, max_team, raise_op, undertrump):
    return (1 << 9) | leader | (strain << 2) | (max_team << 5) | (raise_op << 6) | \
        (undertrump << 7)


@kernel
def _search(hands, leader, trick, n_trick, strain, max_team, raise_op, undertrump,
            alpha0, beta0, tt, ws, moves):
    """Fail-soft alpha-beta from a position; returns ``(value, best_card)``.

    ``hands`` (4,) masks of the cards still held (modified during the search and
    restored), ``leader`` the seat that led the trick in progress, ``trick`` its
    first ``n_trick`` cards.  ``value`` is the points (last-trick 10 included) of
    the remaining tricks -- trick in progress included -- won by ``max_team``,
    exact if inside ``(alpha0, beta0)``, else a bound on the failing side.
    ``best_card`` is the root's best card (-1 if the root was cut without search).
    """
    tt_mask = tt.shape[0] - 1
    led, wc, wp = trick_state(trick, n_trick, strain)
    tp = 0
    tm = 0
    for i in range(n_trick):
        tp += CARD_POINTS[strain, trick[i]]
        tm |= 1 << trick[i]
    rem = tp + LAST_TRICK_BONUS
    for s in range(4):
        m = hands[s]
        while m:
            c = lowest_card(m)
            m &= m - 1
            rem += CARD_POINTS[strain, c]
    if n_trick == 0 and hands[0] | hands[1] | hands[2] | hands[3] == 0:
        return 0, -1
    sp = 0
    ws[F_LEAD, 0] = leader
    ws[F_N, 0] = n_trick
    ws[F_LED, 0] = led
    ws[F_WC, 0] = wc
    ws[F_WP, 0] = wp
    ws[F_TP, 0] = tp
    ws[F_TM, 0] = tm
    ws[F_ACC, 0] = 0
    ws[F_REM, 0] = rem
    ws[F_A, 0] = alpha0
    ws[F_B, 0] = beta0
    entering = True
    ret = 0
    while True:
        if entering:
            n = ws[F_N, sp]
            lead = ws[F_LEAD, sp]
            seat = (lead + n) & 3
            acc = ws[F_ACC, sp]
            a = ws[F_A, sp]
            b = ws[F_B, sp]
            cut = False
            if acc >= b:
                ret = acc
                cut = True
            elif acc + ws[F_REM, sp] <= a:
                ret = acc + ws[F_REM, sp]
                cut = True
            ttbest = -1
            ws[F_SLOT, sp] = -1
            if not cut and n == 0:
                h = hands[seat]
                if h & (h - 1) == 0:
                    # Last trick: every hand holds one card, play is forced.
                    c = h
                    lc = lowest_card(c)
                    wcard = lc
                    wpos = 0
                    pts = CARD_POINTS[strain, lc] + LAST_TRICK_BONUS
                    for pos in range(1, 4):
                        cc = lowest_card(hands[(lead + pos) & 3])
                        pts += CARD_POINTS[strain, cc]
                        if beats(cc, wcard, lc >> 3, strain):
                            wcard = cc
                            wpos = pos
                    ret = acc + (pts if ((lead + wpos) & 1) == max_team else 0)
                    cut = True
                else:
                    k0 = hands[0] | (hands[1] << 32)
                    k1 = hands[2] | (hands[3] << 32)
                    meta = _meta(lead, strain, max_team, raise_op, undertrump)
                    hh = k0 * HASH_M0 ^ k1 * HASH_M1 ^ meta
                    slot = (hh ^ (hh >> 31)) & tt_mask
                    ws[F_SLOT, sp] = slot
                    if tt[slot, 0] == k0 and tt[slot, 1] == k1 and (tt[slot, 2] & 0x3FF) == meta:
                        d = tt[slot, 2]
                        lo = ((d >> 16) & 0xFFFF) + acc
                        hi = ((d >> 32) & 0xFFFF) + acc
                        ttbest = ((d >> 48) & 0xFF) - 1
                        if lo >= b:
                            ret = lo
                            cut = True
                        elif hi <= a:
                            ret = hi
                            cut = True
                        elif lo == hi:
                            ret = lo
                            cut = True
                        else:
                            if lo > a:
                                a = lo
                                ws[F_A, sp] = a
                            if hi < b:
                                b = hi
                                ws[F_B, sp] = b
            if cut:
                if sp == 0:
                    return ret, -1
                sp -= 1
                entering = False
                continue
            legal = legal_mask(hands[seat], ws[F_LED, sp], n, ws[F_WC, sp], ws[F_WP, sp],
                               strain, raise_op, undertrump)
            others = ((hands[0] | hands[1] | hands[2] | hands[3]) & ~hands[seat]) | ws[F_TM, sp]
            cand = _reduce_equivalent(legal, others, strain)
            ws[F_CNT, sp] = _order_moves(cand, hands, seat, n, ws[F_LED, sp], ws[F_WC, sp],
                                         ws[F_WP, sp], ws[F_TM, sp], strain, ttbest,
                                         moves[sp])
            ws[F_I, sp] = 0
            ws[F_A0, sp] = a
            ws[F_B0, sp] = b
            ws[F_BEST, sp] = -INF if (seat & 1) == max_team else INF
            ws[F_BC, sp] = -1
        else:
            n = ws[F_N, sp]
            seat = (ws[F_LEAD, sp] + n) & 3
            card = ws[F_CARD, sp]
            hands[seat] |= 1 << card
            if (seat & 1) == max_team:
                if ret > ws[F_BEST, sp]:
                    ws[F_BEST, sp] = ret
                    ws[F_BC, sp] = card
                    if ret > ws[F_A, sp]:
                        ws[F_A, sp] = ret
            else:
                if ret < ws[F_BEST, sp]:
                    ws[F_BEST, sp] = ret
                    ws[F_BC, sp] = card
                    if ret < ws[F_B, sp]:
                        ws[F_B, sp] = ret
        # Next move, or the frame is done.
        if ws[F_A, sp] < ws[F_B, sp] and ws[F_I, sp] < ws[F_CNT, sp]:
            n = ws[F_N, sp]
            lead = ws[F_LEAD, sp]
            seat = (lead + n) & 3
            card = moves[sp, ws[F_I, sp]]
            ws[F_I, sp] += 1
            ws[F_CARD, sp] = card
            hands[seat] &= ~(1 << card)
            tp = ws[F_TP, sp] + CARD_POINTS[strain, card]
            if n == 0:
                led = card >> 3
                wc = card
                wp = 0
            else:
                led = ws[F_LED, sp]
                wc = ws[F_WC, sp]
                wp = ws[F_WP, sp]
                if beats(card, wc, led, strain):
                    wc = card
                    wp = n
            c1 = sp + 1
            ws[F_A, c1] = ws[F_A, sp]
            ws[F_B, c1] = ws[F_B, sp]
            if n == 3:
                winner = (lead + wp) & 3
                if hands[winner] == 0:
                    tp += LAST_TRICK_BONUS
                acc = ws[F_ACC, sp] + (tp if (winner & 1) == max_team else 0)
                if hands[winner] == 0:
                    ret = acc
                    entering = False
                    continue
                ws[F_LEAD, c1] = winner
                ws[F_N, c1] = 0
                ws[F_LED, c1] = -1
                ws[F_WC, c1] = -1
                ws[F_WP, c1] = -1
                ws[F_TP, c1] = 0
                ws[F_TM, c1] = 0
                ws[F_ACC, c1] = acc
                ws[F_REM, c1] = ws[F_REM, sp] - tp
            else:
                ws[F_LEAD, c1] = lead
                ws[F_N, c1] = n + 1
                ws[F_LED, c1] = led
                ws[F_WC, c1] = wc
                ws[F_WP, c1] = wp
                ws[F_TP, c1] = tp
                ws[F_TM, c1] = ws[F_TM, sp] | (1 << card)
                ws[F_ACC, c1] = ws[F_ACC, sp]
                ws[F_REM, c1] = ws[F_REM, sp]
            sp = c1
            entering = True
            continue
        best = ws[F_BEST, sp]
        slot = ws[F_SLOT, sp]
        if slot >= 0:
            acc = ws[F_ACC, sp]
            rel = best - acc
            lo = 0
            hi = ws[F_REM, sp]
            a = ws[F_A0, sp]
            b = ws[F_B0, sp]
            # best <= a: fail low (upper bound); best >= b: fail high (lower bound).
            if best <= a:
                hi = rel
            elif best >= b:
                lo = rel
            else:
                lo = rel
                hi = rel
            k0 = hands[0] | (hands[1] << 32)
            k1 = hands[2] | (hands[3] << 32)
            meta = _meta(ws[F_LEAD, sp], strain, max_team, raise_op, undertrump)
            if tt[slot, 0] == k0 and tt[slot, 1] == k1 and (tt[slot, 2] & 0x3FF) == meta:
                d = tt[slot, 2]
                olo = (d >> 16) & 0xFFFF
                ohi = (d >> 32) & 0xFFFF
                if olo > lo:
                    lo = olo
                if ohi < hi:
                    hi = ohi
            tt[slot, 0] = k0
            tt[slot, 1] = k1
            tt[slot, 2] = meta | (lo << 16) | (hi << 32) | ((ws[F_BC, sp] + 1) << 48)
        if sp == 0:
            return best, ws[F_BC, 0]
        ret = best
        sp -= 1
        entering = False


@kernel
def remaining_points(hands, trick, n_trick, strain):
    """Points still to be won: cards in hands and in the trick, plus the last-trick 10."""
    total = LAST_TRICK_BONUS
    for i in range(n_trick):
        total += CARD_POINTS[strain, trick[i]]
    for s in range(4):
        m = hands[s]
        while m:
            c = lowest_card(m)
            m &= m - 1
            total += CARD_POINTS[strain, c]
    return total


@kernel
def solve_position(hands, leader, trick, n_trick, strain, max_team, raise_op, undertrump,
                   tt, ws, moves, mode, guess):
    """Exact value of a position (points ``max_team`` wins from here on).

    ``mode`` 0: one full-window alpha-beta; 1: MTD(f) null-window tests from
    ``guess`` (-1: half the points still to play); 2: bisection of the value
    interval with null-window tests.  All modes return the same exact value.
    """
    if n_trick == 0 and hands[0] | hands[1] | hands[2] | hands[3] == 0:
        return 0
    total = remaining_points(hands, trick, n_trick, strain)
    if mode == 0:
        v, _ = _search(hands, leader, trick, n_trick, strain, max_team, raise_op,
                       undertrump, -1, total + 1, tt, ws, moves)
        return v
    lower = 0
    upper = total
    g = guess if guess >= 0 else total // 2
    while lower < upper:
        if mode == 1:
            beta = g if g > lower else lower + 1
            if beta > upper:
                beta = upper
        else:
            beta = (lower + upper + 1) // 2
        v, _ = _search(hands, leader, trick, n_trick, strain, max_team, raise_op,
                       undertrump, beta - 1, beta, tt, ws, moves)
        if v >= beta:
            lower = v
        else:
            upper = v
        g = v
    return lower


@kernel
def _play_child(hands, leader, trick, n_trick, card, strain, child_trick):
    """Play ``card`` for the player to move: removes it from his hand.

    Returns ``(child_leader, child_n, banked_points, banked_team)``; ``child_trick``
    receives the child's trick.  When the card completes the trick, the child starts
    a new trick led by the winner, who banks ``banked_points`` (the last-trick 10
    included when the hands are then empty).
    """
    seat = (leader + n_trick) & 3
    hands[seat] &= ~(1 << card)
    for i in range(n_trick):
        child_trick[i] = trick[i]
    child_trick[n_trick] = card
    if n_trick < 3:
        return leader, n_trick + 1, 0, -1
    _, _, wp = trick_state(child_trick, 4, strain)
    winner = (leader + wp) & 3
    pts = 0
    for i in range(4):
        pts += CARD_POINTS[strain, child_trick[i]]
    if hands[winner] == 0:
        pts += LAST_TRICK_BONUS
    return winner, 0, pts, winner & 1


@kernel
def legal_of_position(hands, leader, trick, n_trick, strain, raise_op, undertrump):
    """Legal cards of the player to move."""
    led, wc, wp = trick_state(trick, n_trick, strain)
    return legal_mask(hands[(leader + n_trick) & 3], led, n_trick, wc, wp, strain, raise_op,
                      undertrump)


@kernel
def dd_card_values(hands, leader, trick, n_trick, strain, max_team, raise_op, undertrump,
                   tt, ws, moves, out):
    """Exact value (points of ``max_team`` from here, the current trick included) after
    each legal card of the player to move: ``out[card]``, -1 for other cards."""
    legal = legal_of_position(hands, leader, trick, n_trick, strain, raise_op, undertrump)
    seat = (leader + n_trick) & 3
    child_trick = np.zeros(4, dtype=np.int64)
    for c in range(32):
        out[c] = -1
    guess = -1
    m = legal
    while m:
        card = lowest_card(m)
        m &= m - 1
        cl, cn, pts, team = _play_child(hands, leader, trick, n_trick, card, strain,
                                        child_trick)
        v = solve_position(hands, cl, child_trick, cn, strain, max_team, raise_op,
                           undertrump, tt, ws, moves, 1, guess)
        guess = v
        out[card] = v + (pts if team == max_team else 0)
        hands[seat] |= 1 << card
    return legal


@kernel
def dd_best_card(hands, leader, trick, n_trick, strain, raise_op, undertrump, tt, ws,
                 moves):
    """Best card of the player to move with all hands visible, and its value.

    Searches for the mover's own team (the value is the points his team wins from
    here on, current trick included).  The first card (by move ordering) is solved
    exactly, every other one by a null-window test "better than the best so far?"
    and solved exactly only when it is.  Ties go to the earlier card in the order.
    Returns ``(card, value)``.
    """
    seat = (leader + n_trick) & 3
    me = seat & 1
    legal = legal_of_position(hands, leader, trick, n_trick, strain, raise_op, undertrump)
    led, wc, wp = trick_state(trick, n_trick, strain)
    tm = 0
    for i in range(n_trick):
        tm |= 1 << trick[i]
    others = ((hands[0] | hands[1] | hands[2] | hands[3]) & ~hands[seat]) | tm
    cand = _reduce_equivalent(legal, others, strain)
    row = np.zeros(8, dtype=np.int64)
    cnt = _order_moves(cand, hands, seat, n_trick, led, wc, wp, tm, strain, -1, row)
    child_trick = np.zeros(4, dtype=np.int64)
    best_card = -1
    best_v = -1
    for i in range(cnt):
        card = row[i]
        cl, cn, pts, team = _play_child(hands, leader, trick, n_trick, card, strain,
                                        child_trick)
        bank = pts if team == me else 0
        if best_card < 0:
            v = solve_position(hands, cl, child_trick, cn, strain, me, raise_op, undertrump,
                               tt, ws, moves, 1, -1) + bank
            best_card = card
            best_v = v
        else:
            target = best_v - bank  # is child value > target ?
            if target < 0:  # the points banked alone beat the best so far
                v = solve_position(hands, cl, child_trick, cn, strain, me, raise_op,
                                   undertrump, tt, ws, moves, 1, -1) + bank
                if v > best_v:
                    best_v = v
                    best_card = card
            else:
                t, _ = _search(hands, cl, child_trick, cn, strain, me, raise_op, undertrump,
                               target, target + 1, tt, ws, moves)
                if t > target:
                    v = solve_position(hands, cl, child_trick, cn, strain, me, raise_op,
                                       undertrump, tt, ws, moves, 1, t) + bank
                    if v > best_v:
                        best_v = v
                        best_card = card
        hands[seat] |= 1 << card
    return best_card, best_v


@kernel
def solve_batch(hands, leaders, tricks, n_tricks, strains, max_teams, raise_op, undertrump,
                tt, mode, out):
    """``solve_position`` over arrays of positions (tests and benchmarks)."""
    ws = np.zeros((NUM_FIELDS, MAX_PLY), dtype=np.int64)
    moves = np.zeros((MAX_PLY, 8), dtype=np.int64)
    h = np.zeros(4, dtype=np.int64)
    for i in range(hands.shape[0]):
        for s in range(4):
            h[s] = hands[i, s]
        out[i] = solve_position(h, leaders[i], tricks[i], n_tricks[i], strains[i],
                                max_teams[i], raise_op, undertrump, tt, ws, moves, mode, -1)


# --- a deliberately simple reference search (tests) -----------------------------------

@kernel
def simple_search(hands, leader, trick, n_trick, strain, max_team, raise_op, undertrump,
                  prune):
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
            todo[k] = legal_mask(hands[seat], led, pos, wc, wpos, strain, raise_op,
                                 undertrump)
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


@kernel
def simple_batch(hands, leaders, tricks, n_tricks, strains, max_teams, raise_op, undertrump,
                 prune, out):
    """``simple_search`` over arrays of positions."""
    h = np.zeros(4, dtype=np.int64)
    for i in range(hands.shape[0]):
        for s in range(4):
            h[s] = hands[i, s]
        out[i] = simple_search(h, leaders[i], tricks[i], n_tricks[i], strains[i],
                               max_teams[i], raise_op, undertrump, prune)


@kernel
def random_positions(seed, n, min_played, max_played, strain, raise_op, undertrump,
                     out_hands, out_leader, out_trick, out_n, out_strain):
    """Positions reached by random legal play from uniform deals (tests, benchmarks).

    Position i: a uniform deal, strain ``strain`` (or uniform 0..5 if -1), a uniform
    first leader, then uniformly random legal cards until between ``min_played`` and
    ``max_played`` cards (uniform) are played.  Writes the hands still held, the
    leader and cards of the trick in progress and the strain.
    """
    state = seed_state(seed)
    cards = np.arange(32)
    hands = np.zeros(4, dtype=np.int64)
    trick = np.zeros(4, dtype=np.int64)
    for i in range(n):
        for j in range(31, 0, -1):
            r = random_below(state, j + 1)
            t = cards[j]
            cards[j] = cards[r]
            cards[r] = t
        for s in range(4):
            mask = 0
            for k in range(8):
                mask |= 1 << cards[8 * s + k]
            hands[s] = mask
        st = strain if strain >= 0 else random_below(state, 6)
        leader = random_below(state, 4)
        target = min_played + random_below(state, max_played - min_played + 1)
        n_trick = 0
        led = -1
        wc = -1
        wp = -1
        for p in range(target):
            seat = (leader + n_trick) & 3
            legal = legal_mask(hands[seat], led, n_trick, wc, wp, st, raise_op, undertrump)
            card = lowest_card(legal)
            k = random_below(state, popcount(legal))
            mm = legal
            for _ in range(k):
                mm &= mm - 1
            card = lowest_card(mm)
            hands[seat] &= ~(1 << card)
            trick[n_trick] = card
            if n_trick == 0:
                led = card >> 3
                wc = card
                wp = 0
            elif beats(card, wc, led, st):
                wc = card
                wp = n_trick
            n_trick += 1
            if n_trick == 4:
                leader = (leader + wp) & 3
                n_trick = 0
                led = -1
                wc = -1
                wp = -1
        for s in range(4):
            out_hands[i, s] = hands[s]
        out_leader[i] = leader
        for k in range(4):
            out_trick[i, k] = trick[k] if k < n_trick else 0
        out_n[i] = n_trick
        out_strain[i] = st
