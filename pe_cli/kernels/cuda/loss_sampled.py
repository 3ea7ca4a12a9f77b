"""CUDA twins of kernels/cpu/loss_sampled.py. hierarchical_sigmoid: the paths are found on the host
(from Label, or PathTable and PathCode) and copied over; one thread per path step computes its
pre-activation, one per row sums the loss; the gradient adds into W and Bias atomically.
sample_logits: the sampling draws on the host with the CPU kernel's generator, as the other random
ops; the gradient adds back atomically."""

import math

import numpy as np
from numba import cuda

from . import runtime as rt
from ._host import host_ops
from .gather_scatter import sample_grad
from ._launch import flat, grid, zeros
from .launcher import jit_kernel
from ...shapes.loss_sampled import hsigmoid_paths


def _paths(ins, attrs):
    table = rt.to_host(ins["PathTable"]) if "PathTable" in ins else None
    code = rt.to_host(ins["PathCode"]) if "PathCode" in ins else None
    idx, bits = hsigmoid_paths(rt.to_host(ins["Label"]), attrs, table, code, ins["W"].shape[0])
    return rt.to_device(np.ascontiguousarray(idx)), rt.to_device(np.ascontiguousarray(bits)), idx.shape[1]


@jit_kernel
def _pre(x, w, bias, has_bias, idx, pre, soft, d, length):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < pre.size:
        node = idx[i]
        v = 0.0
        if node >= 0:
            row = i // length
            for k in range(d):
                v += w[node * d + k] * x[row * d + k]
            if has_bias:
                v += bias[node]
            v = min(max(v, -40.0), 40.0)
        pre[i] = v
        soft[i] = max(v, 0.0) + math.log1p(math.exp(-abs(v)))
        i += step


@jit_kernel
def _loss(pre, soft, bits, out, length):
    r = cuda.grid(1)
    step = cuda.gridsize(1)
    while r < out.size:
        acc = 0.0
        for j in range(length):
            acc += soft[r * length + j] - bits[r * length + j] * pre[r * length + j]
        out[r] = acc
        r += step


@jit_kernel
def _step_grad(soft, bits, idx, dout, g, length):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < g.size:
        g[i] = ((1 - math.exp(-soft[i])) - bits[i]) * dout[i // length] if idx[i] >= 0 else 0.0
        i += step


@jit_kernel
def _input_grad(g, w, idx, dx, d, length):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < dx.size:
        row, k = i // d, i % d
        acc = 0.0
        for j in range(length):
            node = idx[row * length + j]
            if node >= 0:
                acc += g[row * length + j] * w[node * d + k]
        dx[i] = acc
        i += step


@jit_kernel
def _param_grad(g, x, idx, dw, db, d, length):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < g.size * d:
        s, k = i // d, i % d
        node = idx[s]
        if node >= 0:
            cuda.atomic.add(dw, node * d + k, g[s] * x[(s // length) * d + k])
            if k == 0:
                cuda.atomic.add(db, node, g[s])
        i += step


def hierarchical_sigmoid(ins, attrs):
    x, w = ins["X"], ins["W"]
    idx, bits, length = _paths(ins, attrs)
    n, d = x.shape
    pre, soft = rt.empty((n, length), x.dtype), rt.empty((n, length), x.dtype)
    out = rt.empty((n, 1), x.dtype)
    bias = ins["Bias"] if "Bias" in ins else w
    if pre.size:
        _pre[grid(pre.size)](flat(x), flat(w), flat(bias), "Bias" in ins, flat(idx), flat(pre), flat(soft), d, length)
    if n:
        _loss[grid(n)](flat(pre), flat(soft), flat(bits), flat(out), length)
    return {"Out": out, "PreOut": soft, "W_Out": w}


def hierarchical_sigmoid_grad(ins, attrs):
    x, w = ins["X"], ins["W"]
    idx, bits, length = _paths(ins, attrs)
    n, d = x.shape
    g = rt.empty((n, length), x.dtype)
    dx, dw, db = rt.empty(x.shape, x.dtype), zeros(w.shape, w.dtype), zeros((w.shape[0], 1), w.dtype)
    if g.size:
        _step_grad[grid(g.size)](flat(ins["PreOut"]), flat(bits), flat(idx), flat(ins["Out@GRAD"]), flat(g), length)
        _param_grad[grid(g.size * d)](flat(g), flat(x), flat(idx), flat(dw), flat(db), d, length)
    if dx.size:
        _input_grad[grid(dx.size)](flat(g), flat(w), flat(idx), flat(dx), d, length)
    return {"X@GRAD": dx, "W@GRAD": dw, "Bias@GRAD": db}


def sample_logits_grad(ins, attrs):
    logits, samples, d = ins["Logits"], ins["Samples"], ins["SampledLogits@GRAD"]
    dx = zeros(logits.shape, logits.dtype)
    if d.size:
        sample_grad[grid(d.size)](flat(d), flat(samples), flat(dx), samples.shape[1], logits.shape[1])
    return {"Logits@GRAD": dx}


# nce and sample_logits: the CPU kernels on the host (the draws are the CPU sampler's)
HOST_OPS = host_ops("nce", "nce_grad", "sample_logits")
