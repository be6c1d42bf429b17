"""Keep numba's on-disk cache of belote_sim kernels consistent across files.

numba's ``cache=True`` keys a compiled function on its *own* source file only, so a
kernel that calls (and inlines) a kernel from another file keeps its old machine
code after that other file is edited (numba issues around PRs #8396/#9563).  We
register cache locators that add a hash of *every* source file of this package --
subpackages such as ``kernels/solver/`` included -- to the freshness stamp of our
kernels: any edit anywhere under ``kernels/`` recompiles all of them.  Functions
outside this package are left to numba's own locators.  The locators reach into numba's
internals (``numba_internals.install_cache_locators``); where numba does not let them
in, our kernels are not cached on disk at all (``CACHE`` False) rather than risk stale
machine code.
"""

import hashlib
import os
from pathlib import Path

from belote_sim.kernels import numba_internals

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


def install() -> bool:
    """Put our locators in front of numba's (idempotent); whether numba uses them."""
    return numba_internals.install_cache_locators(SOURCES_HASH, _is_ours).ok


#: Whether numba keys our kernels' cache entries on all sources of ``kernels/``.
LOCATORS_INSTALLED = install()

#: Whether kernels are cached on disk: ``BELOTE_SIM_NO_CACHE=1`` turns it off, and so does
#: a numba that does not take our locators (``numba_internals.PROBES["cache"]``).
CACHE = LOCATORS_INSTALLED and os.environ.get("BELOTE_SIM_NO_CACHE", "") in ("", "0")


__all__ = [
    "CACHE",
    "KERNELS_DIR",
    "LOCATORS_INSTALLED",
    "SOURCES_HASH",
    "install",
    "sources_hash",
]
