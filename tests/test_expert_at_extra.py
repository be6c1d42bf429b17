"""``expert``'s ``at_extra`` parameter: an earlier exact endgame in AT contracts only.

It must change nothing outside AT contracts, nothing without an endgame (``expert:0``,
the network alone, keeps its cards), and change some cards in AT contracts.
"""

import numpy as np

from belote_sim import simulate


def _cards(strain, play, n=120):
    df = simulate(n, bidding=f"fixed:0,{strain},0", play=play, seed=5, trick_log=True)
    cards = np.array([str(p).split() for p in df["plays"]])
    assert cards.shape == (n, 32)
    return cards, df["card_points0"].to_numpy()


def test_at_extra_changes_only_the_endgame_of_at_contracts():
    for strain in (2, 4):  # a suit and NT: the same cards
        a, _ = _cards(strain, "expert:2,4")
        b, _ = _cards(strain, "expert:2,4,32,0,3,3")
        assert np.array_equal(a, b)
    a, _ = _cards(5, "expert:0")  # no endgame at all: the network's cards, unchanged
    b, _ = _cards(5, "expert:0,4,32,0,3,3")
    assert np.array_equal(a, b)
    a, _ = _cards(5, "expert:2,4")
    b, _ = _cards(5, "expert:2,4,32,0,3,3")
    assert not np.array_equal(a, b)
    # the endgame starts at trick 4 instead of 7: the first three tricks are the same
    assert np.array_equal(a[:, :12], b[:, :12])
