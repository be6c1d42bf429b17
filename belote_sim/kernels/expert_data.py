"""Training rows of the ``expert`` card model: observations and double-dummy values.

``label_decisions`` plays given deals with the ``expert`` policy and, at every
decision with two legal cards or more, keeps what the player saw (``obs``, one row
of ``OBS_*`` columns) and the exact double-dummy value of each legal card on the
real deal (card points of the mover's team from there, the current trick included,
``solver.dd_card_values``).  ``featurize`` turns the observations into the model's
features (``expert_model.card_features``), so that features can change without
solving again; ``suit_net_row_scores`` scores them with the suit network (model 3).
``analyses/train_expert.py`` fits the model on them.
"""

import numpy as np

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.bits import lowest_card, nth_card, popcount
from belote_sim.kernels.core import advance_trick
from belote_sim.kernels.expert import observe
from belote_sim.kernels.expert_model import card_features, decision_terms, situation
from belote_sim.kernels.expert_seat import expert_card
from belote_sim.kernels.play import play_deal
from belote_sim.kernels.records import Turn, announced_cards, deal_record, keep_alive
from belote_sim.kernels.rng import random_below, seed_state
from belote_sim.kernels.solver import dd_card_values
from belote_sim.kernels.suit_net import SUIT_NET_INDEXES, SUIT_NET_SCRATCH, suit_net_scores
from belote_sim.kernels.switchboard import MENU_NOTHING, POLICY_NONE
from belote_sim.kernels.tables import (
    ALL_SEATS_MASK,
    NUM_RULE_FIELDS,
    R_RAISE_OVER_PARTNER,
    R_UNDERTRUMP,
)

#: Columns of an observation row: the cards played (32), then these.
OBS_N_PLAYED, OBS_FIRST_LEADER, OBS_STRAIN, OBS_TAKER, OBS_HAND = 32, 33, 34, 35, 36
OBS_KNOWN = 37  # 4 columns: cards announced still in each hand (0 for the mover)
OBS_RAISE_OVER_PARTNER, OBS_UNDERTRUMP, OBS_DEAL, OBS_SEAT = 41, 42, 43, 44
OBS_COLUMNS = 45


@kernel
def label_decisions(hands_all, dealers, strains, takers, rules, params, explore, seed, search,
                    obs, values, cards):  # fmt: skip
    """Play deals ``hands_all`` (n, 4) (dealer, strain, taker per deal; every seat
    plays ``expert`` with ``params``, except that with probability ``explore`` a
    decision plays a uniformly random legal card instead) and label the decisions.

    Fills rows of ``obs`` (R, OBS_COLUMNS), ``values`` (R, 8) (card points, -1 where
    no card) and ``cards`` (R, 8) (the legal cards, lowest first, -1 after them);
    returns the rows written (stops when the arrays are full).
    """
    replay_only = (
        np.full(4, POLICY_NONE, dtype=np.int64),
        np.zeros((4, 8), dtype=np.float64),
        np.zeros(0, dtype=MENU_NOTHING),
    )
    deals = deal_record()
    deal = deals[0]
    left = np.zeros(4, dtype=np.int64)
    trick = np.zeros(4, dtype=np.int64)
    dd = np.zeros(32, dtype=np.int64)
    work = search[3]
    state = seed_state(seed)
    n_rows = 0
    for d in range(hands_all.shape[0]):
        for s in range(4):
            deal.hands[s] = hands_all[d, s]
        strain = strains[d]
        taker = takers[d]
        first_leader = (dealers[d] + 1) & 3
        deal.leader = first_leader
        deal.strain = strain
        deal.taker = taker
        deal.doubling = 0
        deal.announce = ALL_SEATS_MASK
        for k in range(32):
            # replay the first k cards: the belotes announced so far, the legal cards
            deal.n_given = k
            play_deal(deal, replay_only, rules, state, search)
            legal = deal.next_legal
            # where the trick in progress stands
            n_trick = 0
            led = wc = wp = -1
            leader = first_leader
            for i in range(k):
                n_trick, led, wc, wp, leader = advance_trick(
                    deal.cards[i], n_trick, led, wc, wp, leader, strain
                )
            for i in range(n_trick):
                trick[i] = deal.cards[k - n_trick + i]
            seat = (leader + n_trick) & 3
            played = 0
            for i in range(k):
                played |= 1 << deal.cards[i]
            for s in range(4):
                left[s] = deal.hands[s] & ~played
            if popcount(legal) >= 2 and n_rows < obs.shape[0]:
                # the player's view (announced cards as the expert sees them)
                announced_cards(deal, k, played, seat, work[0])
                dd_card_values(
                    left, leader, trick, n_trick, strain, seat & 1, rules,
                    search[0], search[1], search[2], dd,
                )  # fmt: skip
                row = obs[n_rows]
                for i in range(32):
                    row[i] = deal.cards[i] if i < k else -1
                row[OBS_N_PLAYED] = k
                row[OBS_FIRST_LEADER] = first_leader
                row[OBS_STRAIN] = strain
                row[OBS_TAKER] = taker
                row[OBS_HAND] = left[seat]
                for s in range(4):
                    row[OBS_KNOWN + s] = work[0, s]
                row[OBS_RAISE_OVER_PARTNER] = rules[R_RAISE_OVER_PARTNER]
                row[OBS_UNDERTRUMP] = rules[R_UNDERTRUMP]
                row[OBS_DEAL] = d
                row[OBS_SEAT] = seat
                j = 0
                m = legal
                while m:
                    card = lowest_card(m)
                    m &= m - 1
                    values[n_rows, j] = dd[card]
                    cards[n_rows, j] = card
                    j += 1
                for jj in range(j, 8):
                    values[n_rows, jj] = -1
                    cards[n_rows, jj] = -1
                n_rows += 1
            if popcount(legal) >= 2 and random_below(state, 1 << 20) < explore * (1 << 20):
                card = nth_card(legal, random_below(state, popcount(legal)))
            else:
                turn = Turn(seat, n_trick, leader, led, wc, wp, left[seat], legal, played, k, 4)
                card = expert_card(params, turn, deal, rules, state, search)
            deal.cards[k] = card
    keep_alive(deals)  # ``deal`` points into ``deals``
    return n_rows


@kernel
def featurize(obs, cards, feats, situations):
    """The model's view of labelled decisions: ``feats`` (R, 8, N_FEATURES) receives
    the features of each card of ``cards`` (R, 8) (-1: none) and ``situations`` (R,)
    the decision's ``expert_model.situation``, from the observations ``obs``."""
    work = np.zeros((4, 4), dtype=np.int64)
    rules = np.zeros(NUM_RULE_FIELDS, dtype=np.int64)
    for r in range(obs.shape[0]):
        row = obs[r]
        rules[R_RAISE_OVER_PARTNER] = row[OBS_RAISE_OVER_PARTNER]
        rules[R_UNDERTRUMP] = row[OBS_UNDERTRUMP]
        k = row[OBS_N_PLAYED]
        strain = row[OBS_STRAIN]
        taker = row[OBS_TAKER]
        hand = row[OBS_HAND]
        for s in range(4):
            work[0, s] = row[OBS_KNOWN + s]
        seat, nt, led, wc, wp, trick_pts, legal, others = observe(
            hand, row[:32], k, row[OBS_FIRST_LEADER], strain, rules, work
        )
        terms = decision_terms(legal, work[2], nt, led, wc, wp, seat, strain, others)
        for j in range(8):
            card = cards[r, j]
            if card < 0:
                feats[r, j, :] = 0.0
                continue
            card_features(
                card, hand, work[2], nt, led, wc, wp, trick_pts, seat, taker, strain, others,
                k, terms, feats[r, j],
            )  # fmt: skip
        partner_winning = nt >= 2 and wp == nt - 2
        situations[r] = situation(nt, partner_winning, (seat & 1) == (taker & 1), strain)


@kernel
def suit_net_row_scores(obs, cards, out):
    """The suit network's scores (``suit_net.suit_net_scores``, card points) of the
    cards ``cards`` (R, 8) (-1: none, scored -inf) of labelled decisions ``obs`` into
    ``out`` (R, 8) float64, as the ``expert`` (model 3) scores them in play."""
    work = np.zeros((4, 4), dtype=np.int64)
    rules = np.zeros(NUM_RULE_FIELDS, dtype=np.int64)
    feats = np.zeros(SUIT_NET_SCRATCH, dtype=np.float32)
    index = np.zeros(SUIT_NET_INDEXES, dtype=np.int64)
    for r in range(obs.shape[0]):
        row = obs[r]
        rules[R_RAISE_OVER_PARTNER] = row[OBS_RAISE_OVER_PARTNER]
        rules[R_UNDERTRUMP] = row[OBS_UNDERTRUMP]
        for s in range(4):
            work[0, s] = row[OBS_KNOWN + s]
        k = row[OBS_N_PLAYED]
        first_leader = row[OBS_FIRST_LEADER]
        strain = row[OBS_STRAIN]
        hand = row[OBS_HAND]
        seat, nt, _, _, wp, _, legal, _ = observe(
            hand, row[:32], k, first_leader, strain, rules, work
        )
        at = suit_net_scores(
            hand, row[:32], k, first_leader, strain, row[OBS_TAKER], rules, work[0],
            work[1], seat, nt, wp, legal, feats, index,
        )  # fmt: skip
        for j in range(8):
            card = cards[r, j]
            out[r, j] = feats[at + card] if card >= 0 else -np.inf


__all__ = [
    "OBS_COLUMNS",
    "OBS_DEAL",
    "OBS_FIRST_LEADER",
    "OBS_HAND",
    "OBS_KNOWN",
    "OBS_N_PLAYED",
    "OBS_RAISE_OVER_PARTNER",
    "OBS_SEAT",
    "OBS_STRAIN",
    "OBS_TAKER",
    "OBS_UNDERTRUMP",
    "featurize",
    "label_decisions",
    "suit_net_row_scores",
]
