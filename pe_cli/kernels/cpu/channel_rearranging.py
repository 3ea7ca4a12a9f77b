"""Kernels of pe_cli/ops/channel_rearranging.py: reshapes and transposes (numpy), NHWC through NCHW."""

import numpy as np


def _to_nchw(x, attrs):
    return np.transpose(x, (0, 3, 1, 2)) if attrs["data_format"] == "NHWC" else x


def _from_nchw(x, attrs):
    return np.ascontiguousarray(np.transpose(x, (0, 2, 3, 1)) if attrs["data_format"] == "NHWC" else x)


def _unshuffle(x, r):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4).reshape(n, c * r * r, h // r, w // r)


def _shuffle(x, r):
    n, c, h, w = x.shape
    return x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c // (r * r), h * r, w * r)


def pixel_unshuffle(ins, attrs):
    return {"Out": _from_nchw(_unshuffle(_to_nchw(ins["X"], attrs), attrs["downscale_factor"]), attrs)}


def pixel_unshuffle_grad(ins, attrs):
    return {"X@GRAD": _from_nchw(_shuffle(_to_nchw(ins["Out@GRAD"], attrs), attrs["downscale_factor"]), attrs)}


def _channel_shuffle(x, groups):
    n, c, h, w = x.shape
    return x.reshape(n, groups, c // groups, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w)


def channel_shuffle(ins, attrs):
    return {"Out": _from_nchw(_channel_shuffle(_to_nchw(ins["X"], attrs), attrs["groups"]), attrs)}


def channel_shuffle_grad(ins, attrs):
    d = _to_nchw(ins["Out@GRAD"], attrs)
    return {"X@GRAD": _from_nchw(_channel_shuffle(d, d.shape[1] // attrs["groups"]), attrs)}
