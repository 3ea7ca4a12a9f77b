"""Values taken from or written into a tensor by index tensors along an axis, and along a diagonal
(Paddle 2.x's ops with Paddle 2.6.2's op types, slots, attributes and gradient ops): take_along_axis,
put_along_axis (assign, or reduce with add / mul / mean / amin / amax, with or without the input's own
value), index_add, and fill_diagonal_tensor (behind paddle.diagonal_scatter). Their kernels refuse an
index outside the axis in one line (Paddle's CPU kernels read or write past it)."""

from ..base.dims import fmt_shape, numel
from ..kernels.cpu import indexing_axis as cpu
from ..shapes import indexing_axis as metas
from .define import Attr, Structured, grad_of, is_int, register

_BOOL = (False, True)
_VALUES = ("float16", "float32", "float64", "int32", "int64", "uint8")
_REDUCE = ("assign", "add", "mul", "multiply", "mean", "amin", "amax")


def _check(ctx, x_slot, index_slot, axis):
    x, idx = ctx.shape(x_slot), ctx.shape(index_slot)
    if ctx.dtype(index_slot) not in ("int32", "int64"):
        ctx.fail(f"{index_slot} is {ctx.dtype(index_slot)}; it must be int32 or int64")
    if ctx.dtype(x_slot) not in _VALUES:
        ctx.fail(f"{x_slot} is {ctx.dtype(x_slot)}; {ctx.op.type} takes {', '.join(_VALUES)}")
    rank = max(len(x), 1)
    if not -rank <= axis < rank:
        ctx.fail(f"axis {axis} is out of range for {x_slot} {fmt_shape(x)} (expected {-rank} <= axis < {rank})")
    return x, idx, axis % rank


def _same_rank_within(ctx, x, idx, axis, what="Index"):
    if len(idx) != len(x):
        ctx.fail(f"{what} {fmt_shape(idx)} and Input {fmt_shape(x)} must have the same number of dims")
    for d, (n, m) in enumerate(zip(x, idx)):
        if d != axis and n >= 0 and m > n:
            ctx.fail(
                f"{what} {fmt_shape(idx)} is larger than Input {fmt_shape(x)} in dim {d} (only the axis "
                f"{axis} may differ)"
            )


def _infer_take(ctx):
    x, idx, axis = _check(ctx, "Input", "Index", ctx.attrs["Axis"])
    _same_rank_within(ctx, x, idx, axis)
    ctx.set_output("Result", idx, ctx.dtype("Input"))


def _grad_take(g):
    g.op(
        "take_along_axis_grad",
        {"Input": g.input("Input"), "Index": g.input("Index"), "Result@GRAD": g.out_grad("Result")},
        {"Input@GRAD": g.in_grad("Input")},
        g.attrs,
    )


_TAKE_ATTRS = {"Axis": Attr(0, is_int, "an int")}
register(
    "take_along_axis",
    kernel_module="indexing_axis",
    structured=Structured(meta=metas.take_along_axis_meta, cpu=cpu.TAKE_ALONG_AXIS),
    inputs=["Input", "Index"],
    outputs=["Result"],
    attrs=_TAKE_ATTRS,
    infer=_infer_take,
    grad=_grad_take,
    grad_reads=("Input", "Index"),
    lod="drop",
    doc="Result[..., i, ...] = Input[..., Index[..., i, ...], ...] along `Axis` (numpy's take_along_axis; "
    "Index of Input's rank, no larger off the axis). The gradient adds Result@GRAD at the indices.",
)
register(
    "take_along_axis_grad",
    kernel_module="indexing_axis",
    structured=Structured(meta=metas.take_along_axis_grad_meta, cpu=cpu.TAKE_ALONG_AXIS_GRAD),
    inputs=["Input", "Index", "Result@GRAD"],
    outputs=["Input@GRAD"],
    attrs=_TAKE_ATTRS,
    infer=lambda ctx: ctx.set_output("Input@GRAD", ctx.shape("Input"), ctx.dtype("Input")),
)


def _infer_put(ctx):
    x, idx, axis = _check(ctx, "Input", "Index", ctx.attrs["Axis"])
    _same_rank_within(ctx, x, idx, axis)
    if list(ctx.shape("Value")) != list(idx) and ctx.shape("Value") != ():
        v = ctx.shape("Value")
        if len(v) != len(idx) or any(a < b for a, b in zip(v, idx) if a >= 0 and b >= 0):
            ctx.fail(f"Value {fmt_shape(v)} must cover Index {fmt_shape(idx)}")
    if ctx.dtype("Value") != ctx.dtype("Input"):
        ctx.fail(f"Value is {ctx.dtype('Value')} but Input is {ctx.dtype('Input')}; cast one of them")
    ctx.set_output("Result", x, ctx.dtype("Input"))


def _grad_put(g):
    g.op(
        "put_along_axis_grad",
        {
            "Input": g.input("Input"),
            "Index": g.input("Index"),
            "Value": g.input("Value"),
            "Result": g.output("Result"),
            "Result@GRAD": g.out_grad("Result"),
        },
        {"Input@GRAD": g.in_grad("Input"), "Value@GRAD": g.in_grad("Value")},
        g.attrs,
    )


_PUT_ATTRS = {
    "Axis": Attr(0, is_int, "an int"),
    "Reduce": Attr("assign", choices=_REDUCE),
    "Include_self": Attr(True, choices=_BOOL),
}
register(
    "put_along_axis",
    kernel_module="indexing_axis",
    structured=Structured(meta=metas.put_along_axis_meta, cpu=cpu.put_along_axis_out),
    inputs=["Input", "Index", "Value"],
    outputs=["Result"],
    attrs=_PUT_ATTRS,
    infer=_infer_put,
    grad=_grad_put,
    grad_reads=("Input", "Index", "Value", "Result"),
    lod="drop",
    doc="Result = Input with Value[..., i, ...] put at Index[..., i, ...] along `Axis`: `Reduce` assign (the "
    "last write wins), add, mul / multiply, mean, amin or amax of the values written to a place, with "
    "Input's own value among them when `Include_self` (mean: divided by their count). The gradients, "
    "as Paddle 2.6.2's: Input's is Result@GRAD where nothing is written; where something is, 0 "
    "without Include_self, else Result@GRAD (add), times Result / Input (mul), over the count (mean), "
    "shared among the values equal to the result (amin, amax); Value's is Result@GRAD at its place "
    "(add; assign: for the last write only), times Result / Value (mul), over the count (mean), shared "
    "among the equal values (amin, amax: counting Input's own equal value even without Include_self).",
)
register(
    "put_along_axis_grad",
    kernel_module="indexing_axis",
    structured=Structured(meta=metas.put_along_axis_grad_meta, cpu=cpu.put_along_axis_grad_out),
    inputs=["Input", "Index", "Value", "Result", "Result@GRAD"],
    outputs=["Input@GRAD?", "Value@GRAD?"],
    attrs=_PUT_ATTRS,
    infer=lambda ctx: [ctx.set_output(s + "@GRAD", ctx.shape(s), ctx.dtype(s)) for s in ("Input", "Value")],
)


def _infer_index_add(ctx):
    x, idx, axis = _check(ctx, "X", "Index", ctx.attrs["axis"])
    v = ctx.shape("AddValue")
    if len(idx) != 1:
        ctx.fail(f"Index {fmt_shape(idx)} must be 1-D")
    want = list(x)
    want[axis] = idx[0]
    if len(v) != len(x) or any(a != b and a >= 0 and b >= 0 for a, b in zip(v, want)):
        ctx.fail(f"AddValue {fmt_shape(v)} must be X {fmt_shape(x)} with dim {axis} of Index's size: {fmt_shape(want)}")
    if ctx.dtype("AddValue") != ctx.dtype("X"):
        ctx.fail(f"AddValue is {ctx.dtype('AddValue')} but X is {ctx.dtype('X')}; cast one of them")
    ctx.set_output("Out", x, ctx.dtype("X"))


def _grad_index_add(g):
    g.op(
        "index_add_grad",
        {"Index": g.input("Index"), "AddValue": g.input("AddValue"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X"), "AddValue@GRAD": g.in_grad("AddValue")},
        g.attrs,
    )


_AXIS = {"axis": Attr(0, is_int, "an int")}
register(
    "index_add",
    kernel_module="indexing_axis",
    structured=Structured(meta=metas.index_add_meta, cpu=cpu.INDEX_ADD),
    inputs=["X", "Index", "AddValue"],
    outputs=["Out"],
    attrs=_AXIS,
    infer=_infer_index_add,
    grad=_grad_index_add,
    grad_reads=("Index", "AddValue"),
    lod="drop",
    doc="Out = X with AddValue's slice i added to X's slice Index[i] along `axis` (repeated indices add up). "
    "The gradients: X's is Out@GRAD, AddValue's the slices Index of Out@GRAD.",
)
register(
    "index_add_grad",
    kernel_module="indexing_axis",
    structured=Structured(meta=metas.index_add_grad_meta, cpu=cpu.INDEX_ADD_GRAD),
    inputs=["Index", "AddValue", "Out@GRAD"],
    outputs=["X@GRAD?", "AddValue@GRAD?"],
    attrs=_AXIS,
    infer=lambda ctx: [
        ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD")),
        ctx.set_output("AddValue@GRAD", ctx.shape("AddValue"), ctx.dtype("AddValue")),
    ],
)


def _diagonal_length(shape, offset, dim1, dim2):
    """How many elements diagonal ``offset`` of dims (dim1, dim2) of ``shape`` has."""
    return max(0, min(shape[dim1], shape[dim1] + offset, shape[dim2], shape[dim2] - offset))


def _infer_fill_diagonal(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    if len(x) < 2:
        ctx.fail(f"X {fmt_shape(x)} must have at least 2 dims")
    d1, d2 = a["dim1"] % len(x), a["dim2"] % len(x)
    if d1 == d2:
        ctx.fail(f"dim1 {a['dim1']} and dim2 {a['dim2']} must be two different dims of X {fmt_shape(x)}")
    y, n = ctx.shape("Y"), _diagonal_length(x, a["offset"], d1, d2)
    rest = [s for i, s in enumerate(x) if i not in (d1, d2)]
    if int(numel(y)) != int(numel(rest)) * n and min(list(y) + list(x)) >= 0:
        ctx.fail(f"Y {fmt_shape(y)} must hold the diagonal's {fmt_shape(rest + [n])} values")
    ctx.set_output("Out", x, ctx.dtype("X"))


_DIAG_ATTRS = {
    "offset": Attr(0, is_int, "an int"),
    "dim1": Attr(0, is_int, "an int"),
    "dim2": Attr(1, is_int, "an int"),
}
register(
    "fill_diagonal_tensor",
    kernel_module="indexing_axis",
    structured=Structured(meta=metas.fill_diagonal_tensor_meta, cpu=cpu.FILL_DIAGONAL_TENSOR),
    inputs=["X", "Y"],
    outputs=["Out"],
    attrs=_DIAG_ATTRS,
    infer=_infer_fill_diagonal,
    grad=grad_of("fill_diagonal_tensor_grad", ()),
    lod="drop",
    doc="Out = X with diagonal `offset` of dims (dim1, dim2) replaced by Y (X's other dims in order, then "
    "the diagonal; its element t is X[..., t, ..., t + offset, ...], or (t - offset, t) for a negative "
    "offset). The gradient of X is Out@GRAD with that diagonal zero; Y has none (as Paddle 2.6.2).",
)
register(
    "fill_diagonal_tensor_grad",
    kernel_module="indexing_axis",
    structured=Structured(meta=metas.fill_diagonal_tensor_grad_meta, cpu=cpu.FILL_DIAGONAL_TENSOR_GRAD),
    inputs=["Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_DIAG_ATTRS,
    infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD")),
)
