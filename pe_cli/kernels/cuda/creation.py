"""CUDA twins of kernels/cpu/creation.py: fills, eye, diag and triangles are one launch each; range and
linspace read their scalars on the host to size their output, then fill it in one launch; meshgrid is a
strided copy per output (its gradient a reduction); assign_value, fill_constant_batch_size_like and
diag_embed compute on the host."""

import numpy as np
from numba import cuda

from . import runtime as rt
from ._host import given_cpu_kernel, host_ops, on_host_when, out_to_device
from ._launch import copy, flat, full, grid, zeros
from ._reduce import reduce
from ._strided import contiguous_strides, copy_window
from .launcher import jit_kernel
from ...shapes.creation import fill_value, linspace_scalars, range_scalars, range_size, run_shape


def fill_constant(ins, attrs):
    shape = run_shape(ins, attrs, rt.to_host)
    return {"Out": full(shape, fill_value(ins, attrs, rt.to_host), attrs["dtype"])}


def fake_init(ins, attrs):
    return {"Out": zeros(attrs["shape"], np.float32)}


def fill_zeros_like(ins, attrs, cpu_fill_zeros_like):
    x = ins["X"]
    if isinstance(x, list):  # a tensor array (a While's gradient): empty slots, as on the CPU
        return cpu_fill_zeros_like(ins, attrs)
    return {"Out": zeros(x.shape, x.dtype)}


def assign(ins, attrs):
    return {"Out": copy(ins["X"])} if "X" in ins else {}


@jit_kernel
def _arange(out, start, step):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < out.size:
        out[i] = start + i * step
        i += stride


def arange(ins, attrs):
    start, end, step = range_scalars({k: rt.to_host(ins[k]) for k in ("Start", "End", "Step")})
    n = range_size(start, end, step)
    out = rt.empty((n,), ins["Start"].dtype)
    if n:
        _arange[grid(n)](out, start, step)
    return {"Out": out}


def fill_any_like(ins, attrs):
    x = ins["X"]
    return {"Out": full(x.shape, attrs["value"], np.dtype(attrs["dtype"] or x.dtype))}


@jit_kernel
def _eye(out, cols):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        out[i] = 1 if i // cols == i % cols else 0
        i += step


def eye(ins, attrs):
    rows, cols = attrs["num_rows"], attrs["num_columns"]
    cols = rows if cols < 0 else cols
    out = rt.empty((rows, cols), np.dtype(attrs["dtype"]))
    if out.size:
        _eye[grid(out.size)](flat(out), cols)
    return {"Out": out}


@jit_kernel
def _diag(d, out, n):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        r = i // n
        out[i] = d[r] if r == i % n else 0
        i += step


def diag(ins, attrs):
    d = ins["Diagonal"]
    n = d.shape[0]
    out = rt.empty((n, n), d.dtype)
    if out.size:
        _diag[grid(out.size)](d, flat(out), n)
    return {"Out": out}


@jit_kernel
def _tril_triu(x, out, rows, cols, diagonal, lower):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        col = i % cols
        row = (i // cols) % rows
        d = col - row
        keep = d <= diagonal if lower else d >= diagonal
        out[i] = x[i] if keep else 0
        i += step


def _triangle(x, attrs):
    out = rt.empty(x.shape, x.dtype)
    rows, cols = tuple(x.shape)[-2:]
    if out.size:
        _tril_triu[grid(out.size)](flat(x), flat(out), rows, cols, int(attrs["diagonal"]), bool(attrs["lower"]))
    return out


def tril_triu(ins, attrs):
    return {"Out": _triangle(ins["X"], attrs)}


def tril_triu_grad(ins, attrs):
    return {"X@GRAD": _triangle(ins["Out@GRAD"], attrs)}


def fill_zeros_like2(ins, attrs):
    return {"Out": zeros(ins["X"].shape, attrs["dtype"])}


def linspace(ins, attrs):
    """Fluid's CUDA kernel: start + i * step (its CPU kernel sums the steps one at a time); Paddle 2.x's (its
    op has ``dtype``) is the CPU kernel's on the host (``HOST_OPS``)."""
    start, step, num = linspace_scalars({k: rt.to_host(ins[k]) for k in ("Start", "Stop", "Num")})
    out = rt.empty((num,), ins["Start"].dtype)
    _arange[grid(num)](out, start, step)
    return {"Out": out}


def meshgrid(ins, attrs):
    """Each output a strided copy of its input, the other dims read with stride 0."""
    sizes = tuple(x.size for x in ins["X"])
    outs = []
    for i, x in enumerate(ins["X"]):
        out = rt.empty(sizes, x.dtype)
        src = tuple(1 if j == i else 0 for j in range(len(sizes)))
        outs.append(copy_window(x, out, sizes, src, contiguous_strides(sizes)))
    return {"Out": outs}


def meshgrid_grad(ins, attrs):
    grads = []
    for i, (x, d) in enumerate(zip(ins["X"], ins["Out@GRAD"])):
        others = tuple(j for j in range(d.ndim) if j != i)
        grads.append(reduce(d, others, "sum").reshape(tuple(x.shape)) if others else copy(d).reshape(tuple(x.shape)))
    return {"X@GRAD": grads}


def _paddle2_linspace(attrs):
    return bool(attrs.get("dtype"))


HOST_OPS = {
    **host_ops("assign_value", "fill", wrap=out_to_device),
    **host_ops("fill_constant_batch_size_like", "diag_embed"),
    "fill_zeros_like": given_cpu_kernel(fill_zeros_like),
    "linspace": on_host_when(_paddle2_linspace, linspace),
}
