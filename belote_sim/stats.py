"""Interval statistics shared by every layer that reports a rate or a mean.

Intervals are 95%: Wilson score intervals for proportions (``wilson_interval``) and
normal intervals, mean ± ``Z95`` standard errors, for means.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["Z95", "holm_reject", "mean_se", "p_above_zero", "wilson_interval"]

#: Two-sided 95% normal quantile (every interval of the reports, the atlas and the CLI).
Z95 = 1.959963984540054


def mean_se(x: Any) -> tuple[float, float]:
    """Mean of the values ``x`` and its standard error (NaN without values, s.e. NaN
    with one)."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    mean = float(x.mean()) if n else float("nan")
    se = float(x.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return mean, se


def wilson_interval(successes, n, z: float = Z95) -> tuple[Any, Any]:
    """Wilson score interval for a binomial proportion (arrays allowed; n = 0 -> NaN)."""
    successes = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = successes / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def p_above_zero(mean: float, se: float) -> float:
    """One-sided p-value of "the true mean is at most 0" for a normal estimate ``mean``
    with standard error ``se`` (same unit): small when ``mean`` is many s.e. above 0.
    ``se`` 0 (every deal the same): 0 when ``mean`` > 0, else 1."""
    if not se > 0:
        return 0.0 if mean > 0 else 1.0
    return 0.5 * math.erfc(mean / se / math.sqrt(2.0))


def holm_reject(p_values: Any, alpha: float = 0.05) -> np.ndarray:
    """Holm's step-down correction: which of ``p_values`` (one per hypothesis tried)
    are rejected with a family-wise error rate of at most ``alpha`` over all of them.
    The i-th smallest (i = 0, 1, ...) is compared with ``alpha / (m - i)``; the first
    that fails stops the rejections."""
    p = np.asarray(p_values, dtype=float)
    reject = np.zeros(len(p), dtype=bool)
    for i, k in enumerate(np.argsort(p, kind="stable")):
        if not p[k] <= alpha / (len(p) - i):
            break
        reject[k] = True
    return reject
