"""CPU out-kernels of ops/random.py (their meta rules: shapes/random.py), which compute the variant the rule names
into the buffers they are handed (the ops' kernels by name, ``uniform_random`` ...: the same meta rule and
out-kernel, kernels/structured.adapter; CUDA runs them on the host). They draw from the call's context's
Generator (ctx.rng, ``takes_context``), or, for uniform_random, gaussian_random, truncated_gaussian_random,
randint and randperm in a program that follows Paddle 2.6 (the "paddle" variant), Paddle's values from Paddle's
engine (ctx.rng a ``Mt19937_64``: _paddle_random.py)."""

import numpy as np

from ...base.dtypes import var_type
from . import _paddle_random
from ..common import crop_offsets
from ..structured import adapter
from ...shapes import random as rules

_CHUNK = 1 << 22  # values drawn at a time into a narrower output


def _drawn(draw, out):
    """``draw(size=n)`` (float64 values) of ``out``'s shape, stored in ``out``: drawn a chunk at a time into it,
    the same values one draw gives (the generator's stream is sequential), without a float64 copy of the whole
    (a [10000000, 150] float32 table: 6 GB, not 18)."""
    n = out.size
    if out.dtype == np.float64 or n <= _CHUNK:
        np.copyto(out, draw(size=out.shape), casting="unsafe")
        return
    flat = out.reshape(-1)
    for start in range(0, n, _CHUNK):
        flat[start : start + _CHUNK] = draw(size=min(_CHUNK, n - start))


def _paddle_drawn(draw, attrs, default, out, *args):
    """``draw(engine, count, *args, t)`` (_paddle_random.py) into ``out`` from the op's seed's engine or
    ``default``, in Paddle's type: float64 for float64, else float32 (what Paddle's float16 kernels draw), then
    stored as the op's dtype; drawn an even number of values at a time (a normal distribution's pairs stay
    whole), holding the engine."""
    engine = _paddle_random.engine(attrs["seed"], default)
    t = np.float64 if out.dtype == np.float64 else np.float32
    n, flat = out.size, out.reshape(-1)
    with engine.lock:
        for start in range(0, n, _CHUNK):
            flat[start : start + _CHUNK] = draw(engine, min(_CHUNK, n - start), *args, t)


def _diagonal(out, attrs):
    """uniform_random's diag_num > 0: the flat positions i * (diag_step + 1), i < diag_num, hold diag_val (the
    rule checked they fit)."""
    diag_num, diag_step = attrs.get("diag_num", 0), attrs.get("diag_step", 0)
    if diag_num > 0:
        out.reshape(-1)[np.arange(diag_num) * (diag_step + 1)] = attrs["diag_val"]


def _variants(numpy_form, paddle_form, name):
    def out_kernel(ins, outs, attrs, meta, ctx):
        out_kernel.variants[meta.variant](ins, outs, attrs, meta, ctx)

    out_kernel.variants = {"numpy": numpy_form, "paddle": paddle_form}
    out_kernel.takes_context = True
    out_kernel.__name__ = out_kernel.__qualname__ = name
    return out_kernel


def _uniform_numpy(ins, outs, attrs, meta, ctx):
    rng, out = ctx.rng, outs["Out"]
    _drawn(lambda size: rng.uniform(attrs["min"], attrs["max"], size=size), out)
    _diagonal(out, attrs)


def _uniform_paddle(ins, outs, attrs, meta, ctx):
    _paddle_drawn(_paddle_random.uniform, attrs, ctx.rng, outs["Out"], attrs["min"], attrs["max"])
    _diagonal(outs["Out"], attrs)


def _gaussian_numpy(ins, outs, attrs, meta, ctx):
    rng = ctx.rng
    _drawn(lambda size: rng.normal(attrs["mean"], attrs["std"], size=size), outs["Out"])


def _gaussian_paddle(ins, outs, attrs, meta, ctx):
    _paddle_drawn(_paddle_random.normal, attrs, ctx.rng, outs["Out"], attrs["mean"], attrs["std"])


def _truncated_numpy(ins, outs, attrs, meta, ctx):
    """Normal draws redrawn where they fall beyond two std, in float64, then stored."""
    rng, mean, std = ctx.rng, attrs["mean"], attrs["std"]
    out = rng.normal(mean, std, size=meta.outputs["Out"][0])
    bad = np.abs(out - mean) > 2 * std
    while bad.any():
        out[bad] = rng.normal(mean, std, size=int(bad.sum()))
        bad = np.abs(out - mean) > 2 * std
    np.copyto(outs["Out"], out, casting="unsafe")


def _truncated_paddle(ins, outs, attrs, meta, ctx):
    _paddle_drawn(_paddle_random.truncated_normal, attrs, ctx.rng, outs["Out"], attrs["mean"], attrs["std"])


def _randint_numpy(ins, outs, attrs, meta, ctx):
    out = outs["Out"]
    np.copyto(out, ctx.rng.integers(attrs["low"], attrs["high"], size=out.shape), casting="unsafe")


def _randint_paddle(ins, outs, attrs, meta, ctx):
    # Paddle 2.6.2's static randint with a seed of its own seeds its engine with its dtype's number
    # (int32: 2, int64: 3), not the seed: measured, the same values for any seed but 0
    out = outs["Out"]
    engine = _paddle_random.engine(int(var_type(attrs["dtype"])) if attrs["seed"] else 0, ctx.rng)
    with engine.lock:
        drawn = _paddle_random.integers(engine, out.size, attrs["low"], attrs["high"])
    np.copyto(out, drawn.reshape(out.shape), casting="unsafe")


def _randperm_numpy(ins, outs, attrs, meta, ctx):
    np.copyto(outs["Out"], ctx.rng.permutation(attrs["n"]), casting="unsafe")


def _randperm_paddle(ins, outs, attrs, meta, ctx):
    with ctx.rng.lock:  # Paddle 2.6.2's draws from the default engine, whatever its seed
        np.copyto(outs["Out"], _paddle_random.permutation(ctx.rng, attrs["n"]), casting="unsafe")


uniform_random_out = _variants(_uniform_numpy, _uniform_paddle, "uniform_random_out")
gaussian_random_out = _variants(_gaussian_numpy, _gaussian_paddle, "gaussian_random_out")
truncated_gaussian_random_out = _variants(_truncated_numpy, _truncated_paddle, "truncated_gaussian_random_out")
randint_out = _variants(_randint_numpy, _randint_paddle, "randint_out")
randperm_out = _variants(_randperm_numpy, _randperm_paddle, "randperm_out")


def seed_out(ins, outs, attrs, meta, ctx):
    """Out = [seed], or where seed is 0 a draw in [1, 2^31) from the call's Generator (a fresh one where none)."""
    value = attrs["seed"] or int((ctx.rng or np.random.default_rng()).integers(1, 1 << 31))
    np.copyto(outs["Out"], np.array([value], dtype=np.int32))


def uniform_random_batch_size_like_out(ins, outs, attrs, meta, ctx):
    out = outs["Out"]
    np.copyto(out, ctx.rng.uniform(attrs["min"], attrs["max"], size=out.shape), casting="unsafe")
    _diagonal(out, attrs)


def gaussian_random_batch_size_like_out(ins, outs, attrs, meta, ctx):
    out = outs["Out"]
    np.copyto(out, ctx.rng.normal(attrs["mean"], attrs["std"], size=out.shape), casting="unsafe")


def random_crop_out(ins, outs, attrs, meta):
    """Each instance's window (offsets drawn by a Generator of the Seed input's value) and the next seed."""
    x, shape = ins["X"], tuple(attrs["shape"])
    offsets, next_seed = crop_offsets(x.shape, attrs, ins["Seed"])
    k = x.ndim - len(shape)
    flat = x.reshape((-1,) + x.shape[k:])
    out = outs["Out"].reshape((flat.shape[0],) + shape)
    for i, off in enumerate(offsets):
        out[i] = flat[(i,) + tuple(slice(o, o + n) for o, n in zip(off, shape))]
    np.copyto(outs["SeedOut"], next_seed)


def poisson_out(ins, outs, attrs, meta, ctx):
    x = ins["X"]
    if x.size and not (x.min() >= 0):
        raise ValueError(f"poisson: the rates X hold {float(np.nanmin(x))}; they must be >= 0")
    np.copyto(outs["Out"], ctx.rng.poisson(x.astype(np.float64)), casting="unsafe")


def poisson_grad_out(ins, outs, attrs, meta):
    outs["X@GRAD"].fill(0)


def dirichlet_out(ins, outs, attrs, meta, ctx):
    """Gamma draws of the concentrations (float64), each row over its sum, stored."""
    alpha = ins["Alpha"].astype(np.float64)
    if alpha.size and not (alpha.min() > 0):
        raise ValueError(f"dirichlet: the concentrations Alpha hold {float(np.nanmin(alpha))}; they must be > 0")
    draws = ctx.rng.gamma(alpha)
    np.copyto(outs["Out"], draws / draws.sum(axis=-1, keepdims=True), casting="unsafe")


for _out in (
    seed_out,
    uniform_random_batch_size_like_out,
    gaussian_random_batch_size_like_out,
    poisson_out,
    dirichlet_out,
):
    _out.takes_context = True  # (the call's Generator: kernels/structured.py hands it on)

# the kernels by name (CUDA's host ops run them): the same meta rules and out-kernels
uniform_random = adapter(rules.uniform_random_meta, uniform_random_out, "uniform_random")
uniform_random_p = adapter(rules.uniform_random_meta, uniform_random_out, "uniform_random_p")
gaussian_random = adapter(rules.shaped_meta, gaussian_random_out, "gaussian_random")
truncated_gaussian_random = adapter(rules.shaped_meta, truncated_gaussian_random_out, "truncated_gaussian_random")
randint = adapter(rules.shaped_meta, randint_out, "randint")
randperm = adapter(rules.randperm_meta, randperm_out, "randperm")
seed = adapter(rules.seed_meta, seed_out, "seed")
uniform_random_batch_size_like = adapter(
    rules.uniform_random_batch_size_like_meta, uniform_random_batch_size_like_out, "uniform_random_batch_size_like"
)
gaussian_random_batch_size_like = adapter(
    rules.gaussian_random_batch_size_like_meta, gaussian_random_batch_size_like_out, "gaussian_random_batch_size_like"
)
random_crop = adapter(rules.random_crop_meta, random_crop_out, "random_crop")
poisson = adapter(rules.poisson_meta, poisson_out, "poisson")
poisson_grad = adapter(rules.poisson_grad_meta, poisson_grad_out, "poisson_grad")
dirichlet = adapter(rules.dirichlet_meta, dirichlet_out, "dirichlet")
