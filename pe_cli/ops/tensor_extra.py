"""More tensor ops of Fluid 1.8: cumsum, range, fill_any_like, eye, diag, reverse, where_index,
expand_as, size, isfinite/isinf/isnan, reduce_prod/reduce_all/reduce_any (kernels in
kernels/<device>/tensor_extra.py)."""
from ..dtypes import is_float
from .math import _reduced_shape
from .define import Attr, dtype_or_none, fmt_shape, grads_like, int_list, is_int, register

_BOOL = (False, True)


def _axis_in(ctx, axis, rank, what="axis"):
    if not -max(rank, 1) <= axis < max(rank, 1):
        ctx.fail(f"{what}={axis} is out of range for X {fmt_shape(ctx.shape('X'))} "
                 f"(expected {-max(rank, 1)} <= {what} < {max(rank, 1)})")
    return axis % max(rank, 1)


# -- cumsum -------------------------------------------------------------------------------------

def _infer_cumsum(ctx):
    x = ctx.shape("X")
    _axis_in(ctx, ctx.attrs["axis"], len(x))
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_cumsum(g):
    a = dict(g.attrs)
    a["reverse"] = not a["reverse"]
    g.op("cumsum", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")}, a)


register("cumsum", kernel_module="tensor_extra", inputs=["X"], outputs=["Out"], infer=_infer_cumsum,
         grad=_grad_cumsum,
         attrs={"axis": Attr(-1, is_int, "an int"), "exclusive": Attr(False, choices=_BOOL),
                "reverse": Attr(False, choices=_BOOL),
                # Paddle 2.x's cumsum over the flattened X (axis=None): not supported
                "flatten": Attr(False, choices=(False,))},
         doc="Out = the running sum of X along `axis` (-1: the last); `exclusive` leaves each element "
             "out of its own sum (the first is 0), `reverse` sums from the end. The gradient is the "
             "cumsum of Out@GRAD in the other direction.")


# -- range, fill_any_like, eye, diag: creating ----------------------------------------------------

def _infer_range(ctx):
    for slot in ("Start", "End", "Step"):
        shape = ctx.shape(slot)
        if any(d > 1 for d in shape):
            ctx.fail(f"{slot} {fmt_shape(shape)} must hold one number")
        if ctx.dtype(slot) != ctx.dtype("Start"):
            ctx.fail(f"{slot} is {ctx.dtype(slot)} but Start is {ctx.dtype('Start')}; give all three one dtype")
    ctx.set_output("Out", [-1], ctx.dtype("Start"))


register("range", kernel_module="tensor_extra", kernel="arange", inputs=["Start", "End", "Step"], outputs=["Out"],
         infer=_infer_range, lod="drop",
         doc="Out = [Start, Start + Step, ...] up to End (excluded), 1-D; its length, "
             "ceil(|End - Start| / |Step|), is known at run time. Step must point from Start to End. No gradient.")


def _infer_fill_any_like(ctx):
    ctx.set_output("Out", ctx.shape("X"), ctx.attrs["dtype"] or ctx.dtype("X"),
                   lod_level=ctx.input_var("X").lod_level)


register("fill_any_like", kernel_module="tensor_extra", inputs=["X"], outputs=["Out"], infer=_infer_fill_any_like,
         attrs={"value": 0.0, "dtype": Attr(None, dtype_or_none, "a dtype name")},
         doc="Out = value, shaped like X, of `dtype` (None: X's). No gradient.")


def _infer_eye(ctx):
    rows, cols = ctx.attrs["num_rows"], ctx.attrs["num_columns"]
    if rows is None:
        ctx.fail("eye needs num_rows")
    ctx.set_output("Out", [rows, rows if cols < 0 else cols], ctx.attrs["dtype"])


register("eye", kernel_module="tensor_extra", inputs=[], outputs=["Out"], infer=_infer_eye,
         attrs={"num_rows": Attr(None, lambda v: is_int(v) and v >= 0, "an int >= 0"),
                "num_columns": Attr(-1, lambda v: is_int(v) and v >= -1, "an int >= 0 (-1: num_rows)"),
                "dtype": Attr("float32", dtype_or_none, "a dtype name")},
         doc="Out = the [num_rows, num_columns] identity matrix (ones on the main diagonal).")


def _infer_diag(ctx):
    d = ctx.shape("Diagonal")
    if len(d) != 1:
        ctx.fail(f"Diagonal {fmt_shape(d)} must be 1-D")
    ctx.set_output("Out", [d[0], d[0]], ctx.dtype("Diagonal"))


register("diag", kernel_module="tensor_extra", inputs=["Diagonal"], outputs=["Out"], infer=_infer_diag, lod="drop",
         doc="Out = the square matrix with Diagonal on its main diagonal, zeros elsewhere. No gradient.")


# -- reverse, expand_as ---------------------------------------------------------------------------

def _infer_reverse(ctx):
    x, axes = ctx.shape("X"), list(ctx.attrs["axis"])
    if not axes:
        ctx.fail("reverse needs at least one axis")
    seen = [_axis_in(ctx, a, len(x)) for a in axes]
    if len(set(seen)) != len(seen):
        ctx.fail(f"axis={axes} names a dim twice")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_reverse(g):
    g.op("reverse", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")}, g.attrs)


register("reverse", kernel_module="tensor_extra", inputs=["X"], outputs=["Out"], infer=_infer_reverse,
         grad=_grad_reverse, attrs={"axis": Attr(list, int_list, "a list of ints")},
         doc="Out = X with the order of its elements reversed along each of `axis` (negative: from the end).")


def _infer_expand_as(ctx):
    x, t = ctx.shape("X"), ctx.shape("target_tensor")
    if len(x) != len(t):
        ctx.fail(f"X {fmt_shape(x)} and target_tensor {fmt_shape(t)} must have one rank")
    for a, b in zip(x, t):
        if a > 0 and b >= 0 and b % a:
            ctx.fail(f"target_tensor {fmt_shape(t)} is not X {fmt_shape(x)} tiled: each of its dims must be "
                     f"a multiple of X's")
    ctx.set_output("Out", t, ctx.dtype("X"))


def _grad_expand_as(g):
    g.op("expand_as_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


register("expand_as", kernel_module="tensor_extra", inputs=["X", "target_tensor"], outputs=["Out"],
         infer=_infer_expand_as, grad=_grad_expand_as, grad_reads=("X",),
         doc="Out = X tiled to target_tensor's shape (each of its dims a multiple of X's). No gradient "
             "flows to target_tensor.")
register("expand_as_grad", kernel_module="tensor_extra", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"],
         infer=grads_like({"X@GRAD": "X"}))


# -- where_index, size, isfinite / isinf / isnan ---------------------------------------------------

def _infer_where_index(ctx):
    ctx.set_output("Out", [-1, len(ctx.shape("Condition"))], "int64")


register("where_index", kernel_module="tensor_extra", inputs=["Condition"], outputs=["Out"],
         infer=_infer_where_index, lod="drop",
         doc="Out = the int64 coordinates [N, rank] of Condition's true (nonzero) elements, in row-major "
             "order. No gradient.")


def _infer_size(ctx):
    ctx.set_output("Out", [1], "int64")


register("size", kernel_module="tensor_extra", inputs=["Input"], outputs=["Out"], infer=_infer_size, lod="drop",
         doc="Out = the number of elements of Input, int64 [1].")


def _infer_flag(ctx):
    if not is_float(ctx.dtype("X")):
        ctx.fail(f"X is {ctx.dtype('X')}; {ctx.op.type} checks float tensors")
    ctx.set_output("Out", [1], "bool")


for _type, _doc in (("isfinite", "True when every element of X is finite (no inf, no nan)"),
                    ("isinf", "True when some element of X is +inf or -inf"),
                    ("isnan", "True when some element of X is nan")):
    register(_type, kernel_module="tensor_extra", inputs=["X"], outputs=["Out"], infer=_infer_flag, lod="drop",
             doc=f"Out = bool [1]: {_doc}. No gradient.")


# -- reduce_prod, reduce_all, reduce_any ------------------------------------------------------------

_REDUCE_ATTRS = {"dim": Attr([0]), "keep_dim": False, "reduce_all": False}


def _infer_prod(ctx):
    ctx.set_output("Out", _reduced_shape(ctx), ctx.dtype("X"))


def _grad_prod(g):
    g.op("reduce_prod_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")},
         g.attrs)


register("reduce_prod", kernel_module="tensor_extra", inputs=["X"], outputs=["Out"], attrs=_REDUCE_ATTRS,
         infer=_infer_prod, grad=_grad_prod, grad_reads=("X",), lod="drop",
         doc="Out = product of X over `dim` (all dims with reduce_all). The gradient of an element is "
             "Out@GRAD times the product of the other elements of its group (exact where X has zeros).")
register("reduce_prod_grad", kernel_module="tensor_extra", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"],
         attrs=_REDUCE_ATTRS, infer=grads_like({"X@GRAD": "X"}))


def _infer_logical_reduce(ctx):
    if ctx.dtype("X") != "bool":
        ctx.fail(f"X is {ctx.dtype('X')}; {ctx.op.type} takes a bool tensor (compare or cast first)")
    ctx.set_output("Out", _reduced_shape(ctx), "bool")


for _type, _doc in (("reduce_all", "logical and"), ("reduce_any", "logical or")):
    register(_type, kernel_module="tensor_extra", inputs=["X"], outputs=["Out"], attrs=_REDUCE_ATTRS,
             infer=_infer_logical_reduce, lod="drop",
             doc=f"Out = {_doc} of bool X over `dim` (all dims with reduce_all). No gradient.")


# -- random_crop -----------------------------------------------------------------------------------

def _infer_random_crop(ctx):
    x, shape = ctx.shape("X"), list(ctx.attrs["shape"])
    k = len(x) - len(shape)
    if not shape or k < 0 or any(n <= 0 or (d >= 0 and n > d) for n, d in zip(shape, x[k:])):
        ctx.fail(f"shape={shape} must give sizes > 0 no larger than X {fmt_shape(x)}'s last {len(shape)} dims")
    if ctx.dtype("Seed") != "int64":
        ctx.fail(f"Seed is {ctx.dtype('Seed')}; it must be an int64 [1] variable")
    ctx.set_output("Out", list(x[:k]) + shape, ctx.dtype("X"))
    ctx.set_output("SeedOut", [1], "int64")


register("random_crop", kernel_module="tensor_extra", inputs=["X", "Seed"], outputs=["Out", "SeedOut"],
         attrs={"shape": Attr(list, int_list, "a list of ints > 0"), "startup_seed": Attr(0, is_int, "an int")},
         infer=_infer_random_crop, lod="drop",
         doc="Out = for each instance (X's leading dims), a window of `shape` over X's last dims at offsets "
             "drawn uniformly; the draw is seeded by Seed, and SeedOut (usually Seed itself) gets the next "
             "seed, so each run crops anew and a given start seed repeats the sequence. No gradient.")
