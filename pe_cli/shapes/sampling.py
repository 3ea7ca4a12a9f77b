"""The meta rules of the sampling family's ops (ops/sampling.py), structured kernels (shapes/structured.py): from the
op's attributes, its inputs' shapes and dtypes and the engine its context draws with, the outputs' shapes and dtypes
and the variant that computes them (the CPU out-kernels: kernels/cpu/sampling.py), decided once per shape signature.
The draws themselves are the call's: the out-kernels take its context (``ctx.rng``).

- bernoulli (Out of X's shape and dtype): "paddle", Paddle 2.6's engine draws a float32 or float64 X's (the context's
  rng a ``Mt19937_64``), else "numpy";
- exponential, uniform_random_inplace, gaussian_inplace (of x), gumbel_softmax and its gradient: "draw" (the gradient
  "softmax"), of X's (Out's) shape and dtype; multinomial: "draw", [X's leading dims, num_samples] int64;
- rrelu: Out and Noise of X's shape and dtype, "test" (the mean slope) or "train" (drawn); rrelu_grad: "noise",
  X@GRAD = Out@GRAD * Noise;
- dropout_nd: Out of X's, Mask uint8 of X's shape with 1 outside `axis`; "test_copy" (is_test with upscale_in_train:
  Out is X, ``Meta.aliases``), "test_scale" (Out = X * ``args[0]``, 1 - p in X's dtype), "draw" (Mask = uniforms >= p,
  Out = X * Mask * ``args[0]``); dropout_nd_grad the same of Out@GRAD ("test_copy", "test_scale", "mask")."""

import numpy as np

from .random import engine_variant
from .structured import Meta

_PADDLE_BERNOULLI = (np.dtype(np.float32), np.dtype(np.float64))


def like_meta(slot, out="Out", variant="draw"):
    """Out (``out``) of input ``slot``'s shape and dtype, computed by ``variant``."""

    def meta(attrs, ins, facts):
        x = ins[slot]
        return Meta({out: (tuple(x.shape), np.dtype(x.dtype))}, variant)

    return meta


def bernoulli_meta(attrs, ins, facts):
    x = ins["X"]
    dtype = np.dtype(x.dtype)
    variant = engine_variant(facts) if dtype in _PADDLE_BERNOULLI else "numpy"
    return Meta({"Out": (tuple(x.shape), dtype)}, variant)


def bernoulli_p_meta(attrs, ins, facts):
    """bernoulli_p's Y: the shape and dtype attributes', drawn as bernoulli draws over a tensor filled with p."""
    dtype = np.dtype(attrs["dtype"])
    variant = engine_variant(facts) if dtype in _PADDLE_BERNOULLI else "numpy"
    return Meta({"Y": (tuple(int(d) for d in attrs["shape"]), dtype)}, variant)


def multinomial_meta(attrs, ins, facts):
    x = ins["X"]  # (its probabilities' checks: the out-kernel's)
    return Meta({"Out": (tuple(x.shape[:-1]) + (attrs["num_samples"],), np.dtype(np.int64))}, "draw")


def rrelu_meta(attrs, ins, facts):
    x = ins["X"]
    spec = (tuple(x.shape), np.dtype(x.dtype))
    return Meta({"Out": spec, "Noise": spec}, "test" if attrs["is_test"] else "train")


def rrelu_grad_meta(attrs, ins, facts):
    d, noise = ins["Out@GRAD"], ins["Noise"]
    spec = (np.broadcast_shapes(tuple(d.shape), tuple(noise.shape)), np.result_type(d.dtype, noise.dtype))
    return Meta({"X@GRAD": spec}, "noise")


def _scale(attrs, dtype):
    """Out = X * Mask times this: 1 / (1 - p) for upscale_in_train (0 where p is 1), else 1, in X's dtype."""
    p = np.float32(attrs["dropout_prob"])
    up = attrs["dropout_implementation"] == "upscale_in_train"
    return dtype.type(1 / (1 - p)) if up and p < 1 else dtype.type(0 if up else 1)


def _dropout_nd(attrs, x, slot, out, train, mask=None):
    shape, dtype = tuple(x.shape), np.dtype(x.dtype)
    outputs = {out: (shape, dtype)}
    if mask is not None:
        outputs["Mask"] = (mask, np.dtype(np.uint8))
    if attrs["is_test"]:
        if attrs["dropout_implementation"] == "upscale_in_train":
            return Meta(outputs, "test_copy", aliases={out: slot})
        return Meta(outputs, "test_scale", args=(dtype.type(1 - np.float32(attrs["dropout_prob"])),))
    return Meta(outputs, train, args=(_scale(attrs, dtype),))


def dropout_nd_meta(attrs, ins, facts):
    x, axis = ins["X"], attrs["axis"]
    mask = tuple(d if i in axis or not axis else 1 for i, d in enumerate(x.shape))
    return _dropout_nd(attrs, x, "X", "Out", "draw", mask)


def dropout_nd_grad_meta(attrs, ins, facts):
    return _dropout_nd(attrs, ins["Out@GRAD"], "Out@GRAD", "X@GRAD", "mask")


exponential_meta = uniform_random_inplace_meta = gumbel_softmax_meta = like_meta("X")
gaussian_inplace_meta = like_meta("x", "out")
gumbel_softmax_grad_meta = like_meta("Out", "X@GRAD", "softmax")
