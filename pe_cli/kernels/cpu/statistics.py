"""The statistics family's CPU out-kernels (structured kernels; their meta rules: shapes/statistics.py), over
numpy: lines along the reduced axes ([lines, n]), a stable sort per line (NaN last, as numpy sorts; ties past it in
the order of Paddle's CPU kernels, _stl_sort_loops.py), and the gradients scattered back to the places the forward
recorded."""

import numpy as np

from ...base.errors import PeError
from ...shapes import statistics as rules
from ..structured import adapter, fresh_output
from .cumulative import lines
from .selecting import SMALLEST, _stl_sort_loops, numba_rows, tied_rows


def _handed(outs, meta, ins, **results):
    for slot, value in results.items():
        outs[slot] = fresh_output(value, meta.outputs[slot], ins.values())


def kthvalue_out(ins, outs, attrs, meta):
    """The k-th smallest along the axis and its index: where that value occurs more than once in its line (NaN
    as one value), the index Paddle's CPU kernel leaves at k - 1 (std::partial_sort where k * 64 is below the
    line's length, else std::nth_element: _stl_sort_loops.py), else the stable sort's (the same)."""
    x, k = ins["X"], attrs["k"]
    flat, _ = lines(x, attrs["axis"])
    at = np.argsort(flat, axis=1, kind="stable")[:, k - 1]
    tied = tied_rows(flat, flat[np.arange(flat.shape[0]), at][:, None])
    if tied.any():
        found = np.empty((int(tied.sum()), k), np.int64)
        _stl_sort_loops().top_k_v2_rows(numba_rows(flat[tied]), k, SMALLEST, False, found)
        at[tied] = found[:, k - 1]
    shape = meta.outputs["Out"][0]
    _handed(
        outs,
        meta,
        ins,
        Out=flat[np.arange(flat.shape[0]), at].reshape(shape),
        Indices=at.astype(np.int64).reshape(shape),
    )


def _mode_of(line):
    """(value, index of its last occurrence) of the most frequent value of a 1-D array, the smallest of
    equally frequent ones."""
    order = np.argsort(line, kind="stable")
    values = line[order]
    starts = np.flatnonzero(np.concatenate([[True], values[1:] != values[:-1]]))
    counts = np.diff(np.append(starts, len(values)))
    run = int(np.argmax(counts))
    places = order[starts[run] : starts[run] + counts[run]]
    return values[starts[run]], int(places.max())


def mode_out(ins, outs, attrs, meta):
    x = ins["X"]
    flat, _ = lines(x, attrs["axis"])
    found = [_mode_of(line) for line in flat]
    shape = meta.outputs["Out"][0]
    values = np.array([v for v, _ in found], dtype=x.dtype).reshape(shape)
    _handed(outs, meta, ins, Out=values, Indices=np.array([i for _, i in found], dtype=np.int64).reshape(shape))


def _scatter_back(ins, places, weights, axis):
    """X@GRAD: each line's Out@GRAD (times ``weights``) added at ``places`` ([lines, m]) along ``axis``."""
    x, dout = ins["X"], ins["Out@GRAD"]
    flat, back = lines(x, axis)
    dx = np.zeros(flat.shape, dtype=dout.dtype)
    rows = np.arange(flat.shape[0])[:, None]
    np.add.at(dx, (rows, places), dout.reshape(-1, 1) * weights)
    return back(dx)


def by_index_grad_out(ins, outs, attrs, meta):
    """kthvalue_grad's and mode_grad's X@GRAD: Out@GRAD at Indices along the axis."""
    _handed(outs, meta, ins, **{"X@GRAD": _scatter_back(ins, ins["Indices"].reshape(-1, 1), 1, attrs["axis"])})


def _median_lines(x, attrs):
    """(x as [lines, m] over the reduced axes, the reduced axes)."""
    axes = rules.median_axes(x.ndim, attrs)
    kept = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, kept + axes) if x.ndim else x.reshape(1)
    return moved.reshape(-1, int(np.prod([x.shape[d] for d in axes], dtype=np.int64))), axes, kept


def nanmedian_out(ins, outs, attrs, meta):
    x = ins["X"]
    flat, axes, _ = _median_lines(x, attrs)
    order = np.argsort(flat, axis=1, kind="stable")
    count = (~np.isnan(flat)).sum(axis=1) if flat.dtype.kind == "f" else np.full(flat.shape[0], flat.shape[1])
    low, high = np.maximum((count - 1) // 2, 0), np.minimum(count // 2, flat.shape[1] - 1)
    rows = np.arange(flat.shape[0])
    places = np.stack([order[rows, low], order[rows, high]], axis=1)
    lo, hi = flat[rows, places[:, 0]], flat[rows, places[:, 1]]
    middle = (lo + hi) / 2 if flat.dtype.kind == "f" else (lo + hi) // 2 + ((lo + hi) % 2 != 0) * ((lo + hi) < 0)
    none = count == 0
    if none.any():
        middle = np.where(none, np.nan, middle)
        places[none] = -1
    shape = meta.outputs["Out"][0]
    _handed(
        outs,
        meta,
        ins,
        Out=middle.astype(x.dtype).reshape(shape),
        MedianIndex=places.astype(np.int64).reshape(shape + (2,)),
    )


def nanmedian_grad_out(ins, outs, attrs, meta):
    x, dout, places = ins["X"], ins["Out@GRAD"], ins["MedianIndex"].reshape(-1, 2)
    flat, _, kept = _median_lines(x, attrs)
    dx = np.zeros(flat.shape, dtype=dout.dtype)
    valid = places[:, 0] >= 0
    rows = np.flatnonzero(valid)
    half = dout.reshape(-1)[rows] / 2
    np.add.at(dx, (rows, places[rows, 0]), half)
    np.add.at(dx, (rows, places[rows, 1]), half)
    axes = [d for d in range(x.ndim) if d not in kept]
    moved_shape = [x.shape[d] for d in kept + axes]
    dx = np.transpose(dx.reshape(moved_shape), np.argsort(kept + axes)) if x.ndim else dx.reshape(x.shape)
    _handed(outs, meta, ins, **{"X@GRAD": dx})


def bincount_out(ins, outs, attrs, meta):
    """Out: how often each value of X occurs (Weights': their sums); fresh, its length X's values."""
    x, w = ins["X"], ins.get("Weights")
    if x.size and x.min() < 0:
        raise PeError(f"bincount: X holds {int(x.min())}; it counts non-negative integers only")
    dtype = meta.outputs["Out"][1]
    if not x.size:
        outs["Out"] = np.zeros(0, dtype=dtype)
        return
    out = np.bincount(x.astype(np.int64), None if w is None else w.astype(np.float64), int(attrs["minlength"]))
    outs["Out"] = out.astype(dtype)


# (the kernels by name CUDA runs on the host: kernels/cuda/statistics.py's HOST_OPS)
kthvalue = adapter(rules.by_index_meta, kthvalue_out, "kthvalue")
mode = adapter(rules.by_index_meta, mode_out, "mode")
kthvalue_grad = adapter(rules.scattered_back_meta, by_index_grad_out, "kthvalue_grad")
mode_grad = adapter(rules.scattered_back_meta, by_index_grad_out, "mode_grad")
nanmedian = adapter(rules.nanmedian_meta, nanmedian_out, "nanmedian")
nanmedian_grad = adapter(rules.scattered_back_meta, nanmedian_grad_out, "nanmedian_grad")
bincount = adapter(rules.bincount_meta, bincount_out, "bincount")
