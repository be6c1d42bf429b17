"""The one place where numba's compile options are set."""

import functools
from typing import Any

import numba

from belote_sim.kernels._cache import CACHE
from belote_sim.kernels.numba_internals import nrt_option

#: Decorator for every kernel: nopython, cached on disk, releases the GIL.
#: Typed ``Any`` for the type checker: a kernel's Python signature is its numba one.
#: ``_nrt=True`` is explicit so that a kernel called from a ``lean_kernel`` keeps numba's
#: runtime (numba otherwise compiles callees with their caller's setting).
kernel: Any = functools.partial(numba.njit, cache=CACHE, nogil=True, **nrt_option(True))

#: Decorator for hot kernels that allocate nothing: numba's reference counting is left
#: out (``_nrt=False``), so an array argument or view costs no atomic incref/decref
#: (each a locked instruction, ~9 ns on the 2-core development machine, and a cache
#: line both threads fight over for a shared array such as ``rules``).  Such a kernel
#: must not create an array, call a kernel that returns one, or return one itself.
#: Where numba does not take ``_nrt`` (``numba_internals.PROBES["nrt"]``), a plain kernel.
lean_kernel: Any = functools.partial(numba.njit, cache=CACHE, nogil=True, **nrt_option(False))

#: Decorator for the card models' float kernels: a ``lean_kernel`` whose ``fastmath`` is
#: limited to no NaN or infinity and the sign of zero ignored, so ``max`` and the
#: element-wise loops vectorise; but no reassociation or fused multiply-add
#: (``reassoc``, ``contract``, ``fast``).  Those let LLVM sum in an order that depends on
#: where a kernel is inlined and how it was compiled, and a score that differs in its
#: last bit can flip a near-tie between two cards: the same deal then plays differently
#: in two processes (a Dask worker and the client).  Here a score is the same to the bit
#: wherever it is computed.
exact_float_kernel: Any = functools.partial(lean_kernel, fastmath={"nnan", "ninf", "nsz"})

__all__ = [
    "exact_float_kernel",
    "kernel",
    "lean_kernel",
]
