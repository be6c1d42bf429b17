"""Suit symmetry: every deal is played under a random relabelling of the four suits.

The rules treat the four suits alike (the bidding order C < D < H < S aside, which the
play never sees), but a policy that breaks a tie by card or suit index does not: the
greedy player keeps the lowest of equal cards and the lowest of equally long side
suits, so two hands that differ only in which physical suits hold their cards would
play differently and, measured over many deals, score differently (issue 23: up to
+0.5 pp P(made) on the atlas's representative hands).  ``play.play_deal`` therefore
relabels each deal by a permutation of the suits drawn from the deal's own random
stream before any policy sees it, plays it, and maps every card back: each tie is
broken by a per-deal random suit order, and a hand's expected result does not depend
on its physical suits, whatever the play policy.  Results that do not name cards
(points, tricks, outcome, MP, declarations' points) are unchanged by the relabelling;
the recorded cards, hands, table and masks come back in the deal's own suits.

A permutation is an index 0..23 into ``SUIT_PERMS`` (suit ``s`` becomes
``SUIT_PERMS[k, s]``); ``INVERSE_PERM[k]`` is the index of its inverse.
"""

import itertools

import numpy as np

from belote_sim.kernels._jit import lean_kernel
from belote_sim.kernels.declarations import DECL_RUN_CARDS
from belote_sim.kernels.rng import random_below

#: The 24 permutations of the suits C D H S (row k: where each suit goes).
SUIT_PERMS = np.array(list(itertools.permutations(range(4))), dtype=np.int64)
#: Index of the inverse of permutation k.
INVERSE_PERM = np.array(
    [
        next(j for j in range(24) if all(SUIT_PERMS[j, SUIT_PERMS[k, s]] == s for s in range(4)))
        for k in range(24)
    ],
    dtype=np.int64,
)
NUM_SUIT_PERMS = 24


@lean_kernel(inline="always")
def random_suit_perm(state):
    """A uniformly random permutation index 0..23 (one draw of ``state``)."""
    return random_below(state, NUM_SUIT_PERMS)


@lean_kernel(inline="always")
def relabel_mask(mask, k):
    """The card mask ``mask`` with each suit ``s`` moved to ``SUIT_PERMS[k, s]``."""
    out = 0
    for s in range(4):
        out |= ((mask >> (8 * s)) & 0xFF) << (8 * SUIT_PERMS[k, s])
    return out


@lean_kernel(inline="always")
def relabel_card(card, k):
    """Card index ``card`` (0..31; anything else is returned as it is) relabelled."""
    if card < 0 or card > 31:
        return card
    return (SUIT_PERMS[k, card >> 3] << 3) | (card & 7)


@lean_kernel(inline="always")
def relabel_suit_bits(bits, k):
    """A 4-bit set of suits relabelled."""
    out = 0
    for s in range(4):
        if (bits >> s) & 1:
            out |= 1 << SUIT_PERMS[k, s]
    return out


@lean_kernel(inline="always")
def relabel_strain(strain, k):
    """A strain 0..5: a suit is relabelled, NT and AT stay."""
    if 0 <= strain < 4:
        return SUIT_PERMS[k, strain]
    return strain


@lean_kernel(inline="always")
def relabel_deal_in(deal, k, open_table):
    """Relabel what a ``records.DEAL`` record gives the play loop: hands, strain, the
    recorded cards (``cards[:n_given]``) and, in open belot, the table."""
    deal.strain = relabel_strain(deal.strain, k)
    for seat in range(4):
        deal.hands[seat] = relabel_mask(deal.hands[seat], k)
    for i in range(deal.n_given):
        deal.cards[i] = relabel_card(deal.cards[i], k)
    if open_table:
        relabel_table(deal, k)


@lean_kernel(inline="always")
def relabel_deal_out(deal, k, open_table):
    """Relabel back every field of a played record that names a card or a suit: the
    inputs (``relabel_deal_in``), the cards played or recorded, the declared cards and
    runs, the belote suits and the next legal cards."""
    deal.strain = relabel_strain(deal.strain, k)
    for seat in range(4):
        deal.hands[seat] = relabel_mask(deal.hands[seat], k)
        deal.declared_cards[seat] = relabel_mask(deal.declared_cards[seat], k)
        deal.declarations[seat, DECL_RUN_CARDS] = relabel_mask(
            deal.declarations[seat, DECL_RUN_CARDS], k
        )
        deal.belote_suits[seat] = relabel_suit_bits(deal.belote_suits[seat], k)
    # the cards played and the whole record (a recorded card that broke a rule is
    # card n_played < n_given)
    n = deal.n_given if deal.n_given > deal.n_played else deal.n_played
    for i in range(n):
        deal.cards[i] = relabel_card(deal.cards[i], k)
    deal.next_legal = relabel_mask(deal.next_legal, k)
    if open_table:
        relabel_table(deal, k)


@lean_kernel(inline="always")
def relabel_table(deal, k):
    """Open belot's table cards relabelled."""
    for seat in range(2):
        for pile in range(4):
            for layer in range(2):
                deal.table[seat, pile, layer] = relabel_card(deal.table[seat, pile, layer], k)


__all__ = [
    "INVERSE_PERM",
    "NUM_SUIT_PERMS",
    "SUIT_PERMS",
    "random_suit_perm",
    "relabel_card",
    "relabel_deal_in",
    "relabel_deal_out",
    "relabel_mask",
    "relabel_strain",
    "relabel_suit_bits",
    "relabel_table",
]
