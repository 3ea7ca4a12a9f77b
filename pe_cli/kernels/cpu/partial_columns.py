"""Kernels of ops/partial_columns.py (numpy)."""

import numpy as np

from ...base.errors import PeError
from ...shapes.manipulation import column_window


def window(xs, attrs):
    """(start, stop) of the window in the inputs' columns; the inputs must be [batch, n] alike."""
    if len({x.shape for x in xs}) != 1 or xs[0].ndim != 2:
        raise PeError(
            f"partial_concat/partial_sum: every input must be [batch, n] of one shape, got {[x.shape for x in xs]}"
        )
    try:
        return column_window(xs[0].shape[1], attrs["start_index"], attrs["length"])
    except ValueError as e:
        raise PeError(f"partial_concat/partial_sum: {e}") from None


def partial_concat(ins, attrs):
    start, stop = window(ins["X"], attrs)
    return {"Out": np.concatenate([x[:, start:stop] for x in ins["X"]], axis=1)}


def partial_sum(ins, attrs):
    start, stop = window(ins["X"], attrs)
    out = ins["X"][0][:, start:stop].copy()
    for x in ins["X"][1:]:
        out += x[:, start:stop]
    return {"Out": out}


def _scatter(xs, attrs, pieces):
    start, stop = window(xs, attrs)
    grads = []
    for x, piece in zip(xs, pieces):
        g = np.zeros(x.shape, dtype=x.dtype)
        g[:, start:stop] = piece
        grads.append(g)
    return {"X@GRAD": grads}


def partial_concat_grad(ins, attrs):
    start, stop = window(ins["X"], attrs)
    dout, w = ins["Out@GRAD"], stop - start
    return _scatter(ins["X"], attrs, [dout[:, i * w : (i + 1) * w] for i in range(len(ins["X"]))])


def partial_sum_grad(ins, attrs):
    return _scatter(ins["X"], attrs, [ins["Out@GRAD"]] * len(ins["X"]))
