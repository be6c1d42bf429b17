"""Uniform random playouts: the engine's benchmark and property-test loop."""

import numpy as np

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.dealing import shuffle_deal_into
from belote_sim.kernels.play import play_deal
from belote_sim.kernels.records import deal_record, keep_alive
from belote_sim.kernels.rng import random_below, reseed
from belote_sim.kernels.switchboard import MENU_RANDOM, policy_buffers
from belote_sim.kernels.tables import ALL_SEATS_MASK

#: The play policy id of ``random`` (``switchboard.PLAY_POLICIES``).
RANDOM_ID = 0


@kernel
def random_playouts(n_deals, seed, rules, out):
    """``n_deals`` uniform random deals played out (benchmarks, property tests).

    Each deal: uniform shuffle, random strain (C D H S NT AT), random taker and
    dealer, 32 uniformly random legal cards, declarations of all four hands, scoring
    to MP (undoubled).  Deal i is a pure function of ``(seed, i)``.  Fills ``out``
    (n_deals, 8) with strain, card0, card1, raw0, raw1, mp0, mp1, a checksum of the
    cards played.
    """
    cards = np.empty(32, dtype=np.int64)
    state = np.empty(1, dtype=np.uint64)
    deals = deal_record()
    deal = deals[0]
    policies = (
        np.full(4, RANDOM_ID, dtype=np.int64),
        np.zeros((4, 1), dtype=np.float64),
        np.zeros(0, dtype=MENU_RANDOM),
    )
    search = policy_buffers(1)
    for i in range(n_deals):
        reseed(state, seed * 0x100000001 + i)
        shuffle_deal_into(state, deal.hands, cards)
        strain = random_below(state, 6)
        taker = random_below(state, 4)
        dealer = random_below(state, 4)
        deal.leader = (dealer + 1) & 3
        deal.strain = strain
        deal.taker = taker
        deal.doubling = 0
        deal.announce = ALL_SEATS_MASK
        deal.n_given = 0
        play_deal(deal, policies, rules, state, search)
        checksum = 0
        for k in range(32):
            checksum = checksum * 31 + deal.cards[k] & 0xFFFFFFFF
        out[i, 0] = strain
        out[i, 1] = deal.card_points[0]
        out[i, 2] = deal.card_points[1]
        out[i, 3] = deal.raw[0]
        out[i, 4] = deal.raw[1]
        out[i, 5] = deal.mp[0]
        out[i, 6] = deal.mp[1]
        out[i, 7] = checksum
    keep_alive(deals)  # ``deal`` points into ``deals``


__all__ = [
    "RANDOM_ID",
    "random_playouts",
]
