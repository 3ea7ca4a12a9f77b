"""CPU out-kernels of dropout and dropout_grad (ops/dropout.py; their meta rules: shapes/dropout.py), which
compute the variant the rule names into the buffers they are handed (``dropout`` and ``dropout_grad``: the
same two as kernels, kernels/structured.adapter). The mask is drawn with the call's
context (``ctx.rng``): numpy's generator draws it, or in a program that follows Paddle 2.6, Paddle's
engine (ctx.rng a ``Mt19937_64``) Paddle's mask. A planned step launches dropout_grad (a loop: the same
multiplies), dropout at test time (a copy, or a multiply) and dropout's "numpy_draw" (its uniforms drawn from
the call's Generator before the segment runs, ``Launch.draw``, then a loop: the same comparison and
multiplies); dropout's other variants are Python launches."""

import math

import numpy as np

from . import _paddle_random
from ..structured import adapter
from ...shapes.dropout import dropout_grad_meta, dropout_meta
from .launches import Launch, flat, floats, one
from .runtime.loops import lazy

_pointwise_loops = lazy("_pointwise_loops")
_dropout_loops = lazy("_dropout_loops")
_reduce_loops = lazy("_reduce_loops")


# -- dropout ----------------------------------------------------------------------------------------


def _seed_value(ins):
    seed = ins.get("Seed")
    return None if seed is None else np.asarray(seed).reshape(-1)[0]


def _test_copy(ins, outs, attrs, meta, ctx):
    np.copyto(outs["Out"], ins["X"])


def _test_scale(ins, outs, attrs, meta, ctx):
    """Out = X * (1 - p), the factor the rule made in the engine's precision."""
    np.multiply(ins["X"], meta.args[0], out=outs["Out"])


def _none_kept(ins, outs, attrs, meta, ctx):
    """p 1 in Paddle's engine: nothing drawn, Out and Mask 0."""
    outs["Out"].fill(0)
    outs["Mask"].fill(0)


def _paddle_draw(ins, outs, attrs, meta, ctx):
    """Paddle 2.6's CPU dropout: kept where a float uniform in [0, 1) is >= p (the engine of the Seed
    input's or the fixed seed, else the default generator's), kept values divided by 1 - p (upscale_in_train),
    dropped ones 0."""
    x, out, mask = ins["X"], outs["Out"], outs["Mask"]
    p, kept_scale, upscale = meta.args
    seed = _seed_value(ins)
    if seed is None:
        seed = attrs["seed"] if attrs["fix_seed"] else 0
    engine = _paddle_random.engine(int(seed), ctx.rng)
    with engine.lock:
        uniforms = _paddle_random.uniform(engine, x.size, 0.0, 1.0, np.float32).reshape(x.shape)
    kept = mask.view(np.bool_)
    np.greater_equal(uniforms, p, out=kept)
    if upscale:
        np.divide(x, kept_scale, out=out)
    else:
        np.copyto(out, x)
    np.copyto(out, 0, where=~kept)


def _numpy_generator(ins, attrs, ctx):
    seed = _seed_value(ins)
    if seed is not None:
        return np.random.default_rng(int(seed))  # the seed op's: a recomputation's mask
    if attrs["fix_seed"]:
        return np.random.default_rng(attrs["seed"] % (1 << 32))  # the same mask on every run
    return ctx.rng or np.random.default_rng()


def _numpy_none_kept(ins, outs, attrs, meta, ctx):
    """p 1 with numpy's generator: nothing drawn, Mask 0, Out = X * Mask (-0 for a negative X, NaN for inf)."""
    outs["Mask"].fill(0)
    np.multiply(ins["X"], outs["Mask"], out=outs["Out"], casting="unsafe")


def _numpy_draw(ins, outs, attrs, meta, ctx):
    x, out, mask = ins["X"], outs["Out"], outs["Mask"]
    p, scale = meta.args
    draws = _numpy_generator(ins, attrs, ctx).random(x.shape, dtype=np.float32)
    np.greater_equal(draws, p, out=mask.view(np.bool_))
    np.multiply(x, mask, out=out, casting="unsafe")
    if scale is not None:
        np.multiply(out, scale, out=out)


def dropout_out(ins, outs, attrs, meta, ctx):
    """The out-kernel of dropout: the variant ``meta`` names (``dropout_out.variants``)."""
    dropout_out.variants[meta.variant](ins, outs, attrs, meta, ctx)


dropout_out.variants = {
    "test_copy": _test_copy,
    "paddle_test": _test_scale,
    "numpy_test": _test_scale,
    "paddle_none_kept": _none_kept,
    "paddle_draw": _paddle_draw,
    "numpy_none_kept": _numpy_none_kept,
    "numpy_draw": _numpy_draw,
}
dropout_out.takes_context = True  # (the call's Generator or engine: kernels/structured.py hands it on)


def _launches(op, table, meta):
    """A planned step's launches of dropout on float32 or float64 values: at test time, "test_copy" X copied
    (_reduce_loops.copy) and "numpy_test" and "paddle_test" X times the Meta's factor (_dropout_loops.times);
    in training, "numpy_draw" where no Seed input gives the seed: the step's float32 uniforms drawn into an
    array the plan keeps (``Launch.draw``: from the call's Generator, as _numpy_draw draws them, before the
    segment's loops run), then _dropout_loops.kept_times, _numpy_draw's comparison and multiplies. None for the
    other variants (a Python launch)."""
    x, out = one(op, "X"), one(op, "Out", "outputs")
    if None in (x, out) or not floats(table, x, out):
        return None
    if meta.variant == "test_copy":
        return [Launch(_reduce_loops().copy, [flat(table, x), flat(table, out)], writes=[out])]
    if meta.variant in ("numpy_test", "paddle_test"):
        factor = ("const", meta.args[0])
        return [Launch(_dropout_loops().times, [flat(table, x), factor, flat(table, out)], writes=[out])]
    mask = one(op, "Mask", "outputs")
    if meta.variant != "numpy_draw" or op.inputs.get("Seed") or mask is None:
        return None
    draws, attrs = np.empty(math.prod(table[x][0]), np.float32), op.attrs
    (p, scale), dtype = meta.args, table[x][1]

    def draw(ctx):
        _numpy_generator({}, attrs, ctx).random(dtype=np.float32, out=draws)

    args = [flat(table, x), ("array", draws), ("const", p), ("const", dtype.type(1 if scale is None else scale))]
    args += [("const", scale is not None), flat(table, out), flat(table, mask)]
    return [Launch(_dropout_loops().kept_times, args, writes=[out, mask], draw=draw)]


dropout_out.launches = _launches


def dropout_grad_out(ins, outs, attrs, meta):
    """X@GRAD = Out@GRAD * Mask (times 1 / (1 - p) for upscale_in_train)."""
    dx, scale = outs["X@GRAD"], meta.args[0]
    np.multiply(ins["Out@GRAD"], ins["Mask"], out=dx, casting="unsafe")
    if scale is not None:
        np.multiply(dx, scale, out=dx)


def _grad_launches(op, table, meta):
    """A planned step's launch of "mask": _pointwise_loops.mask_times, dropout_grad_out's two multiplies in one
    pass (the same roundings); None for a mask of another dtype or values of neither float32 nor float64."""
    dout, mask, dx = one(op, "Out@GRAD"), one(op, "Mask"), one(op, "X@GRAD", "outputs")
    if meta.variant != "mask" or None in (dout, mask, dx) or not floats(table, dout, dx):
        return None
    if table[mask][1] != np.uint8 or table[mask][0] != table[dout][0]:
        return None
    scale, dtype = meta.args[0], table[dout][1]
    args = [flat(table, dout), flat(table, mask), ("const", dtype.type(1 if scale is None else scale))]
    args += [("const", scale is not None), flat(table, dx)]
    return [Launch(_pointwise_loops().mask_times, args, writes=[dx])]


dropout_grad_out.launches = _grad_launches

dropout = adapter(dropout_meta, dropout_out, "dropout")  # (CUDA's host fallback draws its mask with it)
dropout_grad = adapter(dropout_grad_meta, dropout_grad_out, "dropout_grad")
