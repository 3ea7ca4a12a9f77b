"""The meta rules of dropout and dropout_grad, structured kernels (shapes/structured.py): from the op's
attributes, its inputs' shapes and dtypes and the engine its context draws with, the outputs' shapes and
dtypes and the variant that computes them (the CPU out-kernels: kernels/cpu/dropout.py), decided once per
shape signature. The draws themselves are the call's: the out-kernels take its context (``ctx.rng``).

dropout (X[, Seed][, DropoutProbTensor] -> Out of X's shape and dtype, and in training Mask, uint8, of X's
shape). Paddle 2.6's engine (the context's rng a ``Mt19937_64``: its ``paddle_engine``; X float32 or float64):

- "paddle_test": is_test, Out = X times ``args[0]`` (1 - p in float32, then X's dtype) for downgrade_in_infer;
- "test_copy": is_test with upscale_in_train, Out = X (either engine);
- "paddle_none_kept": p 1 in float32, nothing drawn, Out and Mask 0;
- "paddle_draw": Mask = Paddle's float32 uniforms >= p (``args``: p, 1 - p in X's dtype, upscale_in_train),
  Out = X (divided by 1 - p for upscale_in_train) where kept, else 0;

numpy's Generator otherwise (the Seed input's value, the fixed seed or the context's Generator):

- "numpy_test": is_test, Out = X times ``args[0]`` (1 - p in X's dtype) for downgrade_in_infer;
- "numpy_none_kept": p 1, nothing drawn, Mask 0, Out = X * Mask;
- "numpy_draw": Mask = float32 uniforms >= p, Out = X * Mask, times ``args[1]`` (1 / (1 - p) in X's
  dtype) for upscale_in_train (None: not scaled).

dropout_grad (Mask, Out@GRAD -> X@GRAD of Out@GRAD's shape and dtype): "mask", X@GRAD = Out@GRAD * Mask,
times ``args[0]`` (1 / (1 - p)) for upscale_in_train with p below 1 (None: not scaled). A rule refuses
nothing: the attributes' checks and the shape rule did at build time."""

import numpy as np

from .structured import Meta

_PADDLE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def dropout_meta(attrs, ins, facts):
    x = ins["X"]
    shape, dtype = tuple(x.shape), np.dtype(x.dtype)
    upscale = attrs["dropout_implementation"] == "upscale_in_train"
    out = {"Out": (shape, dtype)}
    both = {"Out": (shape, dtype), "Mask": (shape, np.dtype(np.uint8))}
    if attrs["is_test"] and upscale:
        return Meta(out, "test_copy")
    t = dtype.type
    if getattr(facts.rng, "paddle_engine", False) and dtype in _PADDLE_DTYPES:
        p = np.float32(attrs["dropout_prob"])
        kept_scale = t(np.float32(1) - p)
        if attrs["is_test"]:
            return Meta(out, "paddle_test", args=(kept_scale,))
        if p == 1:
            return Meta(both, "paddle_none_kept")
        return Meta(both, "paddle_draw", args=(p, kept_scale, upscale))
    p = attrs["dropout_prob"]
    if attrs["is_test"]:
        return Meta(out, "numpy_test", args=(t(1.0 - p),))
    if p >= 1.0:
        return Meta(both, "numpy_none_kept")
    return Meta(both, "numpy_draw", args=(np.float32(p), t(1.0 / (1.0 - p)) if upscale else None))


def dropout_grad_meta(attrs, ins, facts):
    dout = ins["Out@GRAD"]
    dtype, p = np.dtype(dout.dtype), attrs["dropout_prob"]
    scale = dtype.type(1.0 / (1.0 - p)) if attrs["dropout_implementation"] == "upscale_in_train" and p < 1.0 else None
    return Meta({"X@GRAD": (tuple(dout.shape), dtype)}, "mask", args=(scale,))
