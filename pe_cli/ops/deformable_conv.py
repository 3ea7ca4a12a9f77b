"""deformable_conv (Fluid 1.8): convolution whose taps read the input at learned offsets (bilinear,
zero outside), each tap's value scaled by a mask (v2, the op deformable_conv) or not (v1,
deformable_conv_v1) (kernels in kernels/<device>/deformable_conv.py)."""
from ..shapes import conv_out_size
from .define import Attr, fmt_shape, int_list, is_int, register


def _pair(v):
    return int_list(v) and len(v) == 2


def _infer(ctx):
    x, w, off = ctx.shape("Input"), ctx.shape("Filter"), ctx.shape("Offset")
    a = ctx.attrs
    if len(x) != 4 or len(w) != 4 or len(off) != 4:
        ctx.fail(f"Input {fmt_shape(x)}, Filter {fmt_shape(w)} and Offset {fmt_shape(off)} must be 4-D")
    g, dg = a["groups"], a["deformable_groups"]
    if x[1] >= 0 and (x[1] != w[1] * g or x[1] % dg or w[0] % g):
        ctx.fail(f"Input {fmt_shape(x)} with Filter {fmt_shape(w)}: channels must be Filter's times groups={g}, "
                 f"and divide by deformable_groups={dg}")
    out = [conv_out_size(x[2 + i], w[2 + i], a["paddings"][i], a["paddings"][i], a["strides"][i],
                         a["dilations"][i]) for i in range(2)]
    taps = w[2] * w[3]
    if list(off[2:]) != out and all(d >= 0 for d in list(off[2:]) + out) or (off[1] >= 0 and off[1] != 2 * dg * taps):
        ctx.fail(f"Offset {fmt_shape(off)} must be [N, 2 * deformable_groups * kh * kw = {2 * dg * taps}, "
                 f"{out[0]}, {out[1]}]")
    if ctx.has_input("Mask"):
        m = ctx.shape("Mask")
        if len(m) != 4 or (m[1] >= 0 and m[1] != dg * taps):
            ctx.fail(f"Mask {fmt_shape(m)} must be [N, deformable_groups * kh * kw = {dg * taps}, {out[0]}, {out[1]}]")
    ctx.set_output("Output", [x[0], w[0]] + out, ctx.dtype("Input"))


def _grad(g):
    ins = {s: g.input(s) for s in ("Input", "Offset", "Mask", "Filter") if g.input(s)}
    ins["Output@GRAD"] = g.out_grad("Output")
    outs = {f"{s}@GRAD": g.in_grad(s) for s in ("Input", "Offset", "Mask", "Filter") if g.input(s)}
    g.op(g.fwd.type + "_grad", ins, outs, g.attrs)


def _infer_grad(ctx):
    for slot in ("Input", "Offset", "Mask", "Filter"):
        if ctx.has_output(slot + "@GRAD"):
            ctx.set_output(slot + "@GRAD", ctx.shape(slot), ctx.dtype(slot))


_ATTRS = {"strides": Attr(lambda: [1, 1], _pair, "2 ints"), "paddings": Attr(lambda: [0, 0], _pair, "2 ints"),
          "dilations": Attr(lambda: [1, 1], _pair, "2 ints"), "groups": Attr(1, lambda v: is_int(v) and v > 0, "> 0"),
          "deformable_groups": Attr(1, lambda v: is_int(v) and v > 0, "> 0"), "im2col_step": 64}
for _type, _mask in (("deformable_conv", True), ("deformable_conv_v1", False)):
    _slots = ["Input", "Offset"] + (["Mask"] if _mask else []) + ["Filter"]
    register(_type, kernel_module="deformable_conv", kernel="deformable_conv", inputs=_slots, outputs=["Output"],
             attrs=_ATTRS, infer=_infer, grad=_grad, grad_reads=tuple(sorted(_slots)), lod="drop",
             doc="Output[n, m, y, x] = sum over the taps (i, j) and channels c of Filter[m, c, i, j] * "
                 f"{'Mask * ' if _mask else ''}Input[n, c] sampled bilinearly (zero outside) at "
                 "(y * stride - pad + i * dilation + Offset_h, x * stride - pad + j * dilation + Offset_w), "
                 "Offset holding (h, w) per deformable group and tap.")
    register(_type + "_grad", kernel_module="deformable_conv", kernel="deformable_conv_grad",
             inputs=_slots + ["Output@GRAD"], outputs=[s + "@GRAD?" for s in _slots], attrs=_ATTRS,
             infer=_infer_grad)
