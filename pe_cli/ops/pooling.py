"""pool3d (Fluid 1.8): max or average pooling over [N, C, D, H, W] windows, or adaptive windows
(adaptive_pool3d) (kernels in kernels/<device>/pool3d.py)."""
from ..shapes import pool3d_geometry, pool3d_out
from .registry import Attr, fmt_shape, grads_like, int_list, register


def _infer(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    if len(x) != 5:
        ctx.fail(f"X {fmt_shape(x)} must be 5-D [N, C, D, H, W] for pool3d")
    if len(a["ksize"]) != 3 or len(a["strides"]) != 3 or len(a["paddings"]) not in (3, 6):
        ctx.fail(f"ksize {list(a['ksize'])} and strides {list(a['strides'])} need 3 entries, paddings 3 or 6")
    out = pool3d_out(a, x[2:])
    ksize, _, pads = pool3d_geometry(a, x[2:]) if not a["adaptive"] else (a["ksize"], None, [0] * 6)
    for i in range(3):
        if x[2 + i] >= 0 and (out[i] <= 0 or pads[2 * i] >= ksize[i] or pads[2 * i + 1] >= ksize[i]):
            ctx.fail(f"ksize {list(ksize)} with paddings {pads} does not fit X {fmt_shape(x)} (output {out}; "
                     f"each padding must be < ksize)")
    ctx.set_output("Out", list(x[:2]) + out, ctx.dtype("X"))


def _grad(g):
    g.op("pool3d_grad", {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X")}, g.attrs)


def _positive3(v):
    return int_list(v) and len(v) == 3 and all(k > 0 for k in v)


_ATTRS = {"pooling_type": Attr("max", choices=("max", "avg")),
          "ksize": Attr(lambda: [1, 1, 1], _positive3, "3 ints > 0"), "global_pooling": False,
          "strides": Attr(lambda: [1, 1, 1], _positive3, "3 ints > 0"),
          "paddings": Attr(lambda: [0, 0, 0], lambda v: int_list(v) and all(p >= 0 for p in v), "ints >= 0"),
          "exclusive": True, "adaptive": Attr(False, choices=(False, True)), "ceil_mode": False,
          "padding_algorithm": Attr("EXPLICIT", choices=("EXPLICIT", "SAME", "VALID")),
          "data_format": Attr("NCDHW", choices=("NCDHW", "AnyLayout")), "use_cudnn": True}
register("pool3d", kernel_module="pool3d", inputs=["X"], outputs=["Out"], attrs=_ATTRS, infer=_infer, grad=_grad,
         grad_reads=("Out", "X"),
         doc="Max or average pooling over ksize windows of [N, C, D, H, W] (strides, paddings, ceil_mode, "
             "global_pooling); avg with exclusive divides by the window's elements inside X, else by the "
             "ksize volume. adaptive: Out is ksize big, window i spanning floor(i * n / k) to "
             "ceil((i + 1) * n / k). Max's gradient goes to the window's first maximum (row-major).")
register("pool3d_grad", kernel_module="pool3d", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"], attrs=_ATTRS,
         infer=grads_like({"X@GRAD": "X"}))
