"""CPU kernel of dropout (ops/dropout.py): numpy's generator draws the mask."""

import numpy as np


# -- dropout ----------------------------------------------------------------------------------------


def dropout(ins, attrs, ctx):
    x = ins["X"]
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
