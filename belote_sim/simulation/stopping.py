"""The atlas's stopping rule as a law: what a cell's P(made) estimate is, given the
number of deals it stopped at.

An atlas build (``belote_sim.atlas``) gives every cell ``first`` deals, then tops a
cell up, round after round, to ``min(ceil(q (1 - q) / se_target**2), max_deals)``
deals with q = (made + 0.5) / (n + 1) of the deals so far, for at most ``rounds``
rounds in all (the P(made) rule; ``atlas.needed_deals``).  Where that rule alone
decides, the number of deals a cell ends with, N, is a function of its made counts,
and so the estimate p^ = made / N is biased *given* N (a first round that came out
far from 1/2 stops the cell early): unbiased over all cells, biased per cell.

``stopping_law`` computes, exactly, for a grid of true P(made) values p, the joint law
of (N, made) under that rule (a dynamic programme over the states (n, made) of the
rounds: a binomial step per top-up) and from it, per final N = n, P(N = n; p),
g(n, p) = E[p^ | N = n; p] and Var(p^ | N = n; p).  ``corrected_p`` inverts g: the
conditionally unbiased-in-the-mean estimate (the p whose conditional mean is the
estimate seen), with the standard error of the delta method, sqrt(Var) / g' (a diagnostic: the atlas
publishes the empirical Bayes values of ``simulation.atlas_prior`` instead, since this
inversion inflates the s.e. where the first round holds most of the information).
Assumptions: deals are independent, made ~ Bernoulli(p); only the P(made) rule
decided N (true for every cell of N <= ``p_rule_max``: the net-MP rule of a build,
where it fires, asks for more deals than that -- the shipped atlases hold no cell
between 626 and 1000 deals).  The derivation and the measured check are in
docs/atlas.md ("Per-cell values and the stopping rule").
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

__all__ = ["P_GRID", "StoppingLaw", "corrected_p", "p_rule_max", "stopping_law", "want_deals"]

#: The grid of true P(made) values the law is computed on.
P_GRID = np.linspace(0.0, 1.0, 401)
#: States of the programme with less mass than this at every p are dropped.
_PRUNE = 1e-14


def want_deals(made: np.ndarray, n: np.ndarray, se_target: float, max_deals: int) -> np.ndarray:
    """The deals the P(made) rule wants a cell of ``n`` deals and ``made`` made to have
    (``atlas.needed_deals`` without its net-MP part: the same floating-point
    operations, so the same integers)."""
    n = np.asarray(n, dtype=np.float64)
    p = (np.asarray(made, dtype=np.float64) + 0.5) / (n + 1.0)
    return np.minimum(np.ceil(p * (1 - p) / se_target**2), max_deals).astype(np.int64)


def p_rule_max(first: int, se_target: float, max_deals: int) -> int:
    """The most deals the P(made) rule alone gives a cell: a cell with more had the
    net-MP rule decide."""
    return max(first, min(math.ceil(0.25 / se_target**2), max_deals))


@dataclass(frozen=True)
class StoppingLaw:
    """Per final number of deals n (row ``n - first``) and true p (column, ``P_GRID``):
    ``prob`` P(N = n; p), ``mean`` E[p^ | N = n; p], ``var`` Var(p^ | N = n; p); NaN
    where P(N = n; p) is 0 (or too small to condition on)."""

    first: int
    prob: np.ndarray
    mean: np.ndarray
    var: np.ndarray


def _log_factorials(n: int) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))])


def _binomial_pmfs(m: int, logf: np.ndarray) -> np.ndarray:
    """pmf of Binomial(m, p) for every p of ``P_GRID``: (len(P_GRID), m + 1)."""
    k = np.arange(m + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lp, lq = np.log(P_GRID)[:, None], np.log1p(-P_GRID)[:, None]
        log = logf[m] - logf[k] - logf[m - k] + k * lp + (m - k) * lq
        # 0 * log 0 = 0 at p = 0 and p = 1
        log = np.where((k == 0) & (P_GRID[:, None] == 0.0), logf[m] - logf[m] + m * lq, log)
        log = np.where((k == m) & (P_GRID[:, None] == 1.0), k * lp, log)
    pmf = np.exp(log)
    pmf[~np.isfinite(pmf)] = 0.0
    return pmf


@functools.lru_cache(maxsize=8)
def stopping_law(first: int, se_target: float, max_deals: int, rounds: int) -> StoppingLaw:
    """The exact law of the P(made) rule (module docstring) for a build's parameters:
    ``first`` deals in round 0, then at most ``rounds - 1`` top-up rounds, each to
    ``want_deals`` deals (``se_target`` the standard error aimed at, ``max_deals`` the
    cap)."""
    top = p_rule_max(first, se_target, max_deals)
    logf = _log_factorials(top)
    pmfs: dict[int, np.ndarray] = {}

    def pmf(m: int) -> np.ndarray:
        if m not in pmfs:
            pmfs[m] = _binomial_pmfs(m, logf)
        return pmfs[m]

    active = {first: pmf(first).copy()}  # n -> mass (len(P_GRID), n + 1) over made
    final = {n: np.zeros((len(P_GRID), n + 1)) for n in range(first, top + 1)}
    for _ in range(rounds - 1):
        nxt: dict[int, np.ndarray] = {}
        for n, mass in active.items():
            made = np.arange(n + 1)
            want = want_deals(made, np.full(n + 1, n), se_target, max_deals)
            live = mass.max(axis=0) > _PRUNE
            stop = (want <= n) & live
            final[n][:, stop] += mass[:, stop]
            for x in np.flatnonzero((want > n) & live):
                w = int(want[x])
                if w not in nxt:
                    nxt[w] = np.zeros((len(P_GRID), w + 1))
                at_p = np.flatnonzero(mass[:, x] > _PRUNE)  # the p at which it lives
                nxt[w][at_p, x : x + w - n + 1] += mass[at_p, x, None] * pmf(w - n)[at_p]
        active = nxt
        if not active:
            break
    for n, mass in active.items():  # the last round's cells stop where they are
        final[n] += mass
    rows = top - first + 1
    prob = np.zeros((rows, len(P_GRID)))
    mean = np.full((rows, len(P_GRID)), np.nan)
    var = np.full((rows, len(P_GRID)), np.nan)
    for n, mass in final.items():
        p_hat = np.arange(n + 1) / float(n)
        total = mass.sum(axis=1)
        prob[n - first] = total
        ok = total > 1e-12
        m1 = mass[ok] @ p_hat / total[ok]
        m2 = mass[ok] @ (p_hat * p_hat) / total[ok]
        mean[n - first, ok] = m1
        var[n - first, ok] = np.maximum(m2 - m1 * m1, 0.0)
    return StoppingLaw(first, prob, mean, var)


def corrected_p(
    made: np.ndarray, n: np.ndarray, law: StoppingLaw
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p, se, corrected) per cell of ``made`` made in ``n`` deals: p the value whose
    conditional mean given N = n is the estimate made / n (g(n, p) = made / n, g
    inverted on ``P_GRID`` by linear interpolation, clipped to the values g takes),
    se = sqrt(Var(p^ | N = n; p)) / g'(n, p) (the delta method), ``corrected``
    whether the cell was (n within the law's rows and the law defined there); cells
    not corrected keep made / n with se NaN."""
    made = np.asarray(made, dtype=np.float64)
    n = np.asarray(n, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_hat = made / n
    p_out = p_hat.astype(np.float64, copy=True)
    se_out = np.full(p_hat.shape, np.nan)
    done = np.zeros(p_hat.shape, dtype=bool)
    rows = law.mean.shape[0]
    flat_n, flat_p = n.ravel(), p_hat.ravel()
    p_flat, se_flat, done_flat = p_out.ravel(), se_out.ravel(), done.ravel()
    for value in np.unique(flat_n):
        row = int(value) - law.first
        if not 0 <= row < rows:
            continue
        for high in (False, True):  # each half of the grid: g is monotone there
            half = (P_GRID >= 0.5) if high else (P_GRID <= 0.5)
            ok = np.isfinite(law.mean[row]) & half
            at = (flat_n == value) & ((flat_p >= 0.5) == high)
            if ok.sum() < 2 or not at.any():
                continue
            grid = P_GRID[ok]
            g = np.maximum.accumulate(law.mean[row, ok])
            slope = np.gradient(g, grid)
            p = np.interp(flat_p[at], g, grid)
            d = np.interp(p, grid, slope)
            sd = np.sqrt(np.interp(p, grid, law.var[row, ok]))
            good = d > 0  # where g is flat the inversion says nothing: left as it is
            idx = np.flatnonzero(at)[good]
            p_flat[idx] = p[good]
            se_flat[idx] = sd[good] / d[good]
            done_flat[idx] = True
    return p_flat.reshape(p_hat.shape), se_flat.reshape(p_hat.shape), done_flat.reshape(p_hat.shape)
