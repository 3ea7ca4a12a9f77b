"""linear_interp and linear_interp_v2: X [N, C, W] (data_layout NHWC: [N, W, C]) resized along W by linear
interpolation (what paddle.nn.Upsample / F.interpolate with mode='linear' save). The width from SizeTensor,
else OutSize, else the Scale tensor or `scale` (v2: a list, its last entry W's; a scale makes the source ratio
1 / scale without align_corners), else out_w. Source positions as Paddle 2.6's kernel: ratio * l, or
ratio * (l + 0.5) - 0.5 clamped at 0 when align_mode is 0 without align_corners. The gradient adds Out@GRAD
back with the same weights."""

from ..base.activations import real_number
from ..kernels.cpu import linear_resize as cpu_linear
from ..shapes import image as rules
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, grads_like, is_int, register
from .pointwise_math import QUANT


def _attrs(v2):
    scale = (
        Attr(list, lambda v: all(e >= 0 for e in v), "a list of scales >= 0")
        if v2
        else Attr(0.0, real_number, "a number")
    )
    return {
        "data_layout": Attr("NCHW", choices=("NCHW", "NHWC", "AnyLayout")),
        "out_d": 0,
        "out_h": 0,
        "out_w": Attr(0, is_int, "an int"),
        "scale": scale,
        "interp_method": Attr("bilinear", choices=("linear", "bilinear")),
        "align_corners": Attr(True, choices=(False, True)),
        "align_mode": Attr(1, is_int, "an int"),
        **({} if v2 else {"use_mkldnn": False}),
        **QUANT,
    }


def channels_last(attrs):
    return attrs["data_layout"] == "NHWC"


def _infer(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    if len(x) != 3:
        ctx.fail(f"X {fmt_shape(x)} must be 3-D [N, C, W] (NHWC: [N, W, C])")
    n, c, w = (x[0], x[2], x[1]) if channels_last(a) else x
    scale = (a["scale"][-1] if a["scale"] else 0) if isinstance(a["scale"], list) else a["scale"]
    if ctx.has_input("SizeTensor") or ctx.has_input("OutSize") or ctx.has_input("Scale"):
        out = -1
    elif scale > 0:
        out = int(w * scale) if w >= 0 else -1
    else:
        out = a["out_w"]
    if out == 0 or out < -1:
        ctx.fail(f"the output width {out} must be > 0 (out_w={a['out_w']}, scale={a['scale']})")
    ctx.set_output("Out", [n, out, c] if channels_last(a) else [n, c, out], ctx.dtype("X"))


def _grad_maker(name):
    def grad(g):
        ins = {s: g.input(s) for s in ("X", "OutSize", "SizeTensor", "Scale") if g.input(s)}
        ins["Out@GRAD"] = g.out_grad("Out")
        g.op(f"{name}_grad", ins, {"X@GRAD": g.in_grad("X")}, g.attrs)

    return grad


for _type, _v2 in (("linear_interp", False), ("linear_interp_v2", True)):
    register(
        _type,
        kernel_module="linear_resize",
        inputs=["X", "OutSize?", "SizeTensor*?", "Scale?"],
        outputs=["Out"],
        attrs=_attrs(_v2),
        infer=_infer,
        grad=_grad_maker(_type),
        grad_reads=("X", "OutSize", "SizeTensor", "Scale"),
        doc="Out = X [N, C, W] resized along W by linear interpolation (Paddle 2.6's source positions).",
        structured=Structured(meta=rules.linear_interp_meta, cpu=cpu_linear.linear_interp_out),
    )
    register(
        f"{_type}_grad",
        kernel_module="linear_resize",
        inputs=["X", "OutSize?", "SizeTensor*?", "Scale?", "Out@GRAD"],
        outputs=["X@GRAD"],
        attrs=_attrs(_v2),
        infer=grads_like({"X@GRAD": "X"}),
        no_need_buffer=("X",),
        structured=Structured(meta=rules.linear_interp_grad_meta, cpu=cpu_linear.linear_interp_grad_out),
    )
