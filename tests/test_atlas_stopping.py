"""The atlas's stopping rule as a law (``simulation.stopping``), checked against a
brute-force enumeration of every sequence of made/failed deals."""

import itertools

import numpy as np
import pytest

from belote_sim.simulation.stopping import P_GRID, corrected_p, p_rule_max, stopping_law

FIRST, SE, MAX, ROUNDS = 4, 0.2, 8, 4  # want = ceil(q (1 - q) / 0.04) <= 7 deals


def enumerate_rule(p):
    """{(n, made): probability} of the rule, written out directly: every sequence of
    MAX deals, the rule reading its prefix round by round."""
    law = {}
    for seq in itertools.product((0, 1), repeat=MAX):
        weight = p ** sum(seq) * (1 - p) ** (MAX - sum(seq))
        n = FIRST
        for _ in range(ROUNDS - 1):
            made = sum(seq[:n])
            q = (made + 0.5) / (n + 1)
            want = min(int(np.ceil(q * (1 - q) / SE**2)), MAX)
            if want <= n:
                break
            n = want
        key = (n, sum(seq[:n]))
        law[key] = law.get(key, 0.0) + weight
    return law


@pytest.mark.parametrize("p", [0.3, 0.5, 0.8, 0.95])
def test_law_matches_enumeration(p):
    law = stopping_law(FIRST, SE, MAX, ROUNDS)
    col = int(np.argmin(abs(P_GRID - p)))
    assert P_GRID[col] == pytest.approx(p)
    exact = enumerate_rule(p)
    assert sum(exact.values()) == pytest.approx(1.0)
    for n in range(FIRST, p_rule_max(FIRST, SE, MAX) + 1):
        cells = {x: w for (m, x), w in exact.items() if m == n}
        prob = sum(cells.values())
        assert law.prob[n - FIRST, col] == pytest.approx(prob, abs=1e-12)
        if prob > 1e-9:
            mean = sum(w * x / n for x, w in cells.items()) / prob
            var = sum(w * (x / n) ** 2 for x, w in cells.items()) / prob - mean**2
            assert law.mean[n - FIRST, col] == pytest.approx(mean, abs=1e-9)
            assert law.var[n - FIRST, col] == pytest.approx(var, abs=1e-9)


def test_corrected_p_inverts_the_conditional_mean():
    """A cell whose estimate equals its conditional mean at p is given back p."""
    law = stopping_law(FIRST, SE, MAX, ROUNDS)
    col = int(np.argmin(abs(P_GRID - 0.8)))
    n = int(np.nanargmax(law.prob[:, col])) + FIRST
    target = law.mean[n - FIRST, col]
    p, se, done = corrected_p(np.array([target * n]), np.array([n]), law)
    assert done[0] and p[0] == pytest.approx(0.8, abs=0.01) and se[0] > 0
