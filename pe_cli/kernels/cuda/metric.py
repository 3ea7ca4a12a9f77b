"""CUDA twins of kernels/cpu/metric.py: one thread per row (top_k, arg_max/min, accuracy's hits),
then a block reduction for accuracy's count; auc's bucket counts run on the host (a few thousand
int64 counters per batch), as Fluid's CUDA auc keeps its statistics on the host too."""
import math

import numpy as np
from numba import cuda

from ..cpu import metric as _cpu
from . import runtime as rt
from ._launch import flat, grid
from ._reduce import reduce


@cuda.jit
def _top_k(x, out, idx, n, k):
    """Per row: the k largest in the order (value descending, index ascending), like a stable sort."""
    r = cuda.grid(1)
    step = cuda.gridsize(1)
    while r < out.size // k:
        base = r * n
        prev_v = math.inf
        prev_i = -1
        for s in range(k):
            best = -1
            for c in range(n):
                v = x[base + c]
                after_prev = v < prev_v or (v == prev_v and c > prev_i)
                if after_prev and (best < 0 or v > x[base + best]):
                    best = c
            out[r * k + s] = x[base + best]
            idx[r * k + s] = best
            prev_v = x[base + best]
            prev_i = best
        r += step


def top_k(ins, attrs):
    x = ins["X"]
    k = attrs["k"]
    shape = tuple(x.shape)
    n = shape[-1]
    if k > n:
        raise ValueError(f"k={k} is larger than the last dim of X {list(shape)}")
    out = rt.empty(shape[:-1] + (k,), x.dtype)
    idx = rt.empty(shape[:-1] + (k,), np.int64)
    if out.size:
        _top_k[grid(out.size // k)](flat(x), flat(out), flat(idx), n, k)
    return {"Out": out, "Indices": idx}


@cuda.jit
def _arg_extreme(x, out, n, inner, is_max):
    """Per output: the index along the axis of the first max (min) of its row."""
    o = cuda.grid(1)
    step = cuda.gridsize(1)
    while o < out.size:
        base = (o // inner) * n * inner + o % inner
        best = 0
        bv = x[base]
        for j in range(1, n):
            v = x[base + j * inner]
            if (is_max and v > bv) or (not is_max and v < bv):
                best = j
                bv = v
        out[o] = best
        o += step


def _arg(is_max):
    def kernel(ins, attrs):
        x = ins["X"]
        shape = tuple(x.shape)
        if attrs["flatten"]:
            out = rt.empty((1,), np.int64)
            _arg_extreme[grid(1)](flat(x), out, x.size, 1, is_max)
            return {"Out": out}
        axis = attrs["axis"] % x.ndim
        n = shape[axis]
        inner = 1
        for d in shape[axis + 1:]:
            inner *= d
        out_shape = shape[:axis] + ((1,) if attrs["keepdims"] else ()) + shape[axis + 1:]
        out = rt.empty(out_shape or (1,), np.int64)
        if out.size:
            _arg_extreme[grid(out.size)](flat(x), flat(out), n, inner, is_max)
        return {"Out": out}
    return kernel


arg_max = _arg(True)
arg_min = _arg(False)


@cuda.jit
def _hits(idx, label, hit, k):
    r = cuda.grid(1)
    step = cuda.gridsize(1)
    while r < hit.size:
        found = 0
        for j in range(k):
            if idx[r * k + j] == label[r]:
                found = 1
        hit[r] = found
        r += step


@cuda.jit
def _accuracy(correct, total, acc, correct_out):
    if cuda.grid(1) == 0:
        correct_out[0] = correct[0]
        acc[0] = correct[0] / total if total else 0.0


def accuracy(ins, attrs):
    idx, label = ins["Indices"], ins["Label"]
    total = idx.shape[0]
    k = idx.size // max(total, 1)
    hit = rt.empty((total,), np.int32)
    if total:
        _hits[grid(total)](flat(idx), flat(label), hit, k)
        correct = reduce(hit, (0,), "sum").reshape((1,))
    else:
        correct = rt.to_device(np.zeros(1, dtype=np.int32))
    acc, correct_out = rt.empty((1,), np.float32), rt.empty((1,), np.int32)
    _accuracy[1, 1, rt.stream()](correct, total, acc, correct_out)
    return {"Accuracy": acc, "Correct": correct_out, "Total": rt.to_device(np.array([total], dtype=np.int32))}


def auc(ins, attrs):
    outs = _cpu.auc({k: rt.to_host(v) for k, v in ins.items()}, attrs)
    return {k: rt.to_device(v) for k, v in outs.items()}
