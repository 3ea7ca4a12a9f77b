"""Kernels of ops/image_extra.py: numpy. The permutation ops are one reshape-transpose-reshape each,
described by ``permutation(op, x_shape, attrs)`` (shared with the CUDA kernels)."""
import numpy as np


def permutation(op, x_shape, attrs):
    """(X seen with this shape, the transpose applied to it, Out's shape) for the permutation ops."""
    n, c, h, w = x_shape
    if op == "pixel_shuffle":
        r = attrs["upscale_factor"]
        return (n, c // (r * r), r, r, h, w), (0, 1, 4, 2, 5, 3), (n, c // (r * r), h * r, w * r)
    if op == "space_to_depth":
        b = attrs["blocksize"]
        return (n, b, b, c // (b * b), h, w), (0, 3, 4, 1, 5, 2), (n, c * b * b, h // b, w // b)
    g = attrs["group"]
    return (n, g, c // g, h, w), (0, 2, 1, 3, 4), (n, c, h, w)


def _forward(op):
    def kernel(ins, attrs):
        x = ins["X"]
        seen, perm, out = permutation(op, x.shape, attrs)
        return {"Out": np.ascontiguousarray(x.reshape(seen).transpose(perm)).reshape(out)}
    kernel.__name__ = op
    return kernel


def _backward(op):
    def kernel(ins, attrs):
        x, dout = ins["X"], ins["Out@GRAD"]
        seen, perm, _ = permutation(op, x.shape, attrs)
        moved = dout.reshape(tuple(seen[p] for p in perm))
        return {"X@GRAD": np.ascontiguousarray(moved.transpose(np.argsort(perm))).reshape(x.shape)}
    kernel.__name__ = op + "_grad"
    return kernel


pixel_shuffle, pixel_shuffle_grad = _forward("pixel_shuffle"), _backward("pixel_shuffle")
space_to_depth, space_to_depth_grad = _forward("space_to_depth"), _backward("space_to_depth")
shuffle_channel, shuffle_channel_grad = _forward("shuffle_channel"), _backward("shuffle_channel")


# -- affine_channel -------------------------------------------------------------------------------

def channel_view(x, attrs):
    """(pre, C, post): X seen as [pre, C, post] around its channel dim."""
    axis = 1 if attrs["data_layout"] == "NCHW" else x.ndim - 1
    return int(np.prod(x.shape[:axis])), x.shape[axis], int(np.prod(x.shape[axis + 1:]))


def affine_channel(ins, attrs):
    x = ins["X"]
    view = channel_view(x, attrs)
    s, b = ins["Scale"].reshape(1, -1, 1), ins["Bias"].reshape(1, -1, 1)
    return {"Out": (x.reshape(view) * s + b).astype(x.dtype, copy=False).reshape(x.shape)}


def affine_channel_grad(ins, attrs):
    x, scale, dout = ins["X"], ins["Scale"], ins["Out@GRAD"]
    view = channel_view(x, attrs)
    d, xv = dout.reshape(view), x.reshape(view)
    return {"X@GRAD": (d * scale.reshape(1, -1, 1)).astype(x.dtype, copy=False).reshape(x.shape),
            "Scale@GRAD": (d * xv).sum(axis=(0, 2)).astype(scale.dtype, copy=False),
            "Bias@GRAD": d.sum(axis=(0, 2)).astype(scale.dtype, copy=False)}


# -- maxout, lrn ----------------------------------------------------------------------------------

def _grouped(x, attrs, groups):
    """X seen as [pre, C/groups, groups, post] around its channel dim."""
    axis = attrs["axis"] % 4 if "axis" in attrs else 1
    pre, c, post = int(np.prod(x.shape[:axis])), x.shape[axis], int(np.prod(x.shape[axis + 1:]))
    return x.reshape(pre, c // groups, groups, post)


def maxout(ins, attrs):
    x = ins["X"]
    g = _grouped(x, attrs, attrs["groups"])
    shape = list(x.shape)
    shape[attrs["axis"] % 4] //= attrs["groups"]
    return {"Out": g.max(axis=2).reshape(shape)}


def maxout_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    g = _grouped(x, attrs, attrs["groups"])
    first = g.argmax(axis=2)
    dx = np.zeros(g.shape, dtype=x.dtype)
    np.put_along_axis(dx, first[:, :, None, :], dout.reshape(first.shape)[:, :, None, :], axis=2)
    return {"X@GRAD": dx.reshape(x.shape)}


def lrn_view(x, attrs):
    """(pre, C, post) around the channel dim: 1 in NCHW, 3 in NHWC."""
    axis = 3 if attrs["data_format"] == "NHWC" else 1
    return int(np.prod(x.shape[:axis])), x.shape[axis], int(np.prod(x.shape[axis + 1:]))


def lrn(ins, attrs):
    x = ins["X"]
    n, pre_pad = attrs["n"], (attrs["n"] - 1) // 2
    xv = x.reshape(lrn_view(x, attrs))
    sq = xv * xv
    mid = np.full(xv.shape, attrs["k"], dtype=x.dtype)
    c = xv.shape[1]
    for i in range(n):
        shift = i - pre_pad                     # channel c reads channel c + shift
        lo, hi = max(0, -shift), min(c, c - shift)
        if lo < hi:
            mid[:, lo:hi] += attrs["alpha"] * sq[:, lo + shift:hi + shift]
    out = xv * mid ** -attrs["beta"]
    return {"Out": out.astype(x.dtype, copy=False).reshape(x.shape), "MidOut": mid.reshape(x.shape)}


def lrn_grad(ins, attrs):
    """dX[c] = dOut[c] * Mid[c]^-beta - 2 alpha beta X[c] * sum over the c' whose window holds c of
    dOut[c'] * Out[c'] / Mid[c']."""
    x, out, mid, dout = ins["X"], ins["Out"], ins["MidOut"], ins["Out@GRAD"]
    view = lrn_view(x, attrs)
    xv, ov, mv, dv = (a.reshape(view) for a in (x, out, mid, dout))
    ratio = dv * ov / mv
    acc = np.zeros(view, dtype=x.dtype)
    n, pre_pad, c = attrs["n"], (attrs["n"] - 1) // 2, view[1]
    for i in range(n):
        shift = i - pre_pad                     # c' = c - shift has c in its window
        lo, hi = max(0, shift), min(c, c + shift)
        if lo < hi:
            acc[:, lo:hi] += ratio[:, lo - shift:hi - shift]
    dx = dv * mv ** -attrs["beta"] - 2 * attrs["alpha"] * attrs["beta"] * xv * acc
    return {"X@GRAD": dx.astype(x.dtype, copy=False).reshape(x.shape)}


# -- similarity_focus ------------------------------------------------------------------------------

def similarity_focus(ins, attrs):
    x = np.asarray(ins["X"])
    axis = attrs["axis"]
    moved = np.moveaxis(x, axis, 1)                        # [N, A, R, C]: the slices are [R, C]
    mask = np.zeros(moved.shape[:1] + moved.shape[2:], dtype=bool)
    rows, cols = moved.shape[2], moved.shape[3]
    for b in range(moved.shape[0]):
        for index in attrs["indexes"]:
            order = np.argsort(-moved[b, index].reshape(-1), kind="stable")
            used_r, used_c, taken = np.zeros(rows, bool), np.zeros(cols, bool), 0
            for flat in order:
                r, c = divmod(int(flat), cols)
                if used_r[r] or used_c[c]:
                    continue
                used_r[r] = used_c[c] = True
                mask[b, r, c] = True
                taken += 1
                if taken == min(rows, cols):
                    break
    out = np.broadcast_to(mask[:, None], moved.shape).astype(x.dtype)
    return {"Out": np.ascontiguousarray(np.moveaxis(out, 1, axis))}
