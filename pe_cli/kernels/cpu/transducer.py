"""CPU kernels of ops/transducer.py: the numba-compiled per-sequence program (_transducer_loops.py)
over the batch. ``check`` (the lengths and labels against the input's shape) is shared with CUDA."""

import numpy as np

from ...base.errors import PeError
from ._numba import lazy

_loops = lazy("_transducer_loops")


def check(x_shape, label, t_lens, u_lens, blank):
    """The lengths and labels as int64 arrays, after checking them against input [B, T, U + 1, V]."""
    b, t, u1, v = x_shape
    t_lens, u_lens, label = (np.asarray(a, np.int64) for a in (t_lens, u_lens, label))
    if t_lens.shape != (b,) or u_lens.shape != (b,):
        raise PeError(
            f"warprnnt: input_lengths {list(t_lens.shape)} and label_lengths {list(u_lens.shape)} must be [{b}]"
        )
    if t_lens.size and (t_lens.min() < 1 or t_lens.max() > t or u_lens.min() < 0 or u_lens.max() > u1 - 1):
        raise PeError(
            f"warprnnt: input_lengths {t_lens.tolist()} must be in [1, {t}] and label_lengths "
            f"{u_lens.tolist()} in [0, {u1 - 1}]"
        )
    if not 0 <= blank < v:
        raise PeError(f"warprnnt: blank {blank} is not one of the input's {v} classes")
    used = label[np.arange(u1 - 1)[None, :] < u_lens[:, None]]
    if used.size and (used.min() < 0 or used.max() >= v):
        raise PeError(f"warprnnt: labels must be in [0, {v}), got {int(used.min())}..{int(used.max())}")
    return label, t_lens, u_lens


def warprnnt(ins, attrs):
    x = np.ascontiguousarray(ins["input"])
    label, t_lens, u_lens = check(x.shape, ins["label"], ins["input_lengths"], ins["label_lengths"], attrs["blank"])
    grad = np.zeros(x.shape, x.dtype)
    alpha, beta = np.empty(x.shape[:3], np.float64), np.empty(x.shape[:3], np.float64)
    loss = np.empty(x.shape[0], np.float64)
    _loops().warprnnt(
        x,
        np.ascontiguousarray(label),
        t_lens,
        u_lens,
        int(attrs["blank"]),
        float(attrs["fastemit_lambda"]),
        alpha,
        beta,
        grad,
        loss,
    )
    return {"loss": loss.astype(x.dtype), "warprnntgrad": grad}


def warprnnt_grad(ins, attrs):
    grad, dloss = ins["warprnntgrad"], np.asarray(ins["loss@GRAD"])
    return {"input@GRAD": (grad * dloss.reshape(-1, 1, 1, 1)).astype(grad.dtype, copy=False)}
