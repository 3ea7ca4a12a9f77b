"""Normalization ops: batch_norm, layer_norm, instance_norm, group_norm, affine_channel, lrn and norm
(l2_normalize) (kernels in kernels/<device>/normalization.py). instance_norm and group_norm normalize
rows of X's flat layout ([N*C, H*W] and [N*G, C/G*H*W]) as layer_norm does, then scale and shift per
channel: they are registered in normalization_groups.py."""

from ..base.activations import real_number
from ..base.dims import known_numel
from ..kernels.cpu import batch_norm as cpu_batch_norm, layer_norm as cpu_layer_norm
from ..kernels.cpu import normalization as cpu_normalization
from ..shapes import data_norm as data_norm_rules, normalization as norm_rules
from ..shapes.normalization import batch_norm_grad_meta, batch_norm_grad_param_meta, batch_norm_meta, bn_channel_axis
from ..shapes.normalization import layer_norm_grad_meta, layer_norm_meta, layer_norm_refusal
from .convolution import _known
from .image import four_d
from .loss_classification import _grad_of
from .define import Attr, Structured, backend_attrs, fmt_shape, grads_like, in_range, is_int, register
from .norm_double_grad import BN_ATTRS as _BN_ATTRS, grad_batch_norm_grad


# -- batch_norm -------------------------------------------------------------------------------------


def infer_batch_norm(ctx):
    x = ctx.shape("X")
    if x is None or not 2 <= len(x) <= 5:
        ctx.fail(f"X {fmt_shape(x)} must have 2 to 5 dims ([N, C] or [N, C, H, W])")
    c = x[bn_channel_axis(len(x), ctx.attrs["data_layout"])]
    for slot in ("Scale", "Bias", "Mean", "Variance"):
        s = ctx.shape(slot)
        if len(s) != 1 or (_known(c) and _known(s[0]) and s[0] != c):
            ctx.fail(
                f"{slot} {fmt_shape(s)} must be [{c}], the channels of X {fmt_shape(x)} "
                f"(data_layout {ctx.attrs['data_layout']})"
            )
    dtype = ctx.dtype("X")
    ctx.set_output("Y", x, dtype, lod_level=ctx.input_var("X").lod_level)
    for slot in ("MeanOut", "VarianceOut", "SavedMean", "SavedVariance"):
        ctx.set_output(slot, [c], ctx.dtype("Mean") if slot.endswith("Out") else dtype)


def _grad_batch_norm(g):
    """Fluid's batch_norm_grad, with Fluid's inputs (Bias, and the moving statistics with use_global_stats, which
    its kernels do not read); batch_norm_grad_param (pe's) where X needs no gradient."""
    ins = {
        "X": g.input("X"),
        "Scale": g.input("Scale"),
        "Bias": g.input("Bias"),
        "SavedMean": g.output("SavedMean"),
        "SavedVariance": g.output("SavedVariance"),
        "Y@GRAD": g.out_grad("Y"),
    }
    if g.attrs.get("use_global_stats"):
        ins.update(Mean=g.output("MeanOut"), Variance=g.output("VarianceOut"))
    outs = {"Scale@GRAD": g.in_grad("Scale"), "Bias@GRAD": g.in_grad("Bias")}
    if g.needs("X"):
        g.op("batch_norm_grad", ins, {"X@GRAD": g.in_grad("X"), **outs}, g.attrs)
    else:
        g.op("batch_norm_grad_param", ins, outs, g.attrs)


def bn_blocked(op):
    """batch_norm's image slots, held blocked together in training on NCHW values (kernels/cpu/blocked.py
    runs _blocked_loops.py)."""
    a = op.attrs
    if (a["is_test"] and not a["trainable_statistics"]) or a["use_global_stats"] or a["data_layout"] != "NCHW":
        return ()
    return (("X", "Y", "Y@GRAD", "X@GRAD"),)


register(
    "batch_norm",
    kernel_module="normalization",
    blocked=bn_blocked,
    grad_reads=("Bias", "MeanOut", "SavedMean", "SavedVariance", "Scale", "VarianceOut", "X"),
    inputs=["X", "Scale", "Bias", "Mean", "Variance", "MomentumTensor?"],
    outputs=["Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance", "ReserveSpace?"],
    attrs=dict(_BN_ATTRS, **backend_attrs("use_mkldnn")),
    attr_tensors={"MomentumTensor": "momentum"},
    infer=infer_batch_norm,
    grad=_grad_batch_norm,
    traits=("batch_statistics",),
    structured=Structured(meta=batch_norm_meta, cpu=cpu_batch_norm.FORWARD),
    doc="Y = (X - mean) / sqrt(var + epsilon) * Scale + Bias per channel. Training uses the batch "
    "statistics and updates MeanOut/VarianceOut (the Mean/Variance variables) with momentum; "
    "is_test or use_global_stats uses the moving ones. SavedVariance holds 1/sqrt(var + eps). A "
    "one-value MomentumTensor, when given, is the momentum (Fluid 1.8's); ReserveSpace (cuDNN's "
    "workspace in Fluid) is accepted and not written.",
)
_BN_GRAD_INS = ["X", "Scale", "Bias?", "SavedMean", "SavedVariance", "Y@GRAD", "Mean?", "Variance?"]
register(
    "batch_norm_grad",
    kernel_module="normalization",
    blocked=bn_blocked,
    inputs=_BN_GRAD_INS,
    outputs=["X@GRAD", "Scale@GRAD?", "Bias@GRAD?"],
    attrs=_BN_ATTRS,
    infer=grads_like({"X@GRAD": "X", "Scale@GRAD": "Scale", "Bias@GRAD": "Scale"}),
    grad=grad_batch_norm_grad,
    structured=Structured(meta=batch_norm_grad_meta, cpu=cpu_batch_norm.GRAD),
)
register(
    "batch_norm_grad_param",
    kernel_module="normalization",
    inputs=_BN_GRAD_INS,
    outputs=["Scale@GRAD?", "Bias@GRAD?"],
    attrs=_BN_ATTRS,
    infer=grads_like({"Scale@GRAD": "Scale", "Bias@GRAD": "Scale"}),
    grad=grad_batch_norm_grad,
    structured=Structured(meta=batch_norm_grad_param_meta, cpu=cpu_batch_norm.GRAD),
)


# -- layer_norm -------------------------------------------------------------------------------------

_LN_ATTRS = {
    "begin_norm_axis": Attr(1, lambda v: isinstance(v, int) and v >= 1, "an int >= 1"),
    "epsilon": Attr(1e-5, in_range(0.0, 1e-3), "in [0, 0.001]"),  # (Fluid's check, in float32)
}


def _infer_layer_norm(ctx):
    x = ctx.shape("X")
    params = {slot: ctx.shape(slot) for slot in ("Scale", "Bias") if ctx.has_input(slot)}
    refusal = layer_norm_refusal(x, ctx.attrs["begin_norm_axis"], params, ctx.is_runtime)
    if refusal:
        ctx.fail(refusal)
    left = known_numel(x[: ctx.attrs["begin_norm_axis"]])
    dtype = ctx.dtype("X")
    ctx.set_output("Y", x, dtype, lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("Mean", [left], dtype)
    ctx.set_output("Variance", [left], dtype)


def _grad_layer_norm(g):
    ins = {"X": g.input("X"), "Mean": g.output("Mean"), "Variance": g.output("Variance"), "Y@GRAD": g.out_grad("Y")}
    ins.update((slot, g.input(slot)) for slot in ("Scale", "Bias") if g.input(slot))  # (Bias as Fluid's: unread)
    g.op(
        "layer_norm_grad",
        ins,
        {"X@GRAD": g.in_grad("X"), "Scale@GRAD": g.in_grad("Scale"), "Bias@GRAD": g.in_grad("Bias")},
        g.attrs,
    )


register(
    "layer_norm",
    kernel_module="normalization",
    grad_reads=("Bias", "Mean", "Scale", "Variance", "X"),
    inputs=["X", "Scale?", "Bias?"],
    outputs=["Y", "Mean", "Variance"],
    attrs=_LN_ATTRS,
    infer=_infer_layer_norm,
    grad=_grad_layer_norm,
    structured=Structured(meta=layer_norm_meta, cpu=cpu_layer_norm.FORWARD),
    doc="Normalizes X over the dims from begin_norm_axis on: Y = (X - mean) / sqrt(var + epsilon) "
    "* Scale + Bias (Scale and Bias flattened, optional).",
)


def _infer_layer_norm_grad(ctx):
    x = ctx.input_var("X")
    ctx.set_output("X@GRAD", x.shape, x.dtype)
    right = known_numel(x.shape[ctx.attrs["begin_norm_axis"] :])
    ctx.set_output("Scale@GRAD", [right], x.dtype)
    ctx.set_output("Bias@GRAD", [right], x.dtype)


register(
    "layer_norm_grad",
    kernel_module="normalization",
    inputs=["X", "Scale?", "Bias?", "Mean", "Variance", "Y@GRAD"],
    no_need_buffer=("Bias",),
    outputs=["X@GRAD?", "Scale@GRAD?", "Bias@GRAD?"],
    attrs=_LN_ATTRS,
    infer=_infer_layer_norm_grad,
    structured=Structured(meta=layer_norm_grad_meta, cpu=cpu_layer_norm.GRAD),
)


# -- affine_channel -------------------------------------------------------------------------------


def _channel_axis(ctx):
    return 1 if ctx.attrs["data_layout"] == "NCHW" else len(ctx.shape("X")) - 1


def _infer_affine_channel(ctx):
    x = ctx.shape("X")
    if len(x) < 2:
        ctx.fail(f"X {fmt_shape(x)} needs a channel dim")
    c = x[_channel_axis(ctx)]
    for slot in ("Scale", "Bias"):
        s = ctx.shape(slot)
        if len(s) != 1 or (s[0] >= 0 and c >= 0 and s[0] != c):
            ctx.fail(f"{slot} {fmt_shape(s)} must be [{c}], one value per channel of X {fmt_shape(x)}")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_affine_channel(g):
    g.op(
        "affine_channel_grad",
        {"X": g.input("X"), "Scale": g.input("Scale"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X"), "Scale@GRAD": g.in_grad("Scale"), "Bias@GRAD": g.in_grad("Bias")},
        g.attrs,
    )


_AC_ATTRS = {"data_layout": Attr("AnyLayout", choices=("NCHW", "NHWC", "AnyLayout"))}
register(
    "affine_channel",
    kernel_module="normalization",
    inputs=["X", "Scale", "Bias"],
    outputs=["Out"],
    attrs=_AC_ATTRS,
    infer=_infer_affine_channel,
    grad=_grad_affine_channel,
    grad_reads=("Scale", "X"),
    doc="Out = X * Scale[c] + Bias[c] per channel c (dim 1 in NCHW, the last in NHWC and in Fluid's default "
    "AnyLayout, as its kernel).",
    structured=Structured(meta=norm_rules.affine_channel_meta, cpu=cpu_normalization.AFFINE_CHANNEL),
)
register(
    "affine_channel_grad",
    kernel_module="normalization",
    inputs=["X", "Scale", "Out@GRAD"],
    outputs=["X@GRAD?", "Scale@GRAD?", "Bias@GRAD?"],
    attrs=_AC_ATTRS,
    infer=grads_like({"X@GRAD": "X", "Scale@GRAD": "Scale", "Bias@GRAD": "Scale"}),
    structured=Structured(meta=norm_rules.affine_channel_grad_meta, cpu=cpu_normalization.AFFINE_CHANNEL_GRAD),
)


# -- lrn ----------------------------------------------------------------------------------------------


def _infer_lrn(ctx):
    x = four_d(ctx)
    ctx.set_output("Out", x, ctx.dtype("X"))
    ctx.set_output("MidOut", x, ctx.dtype("X"))


def _grad_lrn(g):
    g.op(
        "lrn_grad",
        {"X": g.input("X"), "Out": g.output("Out"), "MidOut": g.output("MidOut"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


_LRN_ATTRS = {
    "n": Attr(5, lambda v: is_int(v) and v > 0, "an int > 0"),
    "k": 2.0,
    "alpha": 1e-4,
    "beta": 0.75,
    "is_test": False,
    **backend_attrs("use_mkldnn"),
    "data_format": Attr("AnyLayout", choices=("NCHW", "NHWC", "AnyLayout")),
}
register(
    "lrn",
    kernel_module="normalization",
    inputs=["X"],
    outputs=["Out", "MidOut"],
    attrs=_LRN_ATTRS,
    infer=_infer_lrn,
    grad=_grad_lrn,
    grad_reads=("MidOut", "Out", "X"),
    doc="MidOut = k + alpha * (sum of X^2 over the n channels from c - (n-1)//2); Out = X * MidOut^-beta "
    "(local response normalization across channels; NHWC: channels last).",
    structured=Structured(meta=norm_rules.lrn_meta, cpu=cpu_normalization.LRN),
)
register(
    "lrn_grad",
    kernel_module="normalization",
    inputs=["X", "Out", "MidOut", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_LRN_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=norm_rules.lrn_grad_meta, cpu=cpu_normalization.LRN_GRAD),
)


# -- norm: l2_normalize ------------------------------------------------------------------------------


def _infer_norm(ctx):
    x, axis = ctx.shape("X"), ctx.attrs["axis"]
    if not -len(x) <= axis < len(x):
        ctx.fail(f"axis={axis} is out of range for X {fmt_shape(x)}")
    norm = list(x)
    norm[axis % len(x)] = 1
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("Norm", norm, ctx.dtype("X"))


_NORM_ATTRS = {"axis": Attr(-1, is_int, "an int"), "epsilon": Attr(1e-10, real_number, "a number"), "is_test": False}
register(
    "norm",
    kernel_module="normalization",
    inputs=["X"],
    outputs=["Out", "Norm"],
    attrs=_NORM_ATTRS,
    infer=_infer_norm,
    grad=_grad_of("norm_grad", ("X",), ("Norm",)),
    grad_reads=("Norm", "X"),
    doc="Norm = sqrt(sum(X^2 along axis) + epsilon) (that dim kept as 1); Out = X / Norm. "
    "The gradient flows through Out (Norm is a by-product, as in Fluid).",
    structured=Structured(meta=norm_rules.norm_meta, cpu=cpu_normalization.NORM),
)
register(
    "norm_grad",
    kernel_module="normalization",
    inputs=["X", "Norm", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_NORM_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=norm_rules.norm_grad_meta, cpu=cpu_normalization.NORM_GRAD),
)


# -- data_norm (Fluid 1.8): normalization by summary statistics the backward pass accumulates -----------

_STATS = ("BatchSize", "BatchSum", "BatchSquareSum")


def _infer_data_norm(ctx):
    x = ctx.shape("X")
    if not 2 <= len(x) <= 5 or (ctx.is_runtime and len(x) != 2):  # (Fluid's kernel takes 2-D only)
        ctx.fail(f"X {fmt_shape(x)} must be 2-D [N, C] (Fluid's data_norm builds with 2 to 5 dims)")
    c = x[1] if ctx.attrs["data_layout"] == "NCHW" else x[-1]
    for slot in _STATS + (("scale_w", "bias") if ctx.attrs["enable_scale_and_shift"] else ()):
        if not ctx.has_input(slot):
            ctx.fail(f"missing input {slot}")
        s = ctx.shape(slot)
        # (Fluid compares the statistics' sizes with C only when it runs; scale_w's and bias' when known)
        compared = ctx.is_runtime or slot in ("scale_w", "bias")
        if len(s) != 1 or (compared and _known(c) and _known(s[0]) and s[0] != c):
            ctx.fail(f"{slot} {fmt_shape(s)} must be [C] = [{c}] for X {fmt_shape(x)}")
    if ctx.attrs["slot_dim"] > 0 and _known(c) and c % ctx.attrs["slot_dim"]:
        ctx.fail(f"slot_dim={ctx.attrs['slot_dim']} must divide X's {c} columns")
    ctx.set_output("Y", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("Means", [c], ctx.dtype("X"))
    ctx.set_output("Scales", [c], ctx.dtype("X"))


def _grad_data_norm(g):
    ins = {s: g.input(s) for s in ("X", "scale_w") + _STATS if g.input(s)}
    ins.update({"Means": g.output("Means"), "Scales": g.output("Scales"), "Y@GRAD": g.out_grad("Y")})
    outs = {f"{s}@GRAD": g.in_grad(s) for s in ("X", "scale_w", "bias")}
    # the statistics, when trainable, take the summary of this batch (no gradient for the optimizer)
    outs.update({s: g.input(s) for s in _STATS if g.needs(s)})
    g.op("data_norm_grad", ins, outs, g.attrs)


def _infer_data_norm_grad(ctx):
    for slot in ("X", "scale_w", "bias") + _STATS:
        out = slot + "@GRAD" if slot in ("X", "scale_w", "bias") else slot
        if ctx.has_output(out):
            like = "scale_w" if slot == "bias" else slot  # bias is shaped as scale_w
            ctx.set_output(out, ctx.shape(like), ctx.dtype(like))


_DN_ATTRS = {
    "epsilon": Attr(1e-4, lambda v: v >= 0, ">= 0"),
    "slot_dim": Attr(-1, is_int, "an int"),
    "summary_decay_rate": Attr(0.9999999, real_number, "a number"),
    "enable_scale_and_shift": False,
    "sync_stats": False,
    **backend_attrs("use_mkldnn"),
    "data_layout": Attr("NCHW", choices=("NCHW", "NHWC", "AnyLayout")),
}
register(
    "data_norm",
    kernel_module="normalization",
    structured=Structured(meta=data_norm_rules.data_norm_meta, cpu=cpu_normalization.DATA_NORM),
    run_infer=True,
    inputs=["X", "BatchSize", "BatchSum", "BatchSquareSum", "scale_w?", "bias?"],
    outputs=["Y", "Means", "Scales", "BatchSize?", "BatchSum?", "BatchSquareSum?"],
    attrs=_DN_ATTRS,
    infer=_infer_data_norm,
    grad=_grad_data_norm,
    grad_reads=("X", "scale_w", "Means", "Scales") + _STATS,
    doc="Means = BatchSum / BatchSize, Scales = sqrt(BatchSize / BatchSquareSum); Y = (X - Means) * Scales "
    "(then * scale_w + bias with enable_scale_and_shift); with slot_dim > 0, a slot (slot_dim columns) "
    "whose first value is 0 gives 0. Backward: X@GRAD = Y@GRAD * Scales (* scale_w), and each trainable "
    "statistic is updated by the summary rule stat = summary_decay_rate * stat + this batch's (count N, "
    "sum of X, sum of (X - Means)^2 + N epsilon; per slot, the rows whose slot is shown, averaged), as "
    "Fluid's device kernels and parameter servers do, in place of an optimizer step.",
)
register(
    "data_norm_grad",
    kernel_module="normalization",
    structured=Structured(meta=data_norm_rules.data_norm_grad_meta, cpu=cpu_normalization.DATA_NORM_GRAD),
    inputs=["X", "scale_w?", "BatchSize", "BatchSum", "BatchSquareSum", "Means", "Scales", "Y@GRAD"],
    outputs=["X@GRAD?", "scale_w@GRAD?", "bias@GRAD?", "BatchSize?", "BatchSum?", "BatchSquareSum?"],
    attrs=_DN_ATTRS,
    infer=_infer_data_norm_grad,
)
