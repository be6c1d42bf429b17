"""The search play policies: ``dd`` (every hand visible) and ``pimc`` (sampling).

Kernels of the switchboard's signature ``(params, turn, deal, rules, state, search)
-> card`` (``switchboard.PLAY_POLICIES``) over the solver (``kernels.solver``).
``search`` is ``switchboard.policy_buffers``: the solver's transposition table, stack
and move lists come first.

``dd`` (no parameters): the double-dummy best card, every hand visible -- an upper
bound for studies, not a fair player.

``pimc`` (parameters ``[samples]``, default 30): perfect-information Monte Carlo; the
unseen cards are dealt ``samples`` times uniformly among the deals consistent with
what the player has seen (the cards played, the voids shown, the announced
declarations), each deal is solved exactly and the best card on average is played.
"""

import numpy as np

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.bits import nth_card, popcount
from belote_sim.kernels.records import announced_cards
from belote_sim.kernels.rng import next_random, random_below
from belote_sim.kernels.solver import dd_best_card, pimc_best_card

#: Parameter index of ``pimc``: ``[samples]``.
PIMC_SAMPLES = 0


@kernel
def hands_left(deal, played):
    """(4,) hands still held: each seat's dealt hand less the cards ``played``."""
    left = np.empty(4, dtype=np.int64)
    for seat in range(4):
        left[seat] = deal.hands[seat] & ~played
    return left


@kernel(inline="never")
def dd_card(params, turn, deal, rules, state, search):
    """The ``dd`` policy: the best card with every hand visible."""
    hands = hands_left(deal, turn.played)
    trick = np.zeros(4, dtype=np.int64)
    for k in range(turn.pos):
        trick[k] = deal.cards[turn.n_played - turn.pos + k]
    card, _ = dd_best_card(
        hands, turn.leader, trick, turn.pos, deal.strain, rules, search[0], search[1], search[2]
    )
    return card


@kernel(inline="never")
def pimc_card(params, turn, deal, rules, state, search):
    """The ``pimc`` policy: the best card on average over ``params[PIMC_SAMPLES]``
    sampled deals consistent with what the player has seen (a random legal card in
    the impossible case that no deal is consistent)."""
    known = np.zeros(4, dtype=np.int64)
    announced_cards(deal, turn.n_played, turn.played, turn.seat, known)
    card = pimc_best_card(
        deal.hands[turn.seat] & ~turn.played,
        known,
        deal.cards,
        turn.n_played,
        deal.leader,
        deal.strain,
        rules,
        np.int64(params[PIMC_SAMPLES]),
        next_random(state),
        search[0],
        search[1],
        search[2],
    )
    if card < 0:
        card = nth_card(turn.legal, random_below(state, popcount(turn.legal)))
    return card


__all__ = [
    "PIMC_SAMPLES",
    "dd_card",
    "hands_left",
    "pimc_card",
]
