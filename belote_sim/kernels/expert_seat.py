"""The ``expert`` at a seat: its observation from the deal, and its decision.

``expert_card`` is the ``expert`` policy's kernel for the switchboard
(``switchboard.PLAY_POLICIES``); in the games where every player is alone it hands
the decision to ``expert_solo``.  ``expert_lean_card`` is its lean kernel: the card
model alone, for the 4-player game and no endgame search (``expert:0``), compiled
without the solver, the rules mode or the solo expert (the switchboard's menu picks
it when every seat's parameters allow).  In the 4-player game it builds what the
player has seen -- his cards, every card played in order, the cards the others
announced and still hold (``records.announced_cards``) -- and asks
``expert_choice``: the card model (``expert_model``) or the hand-written rules
(``expert``).  ``expert_decide`` is the same decision from an observation given
directly (``deal.agent`` and the tests).  The scratch is
``switchboard.policy_buffers``: solver buffers (0..2), the expert's work rows (3) and
the card model's scratch (4 and 6), so that a decision allocates nothing.
"""

import numpy as np

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.bits import lowest_card
from belote_sim.kernels.expert import (
    EXPERT_AT_EXTRA,
    EXPERT_ENDGAME,
    EXPERT_MODEL,
    expert_rule_card,
)
from belote_sim.kernels.expert_model import (
    MODEL_INDEXES,
    MODEL_SCRATCH,
    lean_model_choice,
    model_choice,
)
from belote_sim.kernels.expert_solo import solo_expert_card
from belote_sim.kernels.records import announced_cards


@kernel
def expert_decide(
    params, hand, plays, n_played, first_leader, strain, taker, rules, tt, ws, moves, work
):
    """The ``expert`` card from the player's observation (arguments of
    ``expert.expert_rule_card``): the card model when ``params[EXPERT_MODEL]`` is set,
    else the rules."""
    feats = np.empty(MODEL_SCRATCH, dtype=np.float32)
    index = np.empty(MODEL_INDEXES, dtype=np.int64)
    return expert_choice(
        params, hand, plays, n_played, first_leader, strain, taker, rules, tt, ws, moves,
        work, feats, index, None,
    )  # fmt: skip


@lean_kernel(inline="always")
def expert_choice(
    params, hand, plays, n_played, first_leader, strain, taker, rules, tt, ws, moves, work,
    feats, index, turn,
):  # fmt: skip
    """``expert_decide`` with the card model's scratch ``feats`` and ``index`` given
    (``expert_model.model_card``'s; the model's decisions then allocate nothing);
    ``turn``: None, or the simulation's turn, whose view of the trick it reads
    (``expert.observe_turn``)."""
    if params[EXPERT_MODEL] > 0:
        return model_choice(
            params, hand, plays, n_played, first_leader, strain, taker, rules,
            tt, ws, moves, work, feats, index, turn,
        )  # fmt: skip
    return expert_rule_card(
        params, hand, plays, n_played, first_leader, strain, taker, rules,
        tt, ws, moves, work, turn,
    )  # fmt: skip


@lean_kernel(inline="always")
def expert_card(params, turn, deal, rules, state, search):
    """The ``expert`` policy: a forced card at once (inlined into the play loop: no
    call), else ``expert_seen`` (``state`` is unused: the expert's draws are seeded
    from its observation)."""
    legal = turn.legal
    if legal & (legal - 1) == 0:
        return lowest_card(legal)  # forced: no need to look
    if turn.players != 4:
        return solo_expert_card(params, turn, deal, rules, search)
    return expert_seen(params, turn, deal, rules, search)


@kernel(inline="always")
def lean_expert_covers(params, players):
    """Whether the lean kernel plays these parameters exactly as ``expert_card``: the
    4-player game, the card model (model 1 or 2) and no endgame search (endgame tricks
    0 and no extra AT tricks).  (The switchboard's ``lean_covers`` is this test.)"""
    return (
        players == 4
        and params[EXPERT_ENDGAME] == 0
        and params[EXPERT_AT_EXTRA] == 0
        and params[EXPERT_MODEL] > 0
    )


@lean_kernel(inline="always")
def expert_lean_card(params, turn, deal, rules, state, search):
    """The lean ``expert`` (``lean_expert_covers``): ``expert_card`` for the card model
    alone, compiled without the solver, the rules mode and the solo expert.  Parameters
    it does not cover get no card (the play stops and the run says which seat failed):
    never another card than the full kernel's."""
    legal = turn.legal
    if legal & (legal - 1) == 0:
        return lowest_card(legal)
    if not lean_expert_covers(params, turn.players):
        return -1
    return expert_lean_seen(params, turn, deal, rules, search)


@lean_kernel(inline="always")
def seen_cards(turn, deal, search):
    """The mover's work rows, the cards announced still in the others' hands in row 0
    (``records.announced_cards``), and the cards played copied into a plain array
    (the expert reads them at every decision; the record's nested array reads slower,
    measured)."""
    work = search[3]
    announced_cards(deal, turn.n_played, turn.played, turn.seat, work[0])
    cards = search[5]
    for k in range(turn.n_played):
        cards[k] = deal.cards[k]
    return work, cards


@lean_kernel(inline="never")
def expert_seen(params, turn, deal, rules, search):
    """``expert_choice`` on what the player at ``turn.seat`` has seen: his cards, the
    cards played, the contract, the cards announced still in the others' hands."""
    work, cards = seen_cards(turn, deal, search)
    return expert_choice(
        params, turn.hand, cards, turn.n_played, deal.leader, deal.strain, deal.taker,
        rules, search[0], search[1], search[2], work, search[4], search[6], turn,
    )  # fmt: skip


@lean_kernel(inline="never")
def expert_lean_seen(params, turn, deal, rules, search):
    """``expert_seen`` for the lean expert: the card model alone
    (``expert_model.lean_model_choice``)."""
    work, cards = seen_cards(turn, deal, search)
    return lean_model_choice(
        params, turn.hand, cards, turn.n_played, deal.leader, deal.strain, deal.taker,
        rules, work, search[4], search[6], turn,
    )  # fmt: skip


__all__ = [
    "expert_card",
    "expert_choice",
    "expert_decide",
    "expert_lean_card",
    "expert_lean_seen",
    "expert_seen",
    "lean_expert_covers",
    "seen_cards",
]
