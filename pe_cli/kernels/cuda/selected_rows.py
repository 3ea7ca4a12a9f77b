"""Row-sparse values (pe_cli/base/selected_rows.py) on a GPU: the rows stay a host int64 array (they
are few, and the row maps are host work as for the sequence ops), the values live on the device.
Densifying, merging duplicate rows (an atomic scatter-add into one row per distinct row) and the
sparse updates of sgd, adagrad and lazy adam (one launch over the merged rows' values)."""

import math

import numpy as np
from numba import cuda

from ...base.selected_rows import SelectedRows
from . import runtime as rt, step_graph
from ._launch import copy, flat, grid
from .sequence_rows import _gather, _scatter
from .launcher import jit_kernel
from ..value_checks import sparse_input, split_rows


def densify(ins, attrs):
    """{"X": SelectedRows} -> {"Out": the dense device array}."""
    sr = ins["X"]
    return {"Out": _scatter(sr.values, sr.rows, sr.shape, sr.values.dtype)}


def merged(sr, ascending=False):
    """(rows, values): each row once (host; ``ascending`` sorted, else any order), its duplicates'
    values summed (device)."""
    unique, where = np.unique(sr.rows, return_inverse=True)
    if len(unique) == len(sr.rows) and not ascending:  # no duplicates: the rows as they are
        return sr.rows, sr.values
    return unique, _scatter(sr.values, where.reshape(-1), (len(unique),) + tuple(sr.values.shape[1:]), sr.values.dtype)


def merge_selected_rows(ins, attrs):
    x = sparse_input(ins, "merge_selected_rows")
    return {"Out": x.with_arrays(*merged(x, ascending=True))}


def get_tensor_from_selected_rows(ins, attrs):
    return {"Out": copy(sparse_input(ins, "get_tensor_from_selected_rows").values)}


def split_selected_rows(ins, attrs):
    x = sparse_input(ins, "split_selected_rows")
    return {"Out": split_rows(x, attrs["height_sections"], gather_rows)}


def gather_rows(values, keep):
    """values[keep] (keep: host row indices) as a new device array."""
    return _gather(values, keep, (len(keep),) + tuple(values.shape[1:]))


def concat(parts):
    """SelectedRows of ``parts`` (on the current device) end to end: their sum."""
    if len(parts) == 1:
        return parts[0]
    rows = np.concatenate([p.rows for p in parts])
    width = parts[0].values.shape[1:]
    out = rt.empty((len(rows),) + tuple(width), parts[0].values.dtype)
    start = 0
    for p in parts:
        n = len(p.rows)
        if n:
            step_graph.device_copy(out[start : start + n], p.values)
        start += n
    return parts[0].with_arrays(rows, out)


@jit_kernel
def _rows_sgd(p, rows, g, lr, width, p_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    rate = lr[0]
    while i < g.size:
        k = rows[i // width] * width + i % width
        p_out[k] = p[k] - rate * g[i]
        i += step


@jit_kernel
def _rows_adagrad(p, m, rows, g, lr, eps, width, p_out, m_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    rate = lr[0]
    while i < g.size:
        k = rows[i // width] * width + i % width
        gi = g[i]
        mo = m[k] + gi * gi
        m_out[k] = mo
        p_out[k] = p[k] - rate * gi / (math.sqrt(mo) + eps)
        i += step


@jit_kernel
def _rows_adam(p, m1, m2, rows, g, lr, b1p, b2p, beta1, beta2, eps, scaled, width, p_out, m1_out, m2_out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    c2 = math.sqrt(1.0 - b2p[0])
    lr_t = lr[0] * c2 / (1.0 - b1p[0])
    e = eps * c2 if scaled else eps  # Paddle 2.x's epsilon, or Fluid 1.8's
    while i < g.size:
        k = rows[i // width] * width + i % width
        gi = g[i]
        a = beta1 * m1[k] + (1.0 - beta1) * gi
        b = beta2 * m2[k] + (1.0 - beta2) * gi * gi
        m1_out[k] = a
        m2_out[k] = b
        p_out[k] = p[k] - lr_t * (a / (math.sqrt(b) + e))
        i += step


def update_rows(kind, ins, ctx, state, *args):
    """The sparse update ``kind`` ("sgd", "adagrad", "adam") of Param and its ``state`` inputs on
    the merged rows of Grad: copies of Param and the states (or those arrays themselves where the
    executor allows it: ``ctx.update_in_place``), changed on those rows only. ``args``: the
    kernel's arguments between the gradient and the width. Where the op reads its outputs (adam's
    ParamOut, ... : OpDef.reads_outputs) and they are other variables than its inputs, the other rows
    keep what they held (Fluid's lazy adam in its op tests)."""
    p, g = ins["Param"], ins["Grad"]
    rows, values = merged(g)
    outs = [p] + [ins[s] for s in state]
    prior = [ins.get(s + "Out") for s in ["Param", *state]]
    if all(getattr(a, "shape", None) == p.shape for a in prior) and prior[0] is not p:
        outs = [copy(a) for a in prior]
    elif not ctx.update_in_place:
        outs = [copy(a) for a in outs]
    if values.size:
        kernel = {"sgd": _rows_sgd, "adagrad": _rows_adagrad, "adam": _rows_adam}[kind]
        width = values.size // max(len(rows), 1)
        kernel[grid(values.size)](
            flat(p),
            *(flat(ins[s]) for s in state),
            rt.to_device(rows),
            flat(values),
            *args,
            width,
            *(flat(o) for o in outs),
        )
    return outs


def sum_with_sparse(xs, dense_sum):
    """sum's X holding SelectedRows (as the CPU's kernels/cpu/selected_rows.py): all sparse -> each row
    once, ascending, its values summed; mixed -> ``dense_sum`` of the densified inputs."""
    if all(isinstance(x, SelectedRows) for x in xs):
        return xs[0].with_arrays(*merged(concat(xs), ascending=True))
    return dense_sum([densify({"X": x}, {})["Out"] if isinstance(x, SelectedRows) else x for x in xs])
