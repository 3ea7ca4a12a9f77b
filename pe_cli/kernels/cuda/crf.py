"""CUDA twins of kernels/cpu/crf.py: the same per-sequence programs (kernels/seq_dp.py) as device
functions, one thread per sequence; the spans are found on the host from the LoD or Length."""

import math

import numpy as np
from numba import cuda

from .. import seq_dp
from ..seq_dp import check_tags, crf_spans, tag_rows
from . import runtime as rt
from ._launch import grid, zeros
from .launcher import jit_kernel

_forward = cuda.jit(device=True, inline=True)(seq_dp.crf_forward)
_backward = cuda.jit(device=True, inline=True)(seq_dp.crf_backward)
_viterbi = cuda.jit(device=True, inline=True)(seq_dp.viterbi)


@jit_kernel
def _row_exps(x, rowmax, xexp):
    r = cuda.grid(1)
    step = cuda.gridsize(1)
    while r < x.shape[0]:
        m = x[r, 0]
        for i in range(1, x.shape[1]):
            m = max(m, x[r, i])
        rowmax[r] = m
        for i in range(x.shape[1]):
            xexp[r, i] = math.exp(x[r, i] - m)
        r += step


@jit_kernel
def _exp(w, out):
    i = cuda.grid(1)
    while i < w.shape[0] * w.shape[1]:
        r, c = i // w.shape[1], i % w.shape[1]
        out[r, c] = math.exp(w[r, c])
        i += cuda.gridsize(1)


@jit_kernel
def _crf_forward(x, xexp, rowmax, w, wexp, label, starts, ends, alpha, ll):
    s = cuda.grid(1)
    while s < starts.size:
        ll[s] = 0.0
        if ends[s] > starts[s]:
            ll[s] = _forward(x, xexp, rowmax, w, wexp, label, starts[s], ends[s], alpha)
        s += cuda.gridsize(1)


@jit_kernel
def _crf_backward(xexp, wexp, alpha, label, starts, ends, dll, beta, dx, dw):
    s = cuda.grid(1)
    while s < starts.size:
        if ends[s] > starts[s]:
            _backward(xexp, wexp, alpha, label, starts[s], ends[s], dll[s], beta, dx, dw, s)
        s += cuda.gridsize(1)


@jit_kernel
def _sum_first(a, out):
    """out[i, j] = sum over s of a[s, i, j]."""
    t = cuda.grid(1)
    while t < out.shape[0] * out.shape[1]:
        i, j = t // out.shape[1], t % out.shape[1]
        acc = 0.0
        for s in range(a.shape[0]):
            acc += a[s, i, j]
        out[i, j] = acc
        t += cuda.gridsize(1)


@jit_kernel
def _viterbi_seqs(x, w, starts, ends, score, track, path):
    s = cuda.grid(1)
    while s < starts.size:
        if ends[s] > starts[s]:
            _viterbi(x, w, starts[s], ends[s], score, track, path)
        s += cuda.gridsize(1)


@jit_kernel
def _compare(path, label, inside):
    r = cuda.grid(1)
    while r < path.size:
        path[r] = 1 if inside[r] and path[r] == label[r] else 0
        r += cuda.gridsize(1)


def _host_spans(ins, shape, ctx, slots):
    length = rt.to_host(ins["Length"]) if "Length" in ins else None
    return crf_spans(shape, ctx, slots, length)


def _label(ins, rows):
    host = tag_rows(rt.to_host(ins["Label"]), rows)
    return host, rt.to_device(host)


def linear_chain_crf(ins, attrs, ctx):
    x, w = ins["Emission"], ins["Transition"]
    starts, ends, rows = _host_spans(ins, x.shape, ctx, ("Label", "Emission"))
    d = x.shape[x.ndim - 1]
    host_label, label = _label(ins, rows)
    check_tags(host_label, starts, ends, d)
    x2 = x.reshape(rows, d)
    rowmax, xexp = rt.empty((rows,), x.dtype), rt.empty((rows, d), x.dtype)
    wexp = rt.empty(tuple(w.shape), x.dtype)
    alpha, ll = zeros((rows, d), x.dtype), rt.empty((starts.size, 1), x.dtype)
    if rows:
        _row_exps[grid(rows)](x2, rowmax, xexp)
    _exp[grid(w.size)](w, wexp)
    if starts.size:
        _crf_forward[grid(starts.size)](
            x2, xexp, rowmax, w, wexp, label, rt.to_device(starts), rt.to_device(ends), alpha, ll.reshape(starts.size)
        )
    return {
        "Alpha": alpha.reshape(tuple(x.shape)),
        "EmissionExps": xexp.reshape(tuple(x.shape)),
        "TransitionExps": wexp,
        "LogLikelihood": ll,
    }


def linear_chain_crf_grad(ins, attrs, ctx):
    alpha, xexp, wexp = ins["Alpha"], ins["EmissionExps"], ins["TransitionExps"]
    starts, ends, rows = _host_spans(ins, alpha.shape, ctx, ("Label", "Alpha"))
    d = alpha.shape[alpha.ndim - 1]
    _, label = _label(ins, rows)
    dll = ins["LogLikelihood@GRAD"]
    dx, beta = zeros((rows, d), alpha.dtype), zeros((rows, d), alpha.dtype)
    dw = zeros((max(starts.size, 1),) + tuple(wexp.shape), wexp.dtype)
    if starts.size:
        _crf_backward[grid(starts.size)](
            xexp.reshape(rows, d),
            wexp,
            alpha.reshape(rows, d),
            label,
            rt.to_device(starts),
            rt.to_device(ends),
            dll.reshape(dll.size),
            beta,
            dx,
            dw,
        )
    dwsum = rt.empty(tuple(wexp.shape), wexp.dtype)
    _sum_first[grid(wexp.size)](dw, dwsum)
    return {"Emission@GRAD": dx.reshape(tuple(alpha.shape)), "Transition@GRAD": dwsum}


def crf_decoding(ins, attrs, ctx):
    x, w = ins["Emission"], ins["Transition"]
    starts, ends, rows = _host_spans(ins, x.shape, ctx, ("Emission", "Label"))
    d = x.shape[x.ndim - 1]
    score, track = zeros((rows, d), x.dtype), zeros((rows, d), np.int64)
    path = zeros((rows,), np.int64)
    if starts.size and rows:
        _viterbi_seqs[grid(starts.size)](
            x.reshape(rows, d), w, rt.to_device(starts), rt.to_device(ends), score, track, path
        )
    if "Label" in ins and rows:
        inside = rt.to_device(seq_dp.span_mask(starts, ends, rows).astype(np.int8))
        _compare[grid(rows)](path, _label(ins, rows)[1], inside)
    shape = tuple(x.shape[:2]) if "Length" in ins else (rows, 1)
    return {"ViterbiPath": path.reshape(shape)}
