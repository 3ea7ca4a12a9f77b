"""Kernels of ops/random.py: draws from the numpy Generator the executor hands them (ctx.rng), or,
for uniform_random, gaussian_random, truncated_gaussian_random, randint and randperm in a program that
follows Paddle 2.6,
Paddle's values from Paddle's engine (ctx.rng a ``Mt19937_64``: _paddle_random.py)."""

import numpy as np

from ...base.dtypes import var_type
from . import _paddle_random
from .mersenne_twister import Mt19937_64

from ...shapes.creation import run_shape
from .creation import batch_size_like
from ..common import crop_offsets

_CHUNK = 1 << 22  # values drawn at a time into a narrower output


def _drawn(draw, shape, dtype):
    """``draw(size=n)`` (float64 values) of ``shape``, stored as ``dtype``: drawn a chunk at a time into
    the output, the same values one draw gives (the generator's stream is sequential), without a float64
    copy of the whole (a [10000000, 150] float32 table: 6 GB, not 18)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype == np.float64 or n <= _CHUNK:
        return draw(size=shape).astype(dtype, copy=False)
    out = np.empty(n, dtype)
    for start in range(0, n, _CHUNK):
        out[start : start + _CHUNK] = draw(size=min(_CHUNK, n - start))
    return out.reshape(shape)


def _paddle_drawn(draw, attrs, default, shape, *args):
    """``draw(engine, count, *args, t)`` (_paddle_random.py) of ``shape`` from the op's seed's engine or
    ``default``, in Paddle's type: float64 for float64, else float32 (what Paddle's float16 kernels
    draw), then stored as the op's dtype; drawn an even number of values at a time (a normal
    distribution's pairs stay whole), holding the engine."""
    engine = _paddle_random.engine(attrs["seed"], default)
    dtype = np.dtype(attrs["dtype"])
    t = np.float64 if dtype == np.float64 else np.float32
    n = int(np.prod(shape))
    out = np.empty(n, dtype)
    with engine.lock:
        for start in range(0, n, _CHUNK):
            out[start : start + _CHUNK] = draw(engine, min(_CHUNK, n - start), *args, t)
    return out.reshape(shape)


def _with_diagonal(out, attrs, op):
    """uniform_random's diag_num > 0: the flat positions i * (diag_step + 1), i < diag_num, hold diag_val."""
    diag_num, diag_step = attrs.get("diag_num", 0), attrs.get("diag_step", 0)
    if diag_num > 0:
        if out.size <= (diag_num - 1) * (diag_step + 1):
            raise ValueError(
                f"{op}: the tensor of {out.size} values has no room for diag_num={diag_num} "
                f"diagonal values {diag_step + 1} apart"
            )
        out.reshape(-1)[np.arange(diag_num) * (diag_step + 1)] = attrs["diag_val"]
    return {"Out": out.astype(attrs["dtype"], copy=False)}


def uniform_random(ins, attrs, ctx):
    rng = ctx.rng
    if isinstance(rng, Mt19937_64):
        shape, low, high = run_shape(ins, attrs), attrs["min"], attrs["max"]
        out = _paddle_drawn(_paddle_random.uniform, attrs, rng, shape, low, high)
        return _with_diagonal(out, attrs, "uniform_random")
    return _with_diagonal(
        _drawn(lambda size: rng.uniform(attrs["min"], attrs["max"], size=size), run_shape(ins, attrs), attrs["dtype"]),
        attrs,
        "uniform_random",
    )


def gaussian_random(ins, attrs, ctx):
    rng = ctx.rng
    if isinstance(rng, Mt19937_64):
        shape, mean, std = run_shape(ins, attrs), attrs["mean"], attrs["std"]
        return {"Out": _paddle_drawn(_paddle_random.normal, attrs, rng, shape, mean, std)}
    return {
        "Out": _drawn(
            lambda size: rng.normal(attrs["mean"], attrs["std"], size=size), run_shape(ins, attrs), attrs["dtype"]
        )
    }


def truncated_gaussian_random(ins, attrs, ctx):
    rng = ctx.rng
    mean, std = attrs["mean"], attrs["std"]
    if isinstance(rng, Mt19937_64):
        return {"Out": _paddle_drawn(_paddle_random.truncated_normal, attrs, rng, attrs["shape"], mean, std)}
    out = rng.normal(mean, std, size=attrs["shape"])
    bad = np.abs(out - mean) > 2 * std
    while bad.any():
        out[bad] = rng.normal(mean, std, size=int(bad.sum()))
        bad = np.abs(out - mean) > 2 * std
    return {"Out": out.astype(attrs["dtype"], copy=False)}


def seed(ins, attrs, ctx):
    value = attrs["seed"] or int((ctx.rng or np.random.default_rng()).integers(1, 1 << 31))
    return {"Out": np.array([value], dtype=np.int32)}


def uniform_random_batch_size_like(ins, attrs, ctx):
    out = ctx.rng.uniform(attrs["min"], attrs["max"], size=batch_size_like(ins, attrs))
    return _with_diagonal(out, attrs, "uniform_random_batch_size_like")


def gaussian_random_batch_size_like(ins, attrs, ctx):
    out = ctx.rng.normal(attrs["mean"], attrs["std"], size=batch_size_like(ins, attrs))
    return {"Out": out.astype(attrs["dtype"], copy=False)}


def random_crop(ins, attrs):
    x = ins["X"]
    shape = list(attrs["shape"])
    offsets, next_seed = crop_offsets(x.shape, attrs, ins["Seed"])
    k = x.ndim - len(shape)
    flat = x.reshape((-1,) + x.shape[k:])
    out = np.empty((flat.shape[0],) + tuple(shape), dtype=x.dtype)
    for i, off in enumerate(offsets):
        out[i] = flat[(i,) + tuple(slice(o, o + n) for o, n in zip(off, shape))]
    return {"Out": out.reshape(x.shape[:k] + tuple(shape)), "SeedOut": next_seed}


def randint(ins, attrs, ctx):
    rng = ctx.rng
    if isinstance(rng, Mt19937_64):
        # Paddle 2.6.2's static randint with a seed of its own seeds its engine with its dtype's number
        # (int32: 2, int64: 3), not the seed: measured, the same values for any seed but 0
        engine = _paddle_random.engine(int(var_type(attrs["dtype"])) if attrs["seed"] else 0, rng)
        shape = run_shape(ins, attrs)
        with engine.lock:
            out = _paddle_random.integers(engine, int(np.prod(shape)), attrs["low"], attrs["high"])
        return {"Out": out.reshape(shape).astype(attrs["dtype"], copy=False)}
    out = rng.integers(attrs["low"], attrs["high"], size=run_shape(ins, attrs))
    return {"Out": out.astype(attrs["dtype"], copy=False)}


def randperm(ins, attrs, ctx):
    if attrs["n"] is None or attrs["n"] < 1:
        raise ValueError(f"randperm: n={attrs['n']} must be an int > 0")
    if isinstance(ctx.rng, Mt19937_64):  # Paddle 2.6.2's draws from the default engine, whatever its seed
        with ctx.rng.lock:
            return {"Out": _paddle_random.permutation(ctx.rng, attrs["n"]).astype(attrs["dtype"], copy=False)}
    return {"Out": ctx.rng.permutation(attrs["n"]).astype(attrs["dtype"], copy=False)}


def poisson(ins, attrs, ctx):
    x = ins["X"]
    if x.size and not (x.min() >= 0):
        raise ValueError(f"poisson: the rates X hold {float(np.nanmin(x))}; they must be >= 0")
    return {"Out": ctx.rng.poisson(x.astype(np.float64)).astype(x.dtype)}


def poisson_grad(ins, attrs):
    return {"X@GRAD": np.zeros_like(ins["Out@GRAD"])}


def dirichlet(ins, attrs, ctx):
    alpha = ins["Alpha"].astype(np.float64)
    if alpha.size and not (alpha.min() > 0):
        raise ValueError(f"dirichlet: the concentrations Alpha hold {float(np.nanmin(alpha))}; they must be > 0")
    draws = ctx.rng.gamma(alpha)
    return {"Out": (draws / draws.sum(axis=-1, keepdims=True)).astype(ins["Alpha"].dtype)}
