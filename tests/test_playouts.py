"""Random legal playouts: invariants (docs/rules.md sections 2, 5, 7)."""

import numpy as np
import pytest
import reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from belote_sim import Rules, replay
from belote_sim.deal.playout import random_record
from belote_sim.kernels.playouts import random_playouts

TOTALS = {"C": 162, "D": 162, "H": 162, "S": 162, "NT": 130, "AT": 258}


@pytest.mark.parametrize("ruleset", ["common", "bulgarian", "french"])
def test_random_playouts_use_32_distinct_legal_cards(ruleset):
    rules = (
        Rules.preset(ruleset, french_allow_nt_at=True)
        if ruleset == "french"
        else Rules.preset(ruleset)
    )
    for seed in range(300):
        rec = random_record(seed, rules)
        plays = rec["plays"]
        assert len(plays) == 32 and len(set(plays)) == 32
        assert set(plays) == {c for h in rec["hands"] for c in h.split()}
        # every card legal per the reference, replaying step by step
        hands = [set(h.split()) for h in rec["hands"]]
        leader = (rec["dealer"] + 1) % 4
        strain = rec["contract"]["strain"]
        ref_rules = {"ruleset": ruleset, "options": rec["options"]}
        for t in range(8):
            trick = plays[4 * t : 4 * t + 4]
            for pos, card in enumerate(trick):
                seat = (leader + pos) % 4
                assert card in ref.legal_cards(hands[seat], trick[:pos], leader, strain, ref_rules)
                hands[seat].remove(card)
            leader = ref.trick_winner(trick, leader, strain)
        out = replay(rec)
        assert sum(out["card_points"]) == TOTALS[strain]
        assert out["illegal"] is None and out["to_play"] is None
        assert sum(1 for t in out["tricks"] if t["winner"] is not None) == 8


def test_kernel_playout_totals_and_determinism():
    rules = Rules.preset("common").to_array()
    n = 20_000
    out = np.zeros((n, 8), dtype=np.int64)
    random_playouts(n, 5, rules, out)
    totals = np.array([162, 162, 162, 162, 130, 258])[out[:, 0]]
    assert np.array_equal(out[:, 1] + out[:, 2], totals)
    # raw >= card points (declarations and belote only add; NT doubles)
    factor = np.where(out[:, 0] == 4, 2, 1)
    assert np.all(out[:, 3] >= factor * out[:, 1]) and np.all(out[:, 4] >= factor * out[:, 2])
    again = np.zeros_like(out)
    random_playouts(n, 5, rules, again)
    assert np.array_equal(out, again)
    # every strain appears, each about 1/6 of the time
    counts = np.bincount(out[:, 0], minlength=6)
    assert np.all(np.abs(counts - n / 6) < 5 * np.sqrt(n / 6))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**40), cut=st.integers(0, 32))
def test_partial_replay_next_decision_matches_full(seed, cut):
    """Replaying a prefix gives the legal set that contains the card actually played next."""
    rec = random_record(seed, "bulgarian")
    full = rec["plays"]
    out = replay(dict(rec, plays=full[:cut]))
    if cut == 32:
        assert out["legal"] is None and out["mp"] is not None
    else:
        assert full[cut] in out["legal"] and out["mp"] is None
        assert out["to_play"] is not None
        assert sum(len(t["cards"]) for t in out["tricks"]) == cut
