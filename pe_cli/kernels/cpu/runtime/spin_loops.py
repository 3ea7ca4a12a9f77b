"""numba functions that wait for a counter to move by spinning on it, without the GIL (spin.py; imported on
first use, x86-64 only): an acquire load of the counter each round, which LLVM may not hoist out of the loop,
x86's ``pause`` between rounds, and the time-stamp counter bounding the wait; ``mark_then_wait`` first stores
a mark with release ordering."""

import numba
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from .numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)


def _element(context, builder, sig, args):
    """The address of ``array[index]``, the intrinsic's first two arguments."""
    aryty = sig.args[0]
    ary = context.make_array(aryty)(context, builder, args[0])
    return cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])


@intrinsic
def _load_acquire(typingctx, array, index):
    """array[index] (an int64 array) read with acquire ordering: another thread's store is seen."""

    def codegen(context, builder, sig, args):
        return builder.load_atomic(_element(context, builder, sig, args), "acquire", 8)

    return types.int64(array, index), codegen


@intrinsic
def _store_release(typingctx, array, index, value):
    """array[index] = value (an int64 array) with release ordering."""

    def codegen(context, builder, sig, args):
        value = context.cast(builder, args[2], sig.args[2], types.int64)
        builder.store_atomic(value, _element(context, builder, sig, args), "release", 8)
        return context.get_dummy_value()

    return types.void(array, index, value), codegen


@intrinsic
def _pause(typingctx):
    def codegen(context, builder, sig, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse2.pause")
        builder.call(fn, [])
        return context.get_dummy_value()

    return types.void(), codegen


@intrinsic
def _cycles(typingctx):
    def codegen(context, builder, sig, args):
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter"
        )
        return builder.call(fn, [])

    return types.int64(), codegen


@numba.njit(cache=True, nogil=True)
def until_changed(counter, index, seen, cycles):
    """Spins while ``counter[index] == seen``, at most ``cycles`` ticks of the time-stamp counter; True where
    it changed."""
    start = _cycles()
    while _load_acquire(counter, index) == seen:
        if _cycles() - start > cycles:
            return False
        _pause()
    return True


@numba.njit(cache=True, nogil=True)
def mark_then_wait(marks, mark_index, mark, counter, index, seen, cycles):
    """Stores ``mark`` in ``marks[mark_index]`` once the GIL is released (the thread waiting on it then takes
    the GIL at once, not after this one's next Python), then spins as ``until_changed``."""
    _store_release(marks, mark_index, mark)
    return until_changed(counter, index, seen, cycles)
