"""CPU out-kernels of ops/padding.py's ops (structured kernels; their meta rules, which decide the output shapes, the
windows, the source positions and the variant, in shapes/padding.py): numpy, writing into the buffers handed. An
output the Meta makes a view of an input (a crop of all of X, a gradient's window of all of Out@GRAD) is put in
``outs`` before the call (nothing to do here)."""

import numpy as np

from .launches import by_variant, view_launches


def _pad(ins, outs, attrs, meta):
    """pad: the value (in X's dtype, as numpy's pad took it) around X."""
    (index,) = meta.args
    x, out = ins["X"], outs["Out"]
    out[...] = x.dtype.type(attrs["pad_value"])
    out[index] = x


def _window(ins, outs, attrs, meta):
    """An output that is its input's window (pad_grad's, pad_constant_like_grad's, crop's)."""
    index, src, slot = meta.args
    np.copyto(outs[slot], ins[src][index])


def _nothing(ins, outs, attrs, meta):
    """The output is an input (in another shape): Meta.views, put in ``outs`` before the call."""


def _constant(ins, outs, attrs, meta):
    """pad2d / pad3d of the value: the value (as an assignment casts it) around what X keeps."""
    value, x_index, out_index = meta.args
    out = outs["Out"]
    out[...] = attrs[value]
    out[out_index] = ins["X"][x_index]


def _take(ins, outs, attrs, meta):
    """pad2d / pad3d copying X's values (reflect, edge, replicate, circular): one gather over the spatial dims seen
    flat, at the source positions the Meta computed (all in X: numpy's take unchecked, straight into the buffer)."""
    source, first = meta.args
    x, out = ins["X"], outs["Out"]
    lead, tail = x.shape[:first], x.shape[first + x.ndim - 2 :]  # (N and C before the spatial dims, or N; C after)
    flat = x.reshape(lead + (-1,) + tail)
    np.take(flat, source, axis=first, out=out.reshape(lead + (source.size,) + tail), mode="clip")


def _grad_window(ins, outs, attrs, meta):
    """pad2d_grad / pad3d_grad of the value: Out@GRAD at X's kept window, 0 where a negative padding cropped X."""
    x_index, out_index, cropped = meta.args
    dx = outs["X@GRAD"]
    if cropped:
        dx.fill(0)
    dx[x_index] = ins["Out@GRAD"][out_index]


def _fold(ins, outs, attrs, meta):
    """pad2d_grad / pad3d_grad copying X's values: along each spatial dim, the run of Out@GRAD's positions that copy
    X's own (all of X, or what a negative padding leaves of it) copied, then each other position added onto the
    position it copies, in order (a loop over the paddings only); X's cropped positions get 0. Between dims the
    partial sums are the Meta's scratch."""
    maps, pairs, first = meta.args
    d = ins["Out@GRAD"]
    last = len(maps) - 1
    for k, (m, (before, after)) in enumerate(zip(maps, pairs)):
        acc = outs["X@GRAD"] if k == last else outs[f"@fold{k}"]
        at, n = (slice(None),) * (first + k), m.size - before - after
        lo, hi = max(before, 0), min(before + n, m.size)  # the output positions j copying X[j - before]
        if hi - lo < n:
            acc.fill(0)
        acc[at + (slice(lo - before, hi - before),)] = d[at + (slice(lo, hi),)]
        for j in np.flatnonzero((np.arange(m.size) < lo) | (np.arange(m.size) >= hi)):
            acc[at + (m[j],)] += d[at + (j,)]
        d = acc


def _like(ins, outs, attrs, meta):
    """pad_constant_like: pad_value (as numpy's full casts it) after Y."""
    (index,) = meta.args
    out = outs["Out"]
    np.copyto(out, attrs["pad_value"], casting="unsafe")
    out[index] = ins["Y"]


def _place(ins, outs, attrs, meta):
    """crop_grad / crop_tensor_grad: Out@GRAD in the window, zeros elsewhere."""
    (index,) = meta.args
    dx = outs["X@GRAD"]
    dx.fill(0)
    dx[index] = ins["Out@GRAD"]


PAD = by_variant("pad_out", None, pad=_pad)
PAD_GRAD = by_variant("pad_grad_out", view_launches, window=_window, view=_nothing)
PAD_ND = by_variant("pad_nd_out", None, constant=_constant, take=_take)
PAD_ND_GRAD = by_variant("pad_nd_grad_out", None, window=_grad_window, fold=_fold)
PAD_LIKE = by_variant("pad_constant_like_out", None, like=_like)
PAD_LIKE_GRAD = by_variant("pad_constant_like_grad_out", view_launches, window=_window, view=_nothing)
CROP = by_variant("crop_out", view_launches, window=_window, view=_nothing)
CROP_GRAD = by_variant("crop_grad_out", view_launches, place=_place, view=_nothing)
