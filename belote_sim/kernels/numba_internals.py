"""Every numba and llvmlite internal belote_sim relies on, each with a probe and a fallback.

The rest of the package uses numba's public API only (``njit`` and its ``cache``,
``nogil``, ``parallel`` options, ``prange``, ``set_num_threads``, ``config``,
``numba.extending.intrinsic``) and llvmlite's IR builder.  What goes beyond it lives
here, so that a numba release that moves an internal breaks this one module, in a known
way.  Each internal below has a probe, run once at import (:data:`PROBES`, name ->
:class:`Probe`); where a probe fails, its fallback is taken, never a crash at ``import
belote_sim`` -- except the atomic counter, which has no safe fallback and raises an
``ImportError`` that names the installed numba.  No warning either (the tests turn
warnings into errors): read ``PROBES`` to know which fallbacks are in use.

Tested range: numba >=0.59.1,<0.69 with llvmlite >=0.42,<0.51 (``pyproject.toml``
bounds both; each numba pins its llvmlite minor).  Checked on numba 0.59.1 (llvmlite
0.42.0, numpy 1.26.4), 0.62.1 (llvmlite 0.45.1, numpy 2.3.5) and 0.68.1 (llvmlite
0.50.0, numpy 2.4.6): ``tests/test_numba_internals.py``, ``test_bits.py``,
``test_atomics.py`` and ``test_kernel_boundary.py`` pass, and ``belote-sim simulate
--deals 2000 --seed 1`` writes the same deal table on all three.  numba 0.62 renamed the
cache locators (``_InTreeCacheLocator`` -> ``InTreeCacheLocator``) and added
``NUMBA_CACHE_LOCATOR_CLASSES``.  Outside the range the probes below say what still
works; the range is bounded above by the next minor release, untested.

The probes check that each internal is there and has the shape we use (names,
attributes, an option numba parses); that it behaves is checked by
``tests/test_numba_internals.py`` on the installed numba.  ``BELOTE_SIM_FALLBACK=name,...``
(names of :data:`PROBES`) forces fallbacks, to test them or to step around an internal
that misbehaves; the forced names join the kernels' cache stamp, so a forced fallback
never loads machine code compiled without it.

The internals, by probe name:

``nrt``
    The private ``_nrt`` jit option (``numba.core.options.DefaultOptions._nrt``, mapped
    to ``Flags.nrt``), given by ``nrt_option``: ``_nrt=False`` for ``_jit.lean_kernel``
    (no reference counting of array arguments), ``_nrt=True`` for ``_jit.kernel`` (a
    callee of a lean kernel keeps numba's runtime: callees otherwise inherit the
    caller's setting).  Probe: numba's CPU target options parse ``{"_nrt": False}`` into
    ``Flags.nrt`` False.  If it goes: numba raises ``KeyError: Unrecognized options`` at
    the first call of every kernel.  Fallback: no ``_nrt`` option at all; lean kernels
    compile as plain kernels (reference counting kept: slower, same results).

``cache``
    ``numba.core.caching.CacheImpl._locator_classes`` (the class-level list of cache
    locators numba tries in turn) and the locators ``UserProvidedCacheLocator``,
    ``InTreeCacheLocator`` and ``UserWideCacheLocator`` (with a leading underscore up to
    numba 0.61), their ``from_function`` and ``get_source_stamp``.
    ``install_cache_locators`` puts subclasses in front that add a hash of every source
    of ``kernels/`` to the freshness stamp of the functions there (see ``_cache``).
    Probe: after installation, numba's ``CompileResultCacheImpl`` picks our locator for a
    function of ``kernels/`` and its stamp carries the hash (this also catches
    ``NUMBA_CACHE_LOCATOR_CLASSES``, numba >= 0.62, which bypasses the list, and a tree
    where no cache directory is writable).  If it goes: numba keys a cached function on
    its own file only, so a kernel keeps the inlined copy of a callee from another file
    after that file is edited: stale machine code, silently.  Fallback: no on-disk cache
    for our kernels (``_cache.CACHE`` False): every process compiles (minutes), nothing
    is stale.

``is_cached`` (no probe: it answers None where an internal moved)
    A dispatcher's ``_cache`` (``numba.core.caching.Cache``), its ``_index_key`` and
    its index file's ``_load_index``: whether a call would find machine code in numba's
    disk cache, asked before the call so that a command can say it is about to compile.
    If it goes: the answer is None, and the command says nothing ahead of compiling
    (it still times the compile and leaves it out of its rates).

``cpu``
    ``numba.core.registry.cpu_target.target_context.codegen()._tm_features`` (the
    ``+feature,-feature`` string numba builds its target machine with, which follows
    ``NUMBA_CPU_NAME``/``NUMBA_CPU_FEATURES``) and ``codegen._get_host_cpu_name()``.
    Probe: both read as strings (:data:`TARGET_CPU`, :data:`TARGET_FEATURES`).
    Fallback: no CPU feature is known, so no ``pdep``.

``pdep``
    An ``intrinsic`` emitting ``llvm.x86.bmi.pdep.64`` through llvmlite's
    ``ir.FunctionType`` and ``numba.core.cgutils.get_or_insert_function`` (:func:`pdep`).
    Probe: ``cpu`` read, ``+bmi2`` among the target features (x86 only), the CPU not AMD
    Zen 1/2 (where ``pdep`` is microcoded, up to ~300 cycles), the functions present.
    The feature is never guessed: LLVM aborts the process (no exception) when it cannot
    select the instruction.  Fallback: ``bits.nth_card`` is ``bits.nth_card_loop``
    (clears n bits in a loop instead of two instructions).

``prefetch``
    An ``intrinsic`` emitting ``llvm.prefetch`` for ``arr[row, 0]`` (:func:`prefetch`)
    through ``context.make_array``, ``context.get_constant``,
    ``context.get_dummy_value``, ``cgutils.get_item_pointer`` and llvmlite's
    ``Module.declare_intrinsic`` (which mangles the name for the installed LLVM:
    ``llvm.prefetch.p0i8`` with llvmlite 0.42, ``llvm.prefetch.p0`` with 0.50).  Probe:
    the functions present.  Fallback: ``bits.prefetch`` does nothing (a prefetch is only
    a hint).

``atomic``
    An ``intrinsic`` emitting an ``atomicrmw add`` on ``counter[index]``
    (:func:`fetch_add`) through ``context.make_array``, ``context.cast``,
    ``cgutils.get_item_pointer`` and llvmlite's ``IRBuilder.atomic_rmw``.  Probe: the
    functions present.  No fallback: the simulation kernels hand blocks of deals to the
    threads of a ``prange`` from this counter, and a plain add would let two threads take
    the same block or skip one (silently wrong tables); a serial fallback would need
    every caller to run one thread.  ``atomics`` calls ``require("atomic")``, an
    ``ImportError`` naming numba's version and the tested range.

No probe: :func:`ctpop` and :func:`trailing_zeros` (``popcnt``, ``tzcnt``) use only
``numba.extending.intrinsic`` and llvmlite's documented IR builder
(``Module.declare_intrinsic``, ``IRBuilder.cttz``), and ``llvm.ctpop``/``llvm.cttz``
exist on every LLVM target.
"""

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import llvmlite
import numba
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

try:
    from numba.core import cgutils
except ImportError:  # pragma: no cover - numba moved it: the probes below fail
    cgutils = None

#: The numba and llvmlite versions tested (the bounds in ``pyproject.toml``).
TESTED_NUMBA = ">=0.59.1,<0.69"
TESTED_LLVMLITE = ">=0.42,<0.51"

#: The environment variable that forces fallbacks (comma-separated probe names).
FALLBACK_ENV = "BELOTE_SIM_FALLBACK"

NAMES = ("nrt", "cache", "cpu", "pdep", "prefetch", "atomic")


@dataclass(frozen=True)
class Probe:
    """What the probe of one internal found: ``ok`` (the internal is used) or not (its
    fallback is), and in ``detail`` what was found or why not."""

    name: str
    ok: bool
    detail: str


def forced_fallbacks(value: str) -> frozenset[str]:
    """The probe names listed in ``value`` (the ``BELOTE_SIM_FALLBACK`` syntax)."""
    names = frozenset(n.strip() for n in value.split(",") if n.strip())
    unknown = sorted(names - set(NAMES))
    if unknown:
        raise ValueError(f"{FALLBACK_ENV}: unknown names {unknown}; known: {', '.join(NAMES)}")
    return names


#: The fallbacks forced by ``BELOTE_SIM_FALLBACK``.
FORCED = forced_fallbacks(os.environ.get(FALLBACK_ENV, ""))


def _missing(owners: dict[str, Any], *names: str) -> list[str]:
    """The functions of ``names`` (``"owner.attr"``, owner a key of ``owners``: a class or
    a module, None for a module that did not import) that are not there."""
    return [
        name
        for name in names
        if not callable(getattr(owners[name.split(".")[0]], name.split(".")[1], None))
    ]


def _owners() -> dict[str, Any]:
    """The classes and modules the intrinsics' code generators call into."""
    from numba.core.base import BaseContext

    return {
        "BaseContext": BaseContext,
        "cgutils": cgutils,
        "ir": ir,
        "IRBuilder": ir.IRBuilder,
        "Module": ir.Module,
    }


def _check_functions(done: str, *names: str) -> str:
    """``done`` if all the functions ``names`` are there (see ``_missing``); raise if not."""
    missing = _missing(_owners(), *names)
    if missing:
        raise AttributeError(f"missing {', '.join(missing)}")
    return done


def _run(name: str, check: Callable[[], str]) -> Probe:
    """Run one probe: ``check`` returns a detail when the internal is usable and raises
    otherwise; a forced fallback does not run it."""
    if name in FORCED:
        return Probe(name, False, f"forced by {FALLBACK_ENV}")
    try:
        return Probe(name, True, check())
    except Exception as exc:
        return Probe(name, False, f"{type(exc).__name__}: {exc}")


# --- nrt: the _nrt jit option --------------------------------------------------------


def check_nrt_option(options: Any, flags: Any) -> str:
    """Raise unless numba's target ``options`` parse ``_nrt=False`` into ``flags``."""
    options.parse_as_flags(flags, {"_nrt": False})
    if flags.nrt is not False:
        raise ValueError(f"_nrt=False parsed into nrt={flags.nrt!r}")
    return "_nrt=False parses into Flags.nrt=False"


def _check_nrt() -> str:
    from numba.core.compiler import Flags
    from numba.core.registry import cpu_target

    return check_nrt_option(cpu_target.options, Flags())


# --- cpu: the target machine's features ----------------------------------------------


def read_target_cpu(codegen: Any) -> tuple[str, frozenset[str]]:
    """The CPU name and features numba's ``codegen`` compiles for."""
    features = codegen._tm_features
    name = codegen._get_host_cpu_name()
    if not isinstance(features, str) or not isinstance(name, str):
        raise TypeError(f"expected strings, got {type(name).__name__}, {type(features).__name__}")
    return name, frozenset(f for f in features.split(",") if f)


def _target_codegen() -> Any:
    from numba.core.registry import cpu_target

    return cpu_target.target_context.codegen()


# --- pdep -----------------------------------------------------------------------------

#: CPUs with BMI2 whose ``pdep`` is microcoded (slower than the loop).
SLOW_PDEP_CPUS = frozenset({"znver1", "znver2"})


def check_pdep(cpu: Probe, name: str, features: frozenset[str]) -> str:
    """Raise unless ``pdep`` may be used on the target CPU ``name`` with ``features``
    (``cpu``: the probe that read them)."""
    if not cpu.ok:
        raise LookupError(f"CPU features unknown ({cpu.detail})")
    if "+bmi2" not in features:
        raise LookupError(f"no BMI2 on {name}")
    if name in SLOW_PDEP_CPUS:
        raise LookupError(f"pdep is microcoded on {name}")
    return _check_functions(f"BMI2 on {name}", "ir.FunctionType", "cgutils.get_or_insert_function")


@intrinsic
def pdep(typingctx, src, mask):
    """``llvm.x86.bmi.pdep.64``: deposit the low bits of ``src`` at the set bits of
    ``mask`` (one ``pdep`` instruction); only where ``PROBES["pdep"].ok``."""
    if not (isinstance(src, types.Integer) and isinstance(mask, types.Integer)):
        return None
    sig = types.int64(types.int64, types.int64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [i64, i64])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pdep.64")
        return builder.call(fn, [args[0], args[1]])

    return sig, codegen


# --- prefetch -------------------------------------------------------------------------


def _check_prefetch() -> str:
    return _check_functions(
        "llvm.prefetch",
        "BaseContext.make_array",
        "BaseContext.get_constant",
        "BaseContext.get_dummy_value",
        "cgutils.get_item_pointer",
        "Module.declare_intrinsic",
    )


@intrinsic
def prefetch(typingctx, arr, row):
    """Prefetch the cache line of ``arr[row, 0]`` (a 2-d array) for reading."""
    sig = types.void(arr, row)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1], zero])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p], fnty)
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


# --- atomic ---------------------------------------------------------------------------


def _check_atomic() -> str:
    return _check_functions(
        "atomicrmw add",
        "BaseContext.make_array",
        "BaseContext.cast",
        "cgutils.get_item_pointer",
        "IRBuilder.atomic_rmw",
    )


@intrinsic
def fetch_add(typingctx, counter, index, value):
    """``counter[index] += value`` as one atomic instruction; returns the old value.

    ``counter``: an int64 array shared by the threads.  Relaxed ("monotonic")
    ordering: the counter only hands out indexes, it publishes no other memory.
    """
    if not (
        isinstance(counter, types.Array)
        and counter.dtype == types.int64
        and isinstance(index, types.Integer)
        and isinstance(value, types.Integer)
    ):
        return None
    sig = types.int64(counter, index, value)

    def codegen(context, builder, signature, args):
        array_type, index_type, value_type = signature.args
        array, idx, val = args
        ary = context.make_array(array_type)(context, builder, array)
        idx = context.cast(builder, idx, index_type, types.intp)
        val = context.cast(builder, val, value_type, types.int64)
        ptr = cgutils.get_item_pointer(context, builder, array_type, ary, [idx])
        return builder.atomic_rmw("add", ptr, val, "monotonic")

    return sig, codegen


# --- no probe: llvm.ctpop and llvm.cttz -----------------------------------------------


@intrinsic
def ctpop(typingctx, x):
    """``llvm.ctpop`` of a 64-bit integer (one ``popcnt`` instruction)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [args[0]])

    return sig, codegen


@intrinsic
def trailing_zeros(typingctx, src):
    """``llvm.cttz``: the number of trailing zero bits of an integer, of its type (one
    ``tzcnt`` instruction; the width of the type for 0)."""
    if not isinstance(src, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return src(src), codegen


# --- the probes ----------------------------------------------------------------------

#: Every probe's finding, by name (``cache`` once ``install_cache_locators`` ran: at the
#: import of ``kernels._cache``).
PROBES: dict[str, Probe] = {"nrt": _run("nrt", _check_nrt)}

TARGET_CPU = ""
TARGET_FEATURES: frozenset[str] = frozenset()


def _check_cpu() -> str:
    global TARGET_CPU, TARGET_FEATURES
    TARGET_CPU, TARGET_FEATURES = read_target_cpu(_target_codegen())
    return f"{TARGET_CPU}, {len(TARGET_FEATURES)} features"


PROBES["cpu"] = _run("cpu", _check_cpu)
PROBES["pdep"] = _run("pdep", lambda: check_pdep(PROBES["cpu"], TARGET_CPU, TARGET_FEATURES))
PROBES["prefetch"] = _run("prefetch", _check_prefetch)
PROBES["atomic"] = _run("atomic", _check_atomic)
PROBES["cache"] = Probe("cache", False, "locators not installed yet")


def nrt_option(nrt: bool) -> dict[str, bool]:
    """The ``_nrt`` option of a kernel decorator: ``{"_nrt": nrt}``, or nothing where
    numba does not take it."""
    return {"_nrt": nrt} if PROBES["nrt"].ok else {}


def require(name: str) -> None:
    """Raise an ``ImportError`` unless the internal ``name`` (one without fallback)
    is usable."""
    probe = PROBES[name]
    if not probe.ok:
        raise ImportError(
            f"belote_sim needs numba's {name} internal, which numba {numba.__version__} "
            f"(llvmlite {llvmlite.__version__}) does not provide here ({probe.detail}); it "
            f"has no safe fallback.  belote_sim is tested with numba{TESTED_NUMBA}: "
            f"pip install 'numba{TESTED_NUMBA}'"
        )


# --- cache: locators that stamp the kernels with every source of kernels/ -------------

_LOCATOR_BASES = ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")


def _locator_base(caching: Any, name: str) -> Any:
    """numba's locator class ``name`` (``_name`` up to numba 0.61)."""
    for spelling in (name, "_" + name):
        base = getattr(caching, spelling, None)
        if isinstance(base, type):
            for method in ("from_function", "get_source_stamp"):
                if not callable(getattr(base, method, None)):
                    raise AttributeError(f"{spelling}.{method}")
            return base
    raise AttributeError(f"numba.core.caching has no {name}")


def make_locator(base: Any, stamp: Any, is_ours: Callable[[str], bool]) -> Any:
    """A subclass of numba's locator ``base`` for the files ``is_ours`` accepts only,
    with ``stamp`` added to their freshness stamp."""

    class KernelSourcesLocator(base):
        _belote_sim = True

        def get_source_stamp(self):
            return (super().get_source_stamp(), stamp)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not is_ours(py_file):
                return None
            return super().from_function(py_func, py_file)

    KernelSourcesLocator.__name__ = "KernelSources" + base.__name__.lstrip("_")
    return KernelSourcesLocator


def _cache_probe_function() -> None:
    """A function of ``kernels/`` that numba is asked to find a cache locator for."""


def _install(sources: str, is_ours: Callable[[str], bool]) -> str:
    from numba.core import caching

    stamp = (sources, tuple(sorted(FORCED)))
    classes = caching.CacheImpl._locator_classes
    if not isinstance(classes, list):
        raise TypeError(f"CacheImpl._locator_classes is a {type(classes).__name__}")
    if not any(getattr(c, "_belote_sim", False) for c in classes):
        ours = [make_locator(_locator_base(caching, n), stamp, is_ours) for n in _LOCATOR_BASES]
        classes[:0] = ours
    if not is_ours(__file__):
        raise ValueError(f"{__file__} is not a kernels file")
    locator = caching.CompileResultCacheImpl(_cache_probe_function).locator
    if not getattr(locator, "_belote_sim", False):
        raise LookupError(f"numba picks {type(locator).__name__}, not ours")
    found = locator.get_source_stamp()
    if not (isinstance(found, tuple) and len(found) == 2 and found[1] == stamp):
        raise ValueError(f"unexpected stamp {found!r}")
    return f"{type(locator).__name__} in {locator.get_cache_path()}"


def is_cached(dispatcher: Any, args: tuple[Any, ...]) -> bool | None:
    """Whether ``dispatcher(*args)`` runs machine code that is in memory or in numba's
    disk cache (True) or must first compile (False); None when it cannot be told (an
    internal moved: see ``is_cached`` in the module docstring)."""
    from numba.core import caching

    try:
        sig = tuple(dispatcher.typeof_pyval(a) for a in args)
        if sig in dispatcher.overloads:
            return True
        cache = dispatcher._cache
        if isinstance(cache, caching.NullCache):
            return False
        key = cache._index_key(sig, dispatcher.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:  # an internal moved: no answer rather than a wrong one
        return None


def install_cache_locators(sources: str, is_ours: Callable[[str], bool]) -> Probe:
    """Put locators in front of numba's that add ``sources`` (a hash of every source of
    ``kernels/``) and the forced fallbacks to the cache stamp of the functions whose
    file ``is_ours``; record and return the probe of their use (idempotent)."""
    if not PROBES["cache"].ok:
        PROBES["cache"] = _run("cache", lambda: _install(sources, is_ours))
    return PROBES["cache"]


__all__ = [
    "FALLBACK_ENV",
    "FORCED",
    "NAMES",
    "PROBES",
    "SLOW_PDEP_CPUS",
    "TARGET_CPU",
    "TARGET_FEATURES",
    "TESTED_LLVMLITE",
    "TESTED_NUMBA",
    "Probe",
    "check_nrt_option",
    "check_pdep",
    "ctpop",
    "fetch_add",
    "forced_fallbacks",
    "install_cache_locators",
    "is_cached",
    "make_locator",
    "nrt_option",
    "pdep",
    "prefetch",
    "read_target_cpu",
    "require",
    "trailing_zeros",
]
