"""CUDA twins of kernels/cpu/metric.py: one thread per row for accuracy's hits, then a block
reduction for its count; auc's bucket counts run on the host (a few thousand int64 counters per
batch), as Fluid's CUDA auc keeps its statistics on the host too."""

import numpy as np
from numba import cuda

from . import runtime as rt
from ._host import given_cpu_kernel, host_ops
from ._launch import flat, grid
from ._reduce import reduce
from .launcher import jit_kernel
from ..context import NO_CONTEXT
from ...shapes.reduction import scalar_shape


@jit_kernel
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


@jit_kernel
def _accuracy(correct, total, acc, correct_out):
    if cuda.grid(1) == 0:
        correct_out[0] = correct[0]
        acc[0] = correct[0] / total if total else 0.0


def accuracy(ins, attrs, ctx=NO_CONTEXT):
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
    one = scalar_shape(ctx.zero_dim)
    total_out = rt.to_device(np.full(one, total, dtype=np.int32))
    return {"Accuracy": acc.reshape(one), "Correct": correct_out.reshape(one), "Total": total_out}


def auc(ins, attrs, cpu_auc):
    outs = cpu_auc({k: rt.to_host(v) for k, v in ins.items()}, attrs)
    return {k: rt.to_device(v) for k, v in outs.items()}


HOST_OPS = {
    **host_ops("mean_iou", "positive_negative_pair", "precision_recall"),
    "auc": given_cpu_kernel(auc),
}
