"""CUDA twins of kernels/cpu/sequence_metric.py: the same per-sequence programs (kernels/seq_dp.py) as
device functions, one thread per sequence. The ids are checked and the spans found on the host (as
on the CPU), so the inputs are read back once; the small results are finished on the host."""

import numpy as np
from numba import cuda

from .. import seq_dp
from ..seq_dp import chunk_outputs, chunk_prep, edit_outputs, edit_prep
from . import runtime as rt
from ._launch import grid, zeros
from .launcher import jit_kernel

_chunks = cuda.jit(device=True, inline=True)(seq_dp.chunk_spans)
_match = cuda.jit(device=True, inline=True)(seq_dp.chunk_match)
_levenshtein = cuda.jit(device=True, inline=True)(seq_dp.levenshtein)


@jit_kernel
def _chunk_counts(inf, lab, starts, ends, scheme, excluded, segs, counts):
    s = cuda.grid(1)
    while s < starts.size:
        a, b = starts[s], ends[s]
        n_i = _chunks(
            inf, a, b, scheme[0], scheme[5], scheme[1], scheme[2], scheme[3], scheme[4], segs[0], segs[1], segs[2]
        )
        n_l = _chunks(
            lab, a, b, scheme[0], scheme[5], scheme[1], scheme[2], scheme[3], scheme[4], segs[3], segs[4], segs[5]
        )
        _match(a, n_i, segs[0], segs[1], segs[2], n_l, segs[3], segs[4], segs[5], excluded, counts, s)
        s += cuda.gridsize(1)


@jit_kernel
def _edit_distances(hyp, h_starts, h_ends, ref, r_starts, r_ends, bases, row, out):
    s = cuda.grid(1)
    while s < h_starts.size:
        out[s] = _levenshtein(hyp, h_starts[s], h_ends[s], ref, r_starts[s], r_ends[s], row, bases[s])
        s += cuda.gridsize(1)


def _host(ins, slot):
    return rt.to_host(ins[slot]) if slot in ins else None


def _dev(*arrays):
    return [rt.to_device(np.ascontiguousarray(a)) for a in arrays]


def _to_device(outs):
    return {k: rt.to_device(v) for k, v in outs.items()}


def chunk_eval(ins, attrs, ctx):
    inf, lab, starts, ends, scheme, excluded = chunk_prep(
        _host(ins, "Inference"), _host(ins, "Label"), attrs, ctx, _host(ins, "SeqLength")
    )
    counts = np.zeros((0, 3), np.int64)
    if starts.size:
        d_counts = zeros((starts.size, 3), np.int64)
        segs = zeros((6, max(inf.size, 1)), np.int64)
        _chunk_counts[grid(starts.size)](*_dev(inf, lab, starts, ends, scheme, excluded), segs, d_counts)
        counts = rt.to_host(d_counts)
    return _to_device(chunk_outputs(counts))


def edit_distance(ins, attrs, ctx):
    hyp, ref, hs, he, rs, re, bases, size = edit_prep(
        _host(ins, "Hyps"), _host(ins, "Refs"), attrs, ctx, _host(ins, "HypsLength"), _host(ins, "RefsLength")
    )
    dist = np.zeros(hs.size, np.int64)
    if hs.size:
        d_dist = zeros((hs.size,), np.int64)
        row = zeros((size,), np.int64)
        _edit_distances[grid(hs.size)](*_dev(np.append(hyp, 0), hs, he, np.append(ref, 0), rs, re, bases), row, d_dist)
        dist = rt.to_host(d_dist)
    return _to_device(edit_outputs(dist, rs, re, attrs["normalized"]))
