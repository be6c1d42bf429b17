"""Bit helpers on card masks (kernels/bits.py) against plain Python bit lists."""

import numpy as np
import pytest

from belote_sim.kernels.bits import (
    FAST_PDEP,
    lowest_card,
    nth_card,
    nth_card_loop,
    nth_card_pdep,
    popcount,
)


def _masks():
    rng = np.random.default_rng(16)
    masks = [1, 1 << 31, 0xFFFFFFFF, 0x80000001, 0x01010101, 0xFCFCFCFC]
    for size in (1, 2, 5, 8, 13, 24, 31):
        for _ in range(40):
            cards = rng.choice(32, size=size, replace=False)
            masks.append(int(sum(1 << int(c) for c in cards)))
    return masks


@pytest.mark.parametrize(
    "select",
    [nth_card, nth_card_loop]
    + (
        [nth_card_pdep]
        if FAST_PDEP
        else [pytest.param(nth_card_pdep, marks=pytest.mark.skip("no fast pdep here"))]
    ),
)
def test_nth_card_is_the_nth_set_bit(select):
    for mask in _masks():
        bits = [c for c in range(32) if (mask >> c) & 1]
        assert popcount(mask) == len(bits)
        assert lowest_card(mask) == bits[0]
        for n, card in enumerate(bits):
            assert select(mask, n) == card, (hex(mask), n)
