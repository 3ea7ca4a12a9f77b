"""float32 conv2d and its gradients by oneDNN's convolutions, where the ``onednn`` extra is installed.

oneDNN (PyTorch's CPU convolutions) computes a convolution directly in a blocked layout (nChw16c)
with kernels generated for the CPU at hand; pe's own paths (GEMMs on im2col, wide or Winograd
columns: convolution.py) stayed 5-60% behind it on the small ResNet's shapes; with oneDNN its step
took 0.79-0.86 of the time (docs/PERFORMANCE.md, "oneDNN's convolutions").

The ``onednn-cpu-gomp`` wheel puts ``libdnnl.so.3`` (oneDNN 3.2 on GNU OpenMP, numba's runtime too:
one thread pool for the machine) under ``sys.prefix/lib``; it is called through its C API (ctypes):

- a **plan** per convolution, direction, shapes and thread count: the primitive (layouts ``any``),
  the reorders between pe's NCHW / OIHW arrays and those layouts, and the scratchpad's size
  (scratchpad mode ``user``: two devices may run one plan at once);
- each call sets the calling thread's OpenMP thread count to the device's share first.

``PE_ONEDNN=0`` turns the path off; where the library is missing, rejects a geometry or has only its
reference implementation for it (``ref:any``: nChw16c input gradients on an AVX2 CPU took minutes a
ResNet step on the AMD EPYC VM), pe's own paths run.

The C API's constants, the library and the plans are in onednn_api.py; this module decides where
oneDNN runs, builds and keeps the plans and runs them.
"""

import os
import sys
import threading
from ctypes import byref, c_void_p

import numpy as np

from ....shapes.conv_pool import ONEDNN_MIN_CHANNELS as MIN_CHANNELS
from .loops import parallel_threads
from .onednn_prepared import Prepared
from .onednn_api import (
    DIFF_DST,
    DIFF_SRC,
    DIFF_WEIGHTS,
    DST,
    SRC,
    WEIGHTS,
    DIRECT,
    Dims,
    FORWARD_TRAINING,
    Library,
    _Plan,
    Rejected,
)


_lib, _loaded, _plans, _lock = None, False, {}, threading.Lock()
LANES = 16  # channels a block of pe's blocked values (nChw16c)
MAX_PLANS = 256  # plans kept (each a compiled primitive): a program whose shapes keep changing starts over


def library():
    """The loaded oneDNN (``_Library``), or None: not installed, not oneDNN 3 on OpenMP, ``PE_ONEDNN=0``."""
    global _lib, _loaded
    if not _loaded:
        with _lock:
            if not _loaded:
                path, _lib = os.path.join(sys.prefix, "lib", "libdnnl.so.3"), None
                if os.environ.get("PE_ONEDNN", "1") != "0" and sys.platform == "linux" and os.path.exists(path):
                    try:
                        _lib = Library(path)
                    except (OSError, AttributeError, Rejected):
                        pass
                _loaded = True
    return _lib


def applies(x, w, *arrays, min_channels=None):
    """oneDNN runs this convolution of Input ``x`` (NCHW or blocked) by Filter ``w``: float32 arrays,
    ``min_channels`` (MIN_CHANNELS) input channels a group (the filter's dim 1), the library loaded."""
    return (
        x.dtype == np.float32
        and w.dtype == np.float32
        and all(a.dtype == np.float32 for a in arrays)
        and w.shape[1] >= (MIN_CHANNELS if min_channels is None else min_channels)
        and library() is not None
    )


def _geometry(geo):
    return (
        Dims(geo.sh, geo.sw),
        Dims(geo.dh - 1, geo.dw - 1),
        Dims(geo.pads[0], geo.pads[2]),
        Dims(geo.pads[1], geo.pads[3]),
    )


def _weights_shape(w_shape, groups):
    return tuple(w_shape) if groups == 1 else (groups, w_shape[0] // groups) + tuple(w_shape[1:])


def _plan(direction, x_shape, w_shape, y_shape, geo, nthreads, blocked=frozenset()):
    """The plan of ``direction`` (shapes NCHW / OIHW); ``blocked``: the arguments whose arrays are
    nChw16c."""
    key = (
        direction,
        x_shape,
        w_shape,
        y_shape,
        geo.sh,
        geo.sw,
        geo.dh,
        geo.dw,
        tuple(geo.pads),
        geo.groups,
        nthreads,
        blocked,
    )
    plan = _plans.get(key)
    if plan is None and key not in _plans:
        plan = _new_plan(library(), direction, x_shape, w_shape, y_shape, geo, blocked)
        if len(_plans) >= MAX_PLANS:
            _plans.clear()
        _plans[key] = plan
    return plan


def _new_plan(lib, direction, x_shape, w_shape, y_shape, geo, blocked):
    """The plan of ``direction`` built (as _plan describes it), or None where oneDNN rejects it."""
    ws = _weights_shape(w_shape, geo.groups)
    xd, wd, yd = (lib.desc(s, layout_any=True) for s in (x_shape, ws, y_shape))
    strides, dilates, pad_l, pad_r = _geometry(geo)
    fwd, pd, owned = c_void_p(), c_void_p(), []
    try:
        _forward_desc(lib, fwd, xd, wd, yd, (strides, dilates, pad_l, pad_r))
        owned.append((lib.lib.dnnl_primitive_desc_destroy, fwd))
        if direction == "forward":
            plan = _Plan(lib, fwd, {SRC: x_shape, WEIGHTS: ws, DST: y_shape}, (DST,), owned, blocked)
        elif direction == "grad_input":
            _grad_input_desc(
                lib,
                pd,
                (x_shape, wd, y_shape),
                (xd, yd),
                (strides, dilates, pad_l, pad_r),
                fwd,
                {DIFF_SRC, DIFF_DST} <= blocked,
            )
            owned.append((lib.lib.dnnl_primitive_desc_destroy, pd))
            plan = _Plan(lib, pd, {DIFF_SRC: x_shape, WEIGHTS: ws, DIFF_DST: y_shape}, (DIFF_SRC,), owned, blocked)
        else:
            lib.check(
                lib.lib.dnnl_convolution_backward_weights_primitive_desc_create(
                    byref(pd), lib.engine, DIRECT, xd, wd, None, yd, strides, dilates, pad_l, pad_r, fwd, lib.attr
                ),
                "convolution's filter gradient",
            )
            owned.append((lib.lib.dnnl_primitive_desc_destroy, pd))
            plan = _Plan(lib, pd, {SRC: x_shape, DIFF_WEIGHTS: ws, DIFF_DST: y_shape}, (DIFF_WEIGHTS,), owned, blocked)
    except Rejected:
        plan = None
        for destroy, handle in reversed(owned):
            destroy(handle)
    finally:
        for md in (xd, wd, yd):  # the primitive descriptors keep their own copies
            lib.lib.dnnl_memory_desc_destroy(md)
    return plan


def _forward_desc(lib, fwd, xd, wd, yd, geometry):
    """The forward convolution's primitive descriptor, into ``fwd`` (every direction's plan starts from it)."""
    strides, dilates, pad_l, pad_r = geometry
    lib.check(
        lib.lib.dnnl_convolution_forward_primitive_desc_create(
            byref(fwd),
            lib.engine,
            FORWARD_TRAINING,
            DIRECT,
            xd,
            wd,
            None,
            yd,
            strides,
            dilates,
            pad_l,
            pad_r,
            lib.attr,
        ),
        "convolution",
    )


def _grad_input_desc(lib, pd, shapes, anys, geometry, fwd, held):
    """The input gradient's primitive descriptor, into ``pd``; ``held``: both gradients as nChw16c (at
    stride 2 oneDNN's own choice was NHWC and two reorders: 2x slower on the Xeon VM, 2026-11-25)."""
    x_shape, wd, y_shape = shapes
    create = lib.lib.dnnl_convolution_backward_data_primitive_desc_create
    if held:
        xb, yb = lib.desc(x_shape, blocked=True), lib.desc(y_shape, blocked=True)
        try:
            if create(byref(pd), lib.engine, DIRECT, xb, wd, yb, *geometry, fwd, lib.attr) == 0:
                if not lib.implementation(pd).startswith("ref"):  # (AVX2 CPUs: nChw16c has no jit kernel)
                    return
                lib.lib.dnnl_primitive_desc_destroy(pd)
        finally:
            lib.lib.dnnl_memory_desc_destroy(xb)
            lib.lib.dnnl_memory_desc_destroy(yb)
    lib.check(
        create(byref(pd), lib.engine, DIRECT, anys[0], wd, anys[1], *geometry, fwd, lib.attr),
        "convolution's input gradient",
    )


def prepared(runs, shapes, geo):
    """The plans of ``runs`` ([(direction, {argument: array index})]) for ``shapes`` (Input, Filter, Output: NCHW,
    OIHW) and ``geo``, bound for a planned step's launch (onednn_prepared.Prepared: the bits of their runs), where
    the device's share of the cores is one thread; else None, as where oneDNN rejects one. A compiled segment
    does not read the share again as the host's load changes (op by op does, at each call), and OpenMP's threads
    on a core another process holds wait for each other: ResNet's 1-device step on 2 threads beside a busy
    process took 429 ms launched against 232 op by op (2 cores, 2026-12-02; docs/PARALLEL.md)."""
    nthreads = max(1, parallel_threads())
    if nthreads > 1:
        return None
    plans = [(_plan(direction, *shapes, geo, nthreads), slots) for direction, slots in runs]
    if any(plan is None for plan, _ in plans):
        return None
    return Prepared(library(), plans, nthreads)


def _threads():
    """The device's share of the cores, set as the calling thread's OpenMP count (which oneDNN reads)."""
    nthreads = max(1, parallel_threads())
    library().omp_set_num_threads(nthreads)
    return nthreads


def _run(direction, x_shape, w_shape, y_shape, geo, arrays, blocked=frozenset()):
    """Runs ``direction`` of the convolution on ``arrays`` on the device's share of the cores;
    False where oneDNN rejected it."""
    plan = _plan(direction, tuple(x_shape), tuple(w_shape), tuple(y_shape), geo, _threads(), frozenset(blocked))
    if plan is None:
        return False
    plan.run(arrays)
    return True


def blocked_shape(shape):
    """The array shape of an NCHW value in nChw16c: [N, C/16, H, W, 16] (C a multiple of 16)."""
    n, c, h, w = shape
    return (n, c // LANES, h, w, LANES)


def plain_shape(array, blocked):
    """The NCHW shape of ``array``, nChw16c where ``blocked``."""
    if not blocked:
        return array.shape
    n, cb, h, w, lanes = array.shape
    return (n, cb * lanes, h, w)


def _empty(shape, blocked):
    return np.empty(blocked_shape(shape) if blocked else shape, np.float32)


def conv2d(x, w, geo, blocked=frozenset(), out=None):
    """conv2d's Output (into ``out`` where given: an NCHW buffer), or None where oneDNN has no primitive for the
    geometry; ``blocked``: the arguments whose arrays are nChw16c (here of SRC and DST: Input given so, Output
    made so)."""
    x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
    x_shape, y_shape = plain_shape(x, SRC in blocked), (x.shape[0], w.shape[0], geo.ho, geo.wo)
    y = _empty(y_shape, DST in blocked) if out is None else out
    return y if _run("forward", x_shape, w.shape, y_shape, geo, {SRC: x, WEIGHTS: w, DST: y}, blocked) else None


def grad_input(dout, w, geo, x_shape, blocked=frozenset(), out=None):
    """conv2d's Input@GRAD (into ``out`` where given), or None; ``blocked``: of DIFF_DST and DIFF_SRC."""
    dout, w = np.ascontiguousarray(dout), np.ascontiguousarray(w)
    dx = _empty(x_shape, DIFF_SRC in blocked) if out is None else out
    return (
        dx
        if _run(
            "grad_input",
            x_shape,
            w.shape,
            plain_shape(dout, DIFF_DST in blocked),
            geo,
            {DIFF_SRC: dx, WEIGHTS: w, DIFF_DST: dout},
            blocked,
        )
        else None
    )


def grad_filter(x, dout, geo, w_shape, blocked=frozenset(), out=None):
    """conv2d's Filter@GRAD (into ``out`` where given), or None; ``blocked``: of SRC and DIFF_DST. oneDNN splits its sum over
    the samples among its threads, so the last bits of this gradient follow the thread count (pe's
    own paths sum fixed runs of samples: the same bits on any threads); ``PE_DEVICE_THREADS``
    fixes the count, and with it the bits, on a machine whose load changes."""
    x, dout = np.ascontiguousarray(x), np.ascontiguousarray(dout)
    dw = np.empty(w_shape, np.float32) if out is None else out
    return (
        dw
        if _run(
            "grad_filter",
            plain_shape(x, SRC in blocked),
            w_shape,
            plain_shape(dout, DIFF_DST in blocked),
            geo,
            {SRC: x, DIFF_WEIGHTS: dw, DIFF_DST: dout},
            blocked,
        )
        else None
    )


def grads(x, w, dout, geo, blocked=frozenset(), outs=None):
    """conv2d's (Input@GRAD, Filter@GRAD), or None: the two directions of conv2d_grad, which
    convert Output@GRAD to oneDNN's layout once for both where they take it in one layout (run
    apart, each converts it; on the ResNet 10 of the 14 convolutions share it, the stride-2 ones
    not: 56 -> 46 conversions to nChw16c a step). The numbers are those of grad_input and
    grad_filter. ``blocked``: of SRC, DIFF_SRC and DIFF_DST, those whose arrays are nChw16c; ``outs``: the
    (Input@GRAD, Filter@GRAD) buffers to write (NCHW), where given."""
    x, w, dout = np.ascontiguousarray(x), np.ascontiguousarray(w), np.ascontiguousarray(dout)
    x_shape = plain_shape(x, SRC in blocked)
    shapes = (x_shape, w.shape, plain_shape(dout, DIFF_DST in blocked), geo, _threads(), frozenset(blocked))
    to_input, to_filter = _plan("grad_input", *shapes), _plan("grad_filter", *shapes)
    if to_input is None or to_filter is None:
        return None
    converted = {}
    if to_input.shares_layout(to_filter, DIFF_DST):
        converted[DIFF_DST] = to_input.converted(DIFF_DST, dout)
    dx, dw = (_empty(x_shape, DIFF_SRC in blocked), np.empty(w.shape, np.float32)) if outs is None else outs
    to_input.run({DIFF_SRC: dx, WEIGHTS: w, DIFF_DST: dout}, converted)
    to_filter.run({SRC: x, DIFF_WEIGHTS: dw, DIFF_DST: dout}, converted)
    return dx, dw
