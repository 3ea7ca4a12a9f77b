"""Kernels of pe_cli/ops/sampling.py: draws from the seeded numpy Generator the executor hands them
(ctx.rng), float attributes as the float32 Paddle holds; bernoulli, in a program that follows Paddle
2.6, Paddle's values from Paddle's engine (ctx.rng a ``Mt19937_64``)."""

import numpy as np

from ...base.errors import PeError
from . import _paddle_random
from .mersenne_twister import Mt19937_64


def _rng(ctx):
    return ctx.rng or np.random.default_rng()


def bernoulli(ins, attrs, ctx):
    x = ins["X"]
    if isinstance(ctx.rng, Mt19937_64) and x.dtype in (np.float32, np.float64):
        with ctx.rng.lock:
            return {"Out": _paddle_random.bernoulli(ctx.rng, x)}
    return {"Out": (_rng(ctx).random(x.shape) < x).astype(x.dtype)}


def exponential(ins, attrs, ctx):
    x = ins["X"]
    return {"Out": _rng(ctx).exponential(1 / float(np.float32(attrs["lambda"])), x.shape).astype(x.dtype)}


def multinomial(ins, attrs, ctx):
    x = np.asarray(ins["X"], dtype=np.float64)
    rows = x.reshape(-1, x.shape[-1])
    if np.any(rows < 0) or np.any(rows.sum(axis=1) <= 0):
        raise PeError("multinomial: each row of X must hold probabilities >= 0, not all 0")
    rng, n = _rng(ctx), attrs["num_samples"]
    out = [rng.choice(rows.shape[1], size=n, replace=attrs["replacement"], p=r / r.sum()) for r in rows]
    return {"Out": np.array(out, np.int64).reshape(x.shape[:-1] + (n,))}


def rrelu(ins, attrs, ctx):
    x = ins["X"]
    lo, hi = np.float32(attrs["lower"]), np.float32(attrs["upper"])
    if attrs["is_test"]:
        slope = np.full(x.shape, (lo + hi) / 2, x.dtype)
    else:
        slope = _rng(ctx).uniform(lo, hi, x.shape).astype(x.dtype)
    noise = np.where(x < 0, slope, x.dtype.type(1))  # (Paddle's: a NaN takes slope 1)
    return {"Out": (x * noise).astype(x.dtype, copy=False), "Noise": noise}


def rrelu_grad(ins, attrs):
    return {"X@GRAD": ins["Out@GRAD"] * ins["Noise"]}


def _scale(attrs, dtype):
    p = np.float32(attrs["dropout_prob"])
    up = attrs["dropout_implementation"] == "upscale_in_train"
    return dtype.type(1 / (1 - p)) if up and p < 1 else dtype.type(0 if up else 1)


def dropout_nd(ins, attrs, ctx):
    x = ins["X"]
    p = np.float32(attrs["dropout_prob"])
    up = attrs["dropout_implementation"] == "upscale_in_train"
    mask_shape = tuple(d if i in attrs["axis"] or not attrs["axis"] else 1 for i, d in enumerate(x.shape))
    if attrs["is_test"]:
        out = x if up else (x * x.dtype.type(1 - p)).astype(x.dtype)
        return {"Out": out, "Mask": np.ones(mask_shape, np.uint8)}
    mask = (_rng(ctx).random(mask_shape) >= p).astype(np.uint8)
    return {"Out": (x * mask * _scale(attrs, x.dtype)).astype(x.dtype, copy=False), "Mask": mask}


def dropout_nd_grad(ins, attrs):
    d, mask = ins["Out@GRAD"], ins["Mask"]
    if attrs["is_test"]:
        p = np.float32(attrs["dropout_prob"])
        up = attrs["dropout_implementation"] == "upscale_in_train"
        return {"X@GRAD": d if up else (d * d.dtype.type(1 - p)).astype(d.dtype)}
    return {"X@GRAD": (d * mask * _scale(attrs, d.dtype)).astype(d.dtype, copy=False)}


def gumbel_softmax(ins, attrs, ctx):
    x = ins["X"]
    axis = attrs["axis"] % max(x.ndim, 1)
    g = -np.log(-np.log(_rng(ctx).uniform(np.finfo(np.float64).tiny, 1.0, x.shape)))
    z = (x + g) / np.float32(attrs["temperature"])
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    out = e / e.sum(axis=axis, keepdims=True)
    if attrs["hard"]:
        hot = np.zeros_like(out)
        np.put_along_axis(hot, np.expand_dims(np.argmax(out, axis=axis), axis), 1, axis=axis)
        out = hot
    return {"Out": out.astype(x.dtype)}


def gumbel_softmax_grad(ins, attrs):
    out, d = ins["Out"], ins["Out@GRAD"]
    axis = attrs["axis"] % max(out.ndim, 1)
    dx = out * (d - np.sum(d * out, axis=axis, keepdims=True)) / out.dtype.type(np.float32(attrs["temperature"]))
    return {"X@GRAD": dx.astype(out.dtype, copy=False)}


def uniform_random_inplace(ins, attrs, ctx):
    x = ins["X"]
    out = _rng(ctx).uniform(float(np.float32(attrs["min"])), float(np.float32(attrs["max"])), x.shape)
    out = out.astype(x.dtype).reshape(-1)
    if attrs["diag_num"] > 0:
        out[np.arange(attrs["diag_num"]) * (attrs["diag_step"] + 1)] = np.float32(attrs["diag_val"])
    return {"Out": out.reshape(x.shape)}


def gaussian_inplace(ins, attrs, ctx):
    x = ins["x"]
    return {
        "out": _rng(ctx)
        .normal(float(np.float32(attrs["mean"])), float(np.float32(attrs["std"])), x.shape)
        .astype(x.dtype)
    }
