"""An atomic counter for the threads of a parallel kernel (numba offers none).

``fetch_add`` lets the threads of a ``prange`` take blocks of work one at a time
from a shared counter, so a thread slowed down by another process (or by the Parquet
writer of ``simulate -o``) takes fewer blocks instead of holding the others up at the
end of a static split.
"""

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


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
