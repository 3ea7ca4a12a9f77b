"""3-D convolution (Fluid 1.8's conv3d and conv3d_transpose; kernels in kernels/<device>/convolution3d.py):
NCDHW, or NDHWC with the NCDHW kernels run between transposes (``channels_last``), Filter [M, C/groups,
kd, kh, kw] in both; groups, strides, dilations, and paddings explicit (3 or 6 ints) or Fluid's
``padding_algorithm`` SAME / VALID. conv3d_transpose is conv3d's input gradient: its forward is that
gradient's computation, its input gradient conv3d, its filter gradient conv3d's with the roles swapped.
Each has one grad op computing the gradients asked for (Input@GRAD, Filter@GRAD), as Fluid's."""

from ..base.dims import fmt_shape, is_known
from ..shapes.conv_pool import conv_mismatch, conv_out_size, conv_paddings, transpose_channel_mismatch
from .convolution import PADDING_ALGORITHM, _ints, layout_attr
from ..kernels.cpu import convolution3d as cpu_conv3d
from ..shapes import convolution3d as conv3d_rules
from .define import Attr, Structured, backend_attrs, grad_of_bilinear_grad, register


_ATTRS = {
    "strides": Attr([1, 1, 1], _ints(3, 1), "a list of 3 ints >= 1"),
    # any signs, as Fluid's vol2col reads them (conv2d's PADDINGS and DILATIONS)
    "paddings": Attr([0, 0, 0], _ints(3, None, (3, 6)), "a list of 3 or 6 ints (< 0 crops)"),
    "dilations": Attr([1, 1, 1], _ints(3, None, at_least=True), "a list of 3 (or more: the first 3 read) ints"),
    "groups": Attr(1, lambda v: isinstance(v, int) and v >= 1, "an int >= 1"),
    "padding_algorithm": PADDING_ALGORITHM,
    # Fluid's conv3d_transpose layer writes NCHW / NHWC for 5-D values
    "data_format": layout_attr("NCDHW", 3),
    **backend_attrs(
        "is_test",
        "fuse_relu",
        "fuse_activation",
        "fuse_alpha",
        "fuse_beta",
        "fuse_residual_connection",
        "force_fp32_output",
        "workspace_size_MB",
        "exhaustive_search",
        "use_cudnn",
        "use_mkldnn",
    ),
}
_LAST = ("NDHWC", "NHWC")
# Fluid's conv3d_transpose declares data_format NCHW (channels first) by default; NHWC given to the op is channels
# last (Paddle 2.6's op tests give it: test_conv3d_transpose_op.py's NHWC cases)
_TRANSPOSE_ATTRS = dict(
    _ATTRS,
    output_size=Attr([], _ints(3, 1, (0, 3)), "[] or 3 ints >= 1"),
    data_format=Attr("NCHW", choices=("NCHW", "NHWC", "NCDHW", "NDHWC", "AnyLayout")),
)


def geometry(x_shape, w_shape, attrs):
    """(paddings [d0, d1, h0, h1, w0, w1], dilations) of a 3-D convolution of Input ``x_shape`` (NCDHW)
    by Filter ``w_shape``, under its padding_algorithm."""
    return conv_paddings(
        attrs["paddings"], attrs["padding_algorithm"], x_shape[2:], w_shape[2:], attrs["strides"], attrs["dilations"]
    )


def _ncdhw(shape, a):
    last = a["data_format"] in _LAST and shape is not None and len(shape) == 5
    return [shape[0], shape[4], shape[1], shape[2], shape[3]] if last else list(shape or [])


def _layout(shape, a):
    return [shape[0], shape[2], shape[3], shape[4], shape[1]] if a["data_format"] in _LAST else shape


def _check(ctx, x, w):
    if len(x) != 5 or len(w) != 5:
        ctx.fail(
            f"Input {fmt_shape(x)} and Filter {fmt_shape(w)} must be 5-D ({ctx.attrs['data_format']}; "
            f"Filter [M, C/groups, kd, kh, kw])"
        )
    if ctx.dtype("Input") != ctx.dtype("Filter"):
        ctx.fail(f"Input is {ctx.dtype('Input')} but Filter is {ctx.dtype('Filter')}")


def _infer_conv3d(ctx):
    a = ctx.attrs
    x, w = _ncdhw(ctx.shape("Input"), a), list(ctx.shape("Filter") or [])
    _check(ctx, x, w)
    pads, dil = geometry(x, w, a)
    out = [conv_out_size(x[2 + i], w[2 + i], pads[2 * i], pads[2 * i + 1], a["strides"][i], dil[i]) for i in range(3)]
    if error := conv_mismatch(x, w, a["groups"], pads, dil, out):
        ctx.fail(error)
    ctx.set_output("Output", _layout([x[0], w[0]] + out, a), ctx.dtype("Input"))


def transpose_out(x, w, a, check_size=True):
    """conv3d_transpose's output size per spatial dim (-1 unknown), or an error string (output_size checked
    with ``check_size``: Fluid checks it when the op runs)."""
    pads, dil = geometry(x, w, a)
    out, sizes = [], list(a["output_size"] or [])
    for i in range(3):
        if not is_known([x[2 + i]]):
            out.append(sizes[i] if sizes else -1)
            continue
        least = (x[2 + i] - 1) * a["strides"][i] - pads[2 * i] - pads[2 * i + 1] + dil[i] * (w[2 + i] - 1) + 1
        if check_size and sizes and not least <= sizes[i] < least + a["strides"][i]:
            return f"output_size {sizes} must be in [{least}, {least + a['strides'][i]}) along dim {2 + i}"
        if least <= 0:
            return f"Filter {fmt_shape(w)} (paddings {pads}) leaves no output for Input {fmt_shape(x)}"
        out.append(sizes[i] if sizes else least)
    return out


def _infer_transpose(ctx):
    a = ctx.attrs
    x, w = _ncdhw(ctx.shape("Input"), a), list(ctx.shape("Filter") or [])
    _check(ctx, x, w)
    if error := transpose_channel_mismatch(x, w):
        ctx.fail(error)
    out = transpose_out(x, w, a, check_size=ctx.is_runtime)
    if isinstance(out, str):
        ctx.fail(out)
    ctx.set_output("Output", _layout([x[0], w[1] * a["groups"]] + out, a), ctx.dtype("Input"))


def _grad(type_):
    def grad(g):
        g.op(
            f"{type_}_grad",
            {"Input": g.input("Input"), "Filter": g.input("Filter"), "Output@GRAD": g.out_grad("Output")},
            {"Input@GRAD": g.in_grad("Input"), "Filter@GRAD": g.in_grad("Filter")},
            g.attrs,
        )

    return grad


def _infer_grad(ctx):
    for slot in ("Input", "Filter"):
        ctx.set_output(slot + "@GRAD", ctx.shape(slot), ctx.dtype(slot))


# their structured kernels: meta rules (shapes/convolution3d.py) and CPU out-kernels (kernels/cpu/convolution3d.py)
_STRUCTURED = {
    "conv3d": Structured(meta=conv3d_rules.conv3d_meta, cpu=cpu_conv3d.CONV3D),
    "conv3d_grad": Structured(meta=conv3d_rules.conv3d_grad_meta, cpu=cpu_conv3d.CONV3D_GRAD),
    "conv3d_transpose": Structured(meta=conv3d_rules.conv3d_transpose_meta, cpu=cpu_conv3d.CONV3D_TRANSPOSE),
    "conv3d_transpose_grad": Structured(
        meta=conv3d_rules.conv3d_transpose_grad_meta, cpu=cpu_conv3d.CONV3D_TRANSPOSE_GRAD
    ),
}
for _type, _attrs, _infer, _doc in (
    (
        "conv3d",
        _ATTRS,
        _infer_conv3d,
        "Output[n, m] = sum over the channels c of group(m) of Input[n, c] correlated with Filter[m, c] "
        "(strides, paddings, dilations) in D, H and W. As Fluid's plain CPU kernel, it ignores the ResidualData "
        "input and the attributes of Fluid's oneDNN and cuDNN kernels (fuse_*, force_fp32_output, "
        "workspace_size_MB, exhaustive_search).",
    ),
    (
        "conv3d_transpose",
        _TRANSPOSE_ATTRS,
        _infer_transpose,
        "The gradient of conv3d with respect to its input: Input [N, C, D, H, W] spread through Filter "
        "[C, M/groups, kd, kh, kw] into Output [N, M, Do, Ho, Wo], Do = (D - 1) stride - pads + dilation "
        "(kd - 1) + 1, or output_size within [that, that + stride).",
    ),
):
    register(
        _type,
        kernel_module="convolution3d",
        inputs=["Input", "Filter"] + (["ResidualData?"] if _type == "conv3d" else []),
        outputs=["Output"],
        attrs=_attrs,
        infer=_infer,
        grad=_grad(_type),
        grad_reads=("Filter", "Input"),
        channels_last=("Input", "Output"),
        run_infer=_type == "conv3d_transpose",
        doc=_doc,
        structured=_STRUCTURED[_type],
    )
    register(
        f"{_type}_grad",
        kernel_module="convolution3d",
        inputs=["Input", "Filter", "Output@GRAD"],
        outputs=["Input@GRAD?", "Filter@GRAD?"],
        attrs=_attrs,
        infer=_infer_grad,
        grad=grad_of_bilinear_grad(
            _type, "Input", "Filter", "Output", {"Input": f"{_type}_grad", "Filter": f"{_type}_grad"}
        )
        if _type == "conv3d"
        else None,
        traits=("optional_outputs",),
        channels_last=("Input", "Output@GRAD", "Input@GRAD"),
        structured=_STRUCTURED[f"{_type}_grad"],
    )
