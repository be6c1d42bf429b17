"""Bit helpers on card masks: the one home of popcount, lowest card and prefetch.

``popcount`` and ``lowest_card`` compile to single instructions (``popcnt``,
``tzcnt``) through LLVM intrinsics; every kernel that counts or scans a mask uses
these (``cards.popcount`` is the plain-Python twin for the validating layer).
"""

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


@kernel
def nth_card(mask, n):
    """Index of the n-th (0-based, lowest first) set bit of a mask."""
    for _ in range(n):
        mask &= mask - 1
    return lowest_card(mask)
