"""Image resizing of Fluid 1.8: nearest_interp and bilinear_interp (kernels in
kernels/<device>/resize.py). The output size comes from the OutSize input at run time, else from
`scale` (> 0: int(in * scale)), else from out_h / out_w."""
from .registry import Attr, fmt_shape, grads_like, register


def _hw_axes(layout):
    return (2, 3) if layout == "NCHW" else (1, 2)


def _infer_interp(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    if len(x) != 4:
        ctx.fail(f"X {fmt_shape(x)} must be 4-D ({a['data_layout']})")
    h, w = _hw_axes(a["data_layout"])
    out = list(x)
    if ctx.has_input("OutSize"):
        size = ctx.shape("OutSize")
        if ctx.dtype("OutSize") != "int32" or size not in ((2,), (-1,)):
            ctx.fail(f"OutSize must be an int32 tensor of shape [2] ([out_h, out_w]), got "
                     f"{ctx.dtype('OutSize')} {fmt_shape(size)}")
        out[h] = out[w] = -1
    elif a["scale"] > 0:
        out[h] = int(x[h] * a["scale"]) if x[h] >= 0 else -1
        out[w] = int(x[w] * a["scale"]) if x[w] >= 0 else -1
    else:
        out[h], out[w] = a["out_h"], a["out_w"]
    if any(0 <= d < 1 for d in (out[h], out[w])) or (out[h] < 0 and not ctx.has_input("OutSize") and x[h] >= 0):
        ctx.fail(f"the output size {out[h]}x{out[w]} of X {fmt_shape(x)} must be positive: give out_h and out_w, "
                 f"or a scale > 0")
    ctx.set_output("Out", out, ctx.dtype("X"))


def _grad_interp(g):
    ins = {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}
    if g.input("OutSize"):
        ins["OutSize"] = g.input("OutSize")
    g.op(g.fwd.type + "_grad", ins, {"X@GRAD": g.in_grad("X")}, g.attrs)


def _attrs(method):
    return {"out_d": -1, "out_h": -1, "out_w": -1, "scale": Attr(0.0, lambda v: v >= 0, ">= 0"),
            "interp_method": Attr(method, choices=(method,)), "align_corners": Attr(True, choices=(False, True)),
            "align_mode": Attr(1, choices=(0, 1)), "data_layout": Attr("NCHW", choices=("NCHW", "NHWC"))}


for _type, _method, _doc in (
        ("nearest_interp", "nearest",
         "Out[k, l] = X[int(ratio_h * k (+ 0.5 with align_corners)), ...], ratio = (in - 1) / (out - 1) with "
         "align_corners, else in / out."),
        ("bilinear_interp", "bilinear",
         "Out = X interpolated linearly along height and width: the source of out position k is ratio * k, "
         "or ratio * (k + 0.5) - 0.5 (clamped at 0) when align_mode is 0 and not align_corners; ratio = "
         "(in - 1) / (out - 1) with align_corners, else in / out.")):
    register(_type, kernel_module="resize", kernel="interp", inputs=["X", "OutSize?"], outputs=["Out"],
             attrs=_attrs(_method), infer=_infer_interp, grad=_grad_interp, grad_reads=("OutSize", "X"),
             doc=_doc + " The gradient adds Out@GRAD back with the same weights.")
    register(_type + "_grad", kernel_module="resize", kernel="interp_grad", inputs=["X", "OutSize?", "Out@GRAD"],
             outputs=["X@GRAD"], attrs=_attrs(_method), infer=grads_like({"X@GRAD": "X"}))
