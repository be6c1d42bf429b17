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
(``card_score``) is the row's linear score of its features plus a small hidden
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

from belote_sim.kernels._jit import kernel, lean_kernel
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
from belote_sim.kernels.tables import CARD_POINTS, STRAIN_AT, STRAIN_NT, WIN_KEY

N_FEATURES = WEIGHTS.shape[1]
N_HIDDEN = HIDDEN_OUT.shape[0]
assert N_FEATURES % 4 == 0 and N_HIDDEN % 4 == 0  # card_score's partial sums
#: the model's scratch: the features of a card, the hidden units, the indexes of the
#: features set
MODEL_SCRATCH = 2 * N_FEATURES + N_HIDDEN
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


@lean_kernel
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


@lean_kernel
def card_features(
    card, hand, poss, n_trick, led, wc, wp, trick_pts, seat, taker, strain, others, n_played,
    terms, out,
):  # fmt: skip
    """Write the ``N_FEATURES`` features of ``card`` (a legal card of the mover) to
    ``out``; the arguments are ``expert.observe``'s view (``poss`` (4,): cards each
    other seat may still hold) and the decision's ``decision_terms``."""
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
    n_out = popcount(others & sm)
    above_mine = popcount(higher_mask(card, strain) & mine)
    below_mine = n_mine - 1 - above_mine
    leading = n_trick == 0
    last = n_trick == 3
    partner_winning = n_trick >= 2 and wp == n_trick - 2
    my_trumps = popcount(hand & trumps)
    opp_trumps = (opp_poss & trumps) != 0
    wins = 0.0
    sure = 0.0
    if leading:
        if master > 0:
            sure = 1.0
            if trumps and suit != strain and opp_trumps:
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
    # the cheapest winning card of the decision (points spent beyond it)
    extra = 0.0
    if wins > 0:
        extra = (CARD_POINTS[strain, card] - cheapest_win) / 20.0
    plain = strain != STRAIN_AT and suit != strain
    ten = 8 * suit + RANK_T
    ace_out = (others >> (8 * suit + RANK_A)) & 1
    bares_ten = 0.0
    if plain and card != ten and n_mine == 2 and (hand >> ten) & 1 and ace_out:
        bares_ten = 1.0
    ten_ace_out = 1.0 if plain and card == ten and ace_out else 0.0
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
    opp_void = 1.0 if (opp_poss & sm) == 0 else 0.0
    partner_void = 1.0 if (poss[partner] & sm) == 0 else 0.0
    masters_run = 0
    if leading:
        m = mine
        while m:
            c = lowest_card(m)
            m &= m - 1
            if higher_mask(c, strain) & others & ~mine == 0:
                masters_run += 1
    tricks_left = (32 - n_played) / 32.0
    lead = 1.0 if leading else 0.0
    out[0] = is_trump
    out[1] = pts
    out[2] = master
    out[3] = min(n_higher, 4) / 4.0
    out[4] = n_mine / 8.0
    out[5] = n_out / 8.0
    out[6] = wins
    out[7] = sure
    out[8] = pts * sure
    out[9] = pts * (1.0 if pw_safe else 0.0)
    out[10] = pts * loses
    out[11] = 1.0 if below_mine == 0 else 0.0
    out[12] = 1.0 if above_mine == 0 else 0.0
    out[13] = bares_ten
    out[14] = ten_ace_out
    out[15] = lead * opp_ruff
    out[16] = lead * partner_ruff
    out[17] = is_trump * (1.0 if opp_trumps else 0.0)
    out[18] = is_trump * my_trumps / 8.0
    out[19] = tricks_left * pts
    out[20] = 1.0 if n_mine == 1 and my_trumps > 0 and is_trump == 0.0 else 0.0
    out[21] = is_trump * (1.0 if not leading and led != strain else 0.0)
    out[22] = wins * trick_pts / 30.0
    out[23] = 1.0 if n_higher == 1 and n_mine >= 2 else 0.0
    out[24] = master * pts
    out[25] = lead * n_mine / 8.0
    out[26] = lead * opp_void
    out[27] = lead * partner_void
    out[28] = extra
    out[29] = lead * masters_run / 4.0
    out[30] = is_trump * master
    out[31] = (1.0 if (taker & 1) == (seat & 1) else 0.0) * is_trump * lead
    out[32] = pts * (1.0 if partner_winning and not pw_safe else 0.0)
    out[33] = pts * wins * (1.0 - sure)
    out[34] = opp_ruff * (1.0 - lead) * pts
    out[35] = min(below_mine, 3) / 3.0
    out[36] = is_trump * popcount(others & trumps & opp_poss) / 8.0
    out[37] = lead * (1.0 if poss[partner] & trumps else 0.0)
    partner_master = n_higher > 0 and (higher_out & opp_poss) == 0
    out[38] = 1.0 if partner_master else 0.0
    out[39] = tricks_left * master
    out[40] = lead * (n_mine - n_out) / 8.0
    out[41] = is_trump * wins * (1.0 - sure)
    out[42] = lead * (1.0 if above_mine == 0 and n_higher > 0 else 0.0)
    out[43] = (1.0 - lead) * (1.0 - wins) * master
    out[44] = lead * pts
    out[45] = lead * (1.0 if below_mine == 0 else 0.0) * (1.0 if masters_run > 0 else 0.0)
    # the rank itself (7 8 9 T J Q K A), as a trump and as a plain card
    for r in range(16):
        out[46 + r] = 0.0
    out[46 + (card & 7) + (8 if is_trump > 0 else 0)] = 1.0
    # honours of the suit kept in hand
    out[62] = 1.0 if (hand >> (8 * suit + RANK_A)) & 1 and card != 8 * suit + RANK_A else 0.0
    out[63] = 1.0 if (hand >> ten) & 1 and card != ten else 0.0
    # counts as one-hot: trumps the opponents may hold (for a trump), my cards of
    # the suit, the suit's cards still out
    for r in range(64, 76):
        out[r] = 0.0
    if is_trump > 0:
        out[64 + min(popcount(others & trumps & opp_poss), 3)] = 1.0
    out[68 + min(max(n_mine, 1), 4) - 1] = 1.0
    out[72 + min(n_out, 3)] = 1.0
    out[76] = pts * (1.0 if poss[partner] & higher_out else 0.0)
    out[77] = lead * (1.0 if poss[lho] & sm == 0 else 0.0)
    out[78] = lead * (1.0 if poss[rho] & sm == 0 else 0.0)
    out[79] = is_trump * (1.0 if my_trumps == 1 else 0.0)


# fastmath: the sums may be reordered and vectorised (about twice as fast here); the
# scores agree with ``CardModel.scores`` to far below the card-cost tie-break.
@lean_kernel(fastmath=True)
def card_score(row, feats, net):
    """The model's score of a card from its features ``feats[:N_FEATURES]`` in weight
    row ``row``.  ``net`` False: the linear score (``WEIGHTS``, model 1).  ``net``
    True (model 2): the network's linear score (``NET_WEIGHTS``) plus its hidden
    layer's, ``N_HIDDEN`` rectified units fed by the features and the row.  Most
    features are 0 or 1 and few are set, so the hidden layer adds the weight rows of
    the set features only (their indexes are listed first, without branches).  The
    rest of ``feats`` (MODEL_SCRATCH,) is scratch."""
    w = NET_WEIGHTS[row] if net else WEIGHTS[row]
    # four partial sums: one chain of 80 dependent additions waits on the adder's
    # latency (N_FEATURES is a multiple of 4)
    s0 = s1 = s2 = s3 = 0.0
    for k in range(0, N_FEATURES, 4):
        s0 += w[k] * feats[k]
        s1 += w[k + 1] * feats[k + 1]
        s2 += w[k + 2] * feats[k + 2]
        s3 += w[k + 3] * feats[k + 3]
    score = (s0 + s1) + (s2 + s3)
    if not net or N_HIDDEN == 0:
        return score
    hidden = feats[N_FEATURES : N_FEATURES + N_HIDDEN]
    index = feats[N_FEATURES + N_HIDDEN :]
    n = 0
    for k in range(N_FEATURES):
        index[n] = k
        n += feats[k] != 0.0
    for j in range(N_HIDDEN):
        hidden[j] = HIDDEN_ROW[row, j]
    # two features a pass: half the passes through ``hidden`` (each waits on the last)
    t = 0
    while t + 1 < n:
        k1 = int(index[t])
        k2 = int(index[t + 1])
        x1 = feats[k1]
        x2 = feats[k2]
        for j in range(N_HIDDEN):
            hidden[j] += x1 * HIDDEN_IN[k1, j] + x2 * HIDDEN_IN[k2, j]
        t += 2
    if t < n:
        k1 = int(index[t])
        x1 = feats[k1]
        for j in range(N_HIDDEN):
            hidden[j] += x1 * HIDDEN_IN[k1, j]
    h0 = h1 = h2 = h3 = 0.0  # partial sums, as above (N_HIDDEN is a multiple of 4)
    for j in range(0, N_HIDDEN, 4):
        h0 += HIDDEN_OUT[j] * max(hidden[j], 0.0)
        h1 += HIDDEN_OUT[j + 1] * max(hidden[j + 1], 0.0)
        h2 += HIDDEN_OUT[j + 2] * max(hidden[j + 2], 0.0)
        h3 += HIDDEN_OUT[j + 3] * max(hidden[j + 3], 0.0)
    return score + ((h0 + h1) + (h2 + h3))


@lean_kernel
def model_card(
    hand, legal, poss, n_trick, led, wc, wp, trick_pts, seat, taker, strain, others, n_played,
    net, feats,
):  # fmt: skip
    """The legal card with the highest model score (``card_score``; ties: the
    cheapest, then lowest).  ``feats`` (MODEL_SCRATCH,) float64 scratch."""
    partner_winning = n_trick >= 2 and wp == n_trick - 2
    row = weight_row(n_trick, partner_winning, (seat & 1) == (taker & 1), strain, n_played)
    terms = decision_terms(legal, poss, n_trick, led, wc, wp, seat, strain, others)
    best = -1
    best_score = 0.0
    m = legal
    while m:
        card = lowest_card(m)
        m &= m - 1
        card_features(
            card, hand, poss, n_trick, led, wc, wp, trick_pts, seat, taker, strain, others,
            n_played, terms, feats,
        )  # fmt: skip
        score = card_score(row, feats, net)
        score -= 1e-6 * (CARD_POINTS[strain, card] * 32 + WIN_KEY[strain, card])
        if best < 0 or score > best_score:
            best = card
            best_score = score
    return best


@lean_kernel
def model_choice(
    params, hand, plays, n_played, first_leader, strain, taker, rules,
    tt, ws, moves, work, feats,
):  # fmt: skip
    """The ``expert`` card in model mode (arguments of ``expert.expert_rule_card``, and the
    scratch ``feats`` (MODEL_SCRATCH,) float64): the exact endgame when it has begun
    (``expert.endgame_card``), else the card of the model.  Allocates nothing, so that
    the model's decisions (all but the endgame's) cost no reference counting of the
    many arrays they pass around; ``expert_seat.expert_decide`` is the entry point
    that makes the scratch."""
    seat, n_trick, led, wc, wp, trick_pts, legal, others = observe(
        hand, plays, n_played, first_leader, strain, rules, work
    )
    if legal & (legal - 1) == 0:
        return lowest_card(legal)
    if in_endgame(params, n_played, strain):
        card = endgame_card(
            params, hand, plays, n_played, first_leader, strain, rules,
            seat, legal, tt, ws, moves, work,
        )  # fmt: skip
        if card >= 0:
            return card
    return model_card(
        hand, legal, work[2], n_trick, led, wc, wp, trick_pts, seat, taker, strain, others,
        n_played, params[EXPERT_MODEL] >= 2, feats,
    )  # fmt: skip


__all__ = [
    "MODEL_SCRATCH",
    "N_FEATURES",
    "N_HIDDEN",
    "N_SITUATIONS",
    "N_STAGES",
    "RANK_A",
    "RANK_T",
    "THIN",
    "card_features",
    "card_score",
    "decision_terms",
    "model_card",
    "model_choice",
    "situation",
    "weight_row",
]
