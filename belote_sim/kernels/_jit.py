"""The one place where numba's compile options are set."""

import functools

import numba

from belote_sim.kernels._cache import CACHE

#: Decorator for every kernel: nopython, cached on disk, releases the GIL.
kernel = functools.partial(numba.njit, cache=CACHE, nogil=True)
