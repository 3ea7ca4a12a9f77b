"""conv2d_transpose of Fluid 1.8 (kernels in kernels/<device>/conv_transpose.py): the gradient of
conv2d with respect to its input, so its kernels are conv2d's, with the roles swapped: its forward
is conv2d_grad_input, its input gradient conv2d and its filter gradient conv2d_grad_filter."""
from ..shapes import conv_transpose_geometry
from .define import Attr, fmt_shape, grads_like, register


def _ints(n, lo, counts=None):
    def ok(v):
        return isinstance(v, (list, tuple)) and len(v) in (counts or (n,)) and \
            all(isinstance(i, int) and i >= lo for i in v)
    return ok


def _known(d):
    return d is not None and d >= 0


_ATTRS = {
    "strides": Attr([1, 1], _ints(2, 1), "a list of 2 ints >= 1"),
    "paddings": Attr([0, 0], _ints(2, 0, (2, 4)), "[pad_h, pad_w] or [top, bottom, left, right], ints >= 0"),
    "dilations": Attr([1, 1], _ints(2, 1), "a list of 2 ints >= 1"),
    "groups": Attr(1, lambda v: isinstance(v, int) and v >= 1, "an int >= 1"),
    "output_size": Attr(list, lambda v: isinstance(v, (list, tuple)) and len(v) in (0, 2) and
                        all(isinstance(i, int) and i >= 1 for i in v), "[] or [out_h, out_w], ints >= 1"),
    "padding_algorithm": Attr("EXPLICIT", choices=("EXPLICIT", "SAME", "VALID")),
    "data_format": Attr("NCHW", choices=("NCHW", "AnyLayout")),
    "output_padding": Attr(list, lambda v: isinstance(v, (list, tuple)) and len(v) in (0, 2) and
                           all(isinstance(i, int) and i >= 0 for i in v), "[] or 2 ints >= 0"),
    "use_cudnn": True,
    # Fluid's fused activation (MKL-DNN): only its "none" values, so saved Fluid models load
    "fuse_relu": Attr(False, choices=(False,)),
    "fuse_activation": Attr("", choices=("",)),
    "fuse_alpha": 0.0,
    "fuse_beta": 0.0,
}


def _infer(ctx):
    x, w, a = ctx.shape("Input"), ctx.shape("Filter"), ctx.attrs
    if x is None or len(x) != 4:
        ctx.fail(f"Input {fmt_shape(x)} must be 4-D NCHW [N, C, H, W]")
    if w is None or len(w) != 4:
        ctx.fail(f"Filter {fmt_shape(w)} must be 4-D [C_in, C_out/groups, kh, kw] for Input {fmt_shape(x)}")
    if ctx.dtype("Input") != ctx.dtype("Filter"):
        ctx.fail(f"Input is {ctx.dtype('Input')} but Filter is {ctx.dtype('Filter')}")
    if _known(x[1]) and _known(w[0]) and x[1] != w[0]:
        ctx.fail(f"Input {fmt_shape(x)} has {x[1]} channels but Filter {fmt_shape(w)} is for {w[0]}")
    if _known(w[0]) and w[0] % a["groups"]:
        ctx.fail(f"groups={a['groups']} must divide the {w[0]} input channels of Filter {fmt_shape(w)}")
    _, _, out_hw, error = conv_transpose_geometry(x, w, a)
    if error:
        ctx.fail(error)
    out_c = w[1] * a["groups"] if _known(w[1]) else -1
    ctx.set_output("Output", [x[0], out_c] + out_hw, ctx.dtype("Input"))


def _grad(g):
    ins = {"Input": g.input("Input"), "Filter": g.input("Filter"), "Output@GRAD": g.out_grad("Output")}
    if g.needs("Input"):
        g.op("conv2d_transpose_grad_input", ins, {"Input@GRAD": g.in_grad("Input")}, g.attrs)
    if g.needs("Filter"):
        g.op("conv2d_transpose_grad_filter", ins, {"Filter@GRAD": g.in_grad("Filter")}, g.attrs)


register("conv2d_transpose", kernel_module="conv_transpose", inputs=["Input", "Filter"], outputs=["Output"],
         attrs=_ATTRS, infer=_infer, grad=_grad, grad_reads=("Filter", "Input"),
         doc="Output = the transposed convolution of Input [N, C_in, H, W] with Filter [C_in, C_out/groups, "
             "kh, kw]: each input pixel adds Filter's taps, scaled by it, at stride spacing (less paddings), "
             "which is conv2d's input gradient; Output is [N, C_out, (H - 1) * stride - pads + dilation * "
             "(kh - 1) + 1, ...] or output_size.")
register("conv2d_transpose_grad_input", kernel_module="conv_transpose", inputs=["Input", "Filter", "Output@GRAD"],
         outputs=["Input@GRAD"], attrs=_ATTRS, infer=grads_like({"Input@GRAD": "Input"}))
register("conv2d_transpose_grad_filter", kernel_module="conv_transpose", inputs=["Input", "Filter", "Output@GRAD"],
         outputs=["Filter@GRAD"], attrs=_ATTRS, infer=grads_like({"Filter@GRAD": "Filter"}))
