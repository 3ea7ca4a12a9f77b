"""Tensor kernels. This module defines kernels named ``sum`` and ``slice``: the builtins are reached
as ``builtins.sum`` / ``builtins.slice`` below."""
import builtins

import numpy as np

from ...errors import PeError


def fill_constant(ins, attrs):
    return {"Out": np.full(attrs["shape"], attrs["value"], dtype=attrs["dtype"])}


def fill_zeros_like(ins, attrs):
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
    out = xs[0].copy()
    for x in xs[1:]:
        out += x
    return {"Out": out}


def assign(ins, attrs):
    return {"Out": ins["X"].copy()}


def assign_value(ins, attrs):
    return {"Out": np.asarray(attrs["values"], dtype=attrs["dtype"]).reshape(attrs["shape"])}


def _err(message):
    return PeError(message)


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
    dim = x.shape[axis]
    if attrs["num"]:
        if dim % attrs["num"]:
            raise _err(f"X of shape {list(x.shape)} cannot split into {attrs['num']} equal parts along axis {axis}")
        bounds = attrs["num"]
    else:
        sections = list(attrs["sections"])
        if -1 in sections:
            sections[sections.index(-1)] = dim - (builtins.sum(sections) + 1)
        if builtins.sum(sections) != dim or min(sections) <= 0:
            raise _err(f"sections={list(attrs['sections'])} do not split X of shape {list(x.shape)} along axis {axis}")
        bounds = np.cumsum(sections)[:-1]
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
    shape = [int(d) for d in shape]
    out = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    if -1 in out:
        known = int(np.prod([d for d in out if d != -1]))
        if known == 0 or x.size % known:
            raise _err(f"cannot reshape X of shape {list(x.shape)} to {shape}: "
                       f"{x.size} elements are not a multiple of {known}")
        out[out.index(-1)] = x.size // known
    if int(np.prod(out)) != x.size:
        raise _err(f"cannot reshape X of shape {list(x.shape)} ({x.size} elements) to {shape} "
                   f"({int(np.prod(out))} elements)")
    return x.reshape(out).copy()


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
    axes = tuple(a % x.ndim for a in attrs["axes"]) if attrs["axes"] else \
        tuple(i for i, d in enumerate(x.shape) if d == 1)
    bad = [a for a in axes if x.shape[a] != 1]
    if bad:
        raise _err(f"cannot squeeze X of shape {list(x.shape)} along axes {list(attrs['axes'])}: "
                   f"dim {bad[0]} has size {x.shape[bad[0]]}")
    return {"Out": np.squeeze(x, axis=axes).copy(), "XShape": _xshape(x)}


def unsqueeze(ins, attrs):
    x = ins["X"]
    shape = list(x.shape)
    for a in attrs["axes"]:
        shape.insert(a + len(shape) + 1 if a < 0 else a, 1)
    return {"Out": x.reshape(shape).copy(), "XShape": _xshape(x)}


reshape2 = reshape
flatten2, squeeze2, unsqueeze2 = flatten, squeeze, unsqueeze
flatten_grad = squeeze_grad = unsqueeze_grad = reshape_grad
reshape2_grad = flatten2_grad = squeeze2_grad = unsqueeze2_grad = reshape_grad


def transpose(ins, attrs):
    x = ins["X"]
    return {"Out": np.ascontiguousarray(np.transpose(x, attrs["axis"])), "XShape": _xshape(x)}


transpose2 = transpose


def cast(ins, attrs):
    return {"Out": ins["X"].astype(attrs["out_dtype"])}


def _slices(shape, attrs):
    index = [builtins.slice(None)] * len(shape)
    for a, s, e in zip(attrs["axes"], attrs["starts"], attrs["ends"]):
        a %= len(shape)
        dim = shape[a]
        s, e = s + dim if s < 0 else s, e + dim if e < 0 else e
        index[a] = builtins.slice(min(max(s, 0), dim), min(max(e, 0), dim))
    return tuple(index)


def slice(ins, attrs):
    x = ins["Input"]
    out = x[_slices(x.shape, attrs)]
    if out.size == 0:
        raise _err(f"slice of Input of shape {list(x.shape)} with axes={list(attrs['axes'])}, "
                   f"starts={list(attrs['starts'])}, ends={list(attrs['ends'])} is empty")
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


def _rows(index, n):
    """Index as a flat int64 array, checked to lie in [0, n)."""
    idx = index.reshape(-1).astype(np.int64, copy=False)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)][0]
        raise _err(f"gather: index {bad} is out of range for X with {n} rows")
    return idx


def gather(ins, attrs):
    x = ins["X"]
    return {"Out": np.take(x, _rows(ins["Index"], x.shape[0]), axis=0)}


def gather_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    dx = np.zeros_like(x)
    np.add.at(dx, _rows(ins["Index"], x.shape[0]), dout)
    return {"X@GRAD": dx}


def one_hot(ins, attrs):
    x, depth = ins["X"], attrs["depth"]
    ids = x.reshape(x.shape[:-1]).astype(np.int64, copy=False)
    outside = (ids < 0) | (ids >= depth)
    if outside.any() and not attrs["allow_out_of_range"]:
        raise _err(f"one_hot: id {ids[outside][0]} is outside [0, {depth}); "
                   f"pass allow_out_of_range=True to get an all-zero row instead")
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
