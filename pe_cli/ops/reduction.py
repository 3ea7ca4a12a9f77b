"""Reductions: mean (of all elements), reduce_sum/mean/max/min/prod over dims, reduce_all/any of
bool tensors, cumsum (the running sum), squared_l2_norm (the sum of squares), and the norms frobenius_norm (over
dims), p_norm (along an axis) and l1_norm (of all elements).

The norms are registered in reduction_norm.py."""

from .manipulation import axis_in
from .reduction_dims import AXIS_INPUTS, AXIS_TENSORS, axis_inputs, run_time_dims
from ..base.dtypes import convert_dtype
from ..base.errors import PeError
from ..base.dims import known_numel
from ..kernels.cpu import reduction as cpu_reduction
from ..shapes import reduction as meta_rules
from ..shapes.reduction import reduces_all
from .define import Attr, Structured, fmt_shape, grad_of_linear_grad, grads_like, is_int, register

BOOL = (False, True)


def _infer_mean(ctx):
    ctx.set_output("Out", ctx.scalar_shape(), ctx.dtype("X"))


def _grad_mean(g):
    g.op("mean_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


register(
    "mean",
    kernel_module="reduction",
    grad_reads=("X",),
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_mean,
    grad=_grad_mean,
    traits=("scalar_0d_in_paddle2",),
    structured=Structured(meta=meta_rules.mean_meta, cpu=cpu_reduction.MEAN),
    doc="Out = the mean of all elements of X, shape [1] ([] in a Paddle 2.x program).",
)
register(
    "mean_grad",
    kernel_module="reduction",
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.mean_grad_meta, cpu=cpu_reduction.MEAN_GRAD),
)


def reduced_shape(ctx):
    shape = list(ctx.shape("X"))
    n = run_time_dims(ctx)
    if n is not None:  # which dims comes when the op runs: Out's rank is known, its sizes are not (Paddle's)
        if n > max(len(shape), 1):
            ctx.fail(f"AxisTensor names {n} dims; X {fmt_shape(shape)} has {len(shape)}")
        rank = len(shape) if ctx.attrs["keep_dim"] else max(len(shape) - n, 0)
        return [-1] * rank or ctx.scalar_shape()
    a = ctx.attrs
    every = reduces_all(a)
    dims = range(len(shape)) if every or not shape else [d % len(shape) for d in a["dim"]]
    rank = max(len(shape), 1)  # (a 0-D X takes dim 0 or -1, as one of one element: Paddle 2.6's)
    for d in a["dim"]:
        if not every and not -rank <= d < rank:
            ctx.fail(f"dim {d} is out of range for X {fmt_shape(shape)} (expected {-rank} <= dim < {rank})")
    out = (
        [1 if i in dims else n for i, n in enumerate(shape)]
        if a["keep_dim"]
        else [n for i, n in enumerate(shape) if i not in dims]
    )
    return out or ctx.scalar_shape()


# Fluid 1.8's reductions cast X to out_dtype (a VarType code; -1: X's own) before reducing; in_dtype
# (-1 or X's) only picks Fluid's kernel
_DTYPE_ATTRS = {"in_dtype": -1, "out_dtype": -1}


def out_dtype(ctx):
    """The reduction's output dtype: its out_dtype attribute, else X's."""
    code = ctx.attrs.get("out_dtype", -1)
    try:
        return ctx.dtype("X") if code in (-1, None) else convert_dtype(code)
    except (TypeError, ValueError):
        ctx.fail(f"out_dtype={code!r} is not a data type (a VarType code, or -1 for X's)")


def _reduce(name, doc, grad_kernel=None):
    sums, mean = name == "reduce_sum", name == "reduce_mean"  # (sums: an int32 or bool X to int64 in 2.x: sum_dtype)

    def infer(ctx):
        dtype = meta_rules.sum_dtype(ctx.attrs, ctx.dtype("X"), ctx.paddle2) if sums else out_dtype(ctx)
        ctx.set_output("Out", reduced_shape(ctx), dtype)

    def grad(g):  # (Fluid's: Out for max's and min's alone)
        out = {"Out": g.output("Out")} if grad_kernel else {}
        g.op(
            f"{name}_grad",
            {"X": g.input("X"), **out, "Out@GRAD": g.out_grad("Out"), **axis_inputs(g)},
            {"X@GRAD": g.in_grad("X")},
            g.attrs,
        )

    attrs = {"dim": Attr([0]), "keep_dim": False, "reduce_all": False, **_DTYPE_ATTRS}
    register(
        name,
        kernel_module="reduction",
        inputs=["X", *AXIS_INPUTS],
        outputs=["Out"],
        attrs=attrs,
        infer=infer,
        grad=grad,
        grad_reads=("Out", "X", *AXIS_TENSORS) if grad_kernel else ("X", *AXIS_TENSORS),
        attr_tensors=AXIS_TENSORS,
        traits=("scalar_0d_in_paddle2",) + ("paddle2_semantics",) * sums,
        structured=Structured(meta=meta_rules.reduce_meta(sums, mean=mean), cpu=cpu_reduction.REDUCE[name]),
        doc=doc,
    )
    grad_meta = meta_rules.reduce_grad_meta("numpy" if grad_kernel else "spread_" + name[len("reduce_") :])
    register(
        f"{name}_grad",
        kernel_module="reduction",
        kernel=grad_kernel,
        inputs=["X", "Out?", "Out@GRAD", *AXIS_INPUTS],
        outputs=["X@GRAD"],
        attrs=attrs,
        infer=grads_like({"X@GRAD": "X"}),
        grad=None if grad_kernel else grad_of_linear_grad(name, "X", "Out", extra_inputs=tuple(AXIS_TENSORS)),
        attr_tensors=AXIS_TENSORS,
        structured=Structured(meta=grad_meta, cpu=cpu_reduction.REDUCE_GRAD[grad_kernel or f"{name}_grad"]),
    )  # sum, mean: linear in Out@GRAD


_reduce(
    "reduce_sum",
    "Out = sum of X over `dim` (all dims with reduce_all); X cast to out_dtype first where "
    "that is set (a VarType code; -1: X's dtype), as in reduce_mean, max, min and prod.",
)
_reduce("reduce_mean", "Out = mean of X over `dim` (all dims with reduce_all).")
# reduce_max and reduce_min share one grad kernel: the gradient goes to every element equal to the extreme (Paddle's).
_reduce(
    "reduce_max",
    "Out = max of X over `dim`; the gradient goes to each maximum (ties each take all of it).",
    "reduce_extreme_grad",
)
_reduce(
    "reduce_min",
    "Out = min of X over `dim`; the gradient goes to each minimum (ties each take all of it).",
    "reduce_extreme_grad",
)


def _infer_cumsum(ctx):
    x = ctx.shape("X")
    if ctx.attrs["flatten"]:  # Paddle 2.x's cumsum(axis=None): over X flattened, Out 1-D
        ctx.set_output("Out", [known_numel(x)], ctx.dtype("X"))
        return
    if not ctx.has_input("AxisTensor"):  # (Paddle 2.x's axis given as a Tensor: checked when the op runs)
        axis_in(ctx, ctx.attrs["axis"], len(x))
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_cumsum(g):
    if g.attrs.get("flatten"):
        raise PeError("cumsum with flatten=True (Paddle 2.x's axis=None) has no gradient in pe; give an axis")
    a = dict(g.attrs)
    a["reverse"] = not a["reverse"]
    g.op("cumsum", {"X": g.out_grad("Out"), "AxisTensor": g.input("AxisTensor")}, {"Out": g.in_grad("X")}, a)


register(
    "cumsum",
    kernel_module="reduction",
    inputs=["X", "AxisTensor?"],
    outputs=["Out"],
    infer=_infer_cumsum,
    grad=_grad_cumsum,
    grad_reads=("AxisTensor",),
    attr_tensors={"AxisTensor": "axis"},
    structured=Structured(meta=meta_rules.cumsum_meta, cpu=cpu_reduction.CUMSUM),
    attrs={
        "axis": Attr(-1, is_int, "an int"),
        "exclusive": Attr(False, choices=BOOL),
        "reverse": Attr(False, choices=BOOL),
        # Paddle 2.x's cumsum over the flattened X (axis=None; forward only)
        "flatten": Attr(False, choices=BOOL),
    },
    doc="Out = the running sum of X along `axis` (-1: the last); `exclusive` leaves each element "
    "out of its own sum (the first is 0), `reverse` sums from the end; `flatten` (Paddle 2.x's "
    "axis=None): over X flattened, Out 1-D (no gradient in pe); AxisTensor (one int, Paddle 2.x's axis given as "
    "a Tensor, its VAR attribute) gives the axis when the op runs. The gradient is the cumsum of Out@GRAD in "
    "the other direction.",
)


REDUCE_ATTRS = {"dim": Attr([0]), "keep_dim": False, "reduce_all": False, **_DTYPE_ATTRS}


def _infer_prod(ctx):
    ctx.set_output("Out", reduced_shape(ctx), out_dtype(ctx))


def _grad_prod(g):
    """Fluid's reduce_prod_grad, reading Out too (pe's kernel does not: it divides by nothing)."""
    g.op(
        "reduce_prod_grad",
        {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out"), **axis_inputs(g)},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


register(
    "reduce_prod",
    kernel_module="reduction",
    inputs=["X", *AXIS_INPUTS],
    outputs=["Out"],
    attrs=REDUCE_ATTRS,
    infer=_infer_prod,
    grad=_grad_prod,
    grad_reads=("Out", "X", *AXIS_TENSORS),
    attr_tensors=AXIS_TENSORS,
    lod="drop",
    traits=("scalar_0d_in_paddle2",),
    structured=Structured(meta=meta_rules.reduce_meta(distinct=True), cpu=cpu_reduction.REDUCE["reduce_prod"]),
    doc="Out = product of X over `dim` (all dims with reduce_all). The gradient of an element is "
    "Out@GRAD times the product of the other elements of its group (exact where X has zeros).",
)
register(
    "reduce_prod_grad",
    kernel_module="reduction",
    inputs=["X", "Out?", "Out@GRAD", *AXIS_INPUTS],
    outputs=["X@GRAD"],
    attrs=REDUCE_ATTRS,
    attr_tensors=AXIS_TENSORS,
    no_need_buffer=("Out",),
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(
        meta=meta_rules.reduce_grad_meta("numpy", distinct=True), cpu=cpu_reduction.REDUCE_GRAD["reduce_prod_grad"]
    ),
)


def _infer_logical_reduce(ctx):
    if ctx.dtype("X") != "bool":
        ctx.fail(f"X is {ctx.dtype('X')}; {ctx.op.type} takes a bool tensor (compare or cast first)")
    ctx.set_output("Out", reduced_shape(ctx), "bool")


for _type, _doc in (("reduce_all", "logical and"), ("reduce_any", "logical or")):
    register(
        _type,
        kernel_module="reduction",
        inputs=["X", *AXIS_INPUTS],
        outputs=["Out"],
        attrs=REDUCE_ATTRS,
        attr_tensors=AXIS_TENSORS,
        infer=_infer_logical_reduce,
        lod="drop",
        traits=("scalar_0d_in_paddle2",),
        structured=Structured(meta=meta_rules.reduce_meta(distinct=True, cast=False), cpu=cpu_reduction.REDUCE[_type]),
        doc=f"Out = {_doc} of bool X over `dim` (all dims with reduce_all). No gradient.",
    )


def _infer_squared_l2_norm(ctx):
    ctx.set_output("Out", [1], ctx.dtype("X"))


def _grad_squared_l2_norm(g):
    g.op("squared_l2_norm_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


register(
    "squared_l2_norm",
    kernel_module="reduction",
    grad_reads=("X",),
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_squared_l2_norm,
    grad=_grad_squared_l2_norm,
    structured=Structured(meta=meta_rules.squared_l2_norm_meta, cpu=cpu_reduction.SQUARED_L2_NORM),
    doc="Out = sum(X^2), shape [1].",
)
register(
    "squared_l2_norm_grad",
    kernel_module="reduction",
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.squared_l2_norm_grad_meta, cpu=cpu_reduction.SQUARED_L2_NORM_GRAD),
)


# -- Paddle 2.x's reductions: reduce_amax / reduce_amin (the gradient shared by every extreme) and logsumexp


def _reduce_evenly(name, doc):
    """reduce_amax / reduce_amin: reduce_max's / reduce_min's values (their kernels), the gradient split evenly
    over every element equal to the extreme (Paddle 2.6's amax_grad / amin_grad); AxisTensor (one int tensor)
    or AxisTensorList (one per dim) give `dim` at run time."""

    def infer(ctx):
        ctx.set_output("Out", reduced_shape(ctx), out_dtype(ctx))

    def grad(g):
        g.op(
            f"{name}_grad",
            {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out"), **axis_inputs(g)},
            {"X@GRAD": g.in_grad("X")},
            g.attrs,
        )

    attrs = {**REDUCE_ATTRS, "with_quant_attr": Attr(False)}
    register(
        name,
        kernel_module="reduction",
        kernel=name.replace("_a", "_"),  # (CUDA's: reduce_max's, reduce_min's)
        inputs=["X", *AXIS_INPUTS],
        outputs=["Out"],
        attrs=attrs,
        infer=infer,
        grad=grad,
        grad_reads=("Out", "X", *AXIS_TENSORS),
        attr_tensors=AXIS_TENSORS,
        traits=("scalar_0d_in_paddle2",),
        structured=Structured(meta=meta_rules.reduce_meta(), cpu=cpu_reduction.REDUCE[name.replace("_a", "_")]),
        doc=doc,
    )
    register(
        f"{name}_grad",
        kernel_module="reduction",
        kernel="reduce_even_extreme_grad",
        inputs=["X", "Out", "Out@GRAD", *AXIS_INPUTS],
        outputs=["X@GRAD"],
        attrs=attrs,
        attr_tensors=AXIS_TENSORS,
        infer=grads_like({"X@GRAD": "X"}),
        structured=Structured(
            meta=meta_rules.reduce_grad_meta("numpy"), cpu=cpu_reduction.REDUCE_GRAD["reduce_even_extreme_grad"]
        ),
    )


_reduce_evenly("reduce_amax", "Out = max of X over `dim`; the gradient is shared evenly by the elements equal to it.")
_reduce_evenly("reduce_amin", "Out = min of X over `dim`; the gradient is shared evenly by the elements equal to it.")


def _infer_logsumexp(ctx):
    shape, a = list(ctx.shape("X")), ctx.attrs
    every = a["reduce_all"] or not a["axis"] or len(a["axis"]) == len(shape)
    for d in a["axis"]:
        if not -max(len(shape), 1) <= d < max(len(shape), 1):
            ctx.fail(f"axis {d} is out of range for X {fmt_shape(shape)}")
    dims = set(range(len(shape))) if every or not shape else {d % len(shape) for d in a["axis"]}
    out = (
        [1 if i in dims else n for i, n in enumerate(shape)]
        if a["keepdim"]
        else [n for i, n in enumerate(shape) if i not in dims]
    )
    ctx.set_output("Out", out, ctx.dtype("X"))


def _grad_logsumexp(g):
    g.op(
        "logsumexp_grad",
        {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


_LOGSUMEXP_ATTRS = {
    "axis": Attr([0], lambda v: isinstance(v, list) and all(is_int(d) for d in v), "a list of ints"),
    "keepdim": Attr(False, choices=BOOL),
    "reduce_all": Attr(False, choices=BOOL),
    "with_quant_attr": Attr(False),
}
register(
    "logsumexp",
    kernel_module="reduction",
    inputs=["X"],
    outputs=["Out"],
    attrs=_LOGSUMEXP_ATTRS,
    infer=_infer_logsumexp,
    grad=_grad_logsumexp,
    structured=Structured(meta=meta_rules.logsumexp_meta, cpu=cpu_reduction.LOGSUMEXP),
    grad_reads=("X", "Out"),
    doc="Out = log(sum(exp(X))) over `axis` (every dim with reduce_all, an empty axis or all of them), "
    "computed as max + log(sum(exp(X - max))); 0-D when no dim is left.",
)
register(
    "logsumexp_grad",
    kernel_module="reduction",
    inputs=["X", "Out", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_LOGSUMEXP_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.logsumexp_grad_meta, cpu=cpu_reduction.LOGSUMEXP_GRAD),
)
