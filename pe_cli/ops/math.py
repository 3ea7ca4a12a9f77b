"""Matrix products, scaling and reductions."""
from .registry import Attr, fmt_shape, grads_like, register, same_as


def _prod(dims):
    n = 1
    for d in dims:
        if d < 0:
            return -1
        n *= d
    return n


def _infer_mul(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    xd, yd = ctx.attrs["x_num_col_dims"], ctx.attrs["y_num_col_dims"]
    if not 0 < xd < len(x) + 1 or not 0 < yd < len(y):
        ctx.fail(f"x_num_col_dims={xd} / y_num_col_dims={yd} do not fit X {fmt_shape(x)} and Y {fmt_shape(y)}")
    k_x, k_y = _prod(x[xd:]), _prod(y[:yd])
    if k_x >= 0 and k_y >= 0 and k_x != k_y:
        ctx.fail(f"X {fmt_shape(x)} flattened to [{_prod(x[:xd])}, {k_x}] cannot multiply "
                 f"Y {fmt_shape(y)} flattened to [{k_y}, {_prod(y[yd:])}]: {k_x} != {k_y}")
    ctx.set_output("Out", list(x[:xd]) + list(y[yd:]), ctx.dtype("X"))


def _grad_mul(g):
    ins = {"X": g.input("X"), "Y": g.input("Y"), "Out@GRAD": g.out_grad("Out")}
    if g.needs("X"):
        g.op("mul_grad_x", ins, {"X@GRAD": g.in_grad("X")}, g.attrs)
    if g.needs("Y"):
        g.op("mul_grad_y", ins, {"Y@GRAD": g.in_grad("Y")}, g.attrs)


_MUL_ATTRS = {"x_num_col_dims": Attr(1, lambda v: v >= 1, ">= 1"),
              "y_num_col_dims": Attr(1, lambda v: v >= 1, ">= 1")}
register("mul", inputs=["X", "Y"], outputs=["Out"], attrs=_MUL_ATTRS, infer=_infer_mul, grad=_grad_mul,
         doc="Out = flatten(X, x_num_col_dims) @ flatten(Y, y_num_col_dims), reshaped back.")
register("mul_grad_x", inputs=["X", "Y", "Out@GRAD"], outputs=["X@GRAD"], attrs=_MUL_ATTRS,
         infer=grads_like({"X@GRAD": "X"}))
register("mul_grad_y", inputs=["X", "Y", "Out@GRAD"], outputs=["Y@GRAD"], attrs=_MUL_ATTRS,
         infer=grads_like({"Y@GRAD": "Y"}))


def _infer_mean(ctx):
    ctx.set_output("Out", [1], ctx.dtype("X"))


def _grad_mean(g):
    g.op("mean_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


register("mean", inputs=["X"], outputs=["Out"], infer=_infer_mean, grad=_grad_mean,
         doc="Out = the mean of all elements of X, shape [1].")
register("mean_grad", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"], infer=grads_like({"X@GRAD": "X"}))


def _grad_scale(g):
    a = g.attrs
    g.op("scale", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")},
         {"scale": a["scale"], "bias": 0.0, "bias_after_scale": True})


register("scale", inputs=["X"], outputs=["Out"], infer=same_as(), grad=_grad_scale,
         attrs={"scale": 1.0, "bias": 0.0, "bias_after_scale": True},
         doc="Out = scale * X + bias (bias_after_scale) or scale * (X + bias).")


def _reduced_shape(ctx):
    shape = list(ctx.shape("X"))
    a = ctx.attrs
    dims = range(len(shape)) if a["reduce_all"] else [d % max(len(shape), 1) for d in a["dim"]]
    for d in a["dim"]:
        if not a["reduce_all"] and not -len(shape) <= d < len(shape):
            ctx.fail(f"dim {d} is out of range for X {fmt_shape(shape)}")
    out = [1 if i in dims else n for i, n in enumerate(shape)] if a["keep_dim"] else \
        [n for i, n in enumerate(shape) if i not in dims]
    return out or [1]


def _reduce(name, doc):
    def infer(ctx):
        ctx.set_output("Out", _reduced_shape(ctx), ctx.dtype("X"))

    def grad(g):
        g.op(f"{name}_grad", {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
             {"X@GRAD": g.in_grad("X")}, g.attrs)

    attrs = {"dim": Attr([0]), "keep_dim": False, "reduce_all": False}
    register(name, inputs=["X"], outputs=["Out"], attrs=attrs, infer=infer, grad=grad, doc=doc)
    register(f"{name}_grad", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"], attrs=attrs,
             infer=grads_like({"X@GRAD": "X"}))


_reduce("reduce_sum", "Out = sum of X over `dim` (all dims with reduce_all).")
_reduce("reduce_mean", "Out = mean of X over `dim` (all dims with reduce_all).")
_reduce("reduce_max", "Out = max of X over `dim`; the gradient goes to the (first) maximum.")
_reduce("reduce_min", "Out = min of X over `dim`; the gradient goes to the (first) minimum.")
