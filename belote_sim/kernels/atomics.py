"""An atomic counter for the threads of a parallel kernel (numba offers none).

``fetch_add`` lets the threads of a ``prange`` take blocks of work one at a time
from a shared counter, so a thread slowed down by another process (or by the Parquet
writer of ``simulate -o``) takes fewer blocks instead of holding the others up at the
end of a static split.  It is an intrinsic built from numba internals
(``numba_internals``); there is no safe fallback (a plain add would hand a block to two
threads), so a numba without them fails here, at import, with an ``ImportError`` that
names its version.
"""

from belote_sim.kernels.numba_internals import fetch_add, require

__all__ = ["fetch_add"]

require("atomic")
