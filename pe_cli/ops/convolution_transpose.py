"""conv2d_transpose and depthwise_conv2d_transpose of the convolution family (Fluid 1.8): the gradient of
conv2d with respect to its input, so their kernels are conv2d's with the roles swapped (the forward is
conv2d_grad_input, the input gradient conv2d and the filter gradient conv2d_grad_filter), NCHW or NHWC.
Their kernels are the family's (pe_cli/kernels/<device>/convolution.py)."""

from ..shapes.conv_pool import conv_transpose_geometry, transpose_channel_mismatch
from .convolution import DILATIONS, PADDING_ALGORITHM, PADDINGS, as_nchw, _known, to_layout, layout_attr
from ..kernels.cpu import conv2d_transpose as cpu_transpose
from ..shapes import conv2d_transpose as transpose_rules
from .define import Attr, Structured, backend_attrs, fmt_shape, grads_like, register


# -- conv2d_transpose: conv2d's input gradient, so its kernels are conv2d's with the roles swapped --------


def _transpose_ints(n, lo, counts=None):
    def ok(v):
        return (
            isinstance(v, (list, tuple))
            and len(v) in (counts or (n,))
            and all(isinstance(i, int) and i >= lo for i in v)
        )

    return ok


_TRANSPOSE_ATTRS = {
    "strides": Attr([1, 1], _transpose_ints(2, 1), "a list of 2 ints >= 1"),
    "paddings": PADDINGS,
    "dilations": DILATIONS,
    "groups": Attr(1, lambda v: isinstance(v, int) and v >= 1, "an int >= 1"),
    "output_size": Attr(
        list,
        lambda v: isinstance(v, (list, tuple)) and len(v) in (0, 2) and all(isinstance(i, int) and i >= 1 for i in v),
        "[] or [out_h, out_w], ints >= 1",
    ),
    "padding_algorithm": PADDING_ALGORITHM,
    "is_test": False,  # Fluid 1.8 has it (for MKL-DNN); it changes nothing here
    "data_format": layout_attr("NCHW"),
    "output_padding": Attr(
        list,
        lambda v: isinstance(v, (list, tuple)) and len(v) in (0, 2) and all(isinstance(i, int) and i >= 0 for i in v),
        "[] or 2 ints >= 0",
    ),
    **backend_attrs(
        "fuse_relu", "fuse_activation", "fuse_alpha", "fuse_beta", "workspace_size_MB", "use_cudnn", "use_mkldnn"
    ),
}


def _infer_transpose(ctx):
    a = ctx.attrs
    x, w = as_nchw(ctx.shape("Input"), a), ctx.shape("Filter")
    if x is None or len(x) != 4:
        ctx.fail(f"Input {fmt_shape(x)} must be 4-D {a['data_format']}")
    if w is None or len(w) != 4:
        ctx.fail(f"Filter {fmt_shape(w)} must be 4-D [C_in, C_out/groups, kh, kw] for Input {fmt_shape(x)}")
    if ctx.dtype("Input") != ctx.dtype("Filter"):
        ctx.fail(f"Input is {ctx.dtype('Input')} but Filter is {ctx.dtype('Filter')}")
    if error := transpose_channel_mismatch(x, w):
        ctx.fail(error)
    if _known(w[0]) and w[0] < a["groups"]:  # fewer than C_in // groups * groups take part (Fluid's kernel)
        ctx.fail(f"groups={a['groups']} is more than the {w[0]} input channels of Filter {fmt_shape(w)}")
    _, _, out_hw, error = conv_transpose_geometry(x, w, a, check_size=False)  # (output_size: the kernels')
    if error:
        ctx.fail(error)
    out_c = w[1] * a["groups"] if _known(w[1]) else -1
    ctx.set_output("Output", to_layout([x[0], out_c] + out_hw, a), ctx.dtype("Input"))


def _grad_transpose(type_):
    """Fluid's one grad op (conv2d_transpose_grad, ...): the gradients of Input and Filter that are wanted."""

    def grad(g):
        ins = {"Input": g.input("Input"), "Filter": g.input("Filter"), "Output@GRAD": g.out_grad("Output")}
        g.op(f"{type_}_grad", ins, {"Input@GRAD": g.in_grad("Input"), "Filter@GRAD": g.in_grad("Filter")}, g.attrs)

    return grad


# depthwise_conv2d_transpose (what Fluid's layer builds for groups == channels == num_filters without
# cuDNN) is served by conv2d_transpose's kernels; NHWC runs them between transposes (kernels/layout.py)
for _type in ("conv2d_transpose", "depthwise_conv2d_transpose"):
    register(
        _type,
        kernel_module="convolution",
        kernel="conv2d_transpose",
        inputs=["Input", "Filter", "Bias?"],
        outputs=["Output"],
        attrs=_TRANSPOSE_ATTRS,
        infer=_infer_transpose,
        grad=_grad_transpose(_type),
        grad_reads=("Filter", "Input"),
        channels_last=("Input", "Output"),
        structured=Structured(meta=transpose_rules.conv2d_transpose_meta, cpu=cpu_transpose.conv2d_transpose_out),
        doc="Output = the transposed convolution of Input [N, C_in, H, W] (or NHWC) with Filter [C_in, "
        "C_out/groups, kh, kw]: each input pixel adds Filter's taps, scaled by it, at stride spacing "
        "(less paddings), which is conv2d's input gradient; Output is [N, C_out, (H - 1) * stride - "
        "pads + dilation * (kh - 1) + 1, ...] or output_size. As Fluid's plain CPU kernel, it ignores the "
        "Bias input and the attributes of Fluid's oneDNN and cuDNN kernels (fuse_*, workspace_size_MB).",
    )
    register(
        f"{_type}_grad",
        kernel_module="convolution",
        kernel="conv2d_transpose_grad",
        inputs=["Input", "Filter", "Output@GRAD"],
        outputs=["Input@GRAD?", "Filter@GRAD?"],
        attrs=_TRANSPOSE_ATTRS,
        infer=grads_like({"Input@GRAD": "Input", "Filter@GRAD": "Filter"}),
        traits=("optional_outputs",),
        channels_last=("Input", "Output@GRAD", "Input@GRAD"),
        structured=Structured(
            meta=transpose_rules.conv2d_transpose_grad_meta, cpu=cpu_transpose.conv2d_transpose_grad_out
        ),
    )
    # (each half of it, as pe wrote them in programs it saved before)
    register(
        f"{_type}_grad_input",
        kernel_module="convolution",
        kernel="conv2d_transpose_grad_input",
        inputs=["Input", "Filter", "Output@GRAD"],
        outputs=["Input@GRAD"],
        attrs=_TRANSPOSE_ATTRS,
        infer=grads_like({"Input@GRAD": "Input"}),
        channels_last=("Input", "Output@GRAD", "Input@GRAD"),
        structured=Structured(
            meta=transpose_rules.conv2d_transpose_grad_input_meta, cpu=cpu_transpose.conv2d_transpose_grad_out
        ),
    )
    register(
        f"{_type}_grad_filter",
        kernel_module="convolution",
        kernel="conv2d_transpose_grad_filter",
        inputs=["Input", "Filter", "Output@GRAD"],
        outputs=["Filter@GRAD"],
        attrs=_TRANSPOSE_ATTRS,
        infer=grads_like({"Filter@GRAD": "Filter"}),
        channels_last=("Input", "Output@GRAD"),
        structured=Structured(
            meta=transpose_rules.conv2d_transpose_grad_filter_meta, cpu=cpu_transpose.conv2d_transpose_grad_out
        ),
    )
