"""Order statistics and counts, Paddle 2.x's ops with Paddle 2.6.2's op types, slots and gradient ops:
kthvalue (the k-th smallest along an axis and its index; NaN sorts last), mode (the most frequent value,
the smallest of equally frequent ones, and the index of its last occurrence), nanmedian (the median of
the values that are not NaN over some axes, NaN where all are; the mean of the two middle values for an
even count) and bincount (how often each non-negative int occurs, or its summed weights).

Among equal values Paddle's kthvalue and nanmedian take the index libstdc++'s nth_element / partial_sort
leaves in place (an order the C++ standard does not specify); pe's is a stable sort's (the first of
equal values in x's order): the values are the same, and so is every gradient where the values are
distinct."""

from ..base.dims import fmt_shape
from ..kernels.cpu import statistics as cpu
from ..shapes import statistics as metas
from .define import Attr, Structured, int_list, is_int, register

_BOOL = (False, True)
_NUMBERS = ("float16", "float32", "float64", "int32", "int64")


def _reduced(ctx, shape, axes, keepdim):
    out = (
        [1 if i in axes else n for i, n in enumerate(shape)]
        if keepdim
        else [n for i, n in enumerate(shape) if i not in axes]
    )
    return out or ctx.scalar_shape()


def _one_axis(ctx):
    shape, a = ctx.shape("X"), ctx.attrs
    rank = max(len(shape), 1)
    if not -rank <= a["axis"] < rank:
        ctx.fail(f"axis {a['axis']} is out of range for X {fmt_shape(shape)} (expected {-rank} <= axis < {rank})")
    if ctx.dtype("X") not in _NUMBERS:
        ctx.fail(f"X is {ctx.dtype('X')}; {ctx.op.type} takes {', '.join(_NUMBERS)}")
    return shape, a["axis"] % rank


def _infer_kthvalue(ctx):
    shape, axis = _one_axis(ctx)
    k, n = ctx.attrs["k"], (shape[axis] if shape else 1)
    if n >= 0 and not 1 <= k <= n:
        ctx.fail(f"k={k} must be in [1, {n}], the size of X {fmt_shape(shape)} along axis {axis}")
    out = _reduced(ctx, shape, (axis,), ctx.attrs["keepdim"])
    ctx.set_output("Out", out, ctx.dtype("X"))
    ctx.set_output("Indices", out, "int64")


def _infer_mode(ctx):
    shape, axis = _one_axis(ctx)
    out = _reduced(ctx, shape, (axis,), ctx.attrs["keepdim"])
    ctx.set_output("Out", out, ctx.dtype("X"))
    ctx.set_output("Indices", out, "int64")


def _by_index(op_type, attrs, infer, doc):
    """An op whose gradient puts Out@GRAD at Indices along the axis."""

    def grad(g):
        g.op(
            f"{op_type}_grad",
            {"X": g.input("X"), "Indices": g.output("Indices"), "Out@GRAD": g.out_grad("Out")},
            {"X@GRAD": g.in_grad("X")},
            g.attrs,
        )

    register(
        op_type,
        kernel_module="statistics",
        inputs=["X"],
        outputs=["Out", "Indices"],
        attrs=attrs,
        infer=infer,
        grad=grad,
        grad_reads=("X", "Indices"),
        lod="drop",
        traits=("scalar_0d_in_paddle2",),
        structured=Structured(meta=metas.by_index_meta, cpu=getattr(cpu, f"{op_type}_out")),
        doc=doc,
    )
    register(
        f"{op_type}_grad",
        kernel_module="statistics",
        inputs=["X", "Indices", "Out@GRAD"],
        outputs=["X@GRAD"],
        attrs=attrs,
        structured=Structured(meta=metas.scattered_back_meta, cpu=cpu.by_index_grad_out),
        infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X")),
    )


_by_index(
    "kthvalue",
    {
        "k": Attr(1, lambda v: is_int(v) and v >= 1, "an int >= 1"),
        "axis": Attr(-1, is_int, "an int"),
        "keepdim": Attr(False, choices=_BOOL),
    },
    _infer_kthvalue,
    "Out = the k-th smallest value of X along `axis` (NaN sorts last), Indices its place; the axis is "
    "dropped unless `keepdim`. The gradient of X is Out@GRAD at Indices.",
)
_by_index(
    "mode",
    {"axis": Attr(-1, is_int, "an int"), "keepdim": Attr(False, choices=_BOOL)},
    _infer_mode,
    "Out = the most frequent value of X along `axis` (the smallest of equally frequent ones), Indices "
    "the place of its last occurrence. The gradient of X is Out@GRAD at Indices.",
)


def _infer_nanmedian(ctx):
    shape, a = ctx.shape("X"), ctx.attrs
    if ctx.dtype("X") not in _NUMBERS:
        ctx.fail(f"X is {ctx.dtype('X')}; nanmedian takes {', '.join(_NUMBERS)}")
    rank = max(len(shape), 1)
    for d in a["axis"]:
        if not -rank <= d < rank:
            ctx.fail(f"axis {d} is out of range for X {fmt_shape(shape)} (expected {-rank} <= axis < {rank})")
    axes = {d % rank for d in a["axis"]} if a["axis"] else set(range(len(shape)))
    out = _reduced(ctx, shape, axes, a["keepdim"])
    ctx.set_output("Out", out, ctx.dtype("X"))
    ctx.set_output("MedianIndex", list(out) + [2], "int64")


def _grad_nanmedian(g):
    g.op(
        "nanmedian_grad",
        {"X": g.input("X"), "MedianIndex": g.output("MedianIndex"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


_MEDIAN_ATTRS = {"axis": Attr([], int_list, "a list of ints"), "keepdim": Attr(False, choices=_BOOL)}
register(
    "nanmedian",
    kernel_module="statistics",
    structured=Structured(meta=metas.nanmedian_meta, cpu=cpu.nanmedian_out),
    inputs=["X"],
    outputs=["Out", "MedianIndex"],
    attrs=_MEDIAN_ATTRS,
    infer=_infer_nanmedian,
    grad=_grad_nanmedian,
    grad_reads=("X", "MedianIndex"),
    lod="drop",
    traits=("scalar_0d_in_paddle2",),
    doc="Out = the median of the values of X that are not NaN over the dims `axis` ([]: all), NaN where all "
    "are NaN; an even count gives the mean of the two middle values (an integer X: rounded toward "
    "zero). MedianIndex [..., 2]: the places of the low and high middle values within the reduced "
    "dims (the same twice for an odd count, -1 where all are NaN). The gradient of X is Out@GRAD at "
    "the middle value, or half of it at each of the two.",
)
register(
    "nanmedian_grad",
    kernel_module="statistics",
    structured=Structured(meta=metas.scattered_back_meta, cpu=cpu.nanmedian_grad_out),
    inputs=["X", "MedianIndex", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_MEDIAN_ATTRS,
    infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X")),
)


def _infer_bincount(ctx):
    if ctx.dtype("X") not in ("int32", "int64"):
        ctx.fail(f"X is {ctx.dtype('X')}; bincount counts int32 or int64 values")
    if len(ctx.shape("X")) != 1:
        ctx.fail(f"X {fmt_shape(ctx.shape('X'))} must be 1-D")
    dtype = "int64"
    if ctx.has_input("Weights"):
        w = ctx.dtype("Weights")
        if w not in ("float32", "float64", "int32", "int64"):
            ctx.fail(f"Weights is {w}; bincount takes float32, float64, int32 or int64 weights")
        if list(ctx.shape("Weights")) != list(ctx.shape("X")):
            ctx.fail(f"Weights {fmt_shape(ctx.shape('Weights'))} must have X's shape {fmt_shape(ctx.shape('X'))}")
        dtype = "float32" if w == "float32" else "float64"
    ctx.set_output("Out", [-1], dtype)


register(
    "bincount",
    kernel_module="statistics",
    structured=Structured(meta=metas.bincount_meta, cpu=cpu.bincount_out),
    inputs=["X", "Weights?"],
    outputs=["Out"],
    attrs={"minlength": Attr(0, lambda v: is_int(v) and v >= 0, "an int >= 0")},
    infer=_infer_bincount,
    lod="drop",
    doc="Out[i] = how many times i occurs in X (1-D, non-negative ints; int64), or the sum of the Weights "
    "where it does (float32 for float32 weights, else float64); max(X) + 1 or `minlength` entries, "
    "whichever is more (none for an empty X, as Paddle). No gradient.",
)
