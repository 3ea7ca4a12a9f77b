"""The norms of the reduction family: frobenius_norm (a reduction over dims), p_norm (along one axis)
and l1_norm (of all elements). Their kernels are the family's (pe_cli/kernels/<device>/reduction.py; the CPU's
structured, their meta rules in pe_cli/shapes/reduction.py)."""

from ..base.dtypes import convert_dtype
from ..kernels.cpu import reduction as cpu_reduction
from ..shapes import reduction as meta_rules
from .define import Attr, Structured, grad_of, grads_like, is_int, register
from .manipulation import axis_in
from .reduction import BOOL, REDUCE_ATTRS, reduced_shape


# -- norms: frobenius_norm (a reduction over dims), p_norm (along one axis), l1_norm (of everything) --


def _norm_dtype(ctx):
    """out_dtype (a VarType number, -1: X's dtype): the dtype X is cast to before the reduction."""
    return ctx.dtype("X") if ctx.attrs["out_dtype"] < 0 else convert_dtype(ctx.attrs["out_dtype"])


_FROBENIUS_ATTRS = {**REDUCE_ATTRS, "in_dtype": Attr(-1, is_int, "an int"), "out_dtype": Attr(-1, is_int, "an int")}
register(
    "frobenius_norm",
    kernel_module="reduction",
    inputs=["X"],
    outputs=["Out"],
    attrs=_FROBENIUS_ATTRS,
    infer=lambda ctx: ctx.set_output("Out", reduced_shape(ctx), _norm_dtype(ctx)),
    grad=grad_of("frobenius_norm_grad", ("X",), ("Out",)),
    grad_reads=("X", "Out"),
    lod="drop",
    traits=("scalar_0d_in_paddle2",),
    structured=Structured(meta=meta_rules.frobenius_norm_meta, cpu=cpu_reduction.FROBENIUS_NORM),
    doc="Out = sqrt(sum of X^2) over `dim` (all dims with reduce_all); X cast to out_dtype first when it is "
    "given (>= 0). The gradient is X / (Out + 1e-12) * Out@GRAD, as Fluid's.",
)
register(
    "frobenius_norm_grad",
    kernel_module="reduction",
    inputs=["X", "Out", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_FROBENIUS_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.frobenius_norm_grad_meta, cpu=cpu_reduction.FROBENIUS_NORM_GRAD),
)


def _infer_p_norm(ctx):
    x, a = list(ctx.shape("X")), ctx.attrs
    if a.get("asvector"):  # Paddle 2.x's: the norm of all of X, 0-D (keepdim: every dim 1)
        ctx.set_output("Out", [1] * len(x) if a["keepdim"] else [], ctx.dtype("X"))
        return
    axis = axis_in(ctx, a["axis"], len(x))
    out = [1 if i == axis else n for i, n in enumerate(x)] if a["keepdim"] else x[:axis] + x[axis + 1 :]
    ctx.set_output("Out", out, ctx.dtype("X"))


_P_NORM_ATTRS = {
    "porder": Attr(2.0),
    "axis": Attr(-1, is_int, "an int"),
    "epsilon": Attr(1e-12),
    "keepdim": Attr(False, choices=BOOL),
    "asvector": Attr(False, choices=BOOL, fill=False),
}
register(
    "p_norm",
    kernel_module="reduction",
    inputs=["X"],
    outputs=["Out"],
    attrs=_P_NORM_ATTRS,
    infer=_infer_p_norm,
    grad=grad_of("p_norm_grad", ("X",), ("Out",)),
    structured=Structured(meta=meta_rules.p_norm_meta, cpu=cpu_reduction.P_NORM),
    grad_reads=("X", "Out"),
    lod="drop",
    doc="Out = (sum of |X|^porder)^(1 / porder) along `axis` (its dim kept as 1 with keepdim); Paddle 2.x's "
    "porder 0: the count of nonzero X, inf: the largest |X|, -inf: the smallest. The gradient is "
    "|X|^(p-1) / (Out^(p-1) + epsilon) * sign(X) * Out@GRAD, as Fluid's; for porder 0 none (zeros), for +-inf "
    "sign(X) * Out@GRAD where |X| is Out.",
)
register(
    "p_norm_grad",
    kernel_module="reduction",
    inputs=["X", "Out", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_P_NORM_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.p_norm_grad_meta, cpu=cpu_reduction.P_NORM_GRAD),
)

register(
    "l1_norm",
    kernel_module="reduction",
    inputs=["X"],
    outputs=["Out"],
    infer=lambda ctx: ctx.set_output("Out", ctx.scalar_shape(), ctx.dtype("X")),
    grad=grad_of("l1_norm_grad", ("X",)),
    traits=("scalar_0d_in_paddle2",),
    structured=Structured(meta=meta_rules.l1_norm_meta, cpu=cpu_reduction.L1_NORM),
    grad_reads=("X",),
    lod="drop",
    doc="Out = the sum of |X| over all of X, shape [1] ([] in a Paddle 2.x program). The gradient is sign(X) * Out@GRAD.",
)
register(
    "l1_norm_grad",
    kernel_module="reduction",
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.l1_norm_grad_meta, cpu=cpu_reduction.L1_NORM_GRAD),
)
