"""Out-kernels of scaled_dot_product_attention and its gradient (pe_cli/ops/attention.py; structured kernels, their
meta rules in shapes/attention.py): the pairs of
(sample, head) in numba loops, each pair's products by BLAS on the pair's rows of Q, K, V in place and
its softmax (or softmax gradient) between them on the cache-resident [Sq, Sk] tile
(_attention_loops.py), the pairs in blocks on the device's threads. Where no BLAS GEMM can be called
from the loops (runtime/cblas.py), numpy computes the same formulas by batched matmuls into the buffers handed; for
other dtypes (and empty values) it is the "numpy" variant (its arrays handed over)."""

import numpy as np

from ...shapes.attention import GRADS
from ..structured import fresh_outputs
from .activation import softmax, softmax_grad
from .launches import by_variant
from .runtime import cblas, threads
from .runtime.loops import lazy, parallel_threads, twin
from .softmax import SOFTMAX_FLOOR

_loops = lazy("_attention_loops")


def _parts(q, k):
    pairs = q.shape[0] * q.shape[2]
    macs = pairs * q.shape[1] * k.shape[1] * q.shape[3] * 2
    return min(parallel_threads(), pairs) if macs >= threads.SPLIT_GEMM_MACS else 1


def _loops_forward(ins, outs, attrs, meta):
    q, k, v = (np.ascontiguousarray(ins[s]) for s in ("Q", "K", "V"))
    mask, alpha, w, out = ins.get("Mask"), attrs["alpha"], outs["Weights"], outs["Out"]
    gemm = cblas.gemm(q.dtype)
    if gemm is None:  # (a host whose BLAS the loops cannot call: numpy's form)
        for slot, value in _numpy_forward(q, k, v, mask, alpha).items():
            np.copyto(outs[slot], value)
        return
    masked = np.broadcast_to(mask if mask is not None else np.zeros((1,), q.dtype), w.shape)
    parts = _parts(q, k)
    bits = np.empty((parts, q.shape[1] * k.shape[1]), np.int32)  # (a work tile a thread)
    args = (gemm, q, k, v, masked, mask is not None, q.dtype.type(alpha), q.dtype.type(SOFTMAX_FLOOR))
    args += (q.dtype == np.float32, w, out, bits, bits.view(np.float32))
    loops = _loops()
    twin(loops.attention, loops.attention_parallel, parts > 1, *args, parts)(*args, parts)


def _numpy_forward_out(ins, outs, attrs, meta):
    q, k, v = (np.ascontiguousarray(ins[s]) for s in ("Q", "K", "V"))
    fresh_outputs(_numpy_forward(q, k, v, ins.get("Mask"), attrs["alpha"]), ins, outs, meta)


def _grads(outs):
    return tuple(outs[slot] if slot in outs else outs["@" + slot] for slot in GRADS)


def _loops_grad(ins, outs, attrs, meta):
    q, k, v, w, dout = (np.ascontiguousarray(ins[s]) for s in ("Q", "K", "V", "Weights", "Out@GRAD"))
    gemm = cblas.gemm(q.dtype)
    if gemm is None:  # (a host whose BLAS the loops cannot call: numpy's form)
        for value, buffer in zip(_numpy_grad(q, k, v, w, dout, attrs["alpha"]), _grads(outs)):
            np.copyto(buffer, value)
        return
    parts = _parts(q, k)
    scratch = np.empty((parts,) + w.shape[2:], w.dtype)  # (a work tile a thread)
    args = (gemm, q, k, v, w, dout, q.dtype.type(attrs["alpha"])) + _grads(outs) + (scratch,)
    loops = _loops()
    twin(loops.attention_grad, loops.attention_grad_parallel, parts > 1, *args, parts)(*args, parts)


def _numpy_grad_out(ins, outs, attrs, meta):
    q, k, v, w, dout = (np.ascontiguousarray(ins[s]) for s in ("Q", "K", "V", "Weights", "Out@GRAD"))
    fresh_outputs(dict(zip(GRADS, _numpy_grad(q, k, v, w, dout, attrs["alpha"]))), ins, outs, meta)


SDPA = by_variant("scaled_dot_product_attention_out", None, loops=_loops_forward, numpy=_numpy_forward_out)
SDPA_GRAD = by_variant("scaled_dot_product_attention_grad_out", None, loops=_loops_grad, numpy=_numpy_grad_out)


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
