"""Bit helpers on card masks: the one home of popcount, lowest card and prefetch.

``popcount`` and ``lowest_card`` compile to single instructions (``popcnt``,
``tzcnt``) through LLVM intrinsics; every kernel that counts or scans a mask uses
these (``cards.popcount`` is the plain-Python twin for the validating layer).
"""

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic
from numba.cpython.unsafe.numbers import trailing_zeros

from belote_sim.kernels._jit import kernel


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
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _ctpop(typingctx, x):
    """``llvm.ctpop`` of a 64-bit integer (one ``popcnt`` instruction)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [args[0]])

    return sig, codegen


@kernel
def popcount(mask):
    """Number of set bits of a 32-bit mask (number of cards)."""
    return _ctpop(mask & 0xFFFFFFFF)


@kernel
def lowest_card(mask):
    """Index of the lowest set bit of a non-zero mask (one ``tzcnt`` instruction)."""
    return trailing_zeros(mask)


@intrinsic
def _pdep(typingctx, src, mask):
    """``llvm.x86.bmi.pdep.64``: deposit the low bits of ``src`` at the set bits of
    ``mask`` (one ``pdep`` instruction on CPUs with BMI2)."""
    if not (isinstance(src, types.Integer) and isinstance(mask, types.Integer)):
        return None
    sig = types.int64(types.int64, types.int64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [i64, i64])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pdep.64")
        return builder.call(fn, [args[0], args[1]])

    return sig, codegen


def _fast_pdep() -> bool:
    """Whether numba compiles for a CPU with a fast ``pdep``: BMI2 in its target
    features, and not AMD Zen 1/2 (where ``pdep`` is microcoded, up to ~300 cycles)."""
    from numba.core.registry import cpu_target

    try:
        codegen = cpu_target.target_context.codegen()
        features = codegen._tm_features.split(",")
        cpu = codegen._get_host_cpu_name()
    except AttributeError:  # numba internals moved: the portable loop
        return False
    return "+bmi2" in features and cpu not in ("znver1", "znver2")


@kernel
def nth_card_loop(mask, n):
    """Index of the n-th (0-based, lowest first) set bit of a mask: clear n bits."""
    for _ in range(n):
        mask &= mask - 1
    return lowest_card(mask)


@kernel
def nth_card_pdep(mask, n):
    """``nth_card_loop`` in two instructions (``pdep``, ``tzcnt``): no loop and no
    mispredicted branch; only for CPUs with BMI2."""
    return trailing_zeros(_pdep(np.int64(1) << n, mask))


#: Whether the CPU numba compiles for has a fast ``pdep`` (BMI2: Intel from Haswell,
#: AMD from Zen 3).
FAST_PDEP = _fast_pdep()

#: Index of the n-th (0-based, lowest first) set bit of a mask (a random legal card is
#: ``nth_card(legal, random_below(state, popcount(legal)))``).
nth_card = nth_card_pdep if FAST_PDEP else nth_card_loop
