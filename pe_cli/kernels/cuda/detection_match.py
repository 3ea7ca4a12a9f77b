"""Kernels of ops/detection_match.py on a GPU. bipartite_match and mine_hard_examples (greedy or
sorting, outputs whose size depends on the data) run the CPU kernels on the host and copy the results
over, as unique and where_index do. target_assign is one thread per output row, then one per negative
index; its indices are checked on the host first."""

from numba import cuda

from . import runtime as rt
from ._host import host_ops
from ._launch import flat, grid
from .launcher import jit_kernel
from ...shapes.detection import target_assign_rows

HOST_OPS = host_ops("bipartite_match", "mine_hard_examples")


@jit_kernel
def _assign(x, src, out, weight, rows, m, p, k, mismatch):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < rows:
        r = src[t]
        col = (t % m) % p
        for c in range(k):
            out[t * k + c] = x[(r * p + col) * k + c] if r > -1 else mismatch
        weight[t] = 1.0 if r > -1 else 0.0
        t += step


@jit_kernel
def _negatives(img, col, out, weight, count, m, k, mismatch):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < count:
        row = img[t] * m + col[t]
        for c in range(k):
            out[row * k + c] = mismatch
        weight[row] = 1.0
        t += step


def target_assign(ins, attrs, ctx):
    x = ins["X"]
    host = {"MatchIndices": rt.to_host(ins["MatchIndices"])}
    if "NegIndices" in ins:
        host["NegIndices"] = rt.to_host(ins["NegIndices"])
    src, neg_img, neg_col = target_assign_rows(host, attrs, ctx)
    n, m = src.shape
    p, k = x.shape[1], x.shape[2]
    out, weight = rt.empty((n, m, k), x.dtype), rt.empty((n, m, 1), "float32")
    mismatch = attrs["mismatch_value"]
    if n * m:
        _assign[grid(n * m)](flat(x), rt.to_device(src.reshape(-1)), flat(out), flat(weight), n * m, m, p, k, mismatch)
    if neg_col.size:
        _negatives[grid(neg_col.size)](
            rt.to_device(neg_img), rt.to_device(neg_col), flat(out), flat(weight), neg_col.size, m, k, mismatch
        )
    return {"Out": out, "OutWeight": weight}
