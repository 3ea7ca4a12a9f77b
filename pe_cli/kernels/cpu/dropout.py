"""CPU kernel of dropout (ops/dropout.py): numpy's generator draws the mask, or in a program that
follows Paddle 2.6, Paddle's engine (ctx.rng a ``Mt19937_64``) Paddle's mask."""

import numpy as np

from . import _paddle_random
from .mersenne_twister import Mt19937_64


# -- dropout ----------------------------------------------------------------------------------------


def _paddle_dropout(x, seed, attrs, default):
    """Paddle 2.6's CPU dropout: kept where a float uniform in [0, 1) is >= p (the engine of the Seed
    input's or the fixed seed, else the default generator's), kept values divided by 1 - p (upscale_in_train),
    dropped ones 0."""
    t = x.dtype.type
    p = np.float32(attrs["dropout_prob"])
    kept_scale = t(np.float32(1) - p)
    if attrs["is_test"]:
        upscale = attrs["dropout_implementation"] == "upscale_in_train"
        return {"Out": x.copy() if upscale else x * kept_scale}
    if p == 1:
        return {"Out": np.zeros_like(x), "Mask": np.zeros(x.shape, np.uint8)}
    if seed is None:
        seed = attrs["seed"] if attrs["fix_seed"] else 0
    engine = _paddle_random.engine(int(seed), default)
    with engine.lock:
        kept = _paddle_random.uniform(engine, x.size, 0.0, 1.0, np.float32).reshape(x.shape) >= p
    if attrs["dropout_implementation"] == "upscale_in_train":
        out = np.where(kept, x / kept_scale, t(0))
    else:
        out = np.where(kept, x, t(0))
    return {"Out": out.astype(x.dtype, copy=False), "Mask": kept.view(np.uint8)}


def dropout(ins, attrs, ctx):
    x = ins["X"]
    if isinstance(ctx.rng, Mt19937_64) and x.dtype in (np.float32, np.float64):
        seed = ins.get("Seed")
        seed = None if seed is None else np.asarray(seed).reshape(-1)[0]
        return _paddle_dropout(x, seed, attrs, ctx.rng)
    p = attrs["dropout_prob"]
    upscale = attrs["dropout_implementation"] == "upscale_in_train"
    if attrs["is_test"]:
        out = x.copy() if upscale else x * x.dtype.type(1.0 - p)
        return {"Out": out}
    if ins.get("Seed") is not None:
        rng = np.random.default_rng(
            int(np.asarray(ins["Seed"]).reshape(-1)[0])
        )  # the seed op's: a recomputation's mask
    elif attrs["fix_seed"]:
        rng = np.random.default_rng(attrs["seed"] % (1 << 32))  # the same mask on every run
    else:
        rng = ctx.rng or np.random.default_rng()
    mask = (
        (rng.random(x.shape, dtype=np.float32) >= np.float32(p)).view(np.uint8)
        if p < 1.0
        else np.zeros(x.shape, dtype=np.uint8)
    )
    out = x * mask
    if upscale and p < 1.0:
        out *= x.dtype.type(1.0 / (1.0 - p))
    return {"Out": out.astype(x.dtype, copy=False), "Mask": mask}


def dropout_grad(ins, attrs):
    mask, dout = ins["Mask"], ins["Out@GRAD"]
    p = attrs["dropout_prob"]
    dx = dout * mask
    if attrs["dropout_implementation"] == "upscale_in_train" and p < 1.0:
        dx *= dout.dtype.type(1.0 / (1.0 - p))
    return {"X@GRAD": dx.astype(dout.dtype, copy=False)}
