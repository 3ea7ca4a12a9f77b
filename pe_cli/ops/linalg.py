"""Matrix products, scaling, reductions and clipping."""
import math
import numbers

from ..shapes import known_numel
from ..kernels.common import matmul_v1_attrs
from .registry import Attr, fmt_shape, grads_like, register, same_as


def _infer_mul(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    xd, yd = ctx.attrs["x_num_col_dims"], ctx.attrs["y_num_col_dims"]
    if not 0 < xd < len(x) + 1 or not 0 < yd < len(y):
        ctx.fail(f"x_num_col_dims={xd} / y_num_col_dims={yd} do not fit X {fmt_shape(x)} and Y {fmt_shape(y)}")
    k_x, k_y = known_numel(x[xd:]), known_numel(y[:yd])
    if k_x >= 0 and k_y >= 0 and k_x != k_y:
        ctx.fail(f"X {fmt_shape(x)} flattened to [{known_numel(x[:xd])}, {k_x}] cannot multiply "
                 f"Y {fmt_shape(y)} flattened to [{k_y}, {known_numel(y[yd:])}]: {k_x} != {k_y}")
    ctx.set_output("Out", list(x[:xd]) + list(y[yd:]), ctx.dtype("X"))


def _grad_mul(g):
    ins = {"X": g.input("X"), "Y": g.input("Y"), "Out@GRAD": g.out_grad("Out")}
    if g.needs("X"):
        g.op("mul_grad_x", ins, {"X@GRAD": g.in_grad("X")}, g.attrs)
    if g.needs("Y"):
        g.op("mul_grad_y", ins, {"Y@GRAD": g.in_grad("Y")}, g.attrs)


_MUL_ATTRS = {"x_num_col_dims": Attr(1, lambda v: v >= 1, ">= 1"),
              "y_num_col_dims": Attr(1, lambda v: v >= 1, ">= 1")}
register("mul", kernel_module="math", grad_reads=("X", "Y"),
         inputs=["X", "Y"], outputs=["Out"], attrs=_MUL_ATTRS, infer=_infer_mul, grad=_grad_mul,
         doc="Out = flatten(X, x_num_col_dims) @ flatten(Y, y_num_col_dims), reshaped back.")
register("mul_grad_x", kernel_module="math", inputs=["X", "Y", "Out@GRAD"], outputs=["X@GRAD"], attrs=_MUL_ATTRS,
         infer=grads_like({"X@GRAD": "X"}))
register("mul_grad_y", kernel_module="math", inputs=["X", "Y", "Out@GRAD"], outputs=["Y@GRAD"], attrs=_MUL_ATTRS,
         infer=grads_like({"Y@GRAD": "Y"}))


def _infer_mean(ctx):
    ctx.set_output("Out", [1], ctx.dtype("X"))


def _grad_mean(g):
    g.op("mean_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


register("mean", kernel_module="math",
         grad_reads=("X",), inputs=["X"], outputs=["Out"], infer=_infer_mean, grad=_grad_mean,
         doc="Out = the mean of all elements of X, shape [1].")
register("mean_grad", kernel_module="math",
         inputs=["X", "Out@GRAD"], outputs=["X@GRAD"], infer=grads_like({"X@GRAD": "X"}))


def _grad_scale(g):
    a = g.attrs
    g.op("scale", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")},
         {"scale": a["scale"], "bias": 0.0, "bias_after_scale": True})


register("scale", kernel_module="math", inputs=["X"], outputs=["Out"], infer=same_as(), grad=_grad_scale,
         inplace=("Out", "X"), traits=("elementwise", "selected_rows"),
         attrs={"scale": 1.0, "bias": 0.0, "bias_after_scale": True},
         doc="Out = scale * X + bias (bias_after_scale) or scale * (X + bias). A row-sparse X gives a "
             "row-sparse Out: its values scaled, the same rows (as Fluid's; how a server averages sparse "
             "gradients).")


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


def _reduce(name, doc, grad_kernel=None):
    def infer(ctx):
        ctx.set_output("Out", _reduced_shape(ctx), ctx.dtype("X"))

    def grad(g):
        g.op(f"{name}_grad", {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
             {"X@GRAD": g.in_grad("X")}, g.attrs)

    attrs = {"dim": Attr([0]), "keep_dim": False, "reduce_all": False}
    register(name, kernel_module="math", inputs=["X"], outputs=["Out"], attrs=attrs, infer=infer, grad=grad,
             grad_reads=("Out", "X"), doc=doc)
    register(f"{name}_grad", kernel_module="math", kernel=grad_kernel, inputs=["X", "Out", "Out@GRAD"],
             outputs=["X@GRAD"], attrs=attrs, infer=grads_like({"X@GRAD": "X"}))


_reduce("reduce_sum", "Out = sum of X over `dim` (all dims with reduce_all).")
_reduce("reduce_mean", "Out = mean of X over `dim` (all dims with reduce_all).")
# reduce_max and reduce_min share one grad kernel: the gradient goes to the first extreme.
_reduce("reduce_max", "Out = max of X over `dim`; the gradient goes to the (first) maximum.", "reduce_extreme_grad")
_reduce("reduce_min", "Out = min of X over `dim`; the gradient goes to the (first) minimum.", "reduce_extreme_grad")


# -- matmul -------------------------------------------------------------------------------------

def _broadcast_batch(a, b):
    """numpy-style broadcast of two batch shapes (-1 unknown), or None when they clash."""
    rank = max(len(a), len(b))
    a, b = [1] * (rank - len(a)) + list(a), [1] * (rank - len(b)) + list(b)
    out = []
    for m, n in zip(a, b):
        if m == 1 or m == n:
            out.append(n)
        elif n == 1:
            out.append(m)
        elif m < 0 or n < 0:
            out.append(max(m, n))
        else:
            return None
    return out


def matmul_operand_shapes(x, y, transpose_x, transpose_y):
    """The [..., M, K] and [..., K, N] shapes matmul multiplies: a 1-D X is the row [1, K], a 1-D Y
    the column [K, 1] (their transpose flags do nothing); otherwise the flags swap the last two dims."""
    xm = [1] + list(x) if len(x) == 1 else list(x)
    ym = list(y) + [1] if len(y) == 1 else list(y)
    if transpose_x and len(x) > 1:
        xm[-2], xm[-1] = xm[-1], xm[-2]
    if transpose_y and len(y) > 1:
        ym[-2], ym[-1] = ym[-1], ym[-2]
    return xm, ym


def _infer_matmul(ctx):
    a = ctx.attrs if "transpose_X" in ctx.attrs else matmul_v1_attrs(ctx.attrs)
    x, y = ctx.shape("X"), ctx.shape("Y")
    tx, ty = a["transpose_X"], a["transpose_Y"]
    if not x or not y:
        ctx.fail(f"matmul needs inputs of rank >= 1, got X {fmt_shape(x)} and Y {fmt_shape(y)}")
    if ctx.dtype("X") != ctx.dtype("Y"):
        ctx.fail(f"X is {ctx.dtype('X')} but Y is {ctx.dtype('Y')}; cast one of them")
    xm, ym = matmul_operand_shapes(x, y, tx, ty)
    desc = f"X {fmt_shape(x)}{' (transposed)' if tx and len(x) > 1 else ''} and " \
           f"Y {fmt_shape(y)}{' (transposed)' if ty and len(y) > 1 else ''}"
    if xm[-1] >= 0 and ym[-2] >= 0 and xm[-1] != ym[-2]:
        ctx.fail(f"{desc} cannot multiply: X's columns ({xm[-1]}) != Y's rows ({ym[-2]})")
    batch = _broadcast_batch(xm[:-2], ym[:-2])
    if batch is None:
        ctx.fail(f"{desc}: batch dims {fmt_shape(xm[:-2])} and {fmt_shape(ym[:-2])} cannot broadcast")
    out = batch + [xm[-2], ym[-1]]
    if len(x) == 1:
        del out[-2]
    if len(y) == 1:
        del out[-1]
    ctx.set_output("Out", out or [1], ctx.dtype("X"))


def _grad_matmul(g):
    ins = {"X": g.input("X"), "Y": g.input("Y"), "Out@GRAD": g.out_grad("Out")}
    attrs = g.attrs if "transpose_X" in g.attrs else matmul_v1_attrs(g.attrs)     # matmul_v2's
    if g.needs("X"):
        g.op("matmul_grad_x", ins, {"X@GRAD": g.in_grad("X")}, attrs)
    if g.needs("Y"):
        g.op("matmul_grad_y", ins, {"Y@GRAD": g.in_grad("Y")}, attrs)


def _finite(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)


_BOOL = (False, True)
_MATMUL_ATTRS = {"transpose_X": Attr(False, choices=_BOOL), "transpose_Y": Attr(False, choices=_BOOL),
                 "alpha": Attr(1.0, _finite, "a finite number")}
register("matmul", kernel_module="math",
         grad_reads=("X", "Y"), inputs=["X", "Y"], outputs=["Out"], attrs=_MATMUL_ATTRS, infer=_infer_matmul,
         grad=_grad_matmul,
         doc="Out = alpha * op(X) @ op(Y), op transposing the last two dims when asked; leading (batch) "
             "dims broadcast; a 1-D X is a row vector and a 1-D Y a column vector, and the dim they add "
             "is removed from Out.")
register("matmul_v2", kernel_module="math", grad_reads=("X", "Y"), inputs=["X", "Y"], outputs=["Out"],
         attrs={"trans_x": Attr(False, choices=_BOOL), "trans_y": Attr(False, choices=_BOOL)},
         infer=_infer_matmul, grad=_grad_matmul,
         doc="Fluid 1.8's matmul_v2 (paddle.matmul): matmul with transpose_X=trans_x, transpose_Y=trans_y, "
             "alpha 1; the same broadcasting and 1-D rules, kernels and gradients.")
register("matmul_grad_x", kernel_module="math", inputs=["X", "Y", "Out@GRAD"], outputs=["X@GRAD"], attrs=_MATMUL_ATTRS,
         infer=grads_like({"X@GRAD": "X"}))
register("matmul_grad_y", kernel_module="math", inputs=["X", "Y", "Out@GRAD"], outputs=["Y@GRAD"], attrs=_MATMUL_ATTRS,
         infer=grads_like({"Y@GRAD": "Y"}))


# -- clip ---------------------------------------------------------------------------------------

def _infer_clip(ctx):
    lo, hi = ctx.attrs["min"], ctx.attrs["max"]
    if lo is None or hi is None:
        ctx.fail(f"clip needs both attributes min and max, got min={lo!r}, max={hi!r}")
    if lo > hi:
        ctx.fail(f"clip: min={lo} is greater than max={hi}")
    same_as()(ctx)


def _grad_clip(g):
    g.op("clip_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")}, g.attrs)


_CLIP_ATTRS = {"min": Attr(None, _finite, "a finite number"), "max": Attr(None, _finite, "a finite number")}
register("clip", kernel_module="math", grad_reads=("X",),
         inputs=["X"], outputs=["Out"], attrs=_CLIP_ATTRS, infer=_infer_clip, grad=_grad_clip,
         doc="Out = min(max(X, min), max). The gradient passes where min < X < max.")
register("clip_grad", kernel_module="math", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"], attrs=_CLIP_ATTRS,
         infer=grads_like({"X@GRAD": "X"}))
