"""The one place where numba's compile options are set."""

import functools
from typing import Any

import numba

from belote_sim.kernels._cache import CACHE

#: Decorator for every kernel: nopython, cached on disk, releases the GIL.
#: Typed ``Any`` for the type checker: a kernel's Python signature is its numba one.
kernel: Any = functools.partial(numba.njit, cache=CACHE, nogil=True)
