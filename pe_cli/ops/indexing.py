"""Indexing, search and sort: slices (slice, strided_slice), gathers and scatters by index (gather,
gather_nd, scatter; one_hot's registered in gather_scatter.py), selecting by a condition (where, where_index),
and searching and sorting (argsort, top_k, arg_max, arg_min, unique, unique_with_counts).

The searching and sorting ops are registered in indexing_search.py."""

from ..kernels.cpu import gathering as cpu_gathering
from ..kernels.cpu import slicing as cpu_slicing
from ..shapes import gather as meta_rules
from ..shapes import indexing as metas
from ..shapes.manipulation import slice_bounds, strided_window
from .define import Attr, Structured, fmt_shape, grad_of_linear_grad, grads_like, int_list, is_int
from .define import register


# -- slice, gather ---------------------------------------------------------------------

_BOUND_SLOTS = {"starts": "Starts", "ends": "Ends", "strides": "Strides"}
_UNKNOWN_BOUND = {"starts": 0, "ends": 2**31 - 1, "strides": 1}  # placeholders of bounds known at run time


def _bounds(ctx, names):
    """({name: the list}, positions in axes whose bounds come at run time) of the slice bounds ``names``:
    Fluid 1.8 gives them as a whole-list int tensor (StartsTensor: every position), a list of one-value
    tensors (StartsTensorList: the positions infer_flags marks -1) or the attribute."""
    n = len(ctx.attrs["axes"])
    unknown = {i for i, flag in enumerate(ctx.attrs.get("infer_flags") or []) if flag == -1}
    lists = {}
    for name in names:
        slot, value = _BOUND_SLOTS[name], list(ctx.attrs[name])
        listed = ctx.num_inputs(slot + "TensorList") if ctx.has_input(slot + "TensorList") else None
        if listed is not None and listed != n:
            ctx.fail(f"{slot}TensorList has {listed} tensors for {n} axes")
        if ctx.has_input(slot + "Tensor") or (listed is not None and len(value) != n):
            value, unknown = [_UNKNOWN_BOUND[name]] * n, set(range(n))
        lists[name] = [_UNKNOWN_BOUND[name] if i in unknown else v for i, v in enumerate(value)]
    return lists, unknown


def _bound_slots(names):
    """{slot: bound name} of the tensor forms of slice bounds ``names`` (StartsTensor, StartsTensorList, ...)."""
    return {f"{_BOUND_SLOTS[n]}{form}": n for n in names for form in ("Tensor", "TensorList")}


def _slot_specs(bound_slots):
    return [s + ("*?" if s.endswith("List") else "?") for s in bound_slots]


def _infer_slice(ctx):
    x = ctx.shape("Input")
    bounds, unknown = _bounds(ctx, ("starts", "ends"))
    axes, starts, ends = list(ctx.attrs["axes"]), bounds["starts"], bounds["ends"]
    where = f"Input {fmt_shape(x)} with axes={axes}, starts={starts}, ends={ends}"
    if not len(axes) == len(starts) == len(ends):
        ctx.fail(f"cannot slice {where}: axes, starts and ends must have one length")
    out = list(x)
    for a, s, e in zip(axes, starts, ends):
        if not -len(x) <= a < len(x):
            ctx.fail(f"cannot slice {where}: axis {a} is out of range (expected {-len(x)} <= axis < {len(x)})")
        a %= len(x)
        if x[a] >= 0 and a not in {axes[i] % len(x) for i in unknown}:
            lo, hi = slice_bounds(x[a], s, e)
            if hi <= lo:
                ctx.fail(f"cannot slice {where}: [{s}:{e}] along axis {a} (size {x[a]}) is empty")
            out[a] = hi - lo
        else:
            out[a] = -1
    sliced = {a % len(x) for a in axes}
    decrease = set()
    for a in ctx.attrs["decrease_axis"]:
        if not -len(x) <= a < len(x) or a % len(x) not in sliced or out[a % len(x)] not in (1, -1):
            ctx.fail(f"cannot slice {where}: decrease_axis {a} must be a sliced axis left with size 1")
        decrease.add(a % len(x))
    out = [d for i, d in enumerate(out) if i not in decrease] or ctx.scalar_shape()
    ctx.set_output("Out", out, ctx.dtype("Input"), lod_level=ctx.input_var("Input").lod_level)


def _grad_slice(g):
    ins = {"Input": g.input("Input"), "Out@GRAD": g.out_grad("Out")}
    ins.update({k: g.input(k) for k in _SLICE_FROM if g.input(k)})
    g.op("slice_grad", ins, {"Input@GRAD": g.in_grad("Input")}, g.attrs)


_SLICE_ATTRS = {
    "axes": Attr(list, int_list, "a list of ints >= 0"),
    "starts": Attr(list, int_list, "a list of ints"),
    "ends": Attr(list, int_list, "a list of ints"),
    "decrease_axis": Attr(list, int_list, "a list of ints"),
    "infer_flags": Attr(list),
}
_SLICE_FROM = _bound_slots(("starts", "ends"))
register(
    "slice",
    kernel_module="indexing",
    grad_reads=("Input",) + tuple(_SLICE_FROM),
    inputs=["Input"] + _slot_specs(_SLICE_FROM),
    outputs=["Out"],
    attrs=_SLICE_ATTRS,
    infer=_infer_slice,
    grad=_grad_slice,
    attr_tensors=_SLICE_FROM,
    traits=("result_0d_in_paddle2",),
    structured=Structured(meta=metas.slice_meta, cpu=cpu_slicing.SLICE),
    doc="Out = Input[starts:ends] along each of `axes`, bounds as in Python (negative from the end, "
    "clamped); `decrease_axis` drops sliced dims of size 1. Fluid 1.8's tensor bounds: an int "
    "StartsTensor / EndsTensor holds the list, StartsTensorList / EndsTensorList one tensor per item.",
)
register(
    "slice_grad",
    kernel_module="indexing",
    inputs=["Input", "Out@GRAD"] + _slot_specs(_SLICE_FROM),
    outputs=["Input@GRAD"],
    attrs=_SLICE_ATTRS,
    infer=grads_like({"Input@GRAD": "Input"}),
    grad=grad_of_linear_grad("slice", "Input", "Out", extra_inputs=tuple(_SLICE_FROM)),
    attr_tensors=_SLICE_FROM,
    structured=Structured(meta=metas.slice_grad_meta, cpu=cpu_slicing.SLICE_GRAD),
)

INDEX_DTYPES = ("int32", "int64")


def _infer_gather(ctx):
    x, index = ctx.shape("X"), ctx.shape("Index")
    if not (len(index) == 1 or (len(index) == 2 and index[1] in (1, -1))):
        ctx.fail(f"Index {fmt_shape(index)} must be 1-D or [N, 1] to gather rows of X {fmt_shape(x)}")
    if not x:
        ctx.fail(f"X {fmt_shape(x)} has no rows to gather")
    if ctx.has_input("Axis"):  # the axis comes when the op runs: that dim of Out is unknown till then
        ctx.set_output("Out", [-1] * len(x), ctx.dtype("X"))
        return
    axis = ctx.attrs.get("axis", 0)
    if not -len(x) <= axis < len(x):
        ctx.fail(f"axis={axis} is out of range for X {fmt_shape(x)}")
    axis %= len(x)
    ctx.set_output("Out", list(x[:axis]) + [index[0]] + list(x[axis + 1 :]), ctx.dtype("X"))


def _grad_gather(g):
    ins = {"X": g.input("X"), "Index": g.input("Index"), "Out@GRAD": g.out_grad("Out"), "Axis": g.input("Axis")}
    g.op(
        "gather_grad",
        {k: v for k, v in ins.items() if v},
        {"X@GRAD": g.in_grad("X")},
        {k: v for k, v in g.attrs.items() if k == "axis"},
    )


# Paddle 2.x's axis (or Axis tensor): moved first around the row kernels on every device (kernels/layout.py)
_GATHER_AXIS = {"axis": Attr(0, is_int, "an int", fill=False)}
register(
    "gather",
    kernel_module="indexing",
    grad_reads=("Index", "X", "Axis"),
    inputs=["X", "Index", "Axis?"],
    outputs=["Out"],
    run_dtypes={"Index": ("int32", "int64"), "Axis": ("int32", "int64")},
    infer=_infer_gather,
    grad=_grad_gather,
    attrs=dict(_GATHER_AXIS, overwrite=Attr(True, choices=(False, True))),
    first_axis=("X", "Out"),
    attr_tensors={"Axis": "axis"},
    structured=Structured(meta=meta_rules.gather_meta, cpu=cpu_gathering.GATHER),
    doc="Out = X[Index] along axis (rows: 0; Paddle 2.x's `axis`, or its `Axis` "
    "tensor). The gradient adds Out@GRAD into the gathered places, repeated indices accumulating (`overwrite` is "
    "accepted for Fluid compatibility).",
)
register(
    "gather_grad",
    kernel_module="indexing",
    attrs=dict(_GATHER_AXIS),
    inputs=["X", "Index", "Axis?", "Out@GRAD"],
    outputs=["X@GRAD"],
    infer=grads_like({"X@GRAD": "X"}),
    first_axis=("X", "Out@GRAD", "X@GRAD"),
    structured=Structured(meta=meta_rules.gather_grad_meta, cpu=cpu_gathering.GATHER_GRAD),
    attr_tensors={"Axis": "axis"},
)


def _infer_strided_slice(ctx):
    x = ctx.shape("Input")
    a = ctx.attrs
    bounds, unknown = _bounds(ctx, ("starts", "ends", "strides"))
    axes, starts, ends, strides = [list(a["axes"])] + [bounds[k] for k in ("starts", "ends", "strides")]
    where = f"Input {fmt_shape(x)} with axes={axes}, starts={starts}, ends={ends}, strides={strides}"
    if not len(axes) == len(starts) == len(ends) == len(strides):
        ctx.fail(f"cannot slice {where}: axes, starts, ends and strides must have one length")
    if any(not -len(x) <= ax < len(x) for ax in axes) or len({ax % len(x) for ax in axes}) != len(axes):
        ctx.fail(f"cannot slice {where}: each axis must be a distinct dim of Input")
    if 0 in strides:
        ctx.fail(f"cannot slice {where}: a stride is 0")
    known = [d if d >= 0 else 1 for d in x]
    _, sizes, _ = strided_window(known, axes, starts, ends, strides)
    at_run_time = {axes[i] % len(x) for i in unknown}
    out = [s if d >= 0 and i not in at_run_time else -1 for i, (s, d) in enumerate(zip(sizes, x))]
    for ax in axes:
        if x[ax % len(x)] >= 0 and out[ax % len(x)] == 0:
            ctx.fail(f"cannot slice {where}: the slice along axis {ax} is empty")
    decrease = {d % len(x) for d in a["decrease_axis"]}
    if any(d not in {ax % len(x) for ax in axes} or out[d] not in (1, -1) for d in decrease):
        ctx.fail(
            f"cannot slice {where}: decrease_axis {list(a['decrease_axis'])} must name sliced dims left with size 1"
        )
    out = [n for i, n in enumerate(out) if i not in decrease] or ctx.scalar_shape()
    ctx.set_output("Out", out, ctx.dtype("Input"))


def _grad_strided_slice(g):
    g.op(
        "strided_slice_grad",
        {"Input": g.input("Input"), "Out@GRAD": g.out_grad("Out"), **{k: g.input(k) for k in _SS_FROM if g.input(k)}},
        {"Input@GRAD": g.in_grad("Input")},
        g.attrs,
    )


_INTS = Attr(list, int_list, "a list of ints")
_SS_ATTRS = {
    "axes": _INTS,
    "starts": _INTS,
    "ends": _INTS,
    "strides": _INTS,
    "infer_flags": _INTS,
    "decrease_axis": _INTS,
}
_SS_FROM = _bound_slots(("starts", "ends", "strides"))
register(
    "strided_slice",
    kernel_module="indexing",
    inputs=["Input"] + _slot_specs(_SS_FROM),
    outputs=["Out"],
    attrs=_SS_ATTRS,
    infer=_infer_strided_slice,
    grad=_grad_strided_slice,
    grad_reads=("Input",) + tuple(_SS_FROM),
    attr_tensors=_SS_FROM,
    traits=("result_0d_in_paddle2",),
    structured=Structured(meta=metas.strided_slice_meta, cpu=cpu_slicing.SLICE),
    doc="Out = Input[starts:ends:strides] along each of `axes`, as Python slices (negative bounds "
    "from the end, clamped; an end of -1 with a negative stride runs through the first element); "
    "`decrease_axis` drops sliced dims of size 1. Tensor bounds as slice's (StridesTensor too).",
)
register(
    "strided_slice_grad",
    kernel_module="indexing",
    inputs=["Input", "Out@GRAD"] + _slot_specs(_SS_FROM),
    outputs=["Input@GRAD"],
    attrs=_SS_ATTRS,
    infer=grads_like({"Input@GRAD": "Input"}),
    attr_tensors=_SS_FROM,
    structured=Structured(meta=metas.strided_slice_grad_meta, cpu=cpu_slicing.SLICE_GRAD),
)


# -- scatter, gather_nd -------------------------------------------------------------------------------


def _infer_scatter(ctx):
    x, ids, upd = ctx.shape("X"), ctx.shape("Ids"), ctx.shape("Updates")
    if not (len(ids) == 1 or (len(ids) == 2 and ids[1] in (1, -1))):
        ctx.fail(f"Ids {fmt_shape(ids)} must be 1-D")
    if (
        len(upd) != len(x)
        or any(a != b and a >= 0 and b >= 0 for a, b in zip(upd[1:], x[1:]))
        or (upd[0] >= 0 and ids[0] >= 0 and upd[0] != ids[0])
    ):
        ctx.fail(
            f"Updates {fmt_shape(upd)} must be [{ids[0]}] + X's other dims {fmt_shape(x[1:])} "
            f"(one row per id of Ids {fmt_shape(ids)})"
        )
    if ctx.dtype("Updates") != ctx.dtype("X"):
        ctx.fail(f"Updates is {ctx.dtype('Updates')} but X is {ctx.dtype('X')}")
    ctx.set_output("Out", x, ctx.dtype("X"))


def _grad_scatter(g):
    g.op(
        "scatter_grad",
        {"Ids": g.input("Ids"), "Updates": g.input("Updates"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X"), "Updates@GRAD": g.in_grad("Updates")},
        g.attrs,
    )


def _infer_scatter_grad(ctx):
    ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD"))
    ctx.set_output("Updates@GRAD", ctx.shape("Updates"), ctx.dtype("Updates"))


_SCATTER_ATTRS = {"overwrite": Attr(True, choices=(False, True))}
register(
    "scatter",
    kernel_module="indexing",
    inputs=["X", "Ids", "Updates"],
    outputs=["Out"],
    run_dtypes={"Ids": ("int32", "int64")},
    attrs=_SCATTER_ATTRS,
    infer=_infer_scatter,
    grad=_grad_scatter,
    grad_reads=("Ids", "Updates"),
    structured=Structured(meta=meta_rules.scatter_meta, cpu=cpu_gathering.SCATTER),
    doc="Out = X with its rows Ids replaced by the rows of Updates (overwrite: a repeated id keeps the "
    "last), or set to the sum of their Updates rows (overwrite=False). The gradient: X's gets "
    "Out@GRAD with the rows Ids zeroed, Updates' the rows Ids of Out@GRAD (as Fluid).",
)
register(
    "scatter_grad",
    kernel_module="indexing",
    inputs=["Ids", "Updates", "Out@GRAD"],
    outputs=["X@GRAD?", "Updates@GRAD?"],
    attrs=_SCATTER_ATTRS,
    structured=Structured(meta=meta_rules.scatter_grad_meta, cpu=cpu_gathering.SCATTER_GRAD),
    infer=_infer_scatter_grad,
)


def _infer_gather_nd(ctx):
    x, index = ctx.shape("X"), ctx.shape("Index")
    if not index or index[-1] > len(x):  # Fluid's words, which scripts match
        ctx.fail(
            f"Input(Index).shape[-1] should be no greater than Input(X).rank: Index "
            f"{fmt_shape(index)}, X {fmt_shape(x)} of rank {len(x)}"
        )
    if index[-1] < 0:  # known when the op runs (Fluid builds it)
        ctx.set_output("Out", list(index[:-1]) + [-1], ctx.dtype("X"))
        return
    ctx.set_output("Out", list(index[:-1]) + list(x[index[-1] :]) or [1], ctx.dtype("X"))


def _grad_gather_nd(g):
    g.op(
        "gather_nd_grad",
        {"X": g.input("X"), "Index": g.input("Index"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
    )


register(
    "gather_nd",
    kernel_module="indexing",
    inputs=["X", "Index"],
    outputs=["Out"],
    run_dtypes={"Index": ("int32", "int64")},
    infer=_infer_gather_nd,
    grad=_grad_gather_nd,
    grad_reads=("Index", "X"),
    structured=Structured(meta=meta_rules.gather_nd_meta, cpu=cpu_gathering.GATHER_ND),
    doc="Out[i...] = X[Index[i..., :]]: each row of Index's last dim (length k <= rank of X) picks an "
    "element (k = rank) or a slice of X. The gradient adds into the picked places.",
)
register(
    "gather_nd_grad",
    kernel_module="indexing",
    inputs=["X", "Index", "Out@GRAD"],
    outputs=["X@GRAD"],
    structured=Structured(meta=meta_rules.gather_nd_grad_meta, cpu=cpu_gathering.GATHER_ND_GRAD),
    infer=grads_like({"X@GRAD": "X"}),
)
