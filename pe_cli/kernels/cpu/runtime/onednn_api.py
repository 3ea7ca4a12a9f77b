"""oneDNN's C API as onednn.py calls it (ctypes on libdnnl.so.3): its constants, the library with its
engine, a stream per thread and the attributes every plan shares (``_Library``), and ``_Plan``, one
convolution direction on one geometry with the reorders between pe's arrays and oneDNN's layouts."""

import ctypes
import threading
from ctypes import POINTER, byref, c_char_p, c_int, c_int64, c_size_t, c_uint, c_void_p

import numpy as np


Dims = c_int64 * 12
_F32, _FORMAT_ANY, FORWARD_TRAINING, DIRECT, _CPU, _IN_ORDER, _SCRATCHPAD_USER = 3, 1, 64, 1, 1, 1, 1
_RUNTIME_OMP = 2
# dnnl_query_t: the memory descriptors of a primitive descriptor, and its implementation's name
_Q_SRC, _Q_DIFF_SRC, _Q_WEIGHTS, _Q_DIFF_WEIGHTS, _Q_DST, _Q_DIFF_DST, _Q_SCRATCHPAD, _Q_IMPL_INFO = (
    129,
    130,
    131,
    132,
    133,
    134,
    136,
    8,
)
# DNNL_ARG_*: a primitive's arguments
SRC, DST, WEIGHTS, SCRATCHPAD, DIFF_SRC, DIFF_DST, DIFF_WEIGHTS = 1, 17, 33, 80, 129, 145, 161
_QUERY_OF = {
    SRC: _Q_SRC,
    DST: _Q_DST,
    WEIGHTS: _Q_WEIGHTS,
    DIFF_SRC: _Q_DIFF_SRC,
    DIFF_DST: _Q_DIFF_DST,
    DIFF_WEIGHTS: _Q_DIFF_WEIGHTS,
}


class _Version(ctypes.Structure):
    _fields_ = [
        ("major", c_int),
        ("minor", c_int),
        ("patch", c_int),
        ("hash", c_char_p),
        ("cpu_runtime", c_uint),
        ("gpu_runtime", c_uint),
    ]


class _Arg(ctypes.Structure):
    _fields_ = [("arg", c_int), ("memory", c_void_p)]


class Library:
    """libdnnl.so.3 with the engine, a stream per thread and the attributes every plan shares."""

    def __init__(self, path):
        lib = self.lib = ctypes.CDLL(path)
        lib.dnnl_version.restype = POINTER(_Version)
        lib.dnnl_primitive_desc_query_md.restype = c_void_p
        lib.dnnl_primitive_desc_query_md.argtypes = [c_void_p, c_int, c_int]
        lib.dnnl_memory_desc_get_size.restype = c_size_t
        lib.dnnl_memory_desc_get_size.argtypes = [c_void_p]
        lib.dnnl_memory_desc_equal.argtypes = [c_void_p, c_void_p]
        lib.dnnl_memory_create.argtypes = [c_void_p, c_void_p, c_void_p, c_void_p]
        lib.dnnl_memory_destroy.argtypes = [c_void_p]
        lib.dnnl_primitive_execute.argtypes = [c_void_p, c_void_p, c_int, c_void_p]
        lib.dnnl_primitive_desc_query.argtypes = [c_void_p, c_int, c_int, c_void_p]
        version = lib.dnnl_version().contents
        self.version = f"{version.major}.{version.minor}.{version.patch}"
        if version.major != 3 or version.cpu_runtime != _RUNTIME_OMP:
            raise OSError(f"oneDNN {self.version} is not oneDNN 3 on OpenMP")
        self.omp_set_num_threads = ctypes.CDLL("libgomp.so.1").omp_set_num_threads
        self.engine = c_void_p()
        self.check(lib.dnnl_engine_create(byref(self.engine), _CPU, 0), "engine")
        self.attr = c_void_p()
        self.check(lib.dnnl_primitive_attr_create(byref(self.attr)), "attributes")
        self.check(lib.dnnl_primitive_attr_set_scratchpad_mode(self.attr, _SCRATCHPAD_USER), "scratchpad mode")
        self._local = threading.local()

    @staticmethod
    def check(status, what):
        if status != 0:
            raise Rejected(f"oneDNN: {what} failed (status {status})")

    def stream(self):
        stream = getattr(self._local, "stream", None)
        if stream is None:
            stream = self._local.stream = c_void_p()
            self.check(self.lib.dnnl_stream_create(byref(stream), self.engine, _IN_ORDER), "stream")
        return stream

    def desc(self, shape, layout_any=False, blocked=False):
        """A float32 memory descriptor: C-contiguous, the layout the primitive chooses, or (``blocked``)
        nChw16c, the layout of pe's blocked values (blocked.py)."""
        md = c_void_p()
        if blocked:
            self.check(
                self.lib.dnnl_memory_desc_create_with_string_tag(byref(md), len(shape), Dims(*shape), _F32, b"aBcd16b"),
                "blocked memory descriptor",
            )
        elif layout_any:
            self.check(
                self.lib.dnnl_memory_desc_create_with_tag(byref(md), len(shape), Dims(*shape), _F32, _FORMAT_ANY),
                "memory descriptor",
            )
        else:
            strides = np.cumprod((list(shape[1:]) + [1])[::-1])[::-1]
            self.check(
                self.lib.dnnl_memory_desc_create_with_strides(
                    byref(md), len(shape), Dims(*shape), _F32, Dims(*map(int, strides))
                ),
                "memory descriptor",
            )
        return md

    def implementation(self, pd):
        """oneDNN's implementation for ``pd``: "jit:avx2", "ref:any", ..."""
        name = c_char_p()
        self.check(self.lib.dnnl_primitive_desc_query(pd, _Q_IMPL_INFO, 0, byref(name)), "implementation query")
        return (name.value or b"").decode()

    def primitive(self, pd):
        prim = c_void_p()
        self.check(self.lib.dnnl_primitive_create(byref(prim), pd), "primitive")
        return prim

    def execute(self, prim, args):
        """Runs ``prim`` on [(argument, memory descriptor, array)], then waits for it."""
        lib, mems = self.lib, []
        try:
            for _, md, array in args:
                mem = c_void_p()
                self.check(lib.dnnl_memory_create(byref(mem), md, self.engine, array.ctypes.data), "memory")
                mems.append(mem)
            packed = (_Arg * len(args))(*[_Arg(arg, mem) for (arg, _, _), mem in zip(args, mems)])
            self.check(lib.dnnl_primitive_execute(prim, self.stream(), len(args), packed), "execute")
            self.check(lib.dnnl_stream_wait(self.stream()), "stream wait")
        finally:
            for mem in mems:
                lib.dnnl_memory_destroy(mem)


class Rejected(Exception):
    """oneDNN has no primitive for this convolution: pe's own path runs."""


class _Plan:
    """One convolution direction on one geometry: the primitive, the reorders from and to pe's
    arrays (C-contiguous, or nChw16c for the arguments in ``blocked``) where oneDNN chose another
    layout, and the scratchpad's size."""

    def __init__(self, lib, pd, shapes, outputs, owned, blocked=frozenset()):
        self.lib, self.outputs, self.owned = lib, outputs, []
        self.implementation = lib.implementation(pd)  # "jit:avx2", "brgconv:avx512_core", ...
        if self.implementation.startswith("ref"):
            raise Rejected("oneDNN has only its reference convolution here: pe's own path is faster")
        self.prim = lib.primitive(pd)
        owned.append((lib.lib.dnnl_primitive_destroy, self.prim))
        self.tensors = {}
        for arg, shape in shapes.items():
            inner = c_void_p(lib.lib.dnnl_primitive_desc_query_md(pd, _QUERY_OF[arg], 0))
            plain = lib.desc(shape, blocked=arg in blocked)
            owned.append((lib.lib.dnnl_memory_desc_destroy, plain))
            reorder = None
            if not lib.lib.dnnl_memory_desc_equal(plain, inner):
                src, dst = (inner, plain) if arg in outputs else (plain, inner)
                rpd = c_void_p()
                lib.check(
                    lib.lib.dnnl_reorder_primitive_desc_create(byref(rpd), src, lib.engine, dst, lib.engine, None),
                    "reorder",
                )
                reorder = lib.primitive(rpd)
                lib.lib.dnnl_primitive_desc_destroy(rpd)
                owned.append((lib.lib.dnnl_primitive_destroy, reorder))
            self.tensors[arg] = (plain, inner, lib.lib.dnnl_memory_desc_get_size(inner), reorder)
        scratch = lib.lib.dnnl_primitive_desc_query_md(pd, _Q_SCRATCHPAD, 0)
        self.scratch = (c_void_p(scratch), lib.lib.dnnl_memory_desc_get_size(scratch)) if scratch else None
        self.owned = owned  # built: what the plan destroys with it, (function, handle)

    def __del__(self):
        for destroy, handle in reversed(self.owned):  # primitives, then their descriptors
            destroy(handle)

    def shares_layout(self, other, arg):
        """This plan and ``other`` take ``arg`` in one layout, which ``converted`` gives both."""
        return bool(self.lib.lib.dnnl_memory_desc_equal(self.tensors[arg][1], other.tensors[arg][1]))

    def converted(self, arg, array):
        """Input ``array`` in the layout this plan takes for ``arg`` (itself where that is pe's)."""
        plain, inner, size, reorder = self.tensors[arg]
        if reorder is None:
            return array
        blocked = np.empty(size // 4, np.float32)
        self.lib.execute(reorder, [(SRC, plain, array), (DST, inner, blocked)])
        return blocked

    def run(self, arrays, converted=None):
        """Runs it on ``arrays`` ({argument: float32 array}, outputs written); ``converted``: inputs already so."""
        lib, args, after, converted = self.lib, [], [], converted or {}
        for arg, array in arrays.items():
            plain, inner, size, reorder = self.tensors[arg]
            if reorder is None:
                args.append((arg, plain, array))
            elif arg in self.outputs:
                blocked = np.empty(size // 4, np.float32)
                after.append((reorder, inner, blocked, plain, array))
                args.append((arg, inner, blocked))
            else:
                args.append((arg, inner, converted[arg] if arg in converted else self.converted(arg, array)))
        if self.scratch is not None:
            args.append((SCRATCHPAD, self.scratch[0], np.empty(max(self.scratch[1], 1), np.uint8)))
        lib.execute(self.prim, args)
        for reorder, inner, blocked, plain, array in after:
            lib.execute(reorder, [(SRC, inner, blocked), (DST, plain, array)])
