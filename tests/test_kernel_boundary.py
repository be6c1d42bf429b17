"""Kernels live only in belote_sim/kernels/ (one cache-consistency mechanism, one place)."""

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "belote_sim"


def test_njit_only_in_kernels_package():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "kernels":
            continue
        if re.search(r"\b(njit|numba\.jit|@jit)\b", path.read_text(encoding="utf-8")):
            offenders.append(str(path))
    assert not offenders


def test_no_object_mode_in_kernels():
    for path in (PACKAGE / "kernels").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "forceobj" not in text and "objmode" not in text and "object_mode" not in text


def test_kernel_cache_keyed_on_all_sources():
    from belote_sim.kernels import _cache
    from numba.core import caching

    assert len(_cache.SOURCES_HASH) == 64
    assert any(getattr(c, "_belote_sim", False) for c in caching.CacheImpl._locator_classes)
    # a function outside the package is left to numba's own locators
    assert not _cache._is_ours(__file__)
    assert _cache._is_ours(str(PACKAGE / "kernels" / "core.py"))
