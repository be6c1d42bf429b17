"""The ``expert`` policy's learned card scores: features of a card, a small model.

Each legal card of a decision is described by ``N_FEATURES`` numbers worked out from
the player's observation only (``expert.observe``: his hand, the cards played, what
the play showed about the other hands, the announced cards): what the card is
(trump, points, master, rank among the cards still out), what it does to the trick
(wins it, wins it for sure, feeds a partner sure to win, gives points away), what it
does to the hand (bares a ten, empties a suit, draws trumps) and, for a lead, what
the others can do in its suit (ruff, over-ruff, partner's ruff).

The decision falls in one of ``N_CLASSES`` situations (``situation``: place in the
trick and who is winning it, taker's side or defence, suit / no-trump / all-trump
contract, stage of the deal), each with its own weight row.  A card's score
(``model_card``) is the row's linear score of its features plus a small hidden
layer's: ``N_HIDDEN`` rectified units, each a weighted sum of the features and a
per-row term, weighted into the score.  The card with the highest score is played.

The weights (``expert_weights``) are fitted to double-dummy card values: for every
decision of many simulated deals, every legal card is solved exactly on the real deal
(all hands visible) and the model learns the card's value relative to the mean of the
legal cards from the features (a ridge regression for the linear part, then both
parts together by gradient descent).  Since the real deal is one draw from the deals
consistent with the observation, this estimates what PIMC estimates with many
samples, at the cost of a few hundred multiplications per card.  They are rebuilt by
``analyses/train_expert.py`` (fixed seed).
"""

import numpy as np

from belote_sim.kernels._jit import exact_float_kernel, kernel, lean_kernel
from belote_sim.kernels.bits import lowest_card, popcount
from belote_sim.kernels.core import beats
from belote_sim.kernels.expert import (
    EXPERT_MODEL,
    endgame_card,
    higher_mask,
    in_endgame,
    may_be_void,
    may_beat,
    observe,
    observe_turn,
    suit_mask,
)
from belote_sim.kernels.expert_weights import (
    HIDDEN_IN,
    HIDDEN_OUT,
    HIDDEN_ROW,
    NET_WEIGHTS,
    PLY_STAGE,
    WEIGHTS,
)
from belote_sim.kernels.greedy import trump_mask
from belote_sim.kernels.suit_net import SUIT_NET_INDEXES, SUIT_NET_SCRATCH, suit_net_card
from belote_sim.kernels.tables import CARD_POINTS, STRAIN_AT, STRAIN_NT, WIN_KEY

N_FEATURES = WEIGHTS.shape[1]
N_HIDDEN = HIDDEN_OUT.shape[0]
#: room for a sparse feature list padded to a multiple of 4 (``pad_rows``)
MODEL_VALUES = N_FEATURES + 4
#: the model's float32 scratch (``model_card``): the hidden units of a suit, the values
#: of a sparse feature list, the hidden units of a card (or the suit network's layers,
#: ``suit_net.SUIT_NET_SCRATCH``, the longer) ...
MODEL_SCRATCH = max(N_HIDDEN + MODEL_VALUES + N_HIDDEN, SUIT_NET_SCRATCH)
#: ... and its int64 scratch: the list's feature indexes (or the suit network's facts)
MODEL_INDEXES = max(MODEL_VALUES, SUIT_NET_INDEXES)
#: the hidden layer in float32 (half the bytes a pass: twice the units per vector),
#: with a row of zeros at ``N_FEATURES`` for the padding of the sparse lists
HIDDEN_IN32 = np.vstack((HIDDEN_IN, np.zeros((1, HIDDEN_IN.shape[1])))).astype(np.float32)
HIDDEN_ROW32 = HIDDEN_ROW.astype(np.float32)
#: the network's linear weights with a 0 at ``N_FEATURES`` (the padding)
NET_WEIGHTS_PAD = np.hstack((NET_WEIGHTS, np.zeros((NET_WEIGHTS.shape[0], 1))))
HIDDEN_OUT32 = HIDDEN_OUT.astype(np.float32)
#: trick situations (6) x taker's side (2) x strain kind (3)
N_SITUATIONS = 36
N_STAGES = WEIGHTS.shape[0] // N_SITUATIONS
RANK_T = 3
RANK_A = 7
THIN = 0  # an opponent may be void only when shown void (``may_be_void``)


@kernel(inline="always")
def situation(n_trick, partner_winning, taker_side, strain):
    """The decision's situation (``N_SITUATIONS``): place in the trick (lead, second,
    third or fourth with partner winning or not), side, strain kind (suit, NT, AT)."""
    if n_trick <= 1:
        place = n_trick
    else:
        place = 2 * n_trick - 2 + (1 if partner_winning else 0)
    kind = 0 if strain < STRAIN_NT else (1 if strain == STRAIN_NT else 2)
    return (place * 2 + (1 if taker_side else 0)) * 3 + kind


@kernel(inline="always")
def weight_row(n_trick, partner_winning, taker_side, strain, n_played):
    """Row of ``WEIGHTS`` for a decision: its situation and the stage of the deal
    (``PLY_STAGE[n_played]``, one of ``N_STAGES``)."""
    return situation(n_trick, partner_winning, taker_side, strain) * N_STAGES + PLY_STAGE[n_played]


@lean_kernel(inline="always")
def decision_terms(legal, poss, n_trick, led, wc, wp, seat, strain, others):
    """What ``card_features`` needs that is the same for every card of a decision:
    ``(pw_safe, cheapest_win)``, whether the partner is winning the trick for sure and
    the fewest card points of a legal card that beats the winning card (99: none)."""
    trumps = trump_mask(strain)
    lho = (seat + 1) & 3
    partner_winning = n_trick >= 2 and wp == n_trick - 2
    pw_safe = partner_winning and (
        n_trick == 3 or not may_beat(poss[lho], others, wc, led, trumps, strain, THIN)
    )
    cheapest_win = 99
    if n_trick > 0:
        m = legal
        while m:
            c = lowest_card(m)
            m &= m - 1
            if CARD_POINTS[strain, c] < cheapest_win and beats(c, wc, led, strain):
                cheapest_win = CARD_POINTS[strain, c]
    return pw_safe, cheapest_win


@kernel(inline="always")
def put(index, values, n, k, v):
    """Append feature ``k`` of value ``v`` to the sparse list ``index[:n]``,
    ``values[:n]``; returns the new length (``n`` when ``v`` is 0: the slot is
    overwritten by the next one, without a branch)."""
    # an unsigned position: numba then skips its negative-index wraparound (a shift,
    # a mask and an add on every store; the features make ~40 stores a card)
    i = np.uint64(n)
    index[i] = k
    values[i] = v
    return n + (1 if v != 0.0 else 0)


@lean_kernel(inline="always")
def suit_features(suit, hand, poss, n_trick, led, seat, taker, strain, others, index, values, n):
    """The features of a card that depend on its suit only (the same for every card of
    the suit in a decision), appended to the sparse list ``index``/``values`` after its
    first ``n`` entries (``put``); returns ``(n, masters_run, opp_ruff)``: the new
    length, and the suit's masters in hand and whether an opponent may ruff it, which
    ``card_only_features`` reads.  The arguments are ``card_features``'."""
    trumps = trump_mask(strain)
    partner = seat ^ 2
    lho = (seat + 1) & 3
    rho = (seat + 3) & 3
    opp_poss = poss[lho] | poss[rho]
    sm = suit_mask(suit)
    is_trump = 1.0 if (trumps >> (8 * suit)) & 1 else 0.0
    mine = hand & sm
    n_mine = popcount(mine)
    n_out = popcount(others & sm)
    leading = n_trick == 0
    my_trumps = popcount(hand & trumps)
    opp_trumps = (opp_poss & trumps) != 0
    opp_ruff = 0.0
    partner_ruff = 0.0
    if trumps and suit != strain:
        if (poss[lho] & trumps and may_be_void(poss[lho], others, suit, THIN)) or (
            poss[rho] & trumps and may_be_void(poss[rho], others, suit, THIN)
        ):
            opp_ruff = 1.0
        if poss[partner] & trumps and poss[partner] & sm == 0:
            if not (poss[rho] & sm == 0 and poss[rho] & trumps):
                partner_ruff = 1.0
    n = put(index, values, n, 0, is_trump)
    n = put(index, values, n, 4, n_mine / 8.0)
    n = put(index, values, n, 5, n_out / 8.0)
    n = put(index, values, n, 20, 1.0 if n_mine == 1 and my_trumps > 0 and is_trump == 0.0 else 0.0)
    # counts as one-hot: my cards of the suit, the suit's cards still out
    n = put(index, values, n, 68 + min(max(n_mine, 1), 4) - 1, 1.0)
    n = put(index, values, n, 72 + min(n_out, 3), 1.0)
    if is_trump > 0:
        opp_out = popcount(others & trumps & opp_poss)
        n = put(index, values, n, 17, 1.0 if opp_trumps else 0.0)
        n = put(index, values, n, 18, my_trumps / 8.0)
        n = put(index, values, n, 21, 1.0 if not leading and led != strain else 0.0)
        n = put(index, values, n, 36, opp_out / 8.0)
        # the trumps the opponents may hold, as one-hot
        n = put(index, values, n, 64 + min(opp_out, 3), 1.0)
        n = put(index, values, n, 79, 1.0 if my_trumps == 1 else 0.0)
    masters_run = 0
    if leading:
        m = mine
        while m:
            c = lowest_card(m)
            m &= m - 1
            if higher_mask(c, strain) & others & ~mine == 0:
                masters_run += 1
        opp_void = 1.0 if (opp_poss & sm) == 0 else 0.0
        partner_void = 1.0 if (poss[partner] & sm) == 0 else 0.0
        n = put(index, values, n, 15, opp_ruff)
        n = put(index, values, n, 16, partner_ruff)
        n = put(index, values, n, 25, n_mine / 8.0)
        n = put(index, values, n, 26, opp_void)
        n = put(index, values, n, 27, partner_void)
        n = put(index, values, n, 29, masters_run / 4.0)
        n = put(index, values, n, 31, is_trump if (taker & 1) == (seat & 1) else 0.0)
        n = put(index, values, n, 37, 1.0 if poss[partner] & trumps else 0.0)
        n = put(index, values, n, 40, (n_mine - n_out) / 8.0)
        n = put(index, values, n, 77, 1.0 if poss[lho] & sm == 0 else 0.0)
        n = put(index, values, n, 78, 1.0 if poss[rho] & sm == 0 else 0.0)
    return n, masters_run, opp_ruff


@lean_kernel(inline="always")
def card_only_features(
    card, hand, poss, n_trick, led, wc, wp, trick_pts, seat, strain, others, n_played, terms,
    masters_run, opp_ruff, index, values, n,
):  # fmt: skip
    """The features of ``card`` that ``suit_features`` does not give (``masters_run``,
    ``opp_ruff``: what it returned for the card's suit), appended to the sparse list
    after its first ``n`` entries; returns the new length.  The arguments are
    ``card_features``'."""
    pw_safe, cheapest_win = terms
    trumps = trump_mask(strain)
    partner = seat ^ 2
    lho = (seat + 1) & 3
    rho = (seat + 3) & 3
    opp_poss = poss[lho] | poss[rho]
    suit = card >> 3
    sm = suit_mask(suit)
    pts = CARD_POINTS[strain, card] / 20.0
    is_trump = 1.0 if (trumps >> card) & 1 else 0.0
    higher_out = higher_mask(card, strain) & others
    n_higher = popcount(higher_out)
    master = 1.0 if n_higher == 0 else 0.0
    mine = hand & sm
    n_mine = popcount(mine)
    above_mine = popcount(higher_mask(card, strain) & mine)
    below_mine = n_mine - 1 - above_mine
    leading = n_trick == 0
    last = n_trick == 3
    partner_winning = n_trick >= 2 and wp == n_trick - 2
    wins = 0.0
    sure = 0.0
    if leading:
        if master > 0:
            sure = 1.0
            if trumps and suit != strain and (opp_poss & trumps) != 0:
                if (poss[lho] & trumps and may_be_void(poss[lho], others, suit, THIN)) or (
                    poss[rho] & trumps and may_be_void(poss[rho], others, suit, THIN)
                ):
                    sure = 0.0
    elif beats(card, wc, led, strain):
        wins = 1.0
        if last or not may_beat(poss[lho], others, card, led, trumps, strain, THIN):
            sure = 1.0
    loses = 0.0
    if not leading and wins == 0.0 and not partner_winning:
        loses = 1.0
    tricks_left = (32 - n_played) / 32.0
    # the features a card of most decisions has, then those of a few (in branches
    # taken by whole groups)
    n = put(index, values, n, 1, pts)
    n = put(index, values, n, 3, min(n_higher, 4) / 4.0)
    n = put(index, values, n, 11, 1.0 if below_mine == 0 else 0.0)
    n = put(index, values, n, 12, 1.0 if above_mine == 0 else 0.0)
    n = put(index, values, n, 19, tricks_left * pts)
    n = put(index, values, n, 23, 1.0 if n_higher == 1 and n_mine >= 2 else 0.0)
    n = put(index, values, n, 35, min(below_mine, 3) / 3.0)
    partner_master = n_higher > 0 and (higher_out & opp_poss) == 0
    n = put(index, values, n, 38, 1.0 if partner_master else 0.0)
    if master > 0:
        n = put(index, values, n, 2, master)
        n = put(index, values, n, 24, master * pts)
        n = put(index, values, n, 30, is_trump * master)
        n = put(index, values, n, 39, tricks_left * master)
    if sure > 0:
        n = put(index, values, n, 7, sure)
        n = put(index, values, n, 8, pts * sure)
    if wins > 0:
        n = put(index, values, n, 6, wins)
        n = put(index, values, n, 22, wins * trick_pts / 30.0)
        # the cheapest winning card of the decision (points spent beyond it)
        n = put(index, values, n, 28, (CARD_POINTS[strain, card] - cheapest_win) / 20.0)
        n = put(index, values, n, 33, pts * wins * (1.0 - sure))
        n = put(index, values, n, 41, is_trump * wins * (1.0 - sure))
    if partner_winning:
        n = put(index, values, n, 9, pts if pw_safe else 0.0)
        n = put(index, values, n, 32, pts if not pw_safe else 0.0)
    if loses > 0:
        n = put(index, values, n, 10, pts * loses)
    if strain != STRAIN_AT and suit != strain:  # a plain suit: its ten and ace
        ten = 8 * suit + RANK_T
        ace_out = (others >> (8 * suit + RANK_A)) & 1
        bares_ten = card != ten and n_mine == 2 and (hand >> ten) & 1 and ace_out
        n = put(index, values, n, 13, 1.0 if bares_ten else 0.0)
        n = put(index, values, n, 14, 1.0 if card == ten and ace_out else 0.0)
    if leading:
        n = put(index, values, n, 42, 1.0 if above_mine == 0 and n_higher > 0 else 0.0)
        n = put(index, values, n, 44, pts)
        n = put(index, values, n, 45, 1.0 if below_mine == 0 and masters_run > 0 else 0.0)
    else:
        n = put(index, values, n, 34, opp_ruff * pts)
        n = put(index, values, n, 43, (1.0 - wins) * master)
    # the rank itself (7 8 9 T J Q K A), as a trump and as a plain card
    n = put(index, values, n, 46 + (card & 7) + (8 if is_trump > 0 else 0), 1.0)
    # honours of the suit kept in hand
    ace = 8 * suit + RANK_A
    ten = 8 * suit + RANK_T
    n = put(index, values, n, 62, 1.0 if (hand >> ace) & 1 and card != ace else 0.0)
    n = put(index, values, n, 63, 1.0 if (hand >> ten) & 1 and card != ten else 0.0)
    n = put(index, values, n, 76, pts if poss[partner] & higher_out else 0.0)
    return n


@kernel
def card_features(
    card, hand, poss, n_trick, led, wc, wp, trick_pts, seat, taker, strain, others, n_played,
    terms, out,
):  # fmt: skip
    """Write the ``N_FEATURES`` features of ``card`` (a legal card of the mover) to
    ``out`` (dense: the training rows of ``expert_data.featurize``); the arguments are
    ``expert.observe``'s view (``poss`` (4,): cards each other seat may still hold)
    and the decision's ``decision_terms``.  The features themselves are
    ``suit_features`` and ``card_only_features`` (the sparse lists that ``model_card``
    scores)."""
    index = np.empty(N_FEATURES, dtype=np.int64)
    values = np.empty(N_FEATURES, dtype=np.float64)
    n, masters_run, opp_ruff = suit_features(
        card >> 3, hand, poss, n_trick, led, seat, taker, strain, others, index, values, 0
    )
    n = card_only_features(
        card, hand, poss, n_trick, led, wc, wp, trick_pts, seat, strain, others, n_played,
        terms, masters_run, opp_ruff, index, values, n,
    )  # fmt: skip
    for k in range(N_FEATURES):
        out[k] = 0.0
    for t in range(n):
        out[index[t]] = values[t]


@kernel(inline="always")
def pad_rows(index, values, n):
    """Pad a sparse list to a multiple of 4 entries with ``N_FEATURES`` (the zero row
    of ``HIDDEN_IN32``) of value 0; returns the padded length."""
    while n & 3:
        index[np.uint64(n)] = N_FEATURES
        values[np.uint64(n)] = 0.0
        n += 1
    return n


@kernel(inline="always")
def add_rows(base, out, w, index, values, n):
    """``out[j] = base[j] + sum values[t] * HIDDEN_IN32[index[t], j]`` over a sparse list
    padded to ``n`` entries (``pad_rows``), four rows a pass (float32); returns the
    list's linear score ``sum values[t] * w[index[t]]`` (float64; ``w`` padded as
    ``NET_WEIGHTS_PAD``'s rows), worked out in the same passes."""
    lin = 0.0
    if n == 0:
        for j in range(N_HIDDEN):
            out[j] = base[j]
        return lin
    for t in range(0, n, 4):
        # unsigned feature indexes: no negative-index wraparound in the row lookups
        k1 = np.uint64(index[t])
        k2 = np.uint64(index[t + 1])
        k3 = np.uint64(index[t + 2])
        k4 = np.uint64(index[t + 3])
        x1 = values[t]
        x2 = values[t + 1]
        x3 = values[t + 2]
        x4 = values[t + 3]
        lin += (x1 * w[k1] + x2 * w[k2]) + (x3 * w[k3] + x4 * w[k4])
        if t == 0:  # (two loops: one reading ``base``, one updating ``out`` in place)
            for j in range(N_HIDDEN):
                out[j] = base[j] + (
                    (x1 * HIDDEN_IN32[k1, j] + x2 * HIDDEN_IN32[k2, j])
                    + (x3 * HIDDEN_IN32[k3, j] + x4 * HIDDEN_IN32[k4, j])
                )
        else:
            for j in range(N_HIDDEN):
                out[j] += (x1 * HIDDEN_IN32[k1, j] + x2 * HIDDEN_IN32[k2, j]) + (
                    x3 * HIDDEN_IN32[k3, j] + x4 * HIDDEN_IN32[k4, j]
                )
    return lin


@kernel(inline="always")
def hidden_score(base, w, index, values, n):
    """A card's network score from its sparse list padded to ``n`` entries
    (``pad_rows``): ``(h, lin)``, the hidden layer's part ``sum HIDDEN_OUT[j] *
    max(u[j], 0)`` with ``u[j] = base[j] + sum values[t] * HIDDEN_IN32[index[t], j]``
    (float32; ``base``: the units' sums so far, read only) and the linear part ``sum
    values[t] * w[index[t]]`` (float64).  Four rows a pass; the last pass also
    rectifies and weighs the units."""
    m = n - 4 if n > 0 else 0
    src = base
    lin = 0.0
    if m > 0:  # all rows but the last four, into the scratch behind ``values``
        hidden = values[MODEL_VALUES : MODEL_VALUES + N_HIDDEN]
        lin = add_rows(base, hidden, w, index, values, m)
        src = hidden
    h = np.float32(0.0)
    if n == 0:
        for j in range(N_HIDDEN):
            h += HIDDEN_OUT32[j] * max(src[j], np.float32(0.0))
        return h, lin
    k1 = np.uint64(index[m])
    k2 = np.uint64(index[m + 1])
    k3 = np.uint64(index[m + 2])
    k4 = np.uint64(index[m + 3])
    x1 = values[m]
    x2 = values[m + 1]
    x3 = values[m + 2]
    x4 = values[m + 3]
    lin += (x1 * w[k1] + x2 * w[k2]) + (x3 * w[k3] + x4 * w[k4])
    for j in range(N_HIDDEN):
        x = src[j] + (
            (x1 * HIDDEN_IN32[k1, j] + x2 * HIDDEN_IN32[k2, j])
            + (x3 * HIDDEN_IN32[k3, j] + x4 * HIDDEN_IN32[k4, j])
        )
        h += HIDDEN_OUT32[j] * max(x, np.float32(0.0))
    return h, lin


@kernel(inline="always")
def linear_sum(w, index, values, n):
    """The linear score ``sum w[index[t]] * values[t]`` of a sparse list (float64)."""
    s = 0.0
    for t in range(n):
        s += w[np.uint64(index[t])] * np.float64(values[t])
    return s


# exact_float_kernel: vectorised, but every sum in its written order, so a score is the
# same to the bit in every process and caller; the scores agree with
# ``CardModel.scores`` to far below the card-cost tie-break.
@exact_float_kernel
def model_card(
    hand, legal, poss, n_trick, led, wc, wp, trick_pts, seat, taker, strain, others, n_played,
    net, feats, index,
):  # fmt: skip
    """The legal card with the highest model score (ties: the cheapest, then lowest).
    ``net`` False: the linear score (``WEIGHTS``, model 1); True (model 2): the
    network's linear score (``NET_WEIGHTS``) plus its hidden layer's, ``N_HIDDEN``
    rectified units fed by the features and the weight row (float32).  The features
    are sparse lists (few are set): the suit's (``suit_features``) and the hidden
    units' sums over them are worked out once per suit of the legal cards, and per
    card only its own (``card_only_features``).  Scratch: ``feats`` (MODEL_SCRATCH,)
    float32, ``index`` (N_FEATURES,) int64."""
    partner_winning = n_trick >= 2 and wp == n_trick - 2
    row = weight_row(n_trick, partner_winning, (seat & 1) == (taker & 1), strain, n_played)
    terms = decision_terms(legal, poss, n_trick, led, wc, wp, seat, strain, others)
    w = NET_WEIGHTS_PAD[row] if net else WEIGHTS[row]
    suit_hidden = feats[:N_HIDDEN]
    values = feats[N_HIDDEN:]
    best = -1
    best_score = 0.0
    suit_now = -1
    suit_score = 0.0
    masters_run = 0
    opp_ruff = 0.0
    m = legal
    while m:
        card = lowest_card(m)
        m &= m - 1
        if card >> 3 != suit_now:  # the legal cards come suit by suit
            suit_now = card >> 3
            n, masters_run, opp_ruff = suit_features(
                suit_now, hand, poss, n_trick, led, seat, taker, strain, others, index, values, 0
            )
            if net:
                n = pad_rows(index, values, n)
                suit_score = add_rows(HIDDEN_ROW32[row], suit_hidden, w, index, values, n)
            else:
                suit_score = linear_sum(w, index, values, n)
        n = card_only_features(
            card, hand, poss, n_trick, led, wc, wp, trick_pts, seat, strain, others, n_played,
            terms, masters_run, opp_ruff, index, values, 0,
        )  # fmt: skip
        if net:
            h, lin = hidden_score(suit_hidden, w, index, values, pad_rows(index, values, n))
            score = suit_score + lin + np.float64(h)
        else:
            score = suit_score + linear_sum(w, index, values, n)
        score -= 1e-6 * (CARD_POINTS[strain, card] * 32 + WIN_KEY[strain, card])
        if best < 0 or score > best_score:
            best = card
            best_score = score
    return best


@lean_kernel(inline="always")
def model_choice(
    params, hand, plays, n_played, first_leader, strain, taker, rules,
    tt, ws, moves, work, feats, index, turn,
):  # fmt: skip
    """The ``expert`` card in model mode (arguments of ``expert.expert_rule_card``, and
    ``model_card``'s scratch ``feats`` (MODEL_SCRATCH,) float32 and ``index``
    (MODEL_INDEXES,) int64): the exact endgame when it has begun
    (``expert.endgame_card``), else the card of the model.  Allocates nothing, so that
    the model's decisions (all but the endgame's) cost no reference counting of the
    many arrays they pass around; ``expert_seat.expert_decide`` is the entry point
    that makes the scratch.  ``turn``: None, or the simulation's ``records.Turn``
    (``expert.observe_turn``)."""
    view = model_view(hand, plays, n_played, first_leader, strain, rules, work, turn)
    seat, n_trick, led, wc, wp, trick_pts, legal, others = view
    if legal & (legal - 1) == 0:
        return lowest_card(legal)
    if in_endgame(params, n_played, strain):
        card = endgame_card(
            params, hand, plays, n_played, first_leader, strain, rules,
            seat, legal, tt, ws, moves, work,
        )  # fmt: skip
        if card >= 0:
            return card
    return learned_card(
        params, hand, plays, n_played, first_leader, strain, taker, rules, work, feats,
        index, seat, n_trick, led, wc, wp, trick_pts, legal, others,
    )  # fmt: skip


@lean_kernel(inline="always")
def learned_card(
    params, hand, plays, n_played, first_leader, strain, taker, rules, work, feats, index,
    seat, n_trick, led, wc, wp, trick_pts, legal, others,
):  # fmt: skip
    """The card of the learned model ``params[EXPERT_MODEL]`` names: 3 the suit network
    (``suit_net``), 2 the feature network, 1 the linear model (``model_card``), on
    what ``model_view`` returned."""
    if params[EXPERT_MODEL] >= 3:
        return suit_net_card(
            hand, plays, n_played, first_leader, strain, taker, rules, work[0], work[1],
            seat, n_trick, wp, legal, feats, index,
        )  # fmt: skip
    return model_card(
        hand, legal, work[2], n_trick, led, wc, wp, trick_pts, seat, taker, strain, others,
        n_played, params[EXPERT_MODEL] >= 2, feats, index,
    )  # fmt: skip


@lean_kernel(inline="always")
def model_view(hand, plays, n_played, first_leader, strain, rules, work, turn):
    """What the mover sees (``expert.observe``, or ``observe_turn`` of the
    simulation's ``turn``): seat, trick, legal cards, the others' possible cards."""
    if turn is None:
        return observe(hand, plays, n_played, first_leader, strain, rules, work)
    return observe_turn(turn, plays, first_leader, strain, rules, work)


@lean_kernel(inline="always")
def lean_model_choice(
    params, hand, plays, n_played, first_leader, strain, taker, rules, work, feats, index, turn,
):  # fmt: skip
    """``model_choice`` with no endgame (the lean ``expert``,
    ``expert_seat.expert_lean_card``, whose parameters ask for none): the card of the
    model at every decision.  No call reaches the solver, so none is compiled."""
    view = model_view(hand, plays, n_played, first_leader, strain, rules, work, turn)
    seat, n_trick, led, wc, wp, trick_pts, legal, others = view
    if legal & (legal - 1) == 0:
        return lowest_card(legal)
    return learned_card(
        params, hand, plays, n_played, first_leader, strain, taker, rules, work, feats,
        index, seat, n_trick, led, wc, wp, trick_pts, legal, others,
    )  # fmt: skip


__all__ = [
    "MODEL_INDEXES",
    "MODEL_SCRATCH",
    "MODEL_VALUES",
    "N_FEATURES",
    "N_HIDDEN",
    "N_SITUATIONS",
    "N_STAGES",
    "RANK_A",
    "RANK_T",
    "THIN",
    "add_rows",
    "card_features",
    "card_only_features",
    "decision_terms",
    "hidden_score",
    "lean_model_choice",
    "learned_card",
    "linear_sum",
    "model_card",
    "model_choice",
    "model_view",
    "pad_rows",
    "put",
    "situation",
    "suit_features",
    "weight_row",
]
