"""Reports a player reads: conditional exact values, report structure, CLI errors,
mirrored bidding studies."""

import numpy as np
import pytest

from belote_sim.analysis import exact
from belote_sim.analysis import report_tables as R
from belote_sim.simulation.runner import simulate

PREDEAL = {0: "JH 9H AH TS 7C"}
CONSTRAINT = {1: {"min": {"H": 3}, "max": {"S": 2}, "strength": (20, 60), "exclude": "AS"}}


def test_conditional_enumeration_without_conditions_is_the_closed_form():
    for size in (5, 8):
        assert exact.conditional_probabilities(2, size) == exact.closed_form(size)


def test_conditional_hand_by_hand_counting():
    # seat 0 holds J 9 A of hearts, TS, 7C and 3 cards of the other 27: a carré of aces
    # needs AC AD AS among them -> 1 / C(27, 3)
    probs = exact.conditional_probabilities(0, 8, PREDEAL)
    assert probs["carre_A"] == exact.Fraction(1, 2925)
    assert probs["carre_J"] == exact.Fraction(1, 2925)
    assert probs["carre_T"] == exact.Fraction(1, 2925)
    assert probs["carre_K"] == 0  # four kings do not fit in 3 cards
    # K+Q of hearts: both among the 3 -> 25 / C(27, 3)
    assert probs["kq_suit"] == exact.Fraction(25, 2925)
    # its bidding hand is the five predealt cards: no run, no carré, no K+Q of hearts
    bid = exact.conditional_probabilities(0, 5, PREDEAL)
    assert bid["run3"] == 0 and bid["carre_any"] == 0 and bid["kq_suit"] == 0
    # another seat with rejection constraints: not a single enumeration
    assert exact.conditional_probabilities(0, 8, None, CONSTRAINT) is None
    assert exact.conditional_probabilities(1, 5, None, CONSTRAINT) is None


@pytest.mark.parametrize("conditions", [dict(predeal=PREDEAL), dict(constraints=CONSTRAINT)])
def test_conditioned_study_within_4_se_of_conditional_exact(conditions):
    df = simulate(20_000, seed=5, bidding="fixed:0,2,0", play="random", **conditions)
    table = R.report_tables(df)["declarations"]
    assert "seat" in table.columns
    compared = table.dropna(subset=["exact"])
    assert len(compared) >= 11  # at least the constrained seat's 8-card hand
    bad = compared[compared["z"].abs() > 4]
    assert bad.empty, bad
    if "constraints" in conditions:
        # only seat 1's 8-card hand has a conditional law here; nothing else is compared
        assert set(compared["seat"]) == {1} and set(compared["scope"]) == {"hand8"}
    else:
        assert table.loc[table["scope"] != "team", "exact"].notna().all()
        assert table.loc[table["scope"] == "team", "exact"].isna().all()
