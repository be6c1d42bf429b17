"""Numba kernels: every ``@njit`` function of belote_sim lives in this package.

Kernels take and return only scalars, numpy arrays and tuples (no Python objects),
so they can run by the million in nopython mode.  Public, validating wrappers are in
the modules one level up (``cards``, ``rules``, ``replay`` ...).
"""

from belote_sim.kernels import _cache

_cache.install()

__all__: list[str] = []
