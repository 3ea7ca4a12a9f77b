"""CPU out-kernels of pe_cli/ops/sampling.py (their meta rules: shapes/sampling.py), which compute the variant the
rule names into the buffers they are handed (the ops' kernels by name: the same meta rule and out-kernel,
kernels/structured.adapter; CUDA runs them on the host). They draw from the call's context's seeded numpy
Generator (ctx.rng, ``takes_context``; a fresh one where none), float attributes as the float32 Paddle holds;
bernoulli, in a program that follows Paddle 2.6 (the "paddle" variant), Paddle's values from Paddle's engine
(ctx.rng a ``Mt19937_64``)."""

import numpy as np

from ...base.errors import PeError
from ...shapes import sampling as rules
from . import _paddle_random
from ..structured import adapter


def _rng(ctx):
    return ctx.rng or np.random.default_rng()


def _bernoulli_paddle(ins, outs, attrs, meta, ctx):
    with ctx.rng.lock:
        np.copyto(outs["Out"], _paddle_random.bernoulli(ctx.rng, ins["X"]))


def _bernoulli_numpy(ins, outs, attrs, meta, ctx):
    x = ins["X"]
    np.copyto(outs["Out"], _rng(ctx).random(x.shape) < x)


def bernoulli_out(ins, outs, attrs, meta, ctx):
    """Out = 1 where a uniform in [0, 1) is below X, else 0."""
    bernoulli_out.variants[meta.variant](ins, outs, attrs, meta, ctx)


bernoulli_out.variants = {"paddle": _bernoulli_paddle, "numpy": _bernoulli_numpy}


def bernoulli_p_out(ins, outs, attrs, meta, ctx):
    """bernoulli_p (Paddle 2.6's primitive, lowered to paddle.bernoulli of paddle.full(shape, p)): bernoulli's
    draws over a tensor of the float32 p Paddle holds, into Y."""
    shape, dtype = meta.outputs["Y"]
    x = np.full(shape, np.float32(attrs["p"]), dtype)
    drawn = {"Out": outs["Y"]}
    bernoulli_out.variants[meta.variant]({"X": x}, drawn, attrs, meta, ctx)


bernoulli_p_out.takes_context = True


def exponential_out(ins, outs, attrs, meta, ctx):
    out = outs["Out"]
    np.copyto(out, _rng(ctx).exponential(1 / float(np.float32(attrs["lambda"])), out.shape), casting="unsafe")


def multinomial_out(ins, outs, attrs, meta, ctx):
    """num_samples indices of each row of X (probabilities, checked here), drawn by numpy's choice."""
    x = np.asarray(ins["X"], dtype=np.float64)
    rows = x.reshape(-1, x.shape[-1])
    if np.any(rows < 0) or np.any(rows.sum(axis=1) <= 0):
        raise PeError("multinomial: each row of X must hold probabilities >= 0, not all 0")
    rng, n, out = _rng(ctx), attrs["num_samples"], outs["Out"]
    drawn = [rng.choice(rows.shape[1], size=n, replace=attrs["replacement"], p=r / r.sum()) for r in rows]
    np.copyto(out, np.array(drawn, np.int64).reshape(out.shape))


def _rrelu(ins, outs, slope):
    x, noise = ins["X"], outs["Noise"]
    np.copyto(noise, np.where(x < 0, slope, x.dtype.type(1)))  # (Paddle's: a NaN takes slope 1)
    np.multiply(x, noise, out=outs["Out"])


def _rrelu_test(ins, outs, attrs, meta, ctx):
    x = ins["X"]
    lo, hi = np.float32(attrs["lower"]), np.float32(attrs["upper"])
    _rrelu(ins, outs, np.full(x.shape, (lo + hi) / 2, x.dtype))


def _rrelu_train(ins, outs, attrs, meta, ctx):
    x = ins["X"]
    lo, hi = np.float32(attrs["lower"]), np.float32(attrs["upper"])
    _rrelu(ins, outs, _rng(ctx).uniform(lo, hi, x.shape).astype(x.dtype))


def rrelu_out(ins, outs, attrs, meta, ctx):
    """Noise = the slopes where X < 0 (the mean in inference, drawn in training), else 1; Out = X * Noise."""
    rrelu_out.variants[meta.variant](ins, outs, attrs, meta, ctx)


rrelu_out.variants = {"test": _rrelu_test, "train": _rrelu_train}


def rrelu_grad_out(ins, outs, attrs, meta):
    np.multiply(ins["Out@GRAD"], ins["Noise"], out=outs["X@GRAD"])


def _masked(values, mask, scale, out):
    np.multiply(values * mask, scale, out=out, casting="unsafe")


def _dropout_nd_test_copy(ins, outs, attrs, meta, ctx=None):
    if "Mask" in outs:  # (Out is X: Meta.aliases)
        outs["Mask"].fill(1)


def _test_scale(slot, out):
    def run(ins, outs, attrs, meta, ctx=None):
        np.multiply(ins[slot], meta.args[0], out=outs[out], casting="unsafe")
        if "Mask" in outs:
            outs["Mask"].fill(1)

    return run


def _dropout_nd_draw(ins, outs, attrs, meta, ctx):
    """Mask = uniforms (of Mask's shape, shared along the dims outside axis) >= p; Out = X * Mask * scale."""
    mask = outs["Mask"]
    np.greater_equal(_rng(ctx).random(mask.shape), np.float32(attrs["dropout_prob"]), out=mask.view(np.bool_))
    _masked(ins["X"], mask, meta.args[0], outs["Out"])


def dropout_nd_out(ins, outs, attrs, meta, ctx):
    dropout_nd_out.variants[meta.variant](ins, outs, attrs, meta, ctx)


dropout_nd_out.variants = {
    "test_copy": _dropout_nd_test_copy,
    "test_scale": _test_scale("X", "Out"),
    "draw": _dropout_nd_draw,
}


def dropout_nd_grad_out(ins, outs, attrs, meta):
    """X@GRAD = Out@GRAD * Mask * scale (in inference: Out@GRAD itself, or times 1 - p)."""
    if meta.variant == "mask":
        _masked(ins["Out@GRAD"], ins["Mask"], meta.args[0], outs["X@GRAD"])
    elif meta.variant == "test_scale":
        _test_scale("Out@GRAD", "X@GRAD")(ins, outs, attrs, meta)


def gumbel_softmax_out(ins, outs, attrs, meta, ctx):
    """softmax((X + Gumbel noise) / temperature) along axis (float64 noise), or its one-hot of the largest."""
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
    np.copyto(outs["Out"], out, casting="unsafe")


def gumbel_softmax_grad_out(ins, outs, attrs, meta):
    out, d = ins["Out"], ins["Out@GRAD"]
    axis = attrs["axis"] % max(out.ndim, 1)
    dx = out * (d - np.sum(d * out, axis=axis, keepdims=True)) / out.dtype.type(np.float32(attrs["temperature"]))
    np.copyto(outs["X@GRAD"], dx, casting="unsafe")


def uniform_random_inplace_out(ins, outs, attrs, meta, ctx):
    out = outs["Out"]
    drawn = _rng(ctx).uniform(float(np.float32(attrs["min"])), float(np.float32(attrs["max"])), out.shape)
    np.copyto(out, drawn, casting="unsafe")
    if attrs["diag_num"] > 0:
        out.reshape(-1)[np.arange(attrs["diag_num"]) * (attrs["diag_step"] + 1)] = np.float32(attrs["diag_val"])


def gaussian_inplace_out(ins, outs, attrs, meta, ctx):
    out = outs["out"]
    drawn = _rng(ctx).normal(float(np.float32(attrs["mean"])), float(np.float32(attrs["std"])), out.shape)
    np.copyto(out, drawn, casting="unsafe")


for _out in (
    bernoulli_out,
    exponential_out,
    multinomial_out,
    rrelu_out,
    dropout_nd_out,
    gumbel_softmax_out,
    uniform_random_inplace_out,
    gaussian_inplace_out,
):
    _out.takes_context = True  # (the call's Generator: kernels/structured.py hands it on)

# the kernels by name (CUDA's host ops run them): the same meta rules and out-kernels
bernoulli = adapter(rules.bernoulli_meta, bernoulli_out, "bernoulli")
bernoulli_p = adapter(rules.bernoulli_p_meta, bernoulli_p_out, "bernoulli_p")
exponential = adapter(rules.exponential_meta, exponential_out, "exponential")
multinomial = adapter(rules.multinomial_meta, multinomial_out, "multinomial")
rrelu = adapter(rules.rrelu_meta, rrelu_out, "rrelu")
rrelu_grad = adapter(rules.rrelu_grad_meta, rrelu_grad_out, "rrelu_grad")
dropout_nd = adapter(rules.dropout_nd_meta, dropout_nd_out, "dropout_nd")
dropout_nd_grad = adapter(rules.dropout_nd_grad_meta, dropout_nd_grad_out, "dropout_nd_grad")
gumbel_softmax = adapter(rules.gumbel_softmax_meta, gumbel_softmax_out, "gumbel_softmax")
gumbel_softmax_grad = adapter(rules.gumbel_softmax_grad_meta, gumbel_softmax_grad_out, "gumbel_softmax_grad")
uniform_random_inplace = adapter(
    rules.uniform_random_inplace_meta, uniform_random_inplace_out, "uniform_random_inplace"
)
gaussian_inplace = adapter(rules.gaussian_inplace_meta, gaussian_inplace_out, "gaussian_inplace")
