"""shuffle_batch (Fluid 1.8's contrib op): the rows of X (every dimension but the last flattened)
in a random order drawn from a seed; the seed comes from the input Seed (a persistable variable
the layer creates, so each run draws a new order) or the attribute startup_seed, and SeedOut is
the next seed. ShuffleIdx keeps the order, which the gradient undoes (kernels in
kernels/<device>/batch_shuffle.py; structured, meta rules in shapes/batch_shuffle.py)."""

import math

from ..kernels.cpu import batch_shuffle as cpu_shuffle
from ..shapes import batch_shuffle as metas
from ..shapes.structured import Structured
from .define import fmt_shape, register


def _infer(ctx):
    x = ctx.shape("X")
    if len(x) < 1:
        ctx.fail(f"X {fmt_shape(x)} needs at least one dimension")
    rows = -1 if any(d < 0 for d in x[:-1]) else math.prod(x[:-1])
    ctx.set_output("Out", x, ctx.dtype("X"))
    ctx.set_output("ShuffleIdx", [rows], "int64")
    ctx.set_output("SeedOut", [1], "int64")


def _grad(g):
    g.op(
        "shuffle_batch_grad",
        {"ShuffleIdx": g.output("ShuffleIdx"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


def _infer_grad(ctx):
    ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD"))


register(
    "shuffle_batch",
    kernel_module="batch_shuffle",
    structured=Structured(meta=metas.shuffle_batch_meta, cpu=cpu_shuffle.shuffle_batch_out),
    inputs=["X", "Seed?"],
    outputs=["Out", "ShuffleIdx", "SeedOut"],
    attrs={"startup_seed": 0},
    infer=_infer,
    grad=_grad,
    grad_reads=("ShuffleIdx",),
    lod="drop",
    doc="Out[i] = X[ShuffleIdx[i]] over X's rows (all dims but the last), ShuffleIdx a permutation drawn "
    "from Seed[0] (else startup_seed); SeedOut the next seed.",
)
register(
    "shuffle_batch_grad",
    kernel_module="batch_shuffle",
    structured=Structured(meta=metas.shuffle_batch_grad_meta, cpu=cpu_shuffle.shuffle_batch_grad_out),
    inputs=["ShuffleIdx", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs={"startup_seed": 0},
    infer=_infer_grad,
)
