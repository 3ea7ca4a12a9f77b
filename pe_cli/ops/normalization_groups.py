"""instance_norm and group_norm of the normalization family: they normalize rows of X's flat layout
([N*C, H*W] and [N*G, C/G*H*W]) as layer_norm does, then scale and shift per channel. Their kernels are
the family's (pe_cli/kernels/<device>/normalization.py); on the CPU structured kernels (shapes/normalization.py,
kernels/cpu/normalization_groups.py)."""

from ..kernels.cpu import normalization_groups as cpu_groups
from ..shapes import normalization as norm_rules
from .convolution import _known
from .define import Attr, Structured, fmt_shape, register
from .norm_double_grad import EPSILON as _EPS, grad_instance_norm_grad


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
        g.op(
            grad_type,
            ins,
            {"X@GRAD": g.in_grad("X"), "Scale@GRAD": g.in_grad("Scale"), "Bias@GRAD": g.in_grad("Bias")},
            g.attrs,
        )

    return grad


def _infer_norm_grad(ctx):
    x = ctx.input_var("X")
    channels = x.shape[-1] if ctx.attrs.get("data_layout") == "NHWC" else x.shape[1]
    ctx.set_output("X@GRAD", x.shape, x.dtype)
    ctx.set_output("Scale@GRAD", [channels], x.dtype)
    ctx.set_output("Bias@GRAD", [channels], x.dtype)


register(
    "instance_norm",
    kernel_module="normalization",
    inputs=["X", "Scale?", "Bias?"],
    outputs=["Y", "SavedMean", "SavedVariance"],
    attrs={"epsilon": _EPS},
    infer=_infer_instance_norm,
    grad=_grad_norm("instance_norm_grad", "SavedMean", "SavedVariance"),
    grad_reads=("SavedMean", "SavedVariance", "Scale", "X"),
    doc="Normalizes each (sample, channel) of X over its other dims: Y = (X - mean) / sqrt(var + "
    "epsilon) * Scale[c] + Bias[c]; SavedMean and SavedVariance (1 / sqrt(var + epsilon), as "
    "Fluid's) are [N * C].",
    structured=Structured(meta=norm_rules.instance_norm_meta, cpu=cpu_groups.INSTANCE_NORM),
)


register(
    "instance_norm_grad",
    kernel_module="normalization",
    inputs=["X", "Scale?", "SavedMean", "SavedVariance", "Y@GRAD"],
    outputs=["X@GRAD?", "Scale@GRAD?", "Bias@GRAD?"],
    attrs={"epsilon": _EPS},
    infer=_infer_norm_grad,
    grad=grad_instance_norm_grad,
    structured=Structured(meta=norm_rules.instance_norm_grad_meta, cpu=cpu_groups.INSTANCE_NORM_GRAD),
)


def _infer_group_norm(ctx):
    x, groups = ctx.shape("X"), ctx.attrs["groups"]
    nhwc = ctx.attrs["data_layout"] == "NHWC"
    if x is None or len(x) < (3 if nhwc else 2):
        ctx.fail(f"X {fmt_shape(x)} must be {'[N, ..., C]' if nhwc else '[N, C, ...]'} to normalize groups of channels")
    channels_first = [x[0], x[-1]] + list(x[1:-1]) if nhwc else x
    if _known(channels_first[1]) and channels_first[1] % groups:
        ctx.fail(f"groups={groups} must divide the {channels_first[1]} channels of X {fmt_shape(x)}")
    _check_affine(ctx, channels_first)
    dtype = ctx.dtype("X")
    ctx.set_output("Y", x, dtype)
    ctx.set_output("Mean", [x[0], groups], dtype)
    ctx.set_output("Variance", [x[0], groups], dtype)


_GN_ATTRS = {
    "epsilon": _EPS,
    "groups": Attr(1, lambda v: isinstance(v, int) and v >= 1, "an int >= 1"),
    "data_layout": Attr("NCHW", choices=("NCHW", "NHWC")),
}
register(
    "group_norm",
    kernel_module="normalization",
    inputs=["X", "Scale?", "Bias?"],
    outputs=["Y", "Mean", "Variance"],
    attrs=_GN_ATTRS,
    infer=_infer_group_norm,
    grad=_grad_norm("group_norm_grad", "Mean", "Variance"),
    grad_reads=("Mean", "Scale", "Variance", "X"),
    channels_last=("X", "Y"),
    doc="Normalizes each sample's channels in `groups` groups over the group's channels and other "
    "dims: Y = (X - mean) / sqrt(var + epsilon) * Scale[c] + Bias[c]; Mean and Variance are "
    "[N, groups]. NCHW, or NHWC by the NCHW kernels between transposes (kernels/layout.py).",
    structured=Structured(meta=norm_rules.group_norm_meta, cpu=cpu_groups.GROUP_NORM),
)
register(
    "group_norm_grad",
    kernel_module="normalization",
    inputs=["X", "Scale?", "Mean", "Variance", "Y@GRAD"],
    outputs=["X@GRAD?", "Scale@GRAD?", "Bias@GRAD?"],
    attrs=_GN_ATTRS,
    infer=_infer_norm_grad,
    channels_last=("X", "Y@GRAD", "X@GRAD"),
    structured=Structured(meta=norm_rules.group_norm_grad_meta, cpu=cpu_groups.GROUP_NORM_GRAD),
)
