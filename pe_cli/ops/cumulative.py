"""Running (cumulative) values along an axis, Paddle 2.x's ops with Paddle 2.6.2's op types, slots and
gradient ops: cumprod (the running product; its gradient exact where X has zeros), cummax and cummin
(the running extreme and the index it came from: the last of equal values, and a NaN, once met, stays),
logcumsumexp (log of the running sum of exp, never overflowing). cumsum, Fluid's, is in reduction.py."""

from ..base.dims import fmt_shape
from ..kernels.cpu import cumulative as cpu_cumulative
from ..shapes import cumulative as metas
from ..shapes.structured import Structured
from .define import Attr, is_int, register

_BOOL = (False, True)
_NUMBERS = ("float16", "float32", "float64", "int32", "int64")
_FLOATS = ("float16", "float32", "float64")


def _check(ctx, slot, dtypes, axis, flatten=False):
    shape, dtype = ctx.shape(slot), ctx.dtype(slot)
    if dtype not in dtypes:
        ctx.fail(f"{slot} is {dtype}; {ctx.op.type} takes {', '.join(dtypes)}")
    rank = max(len(shape), 1)
    if not flatten and not -rank <= axis < rank:
        ctx.fail(f"axis {axis} is out of range for {slot} {fmt_shape(shape)} (expected {-rank} <= axis < {rank})")
    return shape, dtype


def _grad_infer(x):
    def infer(ctx):
        ctx.set_output(x + "@GRAD", ctx.shape(x), ctx.dtype(x))

    return infer


def _infer_cumprod(ctx):
    shape, dtype = _check(ctx, "X", _NUMBERS, ctx.attrs["dim"])
    ctx.set_output("Out", shape, dtype, lod_level=ctx.input_var("X").lod_level)


def _grad_cumprod(g):
    g.op(
        "cumprod_grad",
        {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


register(
    "cumprod",
    kernel_module="cumulative",
    inputs=["X"],
    outputs=["Out"],
    attrs={"dim": Attr(-1, is_int, "an int")},
    infer=_infer_cumprod,
    grad=_grad_cumprod,
    grad_reads=("X", "Out"),
    doc="Out = the running product of X along `dim`. The gradient of X[j] is the sum over i >= j of "
    "Out@GRAD[i] times the product of X[k], k <= i, k != j: exact where X has zeros.",
    structured=Structured(meta=metas.cumprod_meta, cpu=cpu_cumulative.CUMPROD),
)
register(
    "cumprod_grad",
    kernel_module="cumulative",
    inputs=["X", "Out", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs={"dim": Attr(-1, is_int, "an int")},
    infer=_grad_infer("X"),
    structured=Structured(meta=metas.cumprod_grad_meta, cpu=cpu_cumulative.CUMPROD_GRAD),
)


def _index_dtype(v):
    return v in (2, 3, "int32", "int64")


def _infer_cum_extreme(ctx):
    shape, dtype = _check(ctx, "x", ("float32", "float64", "int32", "int64"), ctx.attrs["axis"])
    ctx.set_output("out", shape, dtype)
    ctx.set_output("indices", shape, "int32" if ctx.attrs["dtype"] in (2, "int32") else "int64")


def _cum_extreme(op_type, what, structured):
    def grad(g):
        g.op(
            f"{op_type}_grad",
            {"x": g.input("x"), "indices": g.output("indices"), "out@GRAD": g.out_grad("out")},
            {"x@GRAD": g.in_grad("x")},
            g.attrs,
        )

    attrs = {"axis": Attr(-1, is_int, "an int"), "dtype": Attr(3, _index_dtype, "int32 (2) or int64 (3)")}
    register(
        op_type,
        kernel_module="cumulative",
        inputs=["x"],
        outputs=["out", "indices"],
        attrs=attrs,
        infer=_infer_cum_extreme,
        grad=grad,
        grad_reads=("x", "indices"),
        doc=f"out = the running {what} of x along `axis`, indices where each came from (dtype int32 or "
        f"int64): the last of equal values; a NaN, once met, is the {what} from there on (a later NaN "
        f"moves the index). The gradient of x adds out@GRAD[i] at indices[i].",
        structured=structured,
    )
    register(
        f"{op_type}_grad",
        kernel_module="cumulative",
        inputs=["x", "indices", "out@GRAD"],
        outputs=["x@GRAD"],
        attrs=attrs,
        infer=_grad_infer("x"),
        structured=Structured(meta=metas.cum_extreme_grad_meta, cpu=cpu_cumulative.CUM_EXTREME_GRAD),
    )


_cum_extreme("cummax", "maximum", Structured(meta=metas.cum_extreme_meta, cpu=cpu_cumulative.CUMMAX))
_cum_extreme("cummin", "minimum", Structured(meta=metas.cum_extreme_meta, cpu=cpu_cumulative.CUMMIN))

_LCSE_ATTRS = {
    "axis": Attr(-1, is_int, "an int"),
    "flatten": Attr(False, choices=_BOOL),
    "exclusive": Attr(False, choices=_BOOL),
    "reverse": Attr(False, choices=_BOOL),
}


def _infer_logcumsumexp(ctx):
    a = ctx.attrs
    shape, dtype = _check(ctx, "X", _FLOATS, a["axis"], a["flatten"])
    n = 1
    for d in shape:
        n = -1 if d < 0 or n < 0 else n * d
    ctx.set_output("Out", [n] if a["flatten"] else shape, dtype)


def _grad_logcumsumexp(g):
    g.op(
        "logcumsumexp_grad",
        {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


register(
    "logcumsumexp",
    kernel_module="cumulative",
    inputs=["X"],
    outputs=["Out"],
    attrs=_LCSE_ATTRS,
    infer=_infer_logcumsumexp,
    grad=_grad_logcumsumexp,
    grad_reads=("X", "Out"),
    doc="Out = log(running sum of exp(X)) along `axis` (`flatten`: over X flattened, Out 1-D), each step "
    "max(a, b) + log1p(exp(min - max)) from the dtype's lowest value (Paddle's: -inf inputs give that "
    "value, not -inf); `exclusive` leaves each element out of its own sum, `reverse` runs from the "
    "end. The gradient of X[j] is the sum over the Out[i] it enters of Out@GRAD[i] exp(X[j] - "
    "Out[i]), summed in log space for the positive and the negative parts.",
    structured=Structured(meta=metas.logcumsumexp_meta, cpu=cpu_cumulative.LOGCUMSUMEXP),
)
register(
    "logcumsumexp_grad",
    kernel_module="cumulative",
    inputs=["X", "Out", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_LCSE_ATTRS,
    infer=_grad_infer("X"),
    structured=Structured(meta=metas.logcumsumexp_grad_meta, cpu=cpu_cumulative.LOGCUMSUMEXP_GRAD),
)
