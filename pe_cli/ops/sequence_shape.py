"""Sequence ops that reshape the LoD itself: sequence_expand_as, sequence_concat, sequence_slice,
sequence_reshape, and lod_reset (the rows pass through; only the LoD changes). Each kernel computes its output's offsets from the inputs' LoD (and, for
sequence_slice, from the Offset / Length values) and hands them back with ``ctx.set_lod``."""

from ..kernels.cpu import sequence_shape as cpu_shape
from ..shapes import sequence_shape as metas
from ..shapes.structured import Structured
from .define import Attr, grad_of, grads_like, register
from .sequence import need_lod


def _infer_expand_as(ctx):
    y = need_lod(ctx, "Y", "sequence_expand_as")
    x = ctx.input_var("X")
    if x.shape is not None and len(x.shape) < 2:
        ctx.fail(f"X {list(x.shape)} must have at least 2 dims: one row per sequence of Y")
    ctx.set_output("Out", [-1] + list(x.shape[1:]) if x.shape else None, x.dtype, lod_level=y.lod_level)


def _expand_as_lod(in_lods, attrs):
    return {"Out": in_lods["Y"]} if in_lods.get("Y") else {}


register(
    "sequence_expand_as",
    kernel_module="sequence_shape",
    structured=Structured(meta=metas.expand_as_meta, cpu=cpu_shape.sequence_expand_as),
    inputs=["X", "Y"],
    outputs=["Out"],
    infer=_infer_expand_as,
    grad=grad_of("sequence_expand_as_grad", ("X", "Y")),
    grad_reads=("X", "Y"),
    lod=_expand_as_lod,
    needs_lod=True,
    run_lod={"Y": None},
    doc="Row i of X repeated as many times as Y's sequence i is long (X's LoD is not used); Out has Y's LoD.",
)
register(
    "sequence_expand_as_grad",
    kernel_module="sequence_shape",
    structured=Structured(meta=metas.expand_as_grad_meta, cpu=cpu_shape.sequence_expand_as_grad),
    inputs=["X", "Y", "Out@GRAD"],
    outputs=["X@GRAD"],
    infer=grads_like({"X@GRAD": "X"}),
    lod="drop",
    needs_lod=True,
)


def _infer_concat(ctx):
    n = ctx.num_inputs("X")
    xs = [need_lod(ctx, "X", "sequence_concat") if i == 0 else ctx.input_var("X", i) for i in range(n)]
    for i, x in enumerate(xs):
        if (
            x.shape
            and xs[0].shape
            and (
                len(x.shape) != len(xs[0].shape)
                or any(a != b and a >= 0 and b >= 0 for a, b in zip(x.shape[1:], xs[0].shape[1:]))
            )
        ):
            ctx.fail(f"X #{i} {list(x.shape)} does not match X #0 {list(xs[0].shape)} past the first dim")
        if x.dtype != xs[0].dtype:
            ctx.fail(f"X #{i} is {x.dtype} but X #0 is {xs[0].dtype}; all inputs must have one dtype")
    shape = [-1] + list(xs[0].shape[1:]) if xs[0].shape else None
    ctx.set_output("Out", shape, xs[0].dtype, lod_level=xs[0].lod_level)


def _grad_concat(g):
    g.op("sequence_concat_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


register(
    "sequence_concat",
    kernel_module="sequence_shape",
    structured=Structured(meta=metas.concat_meta, cpu=cpu_shape.sequence_concat),
    inputs=["X*"],
    outputs=["Out"],
    infer=_infer_concat,
    grad=_grad_concat,
    grad_reads=("X",),
    lod="drop",
    needs_lod=True,
    run_lod={"X": None},
    doc="Sequence i of Out = sequence i of X #0, then of X #1, ...: the inputs joined along time, "
    "sequence by sequence (all inputs have as many sequences).",
)
register(
    "sequence_concat_grad",
    kernel_module="sequence_shape",
    structured=Structured(meta=metas.concat_grad_meta, cpu=cpu_shape.sequence_concat_grad),
    inputs=["X*", "Out@GRAD"],
    outputs=["X@GRAD*"],
    infer=grads_like({"X@GRAD": "X"}),
    lod="drop",
    needs_lod=True,
)


def _infer_slice(ctx):
    x = need_lod(ctx, "X", "sequence_slice")
    ctx.set_output("Out", [-1] + list(x.shape[1:]) if x.shape else None, x.dtype, lod_level=x.lod_level)


register(
    "sequence_slice",
    kernel_module="sequence_shape",
    structured=Structured(meta=metas.slice_meta, cpu=cpu_shape.sequence_slice),
    inputs=["X", "Offset", "Length"],
    outputs=["Out"],
    infer=_infer_slice,
    grad=grad_of("sequence_slice_grad", ("X", "Offset", "Length")),
    grad_reads=("X", "Offset", "Length"),
    lod="drop",
    needs_lod=True,
    run_dtypes={"Offset": ("int32", "int64"), "Length": ("int32", "int64")},
    run_lod={"X": None},
    doc="Sequence i of Out = steps Offset[i] .. Offset[i] + Length[i] - 1 of X's sequence i.",
)
register(
    "sequence_slice_grad",
    kernel_module="sequence_shape",
    structured=Structured(meta=metas.slice_grad_meta, cpu=cpu_shape.sequence_slice_grad),
    inputs=["X", "Offset", "Length", "Out@GRAD"],
    outputs=["X@GRAD"],
    infer=grads_like({"X@GRAD": "X"}),
    lod="drop",
    needs_lod=True,
)


def _infer_reshape(ctx):
    x = need_lod(ctx, "X", "sequence_reshape")
    if x.shape is not None and len(x.shape) != 2:
        ctx.fail(f"X {list(x.shape)} must be 2-D [steps, width]")
    ctx.set_output("Out", [-1, ctx.attrs["new_dim"]], x.dtype, lod_level=x.lod_level)


register(
    "sequence_reshape",
    kernel_module="sequence_shape",
    structured=Structured(meta=metas.reshape_meta, cpu=cpu_shape.sequence_reshape),
    inputs=["X"],
    outputs=["Out"],
    attrs={"new_dim": Attr(1, lambda v: isinstance(v, int) and v > 0, "an int > 0")},
    infer=_infer_reshape,
    grad=grad_of("sequence_reshape_grad", ("X",)),
    grad_reads=("X",),
    lod="drop",
    needs_lod=True,
    run_lod={"X": None},
    doc="Each sequence of X [steps, D] read as rows of new_dim values (its steps * D must divide "
    "by new_dim); the offsets scale by D / new_dim.",
)
register(
    "sequence_reshape_grad",
    kernel_module="sequence_shape",
    structured=Structured(meta=metas.reshape_grad_meta, cpu=cpu_shape.sequence_reshape_grad),
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs={"new_dim": 1},
    infer=grads_like({"X@GRAD": "X"}),
    lod="drop",
    needs_lod=True,
)


def _infer_lod_reset(ctx):
    x = ctx.input_var("X")
    if ctx.has_input("Y") and ctx.input_var("Y").lod_level:
        level = ctx.input_var("Y").lod_level
    elif not ctx.has_input("Y") and not ctx.attrs["target_lod"]:
        ctx.fail("give the new LoD: Y (a LoDTensor, or offsets as an int tensor) or target_lod (offsets)")
    else:
        level = x.lod_level + 1 if ctx.attrs["append"] else 1
    ctx.set_output("Out", x.shape, x.dtype, lod_level=max(level, 1))


def _grad_lod_reset(g):
    g.op("assign", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")})


register(
    "lod_reset",
    kernel_module="sequence_shape",
    structured=Structured(meta=metas.lod_reset_meta, cpu=cpu_shape.lod_reset),
    inputs=["X", "Y?"],
    outputs=["Out"],
    lod="drop",
    needs_lod=True,
    attrs={"target_lod": Attr(list), "append": False},
    infer=_infer_lod_reset,
    grad=_grad_lod_reset,
    doc="Out = X with Y's LoD; or with one level of offsets (Y's values when Y has no LoD, else "
    "target_lod) that replaces X's LoD, or with append=True is added below X's levels (lod_append).",
)
