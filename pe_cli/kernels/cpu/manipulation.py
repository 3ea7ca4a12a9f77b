"""Tensor kernels. This module defines kernels named ``sum`` and ``slice``: the builtin slice is
reached as ``builtins.slice`` below. Shape rules and index checks shared with the CUDA twins are in
kernels/common.py."""
import builtins
import functools

import numpy as np

from . import control_flow, elementwise
from ._numba import is_float
from ...selected_rows import SelectedRows
from .selected_rows import sum_with_sparse

from ..common import (check_slice_not_empty, gather_rows, one_hot_ids, reshape_shape, slice_window, split_sizes,
                      squeeze_axes, unsqueeze_shape)


def fill_constant(ins, attrs):
    out = np.empty(attrs["shape"], dtype=attrs["dtype"])
    out.fill(attrs["value"])        # (np.full's Python wrapper: twice the time of a one-value fill)
    return {"Out": out}


def fill_zeros_like(ins, attrs):
    if isinstance(ins["X"], list):      # a tensor array (control flow): empty slots
        return {"Out": control_flow.zeros_like(ins["X"])}
    return {"Out": np.zeros_like(ins["X"])}


def uniform_random(ins, attrs):
    rng = attrs["_rng"]
    out = rng.uniform(attrs["min"], attrs["max"], size=attrs["shape"])
    return {"Out": out.astype(attrs["dtype"], copy=False)}


def gaussian_random(ins, attrs):
    rng = attrs["_rng"]
    out = rng.normal(attrs["mean"], attrs["std"], size=attrs["shape"])
    return {"Out": out.astype(attrs["dtype"], copy=False)}


def truncated_gaussian_random(ins, attrs):
    rng = attrs["_rng"]
    mean, std = attrs["mean"], attrs["std"]
    out = rng.normal(mean, std, size=attrs["shape"])
    bad = np.abs(out - mean) > 2 * std
    while bad.any():
        out[bad] = rng.normal(mean, std, size=int(bad.sum()))
        bad = np.abs(out - mean) > 2 * std
    return {"Out": out.astype(attrs["dtype"], copy=False)}


def sum(ins, attrs):
    xs = ins["X"]
    if isinstance(xs[0], list):         # tensor arrays' gradients (control flow): slot by slot
        return {"Out": functools.reduce(control_flow.add, xs)}
    if any(isinstance(x, SelectedRows) for x in xs):
        return {"Out": sum_with_sparse(xs)}
    if len(xs) > 1 and xs[0].dtype == xs[1].dtype and xs[0].shape == xs[1].shape:
        # one pass, where a copy then += made two (on the device's threads for large floats): the same bits
        out = elementwise.add_same(xs[0], xs[1], np.empty(xs[0].shape, xs[0].dtype)) if is_float(xs[0]) \
            else np.add(xs[0], xs[1])
        rest = xs[2:]
    else:
        out, rest = xs[0].copy(), xs[1:]
    for x in rest:
        out += x
    return {"Out": out}


def assign(ins, attrs):
    return {"Out": ins["X"].copy()}


def assign_value(ins, attrs):
    key = {"int32": "int32_values", "int64": "int64_values", "bool": "bool_values"}.get(attrs["dtype"], "fp32_values")
    return {"Out": np.asarray(attrs[key], dtype=attrs["dtype"]).reshape(attrs["shape"])}


def concat(ins, attrs):
    xs = ins["X"]
    return {"Out": np.concatenate(xs, axis=attrs["axis"] % xs[0].ndim)}


def concat_grad(ins, attrs):
    xs, dout = ins["X"], ins["Out@GRAD"]
    axis = attrs["axis"] % dout.ndim
    bounds = np.cumsum([x.shape[axis] for x in xs])[:-1]
    return {"X@GRAD": [np.ascontiguousarray(part) for part in np.split(dout, bounds, axis=axis)]}


def split(ins, attrs):
    x = ins["X"]
    axis = attrs["axis"] % x.ndim
    bounds = np.cumsum(split_sizes(x.shape, axis, attrs))[:-1]
    return {"Out": [np.ascontiguousarray(part) for part in np.split(x, bounds, axis=axis)]}


def stack(ins, attrs):
    xs = ins["X"]
    return {"Y": np.stack(xs, axis=attrs["axis"] % (xs[0].ndim + 1))}


def stack_grad(ins, attrs):
    xs, dy = ins["X"], ins["Y@GRAD"]
    axis = attrs["axis"] % dy.ndim
    return {"X@GRAD": [np.ascontiguousarray(np.take(dy, i, axis=axis)) for i in range(len(xs))]}


def _xshape(x):
    """Fluid's XShape output: X's shape behind a leading 0, holding no data."""
    return np.empty((0,) + x.shape, dtype=x.dtype)


def reshape_to(x, shape):
    """X reshaped by Fluid's rule (0 copies X's dim, one -1 is inferred), as a new array."""
    return x.reshape(reshape_shape(x.shape, x.size, shape)).copy()


def reshape(ins, attrs):
    x = ins["X"]
    shape = ins["Shape"].reshape(-1).tolist() if "Shape" in ins else attrs["shape"]
    return {"Out": reshape_to(x, shape), "XShape": _xshape(x)}


def reshape_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": dout.reshape(x.shape).copy()}


def flatten(ins, attrs):
    x = ins["X"]
    axis = attrs["axis"]
    rows = int(np.prod(x.shape[:axis]))
    return {"Out": x.reshape(rows, -1 if rows else int(np.prod(x.shape[axis:]))).copy(), "XShape": _xshape(x)}


def squeeze(ins, attrs):
    x = ins["X"]
    return {"Out": np.squeeze(x, axis=squeeze_axes(x.shape, attrs["axes"])).copy(), "XShape": _xshape(x)}


def unsqueeze(ins, attrs):
    x = ins["X"]
    return {"Out": x.reshape(unsqueeze_shape(x.shape, attrs["axes"])).copy(), "XShape": _xshape(x)}


def transpose(ins, attrs):
    x = ins["X"]
    return {"Out": np.ascontiguousarray(np.transpose(x, attrs["axis"])), "XShape": _xshape(x)}


def cast(ins, attrs):
    return {"Out": ins["X"].astype(attrs["out_dtype"])}


def _slices(shape, attrs):
    starts, sizes = slice_window(shape, attrs)
    return tuple(builtins.slice(s, s + n) for s, n in zip(starts, sizes))


def slice(ins, attrs):
    x = ins["Input"]
    out = x[_slices(x.shape, attrs)]
    check_slice_not_empty(x.shape, out.shape, attrs)
    decrease = tuple(a % x.ndim for a in attrs["decrease_axis"])
    if decrease:
        out = out.reshape([d for i, d in enumerate(out.shape) if i not in decrease] or [1])
    return {"Out": np.ascontiguousarray(out)}


def slice_grad(ins, attrs):
    x, dout = ins["Input"], ins["Out@GRAD"]
    dx = np.zeros_like(x)
    index = _slices(x.shape, attrs)
    dx[index] = dout.reshape(dx[index].shape)
    return {"Input@GRAD": dx}


def gather(ins, attrs):
    x = ins["X"]
    return {"Out": np.take(x, gather_rows(ins["Index"], x.shape[0]), axis=0)}


def gather_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    dx = np.zeros_like(x)
    np.add.at(dx, gather_rows(ins["Index"], x.shape[0]), dout)
    return {"X@GRAD": dx}


def one_hot(ins, attrs):
    x, depth = ins["X"], attrs["depth"]
    ids = one_hot_ids(x, depth, attrs["allow_out_of_range"])
    return {"Out": (ids[..., None] == np.arange(depth)).astype(attrs["dtype"])}


def expand(ins, attrs):
    return {"Out": np.tile(ins["X"], attrs["expand_times"])}


def expand_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    times = attrs["expand_times"]
    # Out's dim i is times[i] copies of X's dim i: view it as [t0, d0, t1, d1, ...] and sum the t's.
    split_shape = [n for t, d in zip(times, x.shape) for n in (t, d)]
    dx = dout.reshape(split_shape).sum(axis=tuple(range(0, 2 * x.ndim, 2)))
    return {"X@GRAD": dx.astype(x.dtype, copy=False)}
