"""Kernels of scaled_dot_product_attention and its gradient (pe_cli/ops/attention.py): the pairs of
(sample, head) in numba loops, each pair's products by BLAS on the pair's rows of Q, K, V in place and
its softmax (or softmax gradient) between them on the cache-resident [Sq, Sk] tile
(_attention_loops.py), the pairs in blocks on the device's threads. Where no BLAS GEMM can be called
from the loops (runtime/cblas.py), or for other dtypes, numpy computes the same formulas by batched matmuls."""

import numpy as np

from .runtime import cblas, threads
from .runtime.loops import is_float, lazy, parallel_threads, twin
from .activation import softmax, softmax_grad
from .softmax import SOFTMAX_FLOOR
from ..context import NO_CONTEXT

_loops = lazy("_attention_loops")


def _parts(q, k):
    pairs = q.shape[0] * q.shape[2]
    macs = pairs * q.shape[1] * k.shape[1] * q.shape[3] * 2
    return min(parallel_threads(), pairs) if macs >= threads.SPLIT_GEMM_MACS else 1


def _gemm(*arrays):
    ok = is_float(*arrays) and len({a.dtype for a in arrays}) == 1 and all(a.size for a in arrays)
    return cblas.gemm(arrays[0].dtype) if ok else None


def scaled_dot_product_attention(ins, attrs):
    q, k, v = (np.ascontiguousarray(ins[s]) for s in ("Q", "K", "V"))
    mask, alpha = ins.get("Mask"), attrs["alpha"]
    batch, sq, heads, dh = q.shape
    w = np.empty((batch, heads, sq, k.shape[1]), q.dtype)
    gemm = _gemm(q, k, v) if mask is None or mask.dtype == q.dtype else None
    if gemm is None:
        return _numpy_forward(q, k, v, mask, alpha)
    out = np.empty_like(q)
    masked = np.broadcast_to(mask if mask is not None else np.zeros((1,), q.dtype), w.shape)
    parts = _parts(q, k)
    bits = np.empty((parts, sq * k.shape[1]), np.int32)
    args = (
        gemm,
        q,
        k,
        v,
        masked,
        mask is not None,
        q.dtype.type(alpha),
        q.dtype.type(SOFTMAX_FLOOR),
        q.dtype == np.float32,
        w,
        out,
        bits,
        bits.view(np.float32),
    )
    loops = _loops()
    twin(loops.attention, loops.attention_parallel, parts > 1, *args, parts)(*args, parts)
    return {"Out": out, "Weights": w}


def scaled_dot_product_attention_grad(ins, attrs, ctx=NO_CONTEXT):
    q, k, v, w, dout = (np.ascontiguousarray(ins[s]) for s in ("Q", "K", "V", "Weights", "Out@GRAD"))
    wanted = ctx.wanted(("Q@GRAD", "K@GRAD", "V@GRAD"))
    gemm = _gemm(q, k, v, w, dout)
    if gemm is None:
        grads = _numpy_grad(q, k, v, w, dout, attrs["alpha"])
    else:
        grads = np.empty_like(q), np.empty_like(k), np.empty_like(v)
        parts = _parts(q, k)
        scratch = np.empty((parts,) + w.shape[2:], w.dtype)
        args = (gemm, q, k, v, w, dout, q.dtype.type(attrs["alpha"])) + grads + (scratch,)
        loops = _loops()
        twin(loops.attention_grad, loops.attention_grad_parallel, parts > 1, *args, parts)(*args, parts)
    return {slot: g for slot, g in zip(("Q@GRAD", "K@GRAD", "V@GRAD"), grads) if slot in wanted}


# -- numpy: the unfused chain's formulas, by batched matmuls over [batch, heads, seq, head_dim], and
# the softmax op's own kernels ------------------------------------------------------------------------


def _heads(x):
    return np.swapaxes(x, 1, 2)


def _numpy_forward(q, k, v, mask, alpha):
    scores = np.matmul(_heads(q), np.swapaxes(_heads(k), -1, -2)) * q.dtype.type(alpha)
    if mask is not None:
        scores = scores + mask
    w = softmax({"X": np.ascontiguousarray(scores, q.dtype)}, {"axis": -1})["Out"]
    return {"Out": np.ascontiguousarray(_heads(np.matmul(w, _heads(v)))), "Weights": w}


def _numpy_grad(q, k, v, w, dout, alpha):
    do = _heads(dout)
    dw = np.ascontiguousarray(np.matmul(do, np.swapaxes(_heads(v), -1, -2)), w.dtype)
    ds = softmax_grad({"Out": w, "Out@GRAD": dw}, {"axis": -1})["X@GRAD"] * w.dtype.type(alpha)
    dq = np.matmul(ds, _heads(k))
    dk = np.matmul(np.swapaxes(ds, -1, -2), _heads(q))
    dv = np.matmul(np.swapaxes(w, -1, -2), do)
    return tuple(np.ascontiguousarray(_heads(g)).astype(q.dtype, copy=False) for g in (dq, dk, dv))
