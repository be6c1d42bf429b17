"""The ``expert`` at a seat of ``play.play_deal``: its view from the deal's state.

``play_deal`` keeps the dealt hands and a mask of the cards played and allocates
nothing; ``expert_move`` fills the arrays the expert needs (the hands left, the
declared cards each other seat has shown) in the scratch of ``play.search_buffers``
and ``expert_play`` works out what the player has seen announced (``expert_known``)
and asks the expert: a card model (``expert_model``) or the rules (``expert``).
"""

import numpy as np

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.declarations import hand_declarations
from belote_sim.kernels.expert import EXPERT_MODEL, expert_card
from belote_sim.kernels.expert_model import MODEL_SCRATCH, model_choice
from belote_sim.kernels.tables import R_RAISE_OVER_PARTNER, R_UNDERTRUMP, RANK_K, RANK_Q


@lean_kernel
def declared_cards(hand, strain, rules):
    """Cards of the runs and carrés a hand declares (announced with its first card)."""
    d = hand_declarations(hand, strain, rules)
    known = d[1]
    for rank in range(8):
        if (d[0] >> rank) & 1:
            known |= 0x01010101 << rank
    return known & hand


@kernel
def all_declared_cards(hands, strain, rules):
    """(4,) ``declared_cards`` of every seat's dealt hand, for the ``expert`` policy
    (made when it plays, so that the other policies' deals allocate nothing)."""
    out = np.empty(4, dtype=np.int64)
    for s in range(4):
        out[s] = declared_cards(hands[s], strain, rules)
    return out


@lean_kernel
def expert_known(declared, belote, left, seat, n_played, first_leader, out):
    """What the player at ``seat`` has seen announced and still in each other hand:
    ``out[s]`` the cards of seat s's runs and carrés (``declared``, shown once s has
    played its first card) and the other card of each belote s announced
    (``belote``: suits), limited to ``left[s]``; 0 for the player himself."""
    for s in range(4):
        known = 0
        if s != seat:
            if n_played > ((s - first_leader) & 3):
                known = declared[s]
            for suit in range(4):
                if (belote[s] >> suit) & 1:
                    known |= (1 << (8 * suit + RANK_K)) | (1 << (8 * suit + RANK_Q))
            known &= left[s]
        out[s] = known


@kernel
def expert_decide(
    params, hand, plays, n_played, first_leader, strain, taker, raise_op, undertrump,
    tt, ws, moves, work,
):  # fmt: skip
    """The ``expert`` card from the player's observation (arguments of
    ``expert.expert_card``): the card model when ``params[EXPERT_MODEL]`` is set, else
    the rules."""
    feats = np.empty(MODEL_SCRATCH, dtype=np.float64)
    return expert_choice(
        params, hand, plays, n_played, first_leader, strain, taker, raise_op, undertrump,
        tt, ws, moves, work, feats,
    )  # fmt: skip


@lean_kernel
def expert_choice(
    params, hand, plays, n_played, first_leader, strain, taker, raise_op, undertrump,
    tt, ws, moves, work, feats,
):  # fmt: skip
    """``expert_decide`` with the card model's features scratch ``feats`` given (the
    model's decisions then allocate nothing)."""
    if params[EXPERT_MODEL] > 0:
        return model_choice(
            params, hand, plays, n_played, first_leader, strain, taker, raise_op, undertrump,
            tt, ws, moves, work, feats,
        )  # fmt: skip
    return expert_card(
        params, hand, plays, n_played, first_leader, strain, taker, raise_op, undertrump,
        tt, ws, moves, work,
    )  # fmt: skip


@lean_kernel(inline="never")
def expert_play(
    params,
    left,
    declared,
    belote,
    leader,
    n_in_trick,
    plays,
    n_played,
    first_leader,
    strain,
    taker,
    rules,
    search,
    work,
    feats,
):
    """The ``expert`` card of the player to move: his hand and what everyone saw (the
    cards played, the announced declarations: ``declared`` (4,) cards of each seat's
    runs and carrés, shown once it has played; ``belote`` the suits of the announced
    belotes) go to ``expert_decide``; ``work`` (4, 4) int64 and ``feats``
    (MODEL_SCRATCH,) float64 are its scratch."""
    seat = (leader + n_in_trick) & 3
    expert_known(declared, belote, left, seat, n_played, first_leader, work[0])
    return expert_choice(
        params, left[seat], plays, n_played, first_leader, strain, taker,
        rules[R_RAISE_OVER_PARTNER], rules[R_UNDERTRUMP], search[0], search[1], search[2], work,
        feats,
    )  # fmt: skip


@lean_kernel(inline="never")
def expert_move(
    params,
    dealt,
    played,
    declared_lo,
    declared_hi,
    belote,
    leader,
    n_in_trick,
    plays,
    n_played,
    first_leader,
    strain,
    taker,
    rules,
    search,
):
    """``expert_play`` from ``play_deal``'s state (``dealt`` hands, ``played`` mask, the
    declared cards of seats 0, 1 in ``declared_lo`` and 2, 3 in ``declared_hi``, 32
    bits each).  Its arrays are the scratch of ``search`` (``play.search_buffers``), so
    that a deal allocates nothing and passes no reference-counted array around."""
    # scratch rows 0..3: the expert's work, row 4: the hands left, row 5: the
    # declared cards
    scratch = search[3]
    for s in range(4):
        scratch[4, s] = dealt[s] & ~played
    scratch[5, 0] = declared_lo & 0xFFFFFFFF
    scratch[5, 1] = (declared_lo >> 32) & 0xFFFFFFFF
    scratch[5, 2] = declared_hi & 0xFFFFFFFF
    scratch[5, 3] = (declared_hi >> 32) & 0xFFFFFFFF
    return expert_play(
        params,
        scratch[4],
        scratch[5],
        belote,
        leader,
        n_in_trick,
        plays,
        n_played,
        first_leader,
        strain,
        taker,
        rules,
        search,
        scratch[:4],
        search[4],
    )
