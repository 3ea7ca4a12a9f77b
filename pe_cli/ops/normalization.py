"""prelu, instance_norm and group_norm of Fluid 1.8 (kernels in kernels/<device>/norm_extra.py).
The two norms normalize rows of X's flat layout ([N*C, H*W] and [N*G, C/G*H*W]) as layer_norm
does, then scale and shift per channel."""
from ..shapes import known_numel
from .registry import Attr, fmt_shape, grads_like, register


def _known(d):
    return d is not None and d >= 0


# -- prelu ------------------------------------------------------------------------------------------

def prelu_alpha_size(x, mode):
    """The number of alphas prelu's mode needs for X's shape (-1: unknown)."""
    if mode == "all":
        return 1
    if mode == "channel":
        return x[1] if _known(x[1]) else -1
    return known_numel(x[1:])


def _infer_prelu(ctx):
    x, alpha, mode = ctx.shape("X"), ctx.shape("Alpha"), ctx.attrs["mode"]
    if x is None or len(x) < (2 if mode != "all" else 1):
        ctx.fail(f"X {fmt_shape(x)} needs a batch dim and, for mode '{mode}', the dims after it")
    if mode == "channel" and ctx.attrs["data_format"] != "NCHW":
        ctx.fail("mode 'channel' with data_format NHWC is not supported by pe; give NCHW input")
    want, have = prelu_alpha_size(x, mode), known_numel(alpha)
    if want >= 0 and have >= 0 and want != have:
        ctx.fail(f"Alpha {fmt_shape(alpha)} has {have} values but mode '{mode}' needs {want} for X {fmt_shape(x)}")
    if ctx.dtype("X") != ctx.dtype("Alpha"):
        ctx.fail(f"X is {ctx.dtype('X')} but Alpha is {ctx.dtype('Alpha')}")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_prelu(g):
    g.op("prelu_grad", {"X": g.input("X"), "Alpha": g.input("Alpha"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X"), "Alpha@GRAD": g.in_grad("Alpha")}, g.attrs)


_PRELU_ATTRS = {"mode": Attr("all", choices=("all", "channel", "element")),
                # Paddle 2.x's attribute: NHWC changes only where 'channel' mode finds the channels
                "data_format": Attr("NCHW", choices=("NCHW", "NHWC"))}
register("prelu", kernel_module="norm_extra", inputs=["X", "Alpha"], outputs=["Out"], attrs=_PRELU_ATTRS,
         infer=_infer_prelu, grad=_grad_prelu, grad_reads=("Alpha", "X"),
         doc="Out = X where X > 0, else Alpha * X: one Alpha (all), one per channel of dim 1 (channel) or "
             "one per element of X's non-batch dims (element).")
register("prelu_grad", kernel_module="norm_extra", inputs=["X", "Alpha", "Out@GRAD"],
         outputs=["X@GRAD?", "Alpha@GRAD?"], attrs=_PRELU_ATTRS,
         infer=grads_like({"X@GRAD": "X", "Alpha@GRAD": "Alpha"}))


# -- instance_norm, group_norm ------------------------------------------------------------------------

def _check_affine(ctx, x):
    for slot in ("Scale", "Bias"):
        if ctx.has_input(slot):
            s = ctx.shape(slot)
            if len(s) != 1 or (_known(x[1]) and _known(s[0]) and s[0] != x[1]):
                ctx.fail(f"{slot} {fmt_shape(s)} must be [{x[1]}], one per channel of X {fmt_shape(x)}")


def _infer_instance_norm(ctx):
    x = ctx.shape("X")
    if x is None or not 2 <= len(x) <= 5:
        ctx.fail(f"X {fmt_shape(x)} must be 2-D to 5-D [N, C, ...] to normalize per sample and channel")
    _check_affine(ctx, x)
    dtype = ctx.dtype("X")
    ctx.set_output("Y", x, dtype)
    rows = x[0] * x[1] if _known(x[0]) and _known(x[1]) else -1
    ctx.set_output("SavedMean", [rows], dtype)
    ctx.set_output("SavedVariance", [rows], dtype)


def _grad_norm(grad_type, mean, variance):
    def grad(g):
        ins = {"X": g.input("X"), mean: g.output(mean), variance: g.output(variance), "Y@GRAD": g.out_grad("Y")}
        if g.input("Scale"):
            ins["Scale"] = g.input("Scale")
        g.op(grad_type, ins, {"X@GRAD": g.in_grad("X"), "Scale@GRAD": g.in_grad("Scale"),
                              "Bias@GRAD": g.in_grad("Bias")}, g.attrs)
    return grad


def _infer_norm_grad(ctx):
    x = ctx.input_var("X")
    ctx.set_output("X@GRAD", x.shape, x.dtype)
    ctx.set_output("Scale@GRAD", [x.shape[1]], x.dtype)
    ctx.set_output("Bias@GRAD", [x.shape[1]], x.dtype)


_EPS = Attr(1e-5, lambda v: 0.0 <= v <= 1.0, "in [0, 1]")
register("instance_norm", kernel_module="norm_extra", inputs=["X", "Scale?", "Bias?"],
         outputs=["Y", "SavedMean", "SavedVariance"], attrs={"epsilon": _EPS}, infer=_infer_instance_norm,
         grad=_grad_norm("instance_norm_grad", "SavedMean", "SavedVariance"),
         grad_reads=("SavedMean", "SavedVariance", "Scale", "X"),
         doc="Normalizes each (sample, channel) of X over its other dims: Y = (X - mean) / sqrt(var + "
             "epsilon) * Scale[c] + Bias[c]; SavedMean and SavedVariance (1 / sqrt(var + epsilon), as "
             "Fluid's) are [N * C].")
register("instance_norm_grad", kernel_module="norm_extra",
         inputs=["X", "Scale?", "SavedMean", "SavedVariance", "Y@GRAD"],
         outputs=["X@GRAD?", "Scale@GRAD?", "Bias@GRAD?"], attrs={"epsilon": _EPS}, infer=_infer_norm_grad)


def _infer_group_norm(ctx):
    x, groups = ctx.shape("X"), ctx.attrs["groups"]
    if ctx.attrs["data_layout"] != "NCHW":
        ctx.fail(f"data_layout='{ctx.attrs['data_layout']}' is not supported by pe; give NCHW input")
    if x is None or len(x) < 2:
        ctx.fail(f"X {fmt_shape(x)} must be [N, C, ...] to normalize groups of channels")
    if _known(x[1]) and x[1] % groups:
        ctx.fail(f"groups={groups} must divide the {x[1]} channels of X {fmt_shape(x)}")
    _check_affine(ctx, x)
    dtype = ctx.dtype("X")
    ctx.set_output("Y", x, dtype)
    ctx.set_output("Mean", [x[0], groups], dtype)
    ctx.set_output("Variance", [x[0], groups], dtype)


_GN_ATTRS = {"epsilon": _EPS, "groups": Attr(1, lambda v: isinstance(v, int) and v >= 1, "an int >= 1"),
             "data_layout": Attr("NCHW", choices=("NCHW", "NHWC"))}
register("group_norm", kernel_module="norm_extra", inputs=["X", "Scale?", "Bias?"], outputs=["Y", "Mean", "Variance"],
         attrs=_GN_ATTRS, infer=_infer_group_norm, grad=_grad_norm("group_norm_grad", "Mean", "Variance"),
         grad_reads=("Mean", "Scale", "Variance", "X"),
         doc="Normalizes each sample's channels in `groups` groups over the group's channels and other "
             "dims: Y = (X - mean) / sqrt(var + epsilon) * Scale[c] + Bias[c]; Mean and Variance are "
             "[N, groups]. NCHW only.")
register("group_norm_grad", kernel_module="norm_extra", inputs=["X", "Scale?", "Mean", "Variance", "Y@GRAD"],
         outputs=["X@GRAD?", "Scale@GRAD?", "Bias@GRAD?"], attrs=_GN_ATTRS, infer=_infer_norm_grad)
