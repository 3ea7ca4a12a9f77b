"""The max-pool-with-index and unpool family's windows and positions, shared by the kernels of both devices;
max_pool2d/3d_with_index's and their gradients' meta rules (structured kernels, shapes/structured.py):
Out and Mask (int32) of the output's size, by one step per kernel position ("by_kernel": fixed windows
none of which is empty) or per output position ("by_output": adaptive, global, any other ksize and
paddings; ``Meta.args``: the windows); the gradient one scatter of Out@GRAD ("scatter"); unpool's and unpool3d's
and their gradients' too (X scattered to its Indices in zeros, Out@GRAD gathered from them)."""

import math

import numpy as np

from ..base.errors import PeError
from .conv_pool import mask_pool_out as pool_out, unpool_out
from .structured import Meta

_INT32 = np.dtype(np.int32)


def windows(in_dims, attrs):
    """Per spatial dim: (starts, ends) of the windows, clipped to X."""
    out = pool_out(in_dims, attrs)
    result = []
    for d, n in enumerate(in_dims):
        o = np.arange(out[d])
        if attrs["adaptive"]:  # (with global_pooling: out is X's size, one element a window)
            s = np.array([math.floor(i * n / out[d]) for i in o], np.int64)
            e = np.array([math.ceil((i + 1) * n / out[d]) for i in o], np.int64)
        elif attrs["global_pooling"]:
            s, e = np.zeros(1, np.int64), np.full(1, n, np.int64)
        else:
            start = o * attrs["strides"][d] - attrs["paddings"][d]
            s, e = np.maximum(start, 0), np.minimum(start + attrs["ksize"][d], n)
        result.append((s.astype(np.int64), e.astype(np.int64)))
    return result


def plane_offsets(x_shape, indices, out_size, op):
    """Each X value's flat position in Out (its plane's offset plus its index), checked to lie in its plane."""
    idx = np.asarray(indices, np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= out_size):
        bad = idx.max() if idx.max() >= out_size else idx.min()
        raise PeError(f"{op}: index {int(bad)} of Indices is outside the output plane of {out_size} values")
    planes = np.arange(x_shape[0] * x_shape[1]).reshape(tuple(x_shape[:2]) + (1,) * (len(x_shape) - 2))
    return (planes * out_size + idx).reshape(-1)


def _regular(attrs):
    """Fixed windows the padded steps take: ksize >= 1, 0 <= padding < ksize (none empty)."""
    return all(k >= 1 and 0 <= p < k for k, p in zip(attrs["ksize"], attrs["paddings"]))


def mask_pool_meta(attrs, ins, facts):
    """max_pool2d/3d_with_index: X [N, C, ...] -> Out (X's dtype) and Mask (int32) [N, C, out...]."""
    x = ins["X"]
    shape = tuple(x.shape)
    out = shape[:2] + tuple(pool_out(shape[2:], attrs))
    outputs = {"Out": (out, x.dtype), "Mask": (out, _INT32)}
    if attrs["adaptive"] or attrs["global_pooling"] or not _regular(attrs):
        return Meta(outputs, "by_output", args=(windows(shape[2:], attrs),))
    return Meta(outputs, "by_kernel")


def mask_pool_grad_meta(attrs, ins, facts):
    """Their gradient: X@GRAD of X's shape in Out@GRAD's dtype."""
    return Meta({"X@GRAD": (tuple(ins["X"].shape), ins["Out@GRAD"].dtype)}, "scatter")


def unpool_meta(attrs, ins, facts):
    """unpool, unpool3d: Out [N, C, *output size] (output_size, else (in - 1) * stride - 2 * padding + ksize) in X's
    dtype; the values of a plane (``Meta.args``)."""
    x = ins["X"]
    dims = unpool_out(tuple(x.shape[2:]), attrs)
    return Meta({"Out": (tuple(x.shape[:2]) + tuple(dims), np.dtype(x.dtype))}, "scatter", args=(math.prod(dims),))


def unpool_grad_meta(attrs, ins, facts):
    """Their gradient: X@GRAD of X's shape in Out@GRAD's dtype (Out@GRAD read at each X value's position)."""
    x, dout = ins["X"], ins["Out@GRAD"]
    return Meta({"X@GRAD": (tuple(x.shape), np.dtype(dout.dtype))}, "gather", args=(math.prod(dout.shape[2:]),))
