"""Keep numba's on-disk cache of belote_sim kernels consistent across files.

numba's ``cache=True`` keys a compiled function on its *own* source file only, so a
kernel that calls (and inlines) a kernel from another file keeps its old machine
code after that other file is edited (numba issues around PRs #8396/#9563).  We
register cache locators that add a hash of *every* source file of this package to
the freshness stamp of our kernels: any edit anywhere in ``kernels/`` recompiles
all of them.  Functions outside this package are left to numba's own locators.
"""

import hashlib
import os
from pathlib import Path

from numba.core import caching

KERNELS_DIR = Path(__file__).resolve().parent


def _sources_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(KERNELS_DIR.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


SOURCES_HASH = _sources_hash()


def _is_ours(py_file: str) -> bool:
    try:
        return Path(py_file).resolve().parent == KERNELS_DIR
    except OSError:  # pragma: no cover - odd file systems
        return False


def _make_locator(base):
    class KernelSourcesLocator(base):
        def get_source_stamp(self):
            return (super().get_source_stamp(), SOURCES_HASH)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _is_ours(py_file):
                return None
            return super().from_function(py_func, py_file)

    KernelSourcesLocator.__name__ = "KernelSources" + base.__name__
    return KernelSourcesLocator


def install() -> None:
    """Put our locators in front of numba's (idempotent)."""
    classes = caching.CacheImpl._locator_classes
    if any(getattr(c, "_belote_sim", False) for c in classes):
        return
    ours = []
    for base in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator,
                 caching.UserWideCacheLocator):
        locator = _make_locator(base)
        locator._belote_sim = True
        ours.append(locator)
    classes[:0] = ours


#: Whether kernels are cached on disk; ``BELOTE_SIM_NO_CACHE=1`` turns it off.
CACHE = os.environ.get("BELOTE_SIM_NO_CACHE", "") in ("", "0")
