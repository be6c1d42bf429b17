"""Interval statistics shared by every layer that reports a rate or a mean.

Intervals are 95%: Wilson score intervals for proportions (``wilson_interval``) and
normal intervals, mean ± ``Z95`` standard errors, for means.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Z95", "wilson_interval"]

#: Two-sided 95% normal quantile (every interval of the reports, the atlas and the CLI).
Z95 = 1.959963984540054


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
