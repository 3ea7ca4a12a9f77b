"""More indexing ops of Fluid 1.8: strided_slice, unbind, scatter, gather_nd, argsort, unique,
unique_with_counts (kernels in kernels/<device>/indexing_extra.py)."""
from ..shapes import strided_window
from .define import Attr, dtype_or_none, fmt_shape, grads_like, int_list, is_int, register

_INDEX_DTYPES = ("int32", "int64")


# -- strided_slice ------------------------------------------------------------------------------------

def _infer_strided_slice(ctx):
    x = ctx.shape("Input")
    a = ctx.attrs
    axes, starts, ends, strides = (list(a[k]) for k in ("axes", "starts", "ends", "strides"))
    where = f"Input {fmt_shape(x)} with axes={axes}, starts={starts}, ends={ends}, strides={strides}"
    if not len(axes) == len(starts) == len(ends) == len(strides):
        ctx.fail(f"cannot slice {where}: axes, starts, ends and strides must have one length")
    if any(not -len(x) <= ax < len(x) for ax in axes) or len({ax % len(x) for ax in axes}) != len(axes):
        ctx.fail(f"cannot slice {where}: each axis must be a distinct dim of Input")
    if 0 in strides:
        ctx.fail(f"cannot slice {where}: a stride is 0")
    known = [d if d >= 0 else 1 for d in x]
    _, sizes, _ = strided_window(known, axes, starts, ends, strides)
    out = [s if d >= 0 else -1 for s, d in zip(sizes, x)]
    for ax in axes:
        if x[ax % len(x)] >= 0 and out[ax % len(x)] == 0:
            ctx.fail(f"cannot slice {where}: the slice along axis {ax} is empty")
    decrease = {d % len(x) for d in a["decrease_axis"]}
    if any(d not in {ax % len(x) for ax in axes} or out[d] not in (1, -1) for d in decrease):
        ctx.fail(f"cannot slice {where}: decrease_axis {list(a['decrease_axis'])} must name sliced dims left "
                 f"with size 1")
    out = [n for i, n in enumerate(out) if i not in decrease] or [1]
    ctx.set_output("Out", out, ctx.dtype("Input"))


def _grad_strided_slice(g):
    g.op("strided_slice_grad", {"Input": g.input("Input"), "Out@GRAD": g.out_grad("Out")},
         {"Input@GRAD": g.in_grad("Input")}, g.attrs)


_INTS = Attr(list, int_list, "a list of ints")
_SS_ATTRS = {"axes": _INTS, "starts": _INTS, "ends": _INTS, "strides": _INTS, "infer_flags": _INTS,
             "decrease_axis": _INTS}
register("strided_slice", kernel_module="indexing_extra", inputs=["Input"], outputs=["Out"], attrs=_SS_ATTRS,
         infer=_infer_strided_slice, grad=_grad_strided_slice, grad_reads=("Input",),
         doc="Out = Input[starts:ends:strides] along each of `axes`, as Python slices (negative bounds "
             "from the end, clamped; an end of -1 with a negative stride runs through the first element); "
             "`decrease_axis` drops sliced dims of size 1.")
register("strided_slice_grad", kernel_module="indexing_extra", inputs=["Input", "Out@GRAD"],
         outputs=["Input@GRAD"], attrs=_SS_ATTRS, infer=grads_like({"Input@GRAD": "Input"}))


# -- unbind --------------------------------------------------------------------------------------

def _infer_unbind(ctx):
    x, axis = ctx.shape("X"), ctx.attrs["axis"]
    if not -len(x) <= axis < len(x):
        ctx.fail(f"axis={axis} is out of range for X {fmt_shape(x)}")
    axis %= len(x)
    if x[axis] >= 0 and x[axis] != ctx.num_outputs("Out"):
        ctx.fail(f"X {fmt_shape(x)} has {x[axis]} slices along axis {axis}, but {ctx.num_outputs('Out')} "
                 f"outputs were given")
    for i in range(ctx.num_outputs("Out")):
        ctx.set_output("Out", [d for k, d in enumerate(x) if k != axis] or [1], ctx.dtype("X"), i=i)


def _grad_unbind(g):
    g.op("stack", {"X": g.out_grad("Out")}, {"Y": g.in_grad("X")}, {"axis": g.attrs["axis"]})


register("unbind", kernel_module="indexing_extra", inputs=["X"], outputs=["Out*"],
         attrs={"axis": Attr(0, is_int, "an int")}, infer=_infer_unbind, grad=_grad_unbind,
         doc="Out[i] = X's i-th slice along `axis` (that dim removed), one output per slice.")


# -- scatter, gather_nd -------------------------------------------------------------------------------

def _infer_scatter(ctx):
    x, ids, upd = ctx.shape("X"), ctx.shape("Ids"), ctx.shape("Updates")
    if ctx.dtype("Ids") not in _INDEX_DTYPES:
        ctx.fail(f"Ids is {ctx.dtype('Ids')}; it must be int32 or int64")
    if not (len(ids) == 1 or (len(ids) == 2 and ids[1] in (1, -1))):
        ctx.fail(f"Ids {fmt_shape(ids)} must be 1-D")
    if len(upd) != len(x) or any(a != b and a >= 0 and b >= 0 for a, b in zip(upd[1:], x[1:])) or (
            upd[0] >= 0 and ids[0] >= 0 and upd[0] != ids[0]):
        ctx.fail(f"Updates {fmt_shape(upd)} must be [{ids[0]}] + X's other dims {fmt_shape(x[1:])} "
                 f"(one row per id of Ids {fmt_shape(ids)})")
    if ctx.dtype("Updates") != ctx.dtype("X"):
        ctx.fail(f"Updates is {ctx.dtype('Updates')} but X is {ctx.dtype('X')}")
    ctx.set_output("Out", x, ctx.dtype("X"))


def _grad_scatter(g):
    g.op("scatter_grad", {"Ids": g.input("Ids"), "Updates": g.input("Updates"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X"), "Updates@GRAD": g.in_grad("Updates")}, g.attrs)


def _infer_scatter_grad(ctx):
    ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD"))
    ctx.set_output("Updates@GRAD", ctx.shape("Updates"), ctx.dtype("Updates"))


_SCATTER_ATTRS = {"overwrite": Attr(True, choices=(False, True))}
register("scatter", kernel_module="indexing_extra", inputs=["X", "Ids", "Updates"], outputs=["Out"],
         attrs=_SCATTER_ATTRS, infer=_infer_scatter, grad=_grad_scatter, grad_reads=("Ids", "Updates"),
         doc="Out = X with its rows Ids replaced by the rows of Updates (overwrite: a repeated id keeps the "
             "last), or set to the sum of their Updates rows (overwrite=False). The gradient: X's gets "
             "Out@GRAD with the rows Ids zeroed, Updates' the rows Ids of Out@GRAD (as Fluid).")
register("scatter_grad", kernel_module="indexing_extra", inputs=["Ids", "Updates", "Out@GRAD"],
         outputs=["X@GRAD?", "Updates@GRAD?"], attrs=_SCATTER_ATTRS, infer=_infer_scatter_grad)


def _infer_gather_nd(ctx):
    x, index = ctx.shape("X"), ctx.shape("Index")
    if ctx.dtype("Index") not in _INDEX_DTYPES:
        ctx.fail(f"Index is {ctx.dtype('Index')}; it must be int32 or int64")
    if not index or index[-1] < 0 or index[-1] > len(x):
        ctx.fail(f"Index {fmt_shape(index)}'s last dim must be known and at most X's rank {len(x)} "
                 f"(X {fmt_shape(x)})")
    ctx.set_output("Out", list(index[:-1]) + list(x[index[-1]:]) or [1], ctx.dtype("X"))


def _grad_gather_nd(g):
    g.op("gather_nd_grad", {"X": g.input("X"), "Index": g.input("Index"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X")})


register("gather_nd", kernel_module="indexing_extra", inputs=["X", "Index"], outputs=["Out"],
         infer=_infer_gather_nd, grad=_grad_gather_nd, grad_reads=("Index", "X"),
         doc="Out[i...] = X[Index[i..., :]]: each row of Index's last dim (length k <= rank of X) picks an "
             "element (k = rank) or a slice of X. The gradient adds into the picked places.")
register("gather_nd_grad", kernel_module="indexing_extra", inputs=["X", "Index", "Out@GRAD"],
         outputs=["X@GRAD"], infer=grads_like({"X@GRAD": "X"}))


# -- argsort, unique ---------------------------------------------------------------------------------

def _infer_argsort(ctx):
    x, axis = ctx.shape("X"), ctx.attrs["axis"]
    if not -len(x) <= axis < len(x):
        ctx.fail(f"axis={axis} is out of range for X {fmt_shape(x)}")
    ctx.set_output("Out", x, ctx.dtype("X"))
    ctx.set_output("Indices", x, "int64")


def _grad_argsort(g):
    g.op("argsort_grad", {"X": g.input("X"), "Indices": g.output("Indices"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X")}, g.attrs)


_SORT_ATTRS = {"axis": Attr(-1, is_int, "an int"), "descending": Attr(False, choices=(False, True))}
register("argsort", kernel_module="indexing_extra", inputs=["X"], outputs=["Out", "Indices"], attrs=_SORT_ATTRS,
         infer=_infer_argsort, grad=_grad_argsort, grad_reads=("Indices", "X"), lod="drop",
         doc="Out = X sorted along `axis` (ascending, or descending), Indices = where each came from "
             "(int64; equal values keep their order). The gradient goes back to the sorted elements.")
register("argsort_grad", kernel_module="indexing_extra", inputs=["X", "Indices", "Out@GRAD"],
         outputs=["X@GRAD"], attrs=_SORT_ATTRS, infer=grads_like({"X@GRAD": "X"}))


def _infer_unique(ctx):
    x = ctx.shape("X")
    if len(x) != 1:
        ctx.fail(f"X {fmt_shape(x)} must be 1-D")
    if ctx.attrs["dtype"] not in _INDEX_DTYPES:
        ctx.fail(f"dtype={ctx.attrs['dtype']} must be int32 or int64")
    ctx.set_output("Out", [-1], ctx.dtype("X"))
    ctx.set_output("Index", x, ctx.attrs["dtype"])
    ctx.set_output("Count", [-1], ctx.attrs["dtype"])


_UNIQUE_ATTRS = {"dtype": Attr("int32", dtype_or_none, "int32 or int64")}
register("unique", kernel_module="indexing_extra", inputs=["X"], outputs=["Out", "Index"], attrs=_UNIQUE_ATTRS,
         infer=_infer_unique, lod="drop",
         doc="Out = X's distinct values in the order they first appear; Index[i] = the position of X[i] in "
             "Out (of `dtype`). No gradient.")
register("unique_with_counts", kernel_module="indexing_extra", kernel="unique", inputs=["X"],
         outputs=["Out", "Index", "Count"], attrs=_UNIQUE_ATTRS, infer=_infer_unique, lod="drop",
         doc="unique, and Count[j] = how many times Out[j] occurs in X. No gradient.")
