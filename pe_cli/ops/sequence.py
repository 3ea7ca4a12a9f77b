"""Sequence ops over LoD input (Fluid's sequence_*): each reads its input's LoD (the offsets of the
last level) through its kernel context's ``lod`` and says how its outputs' LoD follows (``lod=``).
Structured kernels: their meta rules (shapes/sequence.py) read that LoD, their Meta kept per signature and LoD."""

from ..kernels.cpu import sequence as cpu_sequence
from ..shapes import sequence as metas
from ..shapes.structured import Structured
from .define import LAYOUT_NAME, Attr, backend_attrs, grads_like, lods_like, register

POOL_TYPES = ("AVERAGE", "SUM", "SQRT", "MAX", "LAST", "FIRST")


def need_lod(ctx, slot, op_name, at_build=False):
    """The sequence input ``slot``. Fluid checks a sequence op's LoD when it runs (the op's ``run_lod``), a
    declared lod_level being no fact yet; ``at_build``: its InferShape checks the lod_level too (sequence_pool,
    sequence_pad)."""
    var = ctx.input_var(slot)
    if at_build and var.lod_level < 1:
        ctx.fail(
            f"{slot} '{var.name}' is a plain tensor (lod_level 0); {op_name} needs a sequence "
            f"(a LoDTensor: declare it with lod_level=1)"
        )
    return var


def _infer_pool(ctx):
    x = need_lod(ctx, "X", "sequence_pool", at_build=True)
    shape = [-1] + list(x.shape[1:]) if x.shape else None
    ctx.set_output("Out", shape, x.dtype, lod_level=x.lod_level - 1)
    if ctx.attrs["pooltype"].upper() == "MAX":  # (declared as the layer made it, as Fluid: int32 when run)
        ctx.set_output("MaxIndex", shape)
    elif ctx.op.outputs.get("MaxIndex") and ctx.output_var("MaxIndex").shape is None:  # no dims, as a Fluid
        # VarDesc nobody gave a shape (Paddle's op tests read its shape)
        ctx.set_output("MaxIndex", ())


def _pool_lod(in_lods, attrs):
    """Pooling ends the last level: Out keeps the levels above it."""
    lod = in_lods.get("X")
    return {"Out": lod[:-1]} if lod and len(lod) > 1 else {}


def _grad_pool(g):
    ins = {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}
    if g.attrs.get("pooltype", "AVERAGE").upper() == "MAX":
        ins["MaxIndex"] = g.output("MaxIndex")
    g.op("sequence_pool_grad", ins, {"X@GRAD": g.in_grad("X")}, g.attrs)


_POOL_ATTRS = {
    "pooltype": Attr("AVERAGE", lambda v: str(v).upper() in POOL_TYPES, f"one of {list(POOL_TYPES)}"),
    "is_test": False,
    "pad_value": 0.0,
}

register(
    "sequence_pool",
    kernel_module="sequence",
    inputs=["X"],
    outputs=["Out", "MaxIndex"],
    attrs=_POOL_ATTRS,
    infer=_infer_pool,
    grad=_grad_pool,
    grad_reads=("X", "MaxIndex"),
    lod=_pool_lod,
    needs_lod=True,
    structured=Structured(meta=metas.pool_meta, cpu=cpu_sequence.sequence_pool),
    doc="One row per sequence of X's last LoD level: its sum, average, sum / sqrt(length), max, "
    "first or last row; an empty sequence gives pad_value. Out has X's LoD less its last level.",
)
register(
    "sequence_pool_grad",
    kernel_module="sequence",
    inputs=["X", "MaxIndex?", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_POOL_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    lod=lods_like({"X@GRAD": "X"}),
    needs_lod=True,
    structured=Structured(meta=metas.pool_grad_meta, cpu=cpu_sequence.sequence_pool_grad),
)


def _infer_softmax(ctx):
    x = need_lod(ctx, "X", "sequence_softmax")
    if x.shape and len(x.shape) == 2 and x.shape[1] not in (1, -1):
        ctx.fail(f"X {list(x.shape)} must be [N, 1] or [N]: one score per time step")
    ctx.set_output("Out", x.shape, x.dtype, lod_level=x.lod_level)


def _grad_softmax(g):
    g.op(
        "sequence_softmax_grad",
        {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )  # (X: Fluid's, for its LoD; pe's kernel reads Out's)


# Fluid's: its cuDNN kernel's layout, which its CPU kernel (as pe's) ignores
_SOFTMAX_ATTRS = {"data_format": LAYOUT_NAME, **backend_attrs("use_cudnn")}
register(
    "sequence_softmax",
    kernel_module="sequence",
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_softmax,
    grad=_grad_softmax,
    grad_reads=("Out", "X"),
    needs_lod=True,
    attrs=_SOFTMAX_ATTRS,
    run_lod={"X": None},
    structured=Structured(meta=metas.softmax_meta, cpu=cpu_sequence.sequence_softmax),
    doc="Softmax over the time steps of each sequence of X ([N, 1] or [N]); Out keeps X's LoD.",
)
register(
    "sequence_softmax_grad",
    kernel_module="sequence",
    inputs=["X?", "Out", "Out@GRAD"],
    outputs=["X@GRAD"],
    no_need_buffer=("X",),
    infer=grads_like({"X@GRAD": "Out"}),
    needs_lod=True,
    structured=Structured(meta=metas.softmax_grad_meta, cpu=cpu_sequence.sequence_softmax_grad),
    attrs=_SOFTMAX_ATTRS,
)
