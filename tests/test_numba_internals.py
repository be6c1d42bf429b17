"""The numba internals of kernels/numba_internals.py: each probe's state, each internal
at work on the installed numba, and each fallback, by simulating the internal's absence
(in a subprocess, patching numba before ``import belote_sim``) or by calling the
fallback's pieces directly."""

import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from types import SimpleNamespace

import llvmlite
import llvmlite.binding
import numba
import numpy as np
import pytest
from numba.core import caching
from numba.core.compiler import Flags
from numba.core.registry import cpu_target

from belote_sim.kernels import _cache, _jit, bits, numba_internals
from belote_sim.kernels.numba_internals import PROBES, Probe

ROOT = Path(__file__).resolve().parents[1]


def _version(text):
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def _in_range(version, spec):
    """Whether ``version`` meets ``spec`` (``>=a,<b`` only)."""
    for clause in spec.split(","):
        op, bound = re.fullmatch(r"(>=|<)([\d.]+)", clause.strip()).groups()
        v, b = _version(version), _version(bound)
        if (op == ">=" and v < b) or (op == "<" and v >= b):
            return False
    return True


def run_python(code, **env):
    """Run ``code`` in a fresh interpreter on this checkout (no on-disk kernel cache
    unless ``env`` says otherwise; no forced fallback)."""
    full = {k: v for k, v in os.environ.items() if k != numba_internals.FALLBACK_ENV}
    full.update({"PYTHONPATH": str(ROOT), "BELOTE_SIM_NO_CACHE": "1"}, **env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env=full,
        capture_output=True,
        text=True,
        timeout=600,
    )


def check_python(code, **env):
    done = run_python(code, **env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


# --- the probes ------------------------------------------------------------------------


def test_every_internal_has_a_probe_and_the_tested_numba_passes_them():
    assert set(PROBES) == set(numba_internals.NAMES)
    assert all(isinstance(p, Probe) and p.name == n for n, p in PROBES.items())
    if os.environ.get(numba_internals.FALLBACK_ENV):
        pytest.skip("fallbacks forced")
    # pdep depends on the CPU; everything else must work on a numba of the tested range
    failed = {n: p.detail for n, p in PROBES.items() if not p.ok and n != "pdep"}
    assert not failed
    assert PROBES["pdep"].ok == (
        "+bmi2" in numba_internals.TARGET_FEATURES
        and numba_internals.TARGET_CPU not in numba_internals.SLOW_PDEP_CPUS
    )


def test_pyproject_bounds_numba_and_llvmlite_to_the_tested_range():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert f"numba{numba_internals.TESTED_NUMBA}" in deps
    assert f"llvmlite{numba_internals.TESTED_LLVMLITE}" in deps
    assert _in_range(numba.__version__, numba_internals.TESTED_NUMBA), numba.__version__
    assert _in_range(llvmlite.__version__, numba_internals.TESTED_LLVMLITE)


def test_forced_fallbacks_are_parsed_strictly():
    assert numba_internals.forced_fallbacks("") == frozenset()
    assert numba_internals.forced_fallbacks(" pdep, cache ,") == {"pdep", "cache"}
    with pytest.raises(ValueError, match="unknown names"):
        numba_internals.forced_fallbacks("pdep,bmi2")


def test_a_failing_probe_is_a_state_not_an_exception():
    def gone():
        raise AttributeError("no such thing")

    assert numba_internals._run("cpu", gone) == Probe("cpu", False, "AttributeError: no such thing")
    assert numba_internals._missing({"ir": None}, "ir.FunctionType") == ["ir.FunctionType"]
    assert numba_internals._missing(numba_internals._owners(), "IRBuilder.atomic_rmw") == []


# --- nrt: the _nrt option --------------------------------------------------------------


def _view_sum(a):
    b = a[1:]
    return b[0] + a[0]


def test_lean_kernels_compile_without_numba_runtime():
    assert _jit.kernel.keywords["_nrt"] is True
    assert _jit.lean_kernel.keywords["_nrt"] is False
    lean = _jit.lean_kernel(cache=False)(_view_sum)
    plain = _jit.kernel(cache=False)(_view_sum)
    a = np.arange(5, dtype=np.int64)
    assert lean(a) == plain(a) == 1
    # the view costs reference counting in a plain kernel, nothing in a lean one
    assert "NRT_" in next(iter(plain.inspect_llvm().values()))
    assert "NRT_" not in next(iter(lean.inspect_llvm().values()))


def test_the_nrt_probe_fails_where_numba_rejects_the_option():
    assert numba_internals.check_nrt_option(cpu_target.options, Flags())

    class WithoutNrt(cpu_target.options):
        _nrt = None  # no longer an option mapping: numba does not know "_nrt"

    with pytest.raises(KeyError, match="_nrt"):
        numba_internals.check_nrt_option(WithoutNrt, Flags())


def test_without_the_nrt_option_lean_kernels_are_plain_kernels():
    out = check_python("""
        import numba, numpy as np
        from numba.core.registry import cpu_target
        for klass in type.mro(cpu_target.options):
            if "_nrt" in vars(klass):
                delattr(klass, "_nrt")
        try:  # numba now rejects the option, as a numba without it would
            numba.njit(_nrt=False)(lambda: 1)()
        except KeyError:
            print("rejected")
        from belote_sim.kernels import _jit, numba_internals, rng
        print(numba_internals.PROBES["nrt"].ok, "_nrt" in _jit.lean_kernel.keywords)
        state = rng.seed_state(7)
        print(0 <= rng.random_below(state, 10) < 10)
    """)
    assert out.split() == ["rejected", "False", "False", "True"]


# --- cache: the locators ---------------------------------------------------------------


def test_kernels_are_cached_with_the_hash_of_all_kernels_sources():
    assert _cache.LOCATORS_INSTALLED and PROBES["cache"].ok
    wanted = os.environ.get("BELOTE_SIM_NO_CACHE", "") in ("", "0")
    assert _cache.CACHE is wanted
    assert _jit.kernel.keywords["cache"] == _cache.CACHE
    from belote_sim.kernels.solver import search

    forced = tuple(sorted(numba_internals.FORCED))
    for py_func in (bits.popcount.py_func, search.remaining_points.py_func):
        locator = caching.CompileResultCacheImpl(py_func).locator
        assert getattr(locator, "_belote_sim", False), type(locator)
        assert locator.get_source_stamp()[1] == (_cache.SOURCES_HASH, forced)
    # a function outside kernels/ is left to numba's own locators
    outside = caching.CompileResultCacheImpl(_view_sum).locator
    assert not getattr(outside, "_belote_sim", False)


def test_a_kernel_dispatcher_uses_our_locator():
    if not _cache.CACHE:
        pytest.skip("on-disk cache off")
    assert getattr(bits.popcount._cache._impl.locator, "_belote_sim", False)


def test_locator_bases_are_found_under_either_spelling():
    class Base:
        @classmethod
        def from_function(cls, py_func, py_file):
            return cls()

        def get_source_stamp(self):
            return "mtime"

    old = SimpleNamespace(_InTreeCacheLocator=Base)  # numba <= 0.61
    assert numba_internals._locator_base(old, "InTreeCacheLocator") is Base
    with pytest.raises(AttributeError):
        numba_internals._locator_base(old, "UserWideCacheLocator")
    ours = numba_internals.make_locator(Base, "stamp", lambda f: f.endswith("ours.py"))
    assert ours.from_function(None, "x/theirs.py") is None
    assert ours.from_function(None, "x/ours.py").get_source_stamp() == ("mtime", "stamp")


def test_without_the_locator_list_kernels_are_not_cached_on_disk():
    out = check_python(
        """
        from numba.core import caching
        del caching.CacheImpl._locator_classes
        from belote_sim.kernels import _cache, _jit, bits, numba_internals
        print(numba_internals.PROBES["cache"].ok, _cache.CACHE, _jit.kernel.keywords["cache"])
        print(bits.popcount(0b1011))
        """,
        BELOTE_SIM_NO_CACHE="0",
    )
    assert out.split() == ["False", "False", "False", "3"]


@pytest.mark.skipif(
    not hasattr(numba.config, "CACHE_LOCATOR_CLASSES"), reason="numba < 0.62: no such setting"
)
def test_numba_cache_locator_classes_turns_our_cache_off():
    """``NUMBA_CACHE_LOCATOR_CLASSES`` makes numba skip the list we extend."""
    out = check_python(
        """
        from belote_sim.kernels import _cache, numba_internals
        print(numba_internals.PROBES["cache"].ok, _cache.CACHE)
        print(numba_internals.PROBES["cache"].detail)
        """,
        BELOTE_SIM_NO_CACHE="0",
        NUMBA_CACHE_LOCATOR_CLASSES="UserWideCacheLocator",
    )
    assert out.split()[:2] == ["False", "False"], out
    assert "not ours" in out


# --- cpu and pdep ----------------------------------------------------------------------


def test_target_features_are_those_numba_compiles_for():
    name, features = numba_internals.read_target_cpu(cpu_target.target_context.codegen())
    assert (name, features) == (numba_internals.TARGET_CPU, numba_internals.TARGET_FEATURES)
    if numba.config.CPU_NAME is None and numba.config.CPU_FEATURES is None:
        assert name == llvmlite.binding.get_host_cpu_name()
        host = set(llvmlite.binding.get_host_cpu_features().flatten().split(","))
        assert ("+bmi2" in features) == ("+bmi2" in host)


def test_pdep_is_used_only_on_a_known_fast_bmi2_cpu():
    ok = Probe("cpu", True, "")
    bmi2 = frozenset({"+bmi2", "+popcnt"})
    assert numba_internals.check_pdep(ok, "haswell", bmi2)
    for cpu, name, features in (
        (Probe("cpu", False, "AttributeError: _tm_features"), "", frozenset()),
        (ok, "znver2", bmi2),
        (ok, "generic", frozenset({"-bmi2"})),
        (ok, "cortex-a72", frozenset({"+neon"})),
    ):
        with pytest.raises(LookupError):
            numba_internals.check_pdep(cpu, name, features)
    # numba without _tm_features: the cpu probe fails, so no pdep
    probe = numba_internals._run(
        "cpu", lambda: str(numba_internals.read_target_cpu(SimpleNamespace()))
    )
    assert not probe.ok and "_tm_features" in probe.detail


def test_nth_card_is_pdep_exactly_where_the_probe_allows_it():
    assert bits.FAST_PDEP is PROBES["pdep"].ok
    assert bits.nth_card is (bits.nth_card_pdep if bits.FAST_PDEP else bits.nth_card_loop)


@pytest.mark.skipif(not bits.FAST_PDEP, reason="no fast pdep on this CPU")
def test_pdep_nth_card_equals_the_loop_on_many_masks():
    rng = np.random.default_rng(4)
    masks = rng.integers(0, 1 << 32, size=3000, dtype=np.int64)
    masks = np.concatenate([masks, [1, 1 << 31, 0xFFFFFFFF, 0x80000001]])
    for mask in masks.tolist():
        for n in range(min(bits.popcount(mask), 32)):
            assert bits.nth_card_pdep(mask, n) == bits.nth_card_loop(mask, n), (hex(mask), n)


@pytest.mark.parametrize("name", ["cpu", "pdep"])
def test_without_pdep_nth_card_is_the_loop(name):
    out = check_python(
        """
        from belote_sim.kernels import bits, numba_internals
        print(numba_internals.PROBES["pdep"].ok, bits.FAST_PDEP)
        print(bits.nth_card is bits.nth_card_loop, bits.nth_card(0b101101, 2))
        """,
        BELOTE_SIM_FALLBACK=name,
    )
    assert out.split() == ["False", "False", "True", "3"]


# --- prefetch --------------------------------------------------------------------------


def _rows_summed_with(prefetch):
    @numba.njit(cache=False)
    def rows(table):
        total = 0
        for row in range(table.shape[0]):
            prefetch(table, row)
            total += table[row, 0]
        return total

    return rows


def test_prefetch_and_its_fallback_run():
    table = np.arange(40, dtype=np.int64).reshape(10, 4)
    assert bits.prefetch is (bits._prefetch if PROBES["prefetch"].ok else bits.prefetch_noop)
    for prefetch in (bits._prefetch, bits.prefetch_noop):
        rows = _rows_summed_with(prefetch)
        assert rows(table) == table[:, 0].sum()
        emitted = "llvm.prefetch" in next(iter(rows.inspect_llvm().values()))
        assert emitted == (prefetch is bits._prefetch)


def test_without_prefetch_it_does_nothing():
    out = check_python(
        """
        from belote_sim.kernels import bits
        print(bits.prefetch is bits.prefetch_noop)
        """,
        BELOTE_SIM_FALLBACK="prefetch",
    )
    assert out.split() == ["True"]


# --- atomic: no fallback ---------------------------------------------------------------


def test_without_the_atomic_intrinsic_import_fails_naming_numba():
    """``atomics.fetch_add`` has no safe fallback: loading the engine (``from belote_sim
    import simulate``; ``import belote_sim`` alone loads no kernel) says why."""
    load = "from belote_sim import simulate"
    for code, env in (
        (f"import llvmlite.ir\ndel llvmlite.ir.IRBuilder.atomic_rmw\n{load}", {}),
        (load, {numba_internals.FALLBACK_ENV: "atomic"}),
    ):
        done = run_python(code, **env)
        assert done.returncode != 0
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith("ImportError: belote_sim needs numba's atomic internal"), last
        assert f"numba {numba.__version__}" in last
        assert numba_internals.TESTED_NUMBA in last


def test_forced_fallbacks_change_the_cache_stamp():
    out = check_python(
        """
        from belote_sim.kernels import _cache, bits, numba_internals
        from numba.core import caching
        locator = caching.CompileResultCacheImpl(bits.popcount.py_func).locator
        print(locator.get_source_stamp()[1][1], _cache.CACHE)
        """,
        BELOTE_SIM_NO_CACHE="0",
        BELOTE_SIM_FALLBACK="pdep",
    )
    assert out.split() == ["('pdep',)", "True"]
