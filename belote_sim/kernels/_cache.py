"""Keep numba's on-disk cache of belote_sim kernels consistent across files.

numba's ``cache=True`` keys a compiled function on its *own* source file only, so a
kernel that calls (and inlines) a kernel from another file keeps its old machine
code after that other file is edited (numba issues around PRs #8396/#9563).  We
register cache locators that add a hash of *every* source file of this package --
subpackages such as ``kernels/solver/`` included -- to the freshness stamp of our
kernels: any edit anywhere under ``kernels/`` recompiles all of them.  Functions
outside this package are left to numba's own locators.
"""

import hashlib
import os
from pathlib import Path

from numba.core import caching

KERNELS_DIR = Path(__file__).resolve().parent


def sources_hash(root: Path = KERNELS_DIR) -> str:
    """SHA-256 (hex) of every ``.py`` file under ``root``, subfolders included
    (``__pycache__`` skipped): each file's path relative to ``root``, its size and its
    bytes."""
    root = Path(root)
    digest = hashlib.sha256()
    paths = [p for p in root.rglob("*.py") if "__pycache__" not in p.relative_to(root).parts]
    for path in sorted(paths, key=lambda p: p.relative_to(root).as_posix()):
        data = path.read_bytes()
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


#: The stamp added to every kernel's cache entry (all sources of ``kernels/``).
SOURCES_HASH = sources_hash()


def _is_ours(py_file: str) -> bool:
    """Whether ``py_file`` lies in ``kernels/`` or one of its subfolders."""
    try:
        return Path(py_file).resolve().is_relative_to(KERNELS_DIR)
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
    for base in (
        caching.UserProvidedCacheLocator,
        caching.InTreeCacheLocator,
        caching.UserWideCacheLocator,
    ):
        locator = _make_locator(base)
        locator._belote_sim = True
        ours.append(locator)
    classes[:0] = ours


#: Whether kernels are cached on disk; ``BELOTE_SIM_NO_CACHE=1`` turns it off.
CACHE = os.environ.get("BELOTE_SIM_NO_CACHE", "") in ("", "0")
