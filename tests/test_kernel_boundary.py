"""Kernels live only in belote_sim/kernels/ (one cache-consistency mechanism, one place).

Test code may compile with numba directly (tests/solver_bruteforce.py); the package
may not, outside ``kernels/`` and its subfolders.
"""

import re
import shutil
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "belote_sim"
KERNELS = PACKAGE / "kernels"

#: A numba compilation anywhere in a line: ``@jit``, ``@njit(...)``, ``numba.njit(``,
#: ``@nb.jit``, ``from numba import njit`` ... (``jit`` or ``njit`` as a whole word, not
#: as part of ``jitter`` or ``unjitted``).  No ``\b`` before it: ``\b@`` would need a
#: word character before the ``@``.
JIT_PATTERN = re.compile(r"(?<!\w)n?jit\b")
OBJECT_MODE_PATTERN = re.compile(r"forceobj|objmode|object_mode")


def test_jit_pattern_matches_every_spelling():
    for line in (
        "@jit",
        "@jit(cache=True)",
        "@njit",
        "@njit(nogil=True)",
        "f = numba.njit(g)",
        "@numba.jit",
        "@numba.njit(cache=True)",
        "from numba import njit",
        "    kernel = jit(f)",
        "@nb.njit",
    ):
        assert JIT_PATTERN.search(line), line
    for line in (
        "jitter = 3",
        "unjitted code",
        "# the injection point",
        "adjitable",
        "x.jit_options",
        "import numba",
    ):
        assert not JIT_PATTERN.search(line), line


def jit_offenders(package):
    """Lines compiling with numba in ``package`` outside its ``kernels/`` tree."""
    kernels = package / "kernels"
    offenders = []
    for path in package.rglob("*.py"):
        if path.is_relative_to(kernels):
            continue
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if JIT_PATTERN.search(line):
                offenders.append(f"{path.relative_to(package)}:{no}: {line.strip()}")
    return offenders


def object_mode_offenders(kernels):
    """Files of the ``kernels`` tree (subfolders included) using object mode."""
    return [
        str(p.relative_to(kernels))
        for p in kernels.rglob("*.py")
        if OBJECT_MODE_PATTERN.search(p.read_text(encoding="utf-8"))
    ]


def test_boundary_checks_see_offenders(tmp_path):
    """Both checks flag a planted offender, in a subfolder too, and spare the kernels."""
    pkg = tmp_path / "belote_sim"
    (pkg / "kernels" / "sub").mkdir(parents=True)
    (pkg / "deal").mkdir()
    (pkg / "kernels" / "sub" / "fast.py").write_text("@njit\ndef f():\n    pass\n")
    (pkg / "kernels" / "top.py").write_text("@jit\ndef g():\n    pass\n")
    assert jit_offenders(pkg) == [] and object_mode_offenders(pkg / "kernels") == []
    (pkg / "deal" / "slow.py").write_text("import numba\n\n@jit\ndef h():\n    pass\n")
    (pkg / "kernels" / "sub" / "obj.py").write_text("@kernel(forceobj=True)\ndef k():\n")
    assert jit_offenders(pkg) == ["deal/slow.py:3: @jit"]
    assert object_mode_offenders(pkg / "kernels") == ["sub/obj.py"]


def test_njit_only_in_kernels_package():
    assert not jit_offenders(PACKAGE)


def test_no_object_mode_in_kernels():
    assert any(p.parent != KERNELS for p in KERNELS.rglob("*.py"))  # subfolders exist
    assert not object_mode_offenders(KERNELS)


def test_kernel_cache_locators_cover_the_whole_kernels_tree():
    from numba.core import caching

    from belote_sim.kernels import _cache

    assert any(getattr(c, "_belote_sim", False) for c in caching.CacheImpl._locator_classes)
    # a function outside the package is left to numba's own locators
    assert not _cache._is_ours(__file__)
    assert not _cache._is_ours(str(PACKAGE / "cards.py"))
    assert _cache._is_ours(str(KERNELS / "core.py"))
    assert _cache._is_ours(str(KERNELS / "solver" / "search.py"))
    assert _cache.sources_hash(KERNELS) == _cache.SOURCES_HASH


def test_editing_a_kernel_in_a_subfolder_changes_the_stamp(tmp_path):
    """Edit one file of a copy of the kernels tree: the cache stamp must change (an
    edit anywhere under kernels/ recompiles every kernel)."""
    from belote_sim.kernels import _cache

    copy = tmp_path / "kernels"
    shutil.copytree(KERNELS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = _cache.sources_hash(copy)
    assert before == _cache.sources_hash(KERNELS)
    # byte caches do not count
    (copy / "solver" / "__pycache__").mkdir(exist_ok=True)
    (copy / "solver" / "__pycache__" / "x.py").write_text("junk\n")
    assert _cache.sources_hash(copy) == before

    nested = sorted(p for p in copy.rglob("*.py") if p.parent != copy)
    assert nested, "expected kernel files in a subfolder"
    target = nested[0]
    target.write_text(target.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    edited = _cache.sources_hash(copy)
    assert edited != before
    # a top-level edit changes it too, and so does a new file in a subfolder
    (copy / "core.py").write_text((copy / "core.py").read_text() + "\n", encoding="utf-8")
    assert _cache.sources_hash(copy) != edited
    top = _cache.sources_hash(copy)
    (target.parent / "new_kernel.py").write_text("X = 1\n", encoding="utf-8")
    assert _cache.sources_hash(copy) != top
