"""Indexing ops: slice, gather, one_hot, expand (kernels in kernels/<device>/tensor.py)."""
from ..shapes import slice_bounds
from .define import Attr, dtype_or_none, fmt_shape, grads_like, int_list, is_int, register


# -- slice, gather, one_hot, expand ---------------------------------------------------------------

def _infer_slice(ctx):
    x = ctx.shape("Input")
    axes, starts, ends = (list(ctx.attrs[k]) for k in ("axes", "starts", "ends"))
    where = f"Input {fmt_shape(x)} with axes={axes}, starts={starts}, ends={ends}"
    if not len(axes) == len(starts) == len(ends):
        ctx.fail(f"cannot slice {where}: axes, starts and ends must have one length")
    out = list(x)
    for a, s, e in zip(axes, starts, ends):
        if not -len(x) <= a < len(x):
            ctx.fail(f"cannot slice {where}: axis {a} is out of range "
                     f"(expected {-len(x)} <= axis < {len(x)})")
        a %= len(x)
        if x[a] >= 0:
            lo, hi = slice_bounds(x[a], s, e)
            if hi <= lo:
                ctx.fail(f"cannot slice {where}: [{s}:{e}] along axis {a} (size {x[a]}) is empty")
            out[a] = hi - lo
    sliced = {a % len(x) for a in axes}
    decrease = set()
    for a in ctx.attrs["decrease_axis"]:
        if not -len(x) <= a < len(x) or a % len(x) not in sliced or out[a % len(x)] not in (1, -1):
            ctx.fail(f"cannot slice {where}: decrease_axis {a} must be a sliced axis left with size 1")
        decrease.add(a % len(x))
    out = [d for i, d in enumerate(out) if i not in decrease] or [1]
    ctx.set_output("Out", out, ctx.dtype("Input"), lod_level=ctx.input_var("Input").lod_level)


def _grad_slice(g):
    g.op("slice_grad", {"Input": g.input("Input"), "Out@GRAD": g.out_grad("Out")},
         {"Input@GRAD": g.in_grad("Input")}, g.attrs)


_SLICE_ATTRS = {"axes": Attr(list, int_list, "a list of ints >= 0"),
                "starts": Attr(list, int_list, "a list of ints"), "ends": Attr(list, int_list, "a list of ints"),
                "decrease_axis": Attr(list, int_list, "a list of ints"), "infer_flags": Attr(list)}
register("slice", kernel_module="tensor", grad_reads=("Input",),
         inputs=["Input"], outputs=["Out"], attrs=_SLICE_ATTRS, infer=_infer_slice, grad=_grad_slice,
         doc="Out = Input[starts:ends] along each of `axes`, bounds as in Python (negative from the end, "
             "clamped); `decrease_axis` drops sliced dims of size 1.")
register("slice_grad", kernel_module="tensor", inputs=["Input", "Out@GRAD"], outputs=["Input@GRAD"], attrs=_SLICE_ATTRS,
         infer=grads_like({"Input@GRAD": "Input"}))

_INDEX_DTYPES = ("int32", "int64")


def _infer_gather(ctx):
    x, index = ctx.shape("X"), ctx.shape("Index")
    if ctx.dtype("Index") not in _INDEX_DTYPES:
        ctx.fail(f"Index is {ctx.dtype('Index')}; it must be int32 or int64")
    if not (len(index) == 1 or (len(index) == 2 and index[1] in (1, -1))):
        ctx.fail(f"Index {fmt_shape(index)} must be 1-D or [N, 1] to gather rows of X {fmt_shape(x)}")
    if not x:
        ctx.fail(f"X {fmt_shape(x)} has no rows to gather")
    ctx.set_output("Out", [index[0]] + list(x[1:]), ctx.dtype("X"))


def _grad_gather(g):
    g.op("gather_grad", {"X": g.input("X"), "Index": g.input("Index"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X")})


register("gather", kernel_module="tensor", grad_reads=("Index", "X"),
         inputs=["X", "Index"], outputs=["Out"], attrs={"overwrite": Attr(True, choices=(False, True))},
         infer=_infer_gather, grad=_grad_gather,
         doc="Out = X[Index] (rows of X). The gradient adds Out@GRAD into the gathered rows, repeated "
             "indices accumulating (`overwrite` is accepted for Fluid compatibility).")
register("gather_grad", kernel_module="tensor",
         inputs=["X", "Index", "Out@GRAD"], outputs=["X@GRAD"], infer=grads_like({"X@GRAD": "X"}))


def _infer_one_hot(ctx):
    x, depth = ctx.shape("X"), ctx.attrs["depth"]
    if depth is None:
        ctx.fail("one_hot needs depth (the number of classes)")
    if ctx.dtype("X") not in _INDEX_DTYPES:
        ctx.fail(f"X is {ctx.dtype('X')}; one_hot takes int64 (or int32) ids")
    if not x or x[-1] not in (1, -1):
        ctx.fail(f"X {fmt_shape(x)} must end in a dim of size 1 (ids shaped [N, 1])")
    ctx.set_output("Out", list(x[:-1]) + [depth], ctx.attrs["dtype"], lod_level=ctx.input_var("X").lod_level)


register("one_hot", kernel_module="tensor", inputs=["X"], outputs=["Out"],
         attrs={"depth": Attr(None, lambda v: is_int(v) and v > 0, "an int > 0"),
                "allow_out_of_range": Attr(False, choices=(False, True)),
                "dtype": Attr("float32", dtype_or_none, "a dtype name")},
         infer=_infer_one_hot,
         doc="Out[..., j] = 1 where X[..., 0] == j, else 0: [N, 1] ids -> [N, depth]. Ids outside "
             "[0, depth) are an error, or all-zero rows with allow_out_of_range. No gradient.")


def _infer_expand(ctx):
    x, times = ctx.shape("X"), list(ctx.attrs["expand_times"])
    if len(times) != len(x):
        ctx.fail(f"expand_times={times} must have one entry per dim of X {fmt_shape(x)}")
    ctx.set_output("Out", [d * t if d >= 0 else -1 for d, t in zip(x, times)], ctx.dtype("X"),
                   lod_level=ctx.input_var("X").lod_level)


def _grad_expand(g):
    g.op("expand_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")}, g.attrs)


_EXPAND_ATTRS = {"expand_times": Attr(list, lambda v: int_list(v) and all(t >= 1 for t in v),
                                      "a list of ints >= 1")}
register("expand", kernel_module="tensor", grad_reads=("X",),
         inputs=["X"], outputs=["Out"], attrs=_EXPAND_ATTRS, infer=_infer_expand, grad=_grad_expand,
         doc="Out = X tiled expand_times[i] times along each dim i.")
register("expand_grad", kernel_module="tensor", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"], attrs=_EXPAND_ATTRS,
         infer=grads_like({"X@GRAD": "X"}))
