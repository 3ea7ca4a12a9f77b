"""Convolution ops (kernels in kernels/<device>/convolution.py): conv2d and depthwise_conv2d with their
input and filter gradients (NCHW, or NHWC with their NCHW kernels run between transposes:
``channels_last``, kernels/layout.py); conv2d_transpose (Fluid 1.8), the gradient of conv2d with
respect to its input, so its kernels are conv2d's with the roles swapped (its forward is
conv2d_grad_input, its input gradient conv2d and its filter gradient conv2d_grad_filter), NCHW or NHWC,
and its depthwise twin; and
deformable_conv (Fluid 1.8), convolution whose taps read the input at learned offsets (bilinear,
zero outside), each tap's value scaled by a mask (v2, the op deformable_conv) or not (v1,
deformable_conv_v1).

Their geometry (paddings, output sizes, the conv input checks) is in ``pe_cli.shapes.conv_pool``, shared with
the kernels so that build time and run time always agree on output sizes. The attribute checks and
layout helpers here serve pooling.py's pool2d too. conv2d_transpose and its depthwise twin are registered in
convolution_transpose.py.
"""

from ..kernels.cpu import convolution as cpu_convolution
from ..shapes import conv2d as conv2d_rules
from ..shapes import convolution_irregular as irregular_rules
from ..shapes.conv_pool import ONEDNN_MIN_CHANNELS, conv_geometry, conv_mismatch, conv_out_size
from .define import (
    Attr,
    Structured,
    backend_attrs,
    fmt_shape,
    grad_of_bilinear_grad,
    grads_like,
    int_list,
    is_int,
    register,
)


# -- attribute checks ------------------------------------------------------------------------------


def _ints(n, lo, allowed=None, at_least=False):
    """check: a list of ``n`` (or any of ``allowed`` counts; ``at_least``: n or more) ints, each >= lo
    (lo None: any)."""
    counts = allowed or (n,)

    def check(v):
        return (
            isinstance(v, (list, tuple))
            and (len(v) >= n if at_least else len(v) in counts)
            and all(isinstance(x, int) and not isinstance(x, bool) and (lo is None or x >= lo) for x in v)
        )

    return check


# Fluid's im2col reads x[o * stride - pad + t * dilation], zero outside x, whatever their signs: a negative
# padding crops, a dilation of 0 reads one element for every tap, a negative one runs the taps backwards
# (shapes/conv_regular.py); a longer dilations list has its first entries read
PADDINGS = Attr(
    [0, 0], _ints(2, None, (2, 4)), "a list of 2 or 4 ints ([pad_h, pad_w] or [top, bottom, left, right]; < 0 crops)"
)
DILATIONS = Attr([1, 1], _ints(2, None, at_least=True), "a list of 2 (or more: the first 2 read) ints")


def _expect(what, counts, lo):
    n = " or ".join(str(c) for c in counts)
    return f"a list of {n} ints, each >= {lo} ({what})"


def _text(v):
    return isinstance(v, str)


# Fluid and Paddle 2.6.2 read these two strings without checking them: SAME and VALID pad so, any other value
# takes the explicit paddings (shapes/conv_pool.py conv_paddings); NHWC and NDHWC are channels last, any
# other value channels first (kernels/layout.py). No writer of theirs writes another value than these
# (AnyLayout: Fluid 1.5's default), so pe refuses one (tools/paddle26_enum_attrs.py: Paddle runs "BOGUS" as
# EXPLICIT and as NCHW, "same" as EXPLICIT, "nhwc" as NCHW; docs/COMPAT.md, "Enum attributes")
PADDING_ALGORITHM = Attr("EXPLICIT", choices=("EXPLICIT", "SAME", "VALID"))


_LAST = ("NHWC", "NDHWC")
_LAYOUTS = {2: ("NCHW", "NHWC", "AnyLayout"), 3: ("NCDHW", "NDHWC", "AnyLayout")}


def layout_attr(default, dims=2):
    """data_format of a ``dims``-D conv or pool op: channels first or last, or Fluid's AnyLayout (first)."""
    return Attr(default, choices=tuple(dict.fromkeys((default,) + _LAYOUTS[dims])))


# -- conv2d -----------------------------------------------------------------------------------------

_CONV_ATTRS = {
    "strides": Attr([1, 1], _ints(2, 1), _expect("strides", (2,), 1)),
    "paddings": PADDINGS,
    "dilations": DILATIONS,
    "groups": Attr(1, lambda v: isinstance(v, int) and v >= 1, "an int >= 1"),
    "padding_algorithm": PADDING_ALGORITHM,
    "data_format": layout_attr("NCHW"),
    "fuse_relu_before_depthwise_conv": False,  # convolve relu(Input) (kernels/fused_math.py relu_first)
    **backend_attrs(
        "is_test",
        "use_quantizer",
        "fuse_relu",
        "fuse_brelu",
        "fuse_brelu_threshold",
        "fuse_activation",
        "fuse_alpha",
        "fuse_beta",
        "fuse_residual_connection",
        "Scale_in",
        "Scale_out",
        "Scale_in_eltwise",
        "Scale_weights",
        "force_fp32_output",
        "workspace_size_MB",
        "exhaustive_search",
        "use_cudnn",
        "use_mkldnn",
    ),
}
# Fluid's oneDNN kernels alone read these (its fused bias, residual add and activation, int8 scales);
# its plain CPU kernel ignores them, as pe's kernels do
_ONEDNN_NOTE = (
    " As Fluid's plain CPU kernel, it ignores the Bias and ResidualData inputs and the attributes "
    "of Fluid's oneDNN and cuDNN kernels (fuse_*, Scale_*, use_quantizer, force_fp32_output, "
    "workspace_size_MB, exhaustive_search)."
)


def _known(d):
    return d is not None and d >= 0


def as_nchw(shape, a):
    """A 4-D NHWC shape as the NCHW one its kernels see; any other as it is."""
    nhwc = a["data_format"] in _LAST and shape is not None and len(shape) == 4
    return [shape[0], shape[3], shape[1], shape[2]] if nhwc else shape


def to_layout(shape, a):
    """An NCHW output shape in the op's data_format."""
    return [shape[0], shape[2], shape[3], shape[1]] if a["data_format"] in _LAST else shape


def _infer_conv2d(ctx):
    a = ctx.attrs
    x, w = as_nchw(ctx.shape("Input"), a), ctx.shape("Filter")
    if x is None or len(x) != 4:
        ctx.fail(f"Input {fmt_shape(x)} must be 4-D {a['data_format']} to convolve with Filter {fmt_shape(w)}")
    if w is None or len(w) != 4:
        ctx.fail(f"Filter {fmt_shape(w)} must be 4-D [num_filters, C/groups, kh, kw] for Input {fmt_shape(x)}")
    if ctx.dtype("Input") != ctx.dtype("Filter"):
        ctx.fail(f"Input is {ctx.dtype('Input')} but Filter is {ctx.dtype('Filter')}")
    pads, dil, out_hw = conv_geometry(x, w, a)
    error = conv_mismatch(x, w, a["groups"], pads, dil, out_hw)
    if error:
        ctx.fail(error)
    ctx.set_output("Output", to_layout([x[0], w[0]] + out_hw, a), ctx.dtype("Input"))


def _conv_grad_blocked(op):
    """conv2d_grad's blocked slots: of an op writing the filter's gradient alone, the output side only (as
    conv2d_grad_filter's kernel, which its kernel then runs, takes them); else _conv_blocked's."""
    sides = _conv_blocked(op)
    return (
        tuple(s for s in sides if s[0] in ("Output", "Output@GRAD")) if sides and not op.output("Input@GRAD") else sides
    )


def _conv_blocked(op):
    """conv2d's slots that may hold blocked values, each alone (its oneDNN kernel converts any other
    layout): NCHW, one group. Of a convolution on an input too narrow for oneDNN's input gradient
    (shapes.conv_pool.ONEDNN_MIN_CHANNELS: a network's first layer, on 1 or 3 channels), the output side only: its
    forward pass and filter gradient run on oneDNN then (kernels/cpu/blocked.py)."""
    x = op.block.var(op.input("Input")[0]).shape if op.input("Input") else None
    if (
        op.attrs["data_format"] != "NCHW"
        or op.attrs["groups"] != 1
        or op.attrs["fuse_relu_before_depthwise_conv"]
        or not x
        or len(x) != 4
        or x[1] is None
    ):
        return ()
    sides = (
        ("Output", "Output@GRAD") if x[1] < ONEDNN_MIN_CHANNELS else ("Input", "Output", "Output@GRAD", "Input@GRAD")
    )
    return tuple((slot,) for slot in sides)


def _grad_conv2d(g, type_):
    """Fluid's one grad op (conv2d_grad, depthwise_conv2d_grad): the gradients of Input and Filter that are
    wanted (its kernels compute those)."""
    ins = {"Input": g.input("Input"), "Filter": g.input("Filter"), "Output@GRAD": g.out_grad("Output")}
    g.op(f"{type_}_grad", ins, {"Input@GRAD": g.in_grad("Input"), "Filter@GRAD": g.in_grad("Filter")}, g.attrs)


for _type in ("conv2d", "depthwise_conv2d"):
    register(
        _type,
        inputs=["Input", "Filter", "Bias?", "ResidualData?"],
        outputs=["Output"],
        attrs=_CONV_ATTRS,
        infer=_infer_conv2d,
        grad=lambda g, t=_type: _grad_conv2d(g, t),
        grad_reads=("Filter", "Input"),
        kernel_module="convolution",
        kernel="conv2d",
        channels_last=("Input", "Output"),
        blocked=_conv_blocked if _type == "conv2d" else None,
        structured=Structured(meta=conv2d_rules.conv2d_meta, cpu=cpu_convolution.conv2d_out),
        doc="Output[n, m] = sum over the channels of group(m) of Input[n, c] correlated with "
        "Filter[m, c] (strides, paddings, dilations); NCHW or NHWC, Filter [M, C/groups, kh, kw] in "
        "both. Kernels: oneDNN (float32, the onednn extra), else Winograd, wide or im2col columns "
        "and GEMMs." + _ONEDNN_NOTE,
    )
    # depthwise_conv2d is served by conv2d's kernels (groups == channels is a case they handle)
    _grad_grad = grad_of_bilinear_grad(
        _type, "Input", "Filter", "Output", {"Input": f"{_type}_grad", "Filter": f"{_type}_grad"}
    )
    register(
        f"{_type}_grad",
        inputs=["Input", "Filter", "Output@GRAD"],
        outputs=["Input@GRAD?", "Filter@GRAD?"],
        attrs=_CONV_ATTRS,
        infer=grads_like({"Input@GRAD": "Input", "Filter@GRAD": "Filter"}),
        kernel_module="convolution",
        grad=_grad_grad,
        kernel="conv2d_grad",
        traits=("optional_outputs",),
        channels_last=("Input", "Output@GRAD", "Input@GRAD"),
        blocked=_conv_grad_blocked if _type == "conv2d" else None,
        structured=Structured(meta=conv2d_rules.conv2d_grad_meta, cpu=cpu_convolution.conv2d_grad_out),
    )
    # (each half of it, as pe wrote them in programs it saved before)
    register(
        f"{_type}_grad_input",
        inputs=["Input", "Filter", "Output@GRAD"],
        outputs=["Input@GRAD"],
        grad=_grad_grad,
        attrs=_CONV_ATTRS,
        infer=grads_like({"Input@GRAD": "Input"}),
        kernel_module="convolution",
        kernel="conv2d_grad_input",
        channels_last=("Input", "Output@GRAD", "Input@GRAD"),
        blocked=_conv_blocked if _type == "conv2d" else None,
        structured=Structured(meta=conv2d_rules.conv2d_grad_input_meta, cpu=cpu_convolution.conv2d_grad_out),
    )
    register(
        f"{_type}_grad_filter",
        inputs=["Input", "Filter", "Output@GRAD"],
        outputs=["Filter@GRAD"],
        attrs=_CONV_ATTRS,
        grad=_grad_grad,
        infer=grads_like({"Filter@GRAD": "Filter"}),
        kernel_module="convolution",
        kernel="conv2d_grad_filter",
        channels_last=("Input", "Output@GRAD"),
        blocked=_conv_blocked if _type == "conv2d" else None,
        structured=Structured(meta=conv2d_rules.conv2d_grad_filter_meta, cpu=cpu_convolution.conv2d_grad_out),
    )


# -- deformable_conv, deformable_conv_v1: taps at learned offsets ------------------------------------


def _pair(v):
    return int_list(v) and len(v) == 2


def _infer_deformable(ctx):
    x, w, off = ctx.shape("Input"), ctx.shape("Filter"), ctx.shape("Offset")
    a = ctx.attrs
    if len(x) != 4 or len(w) != 4 or len(off) != 4:
        ctx.fail(f"Input {fmt_shape(x)}, Filter {fmt_shape(w)} and Offset {fmt_shape(off)} must be 4-D")
    g, dg = a["groups"], a["deformable_groups"]
    if x[1] >= 0 and (x[1] != w[1] * g or x[1] % dg or w[0] % g):
        ctx.fail(
            f"Input {fmt_shape(x)} with Filter {fmt_shape(w)}: channels must be Filter's times groups={g}, "
            f"and divide by deformable_groups={dg}"
        )
    out = [
        conv_out_size(x[2 + i], w[2 + i], a["paddings"][i], a["paddings"][i], a["strides"][i], a["dilations"][i])
        for i in range(2)
    ]
    taps = w[2] * w[3]
    # (Fluid compares Offset's and Mask's dims with the output's only when it runs)
    if ctx.is_runtime and (list(off[2:]) != out or off[1] != 2 * dg * taps):
        ctx.fail(
            f"Offset {fmt_shape(off)} must be [N, 2 * deformable_groups * kh * kw = {2 * dg * taps}, "
            f"{out[0]}, {out[1]}]"
        )
    if ctx.is_runtime and ctx.has_input("Mask"):
        m = ctx.shape("Mask")
        if len(m) != 4 or list(m[2:]) != out or m[1] != dg * taps:
            ctx.fail(f"Mask {fmt_shape(m)} must be [N, deformable_groups * kh * kw = {dg * taps}, {out[0]}, {out[1]}]")
    ctx.set_output("Output", [x[0], w[0]] + out, ctx.dtype("Input"))


def _grad_deformable(g):
    ins = {s: g.input(s) for s in ("Input", "Offset", "Mask", "Filter") if g.input(s)}
    ins["Output@GRAD"] = g.out_grad("Output")
    outs = {f"{s}@GRAD": g.in_grad(s) for s in ("Input", "Offset", "Mask", "Filter") if g.input(s)}
    g.op(g.fwd.type + "_grad", ins, outs, g.attrs)


def _infer_deformable_grad(ctx):
    for slot in ("Input", "Offset", "Mask", "Filter"):
        if ctx.has_output(slot + "@GRAD"):
            ctx.set_output(slot + "@GRAD", ctx.shape(slot), ctx.dtype(slot))


_DEFORM_ATTRS = {
    "strides": Attr(lambda: [1, 1], _pair, "2 ints"),
    "paddings": Attr(lambda: [0, 0], _pair, "2 ints"),
    "dilations": Attr(
        lambda: [1, 1], lambda v: int_list(v) and len(v) >= 2 and min(v) > 0, "2 (or more: the first 2 read) ints > 0"
    ),
    "groups": Attr(1, lambda v: is_int(v) and v > 0, "> 0"),
    "deformable_groups": Attr(1, lambda v: is_int(v) and v > 0, "> 0"),
    "im2col_step": 64,
}
for _type, _mask in (("deformable_conv", True), ("deformable_conv_v1", False)):
    _slots = ["Input", "Offset"] + (["Mask"] if _mask else []) + ["Filter"]
    register(
        _type,
        kernel_module="convolution",
        kernel="deformable_conv",
        inputs=_slots,
        outputs=["Output"],
        run_infer=True,
        attrs=_DEFORM_ATTRS,
        infer=_infer_deformable,
        grad=_grad_deformable,
        grad_reads=tuple(sorted(_slots)),
        lod="drop",
        structured=Structured(meta=irregular_rules.deformable_meta, cpu=cpu_convolution.deformable_conv_out),
        doc="Output[n, m, y, x] = sum over the taps (i, j) and channels c of Filter[m, c, i, j] * "
        f"{'Mask * ' if _mask else ''}Input[n, c] sampled bilinearly (zero outside) at "
        "(y * stride - pad + i * dilation + Offset_h, x * stride - pad + j * dilation + Offset_w), "
        "Offset holding (h, w) per deformable group and tap.",
    )
    for _grad_type in (_type + "_grad", _type + "_grad_deformable"):  # (the second: pe's earlier saves' name)
        register(
            _grad_type,
            kernel_module="convolution",
            kernel="deformable_conv_grad",
            inputs=_slots + ["Output@GRAD"],
            outputs=[s + "@GRAD?" for s in _slots],
            attrs=_DEFORM_ATTRS,
            infer=_infer_deformable_grad,
            structured=Structured(
                meta=irregular_rules.deformable_grad_meta, cpu=cpu_convolution.deformable_conv_grad_out
            ),
        )


# -- conv_shift (Fluid 1.8): circular convolution of each row of X with the row of Y -------------------


def _infer_conv_shift(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if len(x) != 2 or len(y) != 2:
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must be 2-D ([B, M] and [B, N])")
    if _known(x[0]) and _known(y[0]) and x[0] != y[0]:
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must have the same rows")
    if _known(y[1]) and y[1] % 2 != 1:
        ctx.fail(f"Y {fmt_shape(y)}: its width must be odd")
    if _known(x[1]) and _known(y[1]) and y[1] > x[1]:
        ctx.fail(f"Y {fmt_shape(y)} must be no wider than X {fmt_shape(x)}")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_conv_shift(g):
    g.op(
        "conv_shift_grad",
        {"X": g.input("X"), "Y": g.input("Y"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")},
        g.attrs,
    )


register(
    "conv_shift",
    kernel_module="convolution",
    inputs=["X", "Y"],
    outputs=["Out"],
    infer=_infer_conv_shift,
    grad=_grad_conv_shift,
    grad_reads=("X", "Y"),
    structured=Structured(meta=irregular_rules.conv_shift_meta, cpu=cpu_convolution.conv_shift),
    doc="Out[k, i] = sum over j < N of X[k, (i + j - (N - 1) / 2) mod M] * Y[k, j] (the Neural Turing "
    "Machine's circular shift), X [B, M], Y [B, N] with N odd and <= M.",
)
register(
    "conv_shift_grad",
    kernel_module="convolution",
    inputs=["X", "Y", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    infer=grads_like({"X@GRAD": "X", "Y@GRAD": "Y"}),
    structured=Structured(meta=irregular_rules.conv_shift_grad_meta, cpu=cpu_convolution.conv_shift_grad),
)
