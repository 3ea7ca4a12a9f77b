"""oneDNN convolutions bound once for a planned step's launch (kernels/cpu/convolution_onednn.py): the plans
(onednn_api._Plan: the primitive, the reorders between pe's arrays and oneDNN's layouts, the scratchpad) a
convolution's out-kernel runs for its shapes and thread count, as a list of executions whose memories are made
here once; the memories of pe's arrays are pointed at the arrays' addresses each step by the launch's loop
(_onednn_loops.run), without the GIL. The blocked copies and the scratchpads are buffers of their own, kept with
the stream the executions run on: the bits of Plan.run (the same primitives and reorders, on as many threads)."""

import ctypes
import functools
from ctypes import CFUNCTYPE, byref, c_int, c_void_p

import numpy as np

from .onednn_api import DST as DST_ARG, SCRATCHPAD, SRC as SRC_ARG, _Arg

_IN_ORDER = 1
assert ctypes.sizeof(_Arg) == 16  # (the loop steps through the packed arguments 16 bytes at a time)
ARRAYS = 5  # pe arrays a launch's loop takes (the rest of its five: empty stand-ins)


class Prepared:
    """The executions of ``runs`` ([(plan, {argument: index of its array among the loop's arrays})], in order),
    run on ``nthreads`` threads: ``prims`` (uint64), ``packed`` (their _Arg lists, one after another: bytes),
    ``starts`` (each list's first _Arg, and the end), ``mems`` and ``slots`` (the memories to point at the
    loop's arrays, and which array), ``handles`` ([stream]) and ``functions`` (C functions the loop calls)."""

    def __init__(self, lib, runs, nthreads):
        self.lib, self.plans, self.nthreads = lib, [plan for plan, _ in runs], nthreads
        self._mems, self._held, self._stream = [], [], c_void_p()
        dnnl = lib.lib
        lib.check(dnnl.dnnl_stream_create(byref(self._stream), lib.engine, _IN_ORDER), "stream")
        executions, binds = [], []
        for plan, slots in runs:
            args, after = [], []
            for arg, slot in slots.items():
                plain, inner, size, reorder = plan.tensors[arg]
                if reorder is None:
                    args.append((arg, self._bound(plain, slot, binds)))
                elif arg in plan.outputs:  # (written blocked, then reordered into pe's array)
                    blocked = self._kept(inner, size)
                    args.append((arg, blocked))
                    after.append((reorder, [(SRC_ARG, blocked), (DST_ARG, self._bound(plain, slot, binds))]))
                else:  # (pe's array reordered into oneDNN's layout first)
                    blocked = self._kept(inner, size)
                    executions.append((reorder, [(SRC_ARG, self._bound(plain, slot, binds)), (DST_ARG, blocked)]))
                    args.append((arg, blocked))
            if plan.scratch is not None:
                args.append((SCRATCHPAD, self._kept(plan.scratch[0], max(plan.scratch[1], 1))))
            executions += [(plan.prim, args), *after]
        packed = (_Arg * sum(len(a) for _, a in executions))(*[_Arg(arg, mem) for _, a in executions for arg, mem in a])
        self.packed = np.frombuffer(packed, np.uint8).copy()  # (the loop's copy: the _Args as bytes)
        self.prims = np.array([prim.value for prim, _ in executions], np.uint64)
        self.starts = np.cumsum([0] + [len(a) for _, a in executions]).astype(np.int64) * ctypes.sizeof(_Arg)
        self.mems = np.array([mem.value for mem, _ in binds], np.uint64)
        self.slots = np.array([slot for _, slot in binds], np.int64)
        self.handles = np.array([self._stream.value], np.uint64)
        self.functions = _functions(lib)

    def _memory(self, md, address):
        mem = c_void_p()
        self.lib.check(self.lib.lib.dnnl_memory_create(byref(mem), md, self.lib.engine, address), "memory")
        self._mems.append(mem)
        return mem

    def _bound(self, md, slot, binds):
        """A memory of ``md`` for the loop's array ``slot`` (its address set at each run)."""
        mem = self._memory(md, None)
        binds.append((mem, slot))
        return mem

    def _kept(self, md, nbytes):
        """A memory of ``md`` over a buffer of ``nbytes`` kept here (a blocked copy, a scratchpad)."""
        buffer = np.empty(max(nbytes, 1), np.uint8)
        self._held.append(buffer)
        return self._memory(md, buffer.ctypes.data)

    def __del__(self):
        dnnl = self.lib.lib
        for mem in self._mems:
            dnnl.dnnl_memory_destroy(mem)
        if self._stream.value:
            dnnl.dnnl_stream_destroy(self._stream)


@functools.lru_cache(maxsize=None)
def _functions(lib):
    """(omp_set_num_threads, dnnl_memory_set_data_handle, dnnl_primitive_execute, dnnl_stream_wait) as C functions
    of the types the loop calls them with (one set per library: the library is loaded once)."""
    gomp = ctypes.CDLL("libgomp.so.1")
    return (
        CFUNCTYPE(None, c_int)(("omp_set_num_threads", gomp)),
        CFUNCTYPE(c_int, c_void_p, c_void_p)(("dnnl_memory_set_data_handle", lib.lib)),
        CFUNCTYPE(c_int, c_void_p, c_void_p, c_int, c_void_p)(("dnnl_primitive_execute", lib.lib)),
        CFUNCTYPE(c_int, c_void_p)(("dnnl_stream_wait", lib.lib)),
    )
