"""Sequence ops that look at a window of steps or scatter into rows: sequence_enumerate (the ids of
each step's next win_size steps), sequence_scatter (Fluid's per-sequence scatter-add of Updates
into a row of X), row_conv (DeepSpeech2's lookahead convolution)."""

from ..kernels.cpu import sequence_window as cpu_window
from ..shapes import sequence_window as metas
from ..shapes.structured import Structured
from .define import Attr, backend_attrs, grads_like, register
from .sequence import need_lod


def _infer_enumerate(ctx):
    x = need_lod(ctx, "X", "sequence_enumerate")
    if x.shape is not None and (len(x.shape) != 2 or x.shape[1] not in (1, -1)):
        ctx.fail(f"X {list(x.shape)} must be [steps, 1]: one id per step")
    ctx.set_output("Out", [-1, ctx.attrs["win_size"]], x.dtype, lod_level=x.lod_level)


register(
    "sequence_enumerate",
    kernel_module="sequence_window",
    structured=Structured(meta=metas.enumerate_meta, cpu=cpu_window.sequence_enumerate),
    inputs=["X"],
    outputs=["Out"],
    attrs={
        "win_size": Attr(2, lambda v: isinstance(v, int) and v >= 2, "an int >= 2"),
        "pad_value": 0,
        **backend_attrs("@ALL_KERNELS_MUST_COMPUTE_RUNTIME_SHAPE@"),
    },
    infer=_infer_enumerate,
    needs_lod=True,
    run_lod={"X": None},
    run_dtypes={"X": ("int32", "int64")},
    doc="Out[t] = X[t], X[t + 1], ..., X[t + win_size - 1] within t's sequence, pad_value past its end; "
    "Out keeps X's LoD.",
)


def _infer_scatter(ctx):
    x = ctx.input_var("X")
    need_lod(ctx, "Ids", "sequence_scatter")
    upd = ctx.input_var("Updates")
    if upd.dtype != x.dtype:
        ctx.fail(f"Updates is {upd.dtype} but X is {x.dtype}; they must have one dtype")
    if x.shape is not None and len(x.shape) < 2:
        ctx.fail(f"X {list(x.shape)} must have at least 2 dims: a row per sequence of Ids")
    ctx.set_output("Out", x.shape, x.dtype, lod_level=0)


def _grad_scatter(g):
    g.op(
        "sequence_scatter_grad",
        {"Ids": g.input("Ids"), "Updates": g.input("Updates"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X"), "Updates@GRAD": g.in_grad("Updates")},
    )


register(
    "sequence_scatter",
    kernel_module="sequence_window",
    structured=Structured(meta=metas.scatter_meta, cpu=cpu_window.sequence_scatter),
    inputs=["X", "Ids", "Updates"],
    outputs=["Out"],
    infer=_infer_scatter,
    grad=_grad_scatter,
    grad_reads=("Ids", "Updates"),
    lod="drop",
    needs_lod=True,
    run_dtypes={"Ids": ("int32", "int64")},
    run_lod={"Ids": None},
    doc="Out = X, then for sequence i of Ids and each of its steps j: Out[i, Ids[j]] += Updates[j] "
    "(columns of row i counted over its flattened values).",
)
register(
    "sequence_scatter_grad",
    kernel_module="sequence_window",
    structured=Structured(meta=metas.scatter_grad_meta, cpu=cpu_window.sequence_scatter_grad),
    inputs=["Ids", "Updates", "Out@GRAD"],
    outputs=["X@GRAD?", "Updates@GRAD?"],
    infer=grads_like({"X@GRAD": "Out@GRAD", "Updates@GRAD": "Updates"}),
    lod="drop",
    needs_lod=True,
)


def _infer_row_conv(ctx):
    x = ctx.input_var("X")
    f = ctx.shape("Filter")
    # a 2-D X takes its sequences from the LoD it has when the op runs (checked then, as Fluid's kernel does)
    if x.shape is not None and (len(x.shape) not in (2, 3) or (x.lod_level >= 1 and len(x.shape) != 2)):
        ctx.fail(f"X {list(x.shape)} must be a sequence [steps, D] (LoD) or a padded batch [batch, steps, D]")
    if not f or len(f) != 2 or (x.shape and x.shape[-1] > 0 and f[1] != x.shape[-1]):
        ctx.fail(
            f"Filter {list(f or [])} must be [future_context_size + 1, D] with D = X's last dim "
            f"({x.shape[-1] if x.shape else '?'})"
        )
    ctx.set_output("Out", x.shape, x.dtype, lod_level=x.lod_level)


def _grad_row_conv(g):
    g.op(
        "row_conv_grad",
        {"X": g.input("X"), "Filter": g.input("Filter"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X"), "Filter@GRAD": g.in_grad("Filter")},
    )


register(
    "row_conv",
    kernel_module="sequence_window",
    structured=Structured(meta=metas.row_conv_meta, cpu=cpu_window.row_conv),
    inputs=["X", "Filter"],
    outputs=["Out"],
    infer=_infer_row_conv,
    grad=_grad_row_conv,
    grad_reads=("X", "Filter"),
    needs_lod=True,
    doc="Lookahead convolution: Out[t] = sum over k < Filter rows of X[t + k] * Filter[k] (elementwise), "
    "steps past t's sequence end left out; X is a sequence [steps, D] or a batch [B, T, D].",
)
register(
    "row_conv_grad",
    kernel_module="sequence_window",
    structured=Structured(meta=metas.row_conv_grad_meta, cpu=cpu_window.row_conv_grad),
    inputs=["X", "Filter", "Out@GRAD"],
    outputs=["X@GRAD?", "Filter@GRAD?"],
    infer=grads_like({"X@GRAD": "X", "Filter@GRAD": "Filter"}),
    lod="drop",
    needs_lod=True,
)
