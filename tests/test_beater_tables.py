"""The mask tables used by the greedy policy agree with the card-by-card rules."""

import numpy as np

from belote_sim.kernels.core import beats
from belote_sim.kernels.greedy import is_master
from belote_sim.kernels.tables import BEATERS, HIGHER_IN_SUIT, WIN_KEY


def test_beaters_is_beats_for_every_card_trick_and_strain():
    for strain in range(6):
        for led in range(4):
            for win_card in range(32):
                for card in range(32):
                    in_mask = bool((int(BEATERS[strain, led, win_card]) >> card) & 1)
                    assert in_mask == bool(beats(card, win_card, led, strain))


def test_is_master_is_no_higher_card_of_its_suit_still_out():
    rng = np.random.default_rng(3)
    for out_mask in rng.integers(0, 2**32, size=200):
        for strain in range(6):
            for card in range(32):
                suit = card >> 3
                higher = [
                    c
                    for c in range(8 * suit, 8 * suit + 8)
                    if (int(out_mask) >> c) & 1 and WIN_KEY[strain, c] > WIN_KEY[strain, card]
                ]
                assert bool(is_master(card, int(out_mask), strain)) == (not higher)
    assert HIGHER_IN_SUIT.shape == (6, 32)
