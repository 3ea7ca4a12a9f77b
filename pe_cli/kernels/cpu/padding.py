"""Kernels of ops/padding.py: numpy, as the other data-movement kernels. pad2d and pad3d read
through one index map per spatial dim (pad_source: constant, reflect, edge/replicate, circular),
which the CUDA kernels share."""

import numpy as np

from ...shapes.padding import crop_geometry, crop_tensor_attrs, pad_maps


def pad(ins, attrs):
    x, p = ins["X"], attrs["paddings"]
    pairs = [(p[2 * i], p[2 * i + 1]) for i in range(x.ndim)]
    return {"Out": np.pad(x, pairs, constant_values=x.dtype.type(attrs["pad_value"]))}


def pad_grad(ins, attrs):
    x, dout, p = ins["X"], ins["Out@GRAD"], attrs["paddings"]
    window = tuple(slice(p[2 * i], p[2 * i] + n) for i, n in enumerate(x.shape))
    return {"X@GRAD": np.ascontiguousarray(dout[window])}


# -- pad2d, pad3d -----------------------------------------------------------------------------------


def _first(a, last):
    return np.moveaxis(a, a.ndim - 1, 1) if last else a


def _back(a, last):
    return np.ascontiguousarray(np.moveaxis(a, 1, a.ndim - 1) if last else a)


def _pad(op, ins, attrs, value):
    maps, _, last = pad_maps(op, ins["X"].shape, attrs, ins.get("Paddings"))
    out = _first(ins["X"], last)
    for k, m in enumerate(maps):
        out = np.take(out, np.maximum(m, 0), axis=2 + k)
        if (m < 0).any():  # constant padding (pad2d's any mode but reflect and edge)
            out[(slice(None),) * (2 + k) + (m < 0,)] = value
    return {"Out": _back(out, last)}


def _pad_grad(op, ins, attrs):
    """Along each spatial dim: the run of output positions that copy X's own (all of X, or what a
    negative padding leaves of it) copied, then each other position added onto the position it copies
    (a loop over the paddings only); X's cropped positions get 0."""
    x = ins["X"]
    maps, pairs, last = pad_maps(op, x.shape, attrs, ins.get("Paddings"))
    d = _first(ins["Out@GRAD"], last)
    for k, (m, (before, after)) in enumerate(zip(maps, pairs)):
        at, n = (slice(None),) * (2 + k), m.size - before - after
        lo, hi = max(before, 0), min(before + n, m.size)  # the output positions j copying X[j - before]
        acc = np.zeros(d.shape[: 2 + k] + (n,) + d.shape[3 + k :], dtype=d.dtype)
        acc[at + (slice(lo - before, hi - before),)] = d[at + (slice(lo, hi),)]
        for j in np.flatnonzero((np.arange(m.size) < lo) | (np.arange(m.size) >= hi)):
            if m[j] >= 0:
                acc[at + (m[j],)] += d[at + (j,)]
        d = acc
    return {"X@GRAD": _back(d, last)}


def pad2d(ins, attrs):
    return _pad("pad2d", ins, attrs, attrs["pad_value"])


def pad2d_grad(ins, attrs):
    return _pad_grad("pad2d", ins, attrs)


def pad3d(ins, attrs):
    return _pad("pad3d", ins, attrs, attrs["value"])


def pad3d_grad(ins, attrs):
    return _pad_grad("pad3d", ins, attrs)


# -- pad_constant_like, crop ------------------------------------------------------------------------


def pad_constant_like(ins, attrs):
    x, y = ins["X"], ins["Y"]
    out = np.full(x.shape, attrs["pad_value"], dtype=y.dtype)
    out[tuple(slice(0, n) for n in y.shape)] = y
    return {"Out": out}


def pad_constant_like_grad(ins, attrs):
    y, dout = ins["Y"], ins["Out@GRAD"]
    return {"Y@GRAD": np.ascontiguousarray(dout[tuple(slice(0, n) for n in y.shape)])}


def crop(ins, attrs):
    offsets, out = crop_geometry(ins, attrs)
    return {"Out": np.ascontiguousarray(ins["X"][tuple(slice(o, o + n) for o, n in zip(offsets, out))])}


def crop_grad(ins, attrs):
    x = ins["X"]
    offsets, out = crop_geometry(ins, attrs)
    dx = np.zeros(x.shape, dtype=x.dtype)
    dx[tuple(slice(o, o + n) for o, n in zip(offsets, out))] = ins["Out@GRAD"]
    return {"X@GRAD": dx}


def crop_tensor(ins, attrs):
    return crop(ins, crop_tensor_attrs(ins, attrs))


def crop_tensor_grad(ins, attrs):
    return crop_grad(ins, crop_tensor_attrs(ins, attrs))
