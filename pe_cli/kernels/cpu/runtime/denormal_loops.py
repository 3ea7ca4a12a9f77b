"""numba functions reading and writing the x86 MXCSR register (denormals.py; imported on first use,
x86-64 only): LLVM's ``llvm.x86.sse.stmxcsr`` / ``ldmxcsr`` intrinsics, which neither Python nor
numpy reach."""

import numba
import numpy as np
from llvmlite import ir
from numba import prange, types
from numba.core import cgutils
from numba.extending import intrinsic
from .numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)


def _call(builder, name, slot):
    fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer()])
    fn = cgutils.get_or_insert_function(builder.module, fnty, name)
    builder.call(fn, [builder.bitcast(slot, ir.IntType(8).as_pointer())])


@intrinsic
def _read(typingctx):
    def codegen(context, builder, sig, args):
        slot = cgutils.alloca_once(builder, ir.IntType(32))
        _call(builder, "llvm.x86.sse.stmxcsr", slot)
        return builder.load(slot)

    return types.uint32(), codegen


@intrinsic
def _write(typingctx, value):
    def codegen(context, builder, sig, args):
        slot = cgutils.alloca_once(builder, ir.IntType(32))
        builder.store(args[0], slot)
        _call(builder, "llvm.x86.sse.ldmxcsr", slot)
        return context.get_dummy_value()

    return types.void(types.uint32), codegen


@_jit
def set_flush(bits):
    """Sets ``bits`` in the calling thread's MXCSR; returns its previous value."""
    old = _read()
    _write(old | numba.uint32(bits))
    return old


@_jit
def set_mode(value):
    """Writes ``value`` to the calling thread's MXCSR."""
    _write(numba.uint32(value))


@numba.njit(cache=True, nogil=True, parallel=True)
def set_all(bits, keep, parts):
    """MXCSR = (MXCSR & keep) | bits on each of ``parts`` parts over numba's threads (its static
    schedule gives each thread one part)."""
    for _ in prange(parts):
        _write((_read() & numba.uint32(keep)) | numba.uint32(bits))


@numba.njit(cache=True, nogil=True, parallel=True)
def _read_parts(out):
    for i in prange(out.size):
        out[i] = _read()


def read_all(parts):
    """The MXCSR each of numba's ``parts`` workers runs with (one value per part)."""
    out = np.zeros(parts, dtype=np.uint32)
    _read_parts(out)
    return out
