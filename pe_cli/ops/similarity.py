"""Similarities and distances of Fluid 1.8. cos_sim: Out[i] = <X[i], Y[i]> / (|X[i]| |Y[i]|) for each row,
Y of X's rows or of one row (compared with every row of X). XNorm and YNorm, the rows' norms, are outputs
too: the gradient reads them. Out is a sequence when X is (Fluid's ShareLoD X -> Out): PaddleRec's
tagspace reshapes cos_sim of sequences with sequence_reshape. squared_l2_distance: the squared distance
of each row of X to its row of Y (or Y's one row); dist: the p-norm of X - Y (broadcast)."""

from ..kernels.cpu import similarity as cpu_similarity
from ..shapes import similarity as meta_rules
from .define import Attr, Structured, backend_attrs, fmt_shape, grad_of, grads_like, register

_XY_GRADS = grads_like({"X@GRAD": "X", "Y@GRAD": "Y"})


def _infer(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if len(x) < 2 or len(y) != len(x) or list(x[1:]) != list(y[1:]):
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must be rows of the same size")
    if y[0] not in (1, x[0]) and x[0] >= 0 and y[0] >= 0:
        ctx.fail(f"Y has {y[0]} rows: it needs X's {x[0]} rows, or 1 (compared with every row of X)")
    if ctx.dtype("X") != ctx.dtype("Y"):
        ctx.fail(f"X is {ctx.dtype('X')} but Y is {ctx.dtype('Y')}; cast one of them")
    ctx.set_output("Out", [x[0], 1], ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("XNorm", [x[0], 1], ctx.dtype("X"))
    ctx.set_output("YNorm", [y[0], 1], ctx.dtype("X"))


def _x_lod(in_lods, attrs):
    return {"Out": in_lods.get("X")}


def _grad(g):
    g.op(
        "cos_sim_grad",
        {
            "X": g.input("X"),
            "Y": g.input("Y"),
            "Out": g.output("Out"),
            "XNorm": g.output("XNorm"),
            "YNorm": g.output("YNorm"),
            "Out@GRAD": g.out_grad("Out"),
        },
        {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")},
    )


register(
    "cos_sim",
    kernel_module="similarity",
    inputs=["X", "Y"],
    outputs=["Out", "XNorm", "YNorm"],
    attrs=backend_attrs("@ALL_KERNELS_MUST_COMPUTE_RUNTIME_SHAPE@"),
    infer=_infer,
    grad=_grad,
    grad_reads=("X", "Y", "Out", "XNorm", "YNorm"),
    lod=_x_lod,
    doc="Out = the cosine similarity of each row of X with its row of Y (or Y's one row).",
    structured=Structured(meta=meta_rules.cos_sim_meta, cpu=cpu_similarity.COS_SIM),
)
register(
    "cos_sim_grad",
    kernel_module="similarity",
    inputs=["X", "Y", "Out", "XNorm", "YNorm", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    attrs=backend_attrs("@ALL_KERNELS_MUST_COMPUTE_RUNTIME_SHAPE@"),
    infer=lambda ctx: [ctx.set_output(s, ctx.shape(s[:-5]), ctx.dtype(s[:-5])) for s in ("X@GRAD", "Y@GRAD")],
    structured=Structured(meta=meta_rules.cos_sim_grad_meta, cpu=cpu_similarity.COS_SIM_GRAD),
)


# -- squared_l2_distance ---------------------------------------------------------------------------


def _width(shape):
    rows, size = shape[0], 1
    for d in shape[1:]:
        size = size * d if d >= 0 and size >= 0 else -1
    return rows, size


def _infer_squared_l2(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if len(x) != len(y) or len(x) < 2:
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must have as many dims, at least 2")
    (xr, xw), (yr, yw) = _width(x), _width(y)
    if xw >= 0 and yw >= 0 and xw != yw:
        ctx.fail(f"the rows of X {fmt_shape(x)} and Y {fmt_shape(y)} must be of one size")
    if xr >= 0 and yr >= 0 and yr not in (1, xr):
        ctx.fail(f"Y {fmt_shape(y)} has {yr} rows: it needs X's {xr} rows, or 1 (compared with every row of X)")
    ctx.set_output("sub_result", [xr, xw], ctx.dtype("X"))
    ctx.set_output("Out", [xr, 1], ctx.dtype("X"))


register(
    "squared_l2_distance",
    kernel_module="similarity",
    inputs=["X", "Y"],
    outputs=["sub_result", "Out"],
    infer=_infer_squared_l2,
    grad=grad_of("squared_l2_distance_grad", ("X", "Y"), ("sub_result",), in_grads=("X", "Y")),
    grad_reads=("X", "Y", "sub_result"),
    lod="drop",
    doc="sub_result = X - Y row by row (X, Y flattened to [rows, cols]; Y of X's rows or one row), "
    "Out[i] = the sum of sub_result[i]^2, shape [rows, 1].",
    structured=Structured(meta=meta_rules.squared_l2_meta, cpu=cpu_similarity.SQUARED_L2),
)
register(
    "squared_l2_distance_grad",
    kernel_module="similarity",
    inputs=["X", "Y", "sub_result", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    no_need_buffer=("X", "Y"),
    infer=_XY_GRADS,
    structured=Structured(meta=meta_rules.squared_l2_grad_meta, cpu=cpu_similarity.SQUARED_L2_GRAD),
)


# -- dist ------------------------------------------------------------------------------------------


def _infer_dist(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    for a, b in zip(reversed(x), reversed(y)):
        if a >= 0 and b >= 0 and a != b and 1 not in (a, b):
            ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} do not broadcast")
    ctx.set_output("Out", ctx.scalar_shape(), ctx.dtype("X"))


_DIST_ATTRS = {"p": Attr(2.0)}
register(
    "dist",
    kernel_module="similarity",
    inputs=["X", "Y"],
    outputs=["Out"],
    attrs=_DIST_ATTRS,
    infer=_infer_dist,
    grad=grad_of("dist_grad", ("X", "Y"), ("Out",), in_grads=("X", "Y")),
    grad_reads=("X", "Y", "Out"),
    lod="drop",
    traits=("result_0d_in_paddle2", "paddle2_semantics"),
    doc="Out = the p-norm of Z = X - Y (broadcast), shape [1] (0-D in a Paddle 2.x program): p = 0 counts Z's nonzeros, inf / -inf is the "
    "largest / smallest |Z|, another p (sum |Z|^p)^(1/p). The gradient at Out = 0 is NaN in Fluid 1.8, 0 in Paddle 2.6.",
    structured=Structured(meta=meta_rules.dist_meta, cpu=cpu_similarity.DIST),
)
register(
    "dist_grad",
    kernel_module="similarity",
    inputs=["X", "Y", "Out", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    attrs=_DIST_ATTRS,
    infer=_XY_GRADS,
    structured=Structured(meta=meta_rules.dist_grad_meta, cpu=cpu_similarity.DIST_GRAD),
)
