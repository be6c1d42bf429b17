"""Per-cell atlas values that do not depend on when the cell stopped: empirical Bayes.

An atlas build stops each cell adaptively (``atlas.needed_deals``), so a cell's plain
estimate made / n is biased *given* the n it stopped at (``simulation.stopping`` gives
the exact law of that rule).  A Bayesian estimate is not: the stopping rule depends
only on the deals already seen, so the likelihood of a cell's deals is
p**made (1 - p)**(n - made) whatever the rule (the likelihood principle), and the
posterior mean E[p | made, n] under the prior that is the distribution of true P(made)
among the cells is unbiased given any function of the data, its final n included:
E[p - E[p | data] | n] = 0.  The prior is estimated from the atlas itself, per strain
kind, as the nonparametric maximum-likelihood mixing distribution on ``GRID``
(``fit_prior``: EM from the uniform distribution, ``EM_STEPS`` steps; the same
binomial likelihood, so the stopping rule is ignorable there too).

Net MP follows P(made): given the made counts that decided n, E[net | made counts] =
mu0 + (made / n) delta with delta = E[net | made] - E[net | not made], so the
stopping bias of net MP is delta times that of P(made), and the corrected value is
net - delta (made / n - p_post).  The sums do not hold the cross moment of net and
made; delta comes from the structure of MP scoring instead: doubled, the side that
wins takes the whole pool of the deal twice (net x2 = +-2 pool), so the root mean
square of the pool is P = sqrt(E[net_x2**2] / 4), a failed contract at level x (1, 2,
4) nets about -x P, and delta_x = (mean net_x + x P) / p (0 at least).  Where net x2
was not scored (its squares 0) delta_x = sqrt(var(net_x) / (p (1 - p))), the
two-point bound.  Its standard error: sqrt((var(net) - delta**2 p (1 - p)) / n +
delta**2 sd_post**2) (the part of the deals' spread that is not made-or-not, and the
posterior's).  docs/atlas.md ("Per-cell values and the stopping rule") gives the
check against fresh deals.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import numpy as np

from belote_sim.kernels import atlas as KA

__all__ = [
    "DIGITS",
    "EM_STEPS",
    "GRID",
    "PRIOR_DIR",
    "corrected_stats",
    "fit_prior",
    "posterior_p",
    "prior_path",
    "save_priors",
    "sums_digest",
    "table_priors",
]

#: The grid of P(made) values the prior lives on (midpoints of 500 equal bins).
GRID = (np.arange(500) + 0.5) / 500
#: EM steps of ``fit_prior`` from the uniform distribution.
EM_STEPS = 300
#: Where the priors of the shipped atlases are kept (one file per atlas file).
PRIOR_DIR = Path(__file__).resolve().parent.parent / "data" / "priors"
#: Decimals the corrected values are rounded to.
DIGITS = 9
_LOG_P, _LOG_Q = np.log(GRID), np.log1p(-GRID)
_CHUNK = 8192


def _likelihood(made: np.ndarray, n: np.ndarray) -> np.ndarray:
    """p**made (1 - p)**(n - made) on ``GRID``, each row scaled to a maximum of 1."""
    log = made[:, None] * _LOG_P + (n - made)[:, None] * _LOG_Q
    return np.exp(log - log.max(axis=1, keepdims=True))


def fit_prior(made: np.ndarray, n: np.ndarray, steps: int = EM_STEPS) -> np.ndarray:
    """The distribution on ``GRID`` of true P(made) among cells of ``made`` made in
    ``n`` deals (n > 0): the mixing distribution's maximum-likelihood estimate by
    ``steps`` EM steps from the uniform distribution (cells of equal (made, n)
    counted once, with their count)."""
    pairs, counts = np.unique(
        np.stack([np.asarray(made, np.float64), np.asarray(n, np.float64)], 1),
        axis=0,
        return_counts=True,
    )
    lik = _likelihood(pairs[:, 0], pairs[:, 1])
    prior = np.full(len(GRID), 1.0 / len(GRID))
    weight = counts / counts.sum()
    for _ in range(steps):
        prior = prior * ((weight / (lik @ prior)) @ lik)
    return prior / prior.sum()


def _seq_sum(a: np.ndarray) -> np.ndarray:
    """Row sums added left to right (the order the hand page's loops add in)."""
    return np.cumsum(a, axis=1)[:, -1]


def posterior_p(
    made: np.ndarray, n: np.ndarray, prior: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(mean, sd, low, high) of P(made) given ``made`` made in ``n`` deals (arrays of
    one shape; n > 0) under ``prior`` on ``GRID``: the posterior mean, standard
    deviation and 95% interval (its 2.5% and 97.5% quantiles, linear within the bins
    of the grid).  Sums are added left to right, as the hand page does.  Each distinct
    (made, n) is computed once (an atlas's cells share a few thousand of them)."""
    pairs, back = np.unique(
        np.stack([np.asarray(made, np.float64).ravel(), np.asarray(n, np.float64).ravel()], 1),
        axis=0,
        return_inverse=True,
    )
    back = back.ravel()
    mean, sd, low, high = _posterior_rows(pairs[:, 0], pairs[:, 1], prior)
    return mean[back], sd[back], low[back], high[back]


def _posterior_rows(
    made: np.ndarray, n: np.ndarray, prior: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``posterior_p`` of each (made, n) pair, row by row."""
    out = [np.empty(len(made)) for _ in range(4)]
    edges = np.concatenate([[0.0], (GRID[1:] + GRID[:-1]) / 2, [1.0]])
    for start in range(0, len(made), _CHUNK):
        part = slice(start, start + _CHUNK)
        post = _likelihood(made[part], n[part]) * prior
        post /= _seq_sum(post)[:, None]
        mean = _seq_sum(post * GRID)
        out[0][part] = mean
        out[1][part] = np.sqrt(np.maximum(_seq_sum(post * (GRID * GRID)) - mean * mean, 0.0))
        cdf = np.concatenate([np.zeros((len(post), 1)), np.cumsum(post, axis=1)], axis=1)
        rows = np.arange(len(post))
        for k, q in ((2, 0.025), (3, 0.975)):
            i = np.clip((cdf < q).sum(axis=1), 1, len(GRID))  # the bin holding q
            lo, hi = cdf[rows, i - 1], cdf[rows, i]
            width = hi - lo
            frac = np.where(width > 0, (q - lo) / np.where(width > 0, width, 1.0), 0.5)
            out[k][part] = edges[i - 1] + frac * (edges[i] - edges[i - 1])
    return out[0], out[1], out[2], out[3]


def corrected_stats(sums: np.ndarray, prior: np.ndarray) -> dict[str, np.ndarray]:
    """The corrected values of cells (sums (..., NUM_FIELDS), n > 0 everywhere;
    ``prior`` on ``GRID`` for their strain kind): ``p_made`` (posterior mean),
    ``p_made_se`` (posterior sd), ``p_made_low``/``p_made_high`` (95% posterior
    interval), and for x = 1, 2, 4 ``net_mp_x`` and ``net_mp_x_se`` (MP per deal; module
    docstring).  Rounded to ``DIGITS`` decimals (the hand page computes the same
    numbers; its exp may differ from numpy's in the last bit)."""
    s = np.asarray(sums, dtype=np.float64)
    shape = s.shape[:-1]
    s = s.reshape(-1, s.shape[-1])
    n, made = s[:, KA.F_N], s[:, KA.F_MADE]
    mean, sd, low, high = posterior_p(made, n, prior)
    out = {"p_made": mean, "p_made_se": sd, "p_made_low": low, "p_made_high": high}
    pq = mean * (1.0 - mean)
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = made / n - mean
        pool = np.sqrt(s[:, KA.F_LEVEL + 6 + KA.L_NET2] / n / 4.0)  # the RMS pool (MP)
        for level, x in enumerate((1, 2, 4)):
            base = KA.F_LEVEL + 6 * level
            net = s[:, base + KA.L_NET] / n
            var = (s[:, base + KA.L_NET2] - n * net * net) / np.where(n > 1, n - 1, np.nan)
            var = np.maximum(var, 0.0)
            delta = np.where(pool > 0, np.maximum((net + x * pool) / mean, 0.0), np.sqrt(var / pq))
            out[f"net_mp_x{x}"] = net - delta * shift
            out[f"net_mp_x{x}_se"] = np.sqrt(
                np.maximum(var - delta * delta * pq, 0.0) / n + delta * delta * sd * sd
            )
    return {k: (np.round(v * 10.0**DIGITS) / 10.0**DIGITS).reshape(shape) for k, v in out.items()}


def sums_digest(sums: list[np.ndarray]) -> str:
    """SHA-256 (hex) of an atlas's sums (the three kinds, as int64): what a prior file
    was fitted to."""
    digest = hashlib.sha256()
    for part in sums:
        digest.update(np.ascontiguousarray(part, dtype=np.int64).tobytes())
    return digest.hexdigest()


def prior_path(atlas_path: str | os.PathLike) -> Path:
    """The prior file kept for an atlas file: ``PRIOR_DIR / <its name>``."""
    return PRIOR_DIR / Path(atlas_path).name


def _fit_table(sums: list[np.ndarray]) -> np.ndarray:
    priors = np.full((3, len(GRID)), 1.0 / len(GRID))
    for k, part in enumerate(sums):
        cells = part.reshape(-1, part.shape[-1])
        cells = cells[cells[:, KA.F_N] > 0]
        if len(cells):
            priors[k] = fit_prior(cells[:, KA.F_MADE], cells[:, KA.F_N])
    return priors


_FITTED: dict[str, np.ndarray] = {}

#: The priors of the last few tables asked for, by the identities of their sums arrays
#: (each entry keeps its arrays, whose ids are therefore not reused while it is here):
#: ``sums_digest`` reads every cell of an atlas (~50 ms), and ``table_stats`` asks for
#: the priors at each lookup.
_BY_SUMS: dict[tuple[int, ...], tuple[list[np.ndarray], np.ndarray]] = {}


def table_priors(table: Any) -> np.ndarray:
    """The priors (3 kinds, ``GRID``) of an atlas table: read from its prior file
    (``prior_path``) when that file was fitted to these very sums (``sums_digest``),
    else fitted now (``fit_prior`` per kind: about 20 s for a full atlas) and kept for
    the process.  A table's sums are read once: an atlas table's sums do not change
    after it is made (``AtlasTable.kernel_arrays`` keeps its arrays the same way)."""
    sums = list(table.sums)
    ids = tuple(id(part) for part in sums)
    hit = _BY_SUMS.get(ids)
    if hit is not None and all(a is b for a, b in zip(hit[0], sums, strict=True)):
        return hit[1]
    priors = _priors_of(table)
    if len(_BY_SUMS) >= 8:
        _BY_SUMS.pop(next(iter(_BY_SUMS)))
    _BY_SUMS[ids] = (sums, priors)
    return priors


def _priors_of(table: Any) -> np.ndarray:
    """``table_priors`` by the digest of the table's sums."""
    digest = sums_digest(table.sums)
    if digest in _FITTED:
        return _FITTED[digest]
    priors = None
    if table.path:
        path = prior_path(table.path)
        if path.exists():
            with np.load(path, allow_pickle=False) as z:
                if str(z["digest"]) == digest and z["grid"].shape == GRID.shape:
                    priors = np.array(z["priors"], dtype=np.float64)
    if priors is None:
        priors = _fit_table(table.sums)
    _FITTED[digest] = priors
    return priors


def save_priors(table: Any, path: str | os.PathLike) -> np.ndarray:
    """Fit the priors of an atlas table and write them to ``path`` (``.npz``: priors,
    grid, the digest of the sums they were fitted to); returns them."""
    priors = _fit_table(table.sums)
    np.savez_compressed(path, priors=priors, grid=GRID, digest=np.array(sums_digest(table.sums)))
    return priors
