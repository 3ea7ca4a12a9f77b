"""Kernels of pe_cli/ops/diagonals.py (numpy); fill_diagonal's positions are those of Paddle 2.6's kernel."""

import numpy as np


def diag_v2(ins, attrs):
    x, k = ins["X"], int(attrs["offset"])
    if x.ndim == 1:
        n = x.size + abs(k)
        out = np.full((n, n), np.float32(attrs["padding_value"]), dtype=x.dtype)
        rows = np.arange(x.size) + max(-k, 0)
        out[rows, rows + k] = x
        return {"Out": out}
    return {"Out": np.ascontiguousarray(np.diagonal(x, k))}


def diag_v2_grad(ins, attrs):
    x, d, k = ins["X"], ins["Out@GRAD"], int(attrs["offset"])
    if x.ndim == 1:
        return {"X@GRAD": np.ascontiguousarray(np.diagonal(d, k))}
    dx = np.zeros(x.shape, d.dtype)
    idx = np.arange(d.size)
    dx[idx + max(-k, 0), idx + max(k, 0)] = d
    return {"X@GRAD": dx}


def diagonal(ins, attrs):
    x = ins["Input"]
    return {
        "Out": np.ascontiguousarray(
            np.diagonal(x, int(attrs["offset"]), attrs["axis1"] % x.ndim, attrs["axis2"] % x.ndim)
        )
    }


def diagonal_grad(ins, attrs):
    x, d, k = ins["Input"], ins["Out@GRAD"], int(attrs["offset"])
    a1, a2 = attrs["axis1"] % x.ndim, attrs["axis2"] % x.ndim
    dx = np.zeros(x.shape, d.dtype)
    view = np.moveaxis(dx, (a1, a2), (-2, -1))
    n = d.shape[-1]
    i = np.arange(n)
    view[..., i + max(-k, 0), i + max(k, 0)] = d
    return {"Input@GRAD": dx}


def fill_positions(shape, offset, wrap):
    """The flat positions Paddle 2.6's fill_diagonal writes: every stride-th element (stride: the sum of the
    dims' strides) up to n * n without wrap, offset along its row when that stays in the row."""
    size = int(np.prod(shape))
    n = shape[1]
    stride = sum(int(np.prod(shape[i + 1 :])) for i in range(len(shape)))
    if not wrap:
        size = min(size, n * n)
    pos = np.arange(0, size, stride)
    keep = (pos % n + offset >= 0) & (pos % n + offset < n)
    return pos[keep] + offset


def fill_diagonal(ins, attrs):
    x = ins["X"]
    out = x.copy().reshape(-1)
    out[fill_positions(x.shape, int(attrs["offset"]), attrs["wrap"])] = np.float32(attrs["value"])
    return {"Out": out.reshape(x.shape)}


def fill_diagonal_grad(ins, attrs):
    d = ins["Out@GRAD"]
    dx = d.copy().reshape(-1)
    dx[fill_positions(d.shape, int(attrs["offset"]), attrs["wrap"])] = 0
    return {"X@GRAD": dx.reshape(d.shape)}
