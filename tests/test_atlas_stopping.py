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


def _simulate_cells(rng, p, first=200, se_target=0.02, max_deals=625, rounds=4):
    """A separately written simulation of the build's P(made) rule on deals scored as
    MP scoring does: a pool of points per deal; made, the taker's team gets its share
    and the defenders the rest; failed, the defenders get the pool; doubled (x2, x4)
    the winner gets the pool twice (four times).  The sums as the atlas keeps them."""
    from belote_sim.kernels import atlas as KA

    sums = np.zeros((len(p), KA.NUM_FIELDS))
    for i, pi in enumerate(p):
        made = rng.random(max_deals) < pi
        pool = rng.normal(20.0, 2.0, max_deals)
        share = np.clip(rng.normal(0.7, 0.1, max_deals), 0.0, 1.0) * pool
        nets = {
            1: np.where(made, 2 * share - pool, -pool),
            2: np.where(made, 2 * pool, -2 * pool),
            4: np.where(made, 4 * pool, -4 * pool),
        }
        n = first
        for _ in range(rounds - 1):
            q = (made[:n].sum() + 0.5) / (n + 1)
            want = min(int(np.ceil(q * (1 - q) / se_target**2)), max_deals)
            if want <= n:
                break
            n = want
        row = sums[i]
        row[KA.F_N], row[KA.F_MADE] = n, made[:n].sum()
        for level, x in enumerate((1, 2, 4)):
            base = KA.F_LEVEL + 6 * level
            row[base + KA.L_NET] = nets[x][:n].sum()
            row[base + KA.L_NET2] = (nets[x][:n] ** 2).sum()
    return sums


def test_posterior_mean_with_a_uniform_prior_is_laplace():
    """Uniform prior: the posterior is Beta(made + 1, n - made + 1), mean (made + 1) /
    (n + 2) (exact, up to the grid)."""
    from belote_sim.simulation.atlas_prior import GRID, posterior_p

    made, n = np.array([0, 3, 150, 200]), np.array([200, 10, 300, 200])
    mean, sd, low, high = posterior_p(made, n, np.full(len(GRID), 1.0 / len(GRID)))
    a, b = made + 1.0, n - made + 1.0
    assert mean == pytest.approx(a / (a + b), abs=2e-4)
    assert sd == pytest.approx(np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1))), rel=0.02)
    assert (sd > 0).all() and (low < mean).all() and (mean < high).all()


def test_published_values_are_unbiased_given_the_stopping_n():
    """Cells of known true P(made) (drawn from a known prior), stopped by the rule:
    the plain P(made) and net MP are biased given n, the posterior values are not."""
    from belote_sim.simulation.atlas_prior import GRID, corrected_stats

    rng = np.random.default_rng(7)
    prior = np.exp(-0.5 * ((GRID - 0.75) / 0.15) ** 2)
    prior /= prior.sum()
    p = rng.choice(GRID, size=6000, p=prior)
    sums = _simulate_cells(rng, p)
    n, made = sums[:, 0], sums[:, 1]
    true_net = p * (2 * 0.7 * 20.0 - 20.0) + (1 - p) * -20.0  # E[share] = 0.7 pool
    fixed = corrected_stats(sums, prior)
    early = n == 200  # stopped at once: their first deals came out far from 1/2
    assert early.sum() > 300
    plain = (made - n * p) / np.sqrt(n * p * (1 - p))
    assert plain[early].mean() > 0.25  # the bias (in s.e.) the correction must remove
    for value, truth, se in (
        (fixed["p_made"], p, fixed["p_made_se"]),
        (fixed["net_mp_x1"], true_net, fixed["net_mp_x1_se"]),
        (fixed["net_mp_x2"], 40.0 * (2 * p - 1), fixed["net_mp_x2_se"]),
    ):
        for m in (early, n == 625, (n > 200) & (n < 625)):
            z = (value[m] - truth[m]) / se[m]
            assert abs(z.mean()) < 3 / np.sqrt(m.sum()) + 0.03, (m.sum(), z.mean())
            assert 0.8 < z.std() < 1.2
