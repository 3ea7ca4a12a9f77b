"""Pooling ops: pool2d (NCHW or NHWC, whose NCHW kernels run between transposes) and pool3d (Fluid 1.8):
max or average pooling over windows, or average pooling over adaptive windows (adaptive=True:
adaptive_pool2d, adaptive_pool3d; max with adaptive=True pools plain ksize windows, as Fluid's kernels
do). Kernels in kernels/<device>/pooling.py; pool2d's, pool3d's and their gradients' are structured (their meta rules in
shapes/pooling.py, their CPU out-kernels in kernels/cpu/pooling.py)."""

from ..shapes.conv_pool import adaptive_size, pool3d_geometry, pool3d_out, pool_geometry, pool_out_size
from .convolution import PADDING_ALGORITHM, as_nchw, _ints, _known, to_layout, layout_attr
from ..kernels.cpu import pooling as cpu_pooling
from ..shapes import pooling as meta_rules
from .define import Attr, Structured, backend_attrs, fmt_shape, grad_of_linear_grad, grads_like, int_list, register


# -- pool2d -----------------------------------------------------------------------------------------

_POOL_ATTRS = {
    "pooling_type": Attr("max", choices=("max", "avg")),
    # (a global pooling ignores ksize and strides: Fluid's layer writes ksize [-1, -1] there; _infer_pool2d
    # wants strides >= 1 otherwise). Fluid's loops clip each window to X whatever ksize and paddings are: a
    # ksize below 1 or a window in the padding is empty (max -FLT_MAX, avg 0 over its size), a negative
    # padding crops (kernels/cpu/pooling.py)
    "ksize": Attr([1, 1], _ints(2, None), "a list of 2 ints"),
    "global_pooling": False,
    "strides": Attr([1, 1], _ints(2, None), "a list of 2 ints"),
    "paddings": Attr([0, 0], _ints(2, None, (2, 4)), "[pad_h, pad_w] or [top, bottom, left, right], ints"),
    "exclusive": True,
    "adaptive": Attr(False, choices=(False, True)),
    "ceil_mode": False,
    "padding_algorithm": PADDING_ALGORITHM,
    "data_format": layout_attr("NCHW"),
    # Fluid's oneDNN and cuDNN kernels' (its plain CPU kernel, as pe's, ignores them)
    **backend_attrs("use_quantizer", "is_test", "use_cudnn", "use_mkldnn"),
}


def _infer_pool2d(ctx):
    a = ctx.attrs
    x = as_nchw(ctx.shape("X"), a)
    if x is None or len(x) != 4:
        ctx.fail(f"X {fmt_shape(x)} must be 4-D {a['data_format']} for pool2d")
    if not a["global_pooling"] and min(a["strides"]) < 1:
        ctx.fail(f"strides {list(a['strides'])} must be >= 1 (but with global_pooling)")
    if a["adaptive"]:  # ksize is the output's size (X's own with global_pooling); windows cover X
        ctx.set_output("Out", to_layout(list(x[:2]) + adaptive_size(a, x[2:]), a), ctx.dtype("X"))
        return
    ksize, strides, pads = pool_geometry(a, x[2:])
    out_hw = [
        pool_out_size(x[2 + i], ksize[i], pads[2 * i], pads[2 * i + 1], strides[i], a["ceil_mode"]) for i in range(2)
    ]
    if not a["global_pooling"]:
        for i in range(2):
            if _known(x[2 + i]) and out_hw[i] <= 0:
                ctx.fail(
                    f"ksize {ksize} with paddings {pads} and strides {strides} leaves no output of X "
                    f"{fmt_shape(x)} (output {out_hw[0]}x{out_hw[1]})"
                )
    ctx.set_output("Out", to_layout(list(x[:2]) + out_hw, a), ctx.dtype("X"))


def _grad_pool2d(g):
    g.op(
        "pool2d_grad",
        {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


def _pool_blocked(op):
    """X and its gradient, together, of a global average pooling (a ResNet's last layer) may be blocked."""
    a = op.attrs
    if not (a["global_pooling"] and a["pooling_type"] == "avg" and not a["adaptive"] and a["data_format"] == "NCHW"):
        return ()
    return (("X", "X@GRAD"),)


register(
    "pool2d",
    kernel_module="pooling",
    grad_reads=("Out", "X"),
    blocked=_pool_blocked,
    traits=("paddle2_semantics",),
    inputs=["X"],
    outputs=["Out"],
    attrs=_POOL_ATTRS,
    infer=_infer_pool2d,
    grad=_grad_pool2d,
    channels_last=("X", "Out"),
    structured=Structured(meta=meta_rules.pool2d_meta, cpu=cpu_pooling.pool2d_out),
    doc="Max or average pooling (NCHW or NHWC) over ksize windows (strides, paddings, ceil_mode, global_pooling); "
    "avg with exclusive=True divides by the number of non-padding elements. adaptive: Out is ksize "
    "big (X's size with global_pooling), window i spanning floor(i * H / ksize) to ceil((i + 1) * H / "
    "ksize) for avg; max pools plain ksize windows at strides from 0 then, as Fluid's kernels do "
    "(max_pool2d_with_index pools max adaptively). Any ksize and paddings pool as Fluid's loops do: "
    "windows clipped to X, an empty one max -FLT_MAX and avg 0 over its size.",
)
register(
    "pool2d_grad",
    kernel_module="pooling",
    inputs=["X", "Out", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_POOL_ATTRS,
    traits=("paddle2_semantics",),
    blocked=_pool_blocked,
    grad=grad_of_linear_grad("pool2d", "X", "Out"),
    infer=grads_like({"X@GRAD": "X"}),
    channels_last=("X", "Out", "Out@GRAD", "X@GRAD"),
    structured=Structured(meta=meta_rules.pool2d_grad_meta, cpu=cpu_pooling.pool2d_grad_out),
    doc="The gradient of pool2d; linear in Out@GRAD, its own gradient is pool2d of what reaches X@GRAD "
    "(Paddle's pool2d_double_grad, exact for average pooling).",
)


def _infer(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    last = a["data_format"] in ("NDHWC", "NHWC")  # (Fluid's rule; kernels/layout.py's)
    if len(x) != 5:
        ctx.fail(f"X {fmt_shape(x)} must be 5-D [N, C, D, H, W] (or NDHWC) for pool3d")
    if last:  # the NCDHW kernels run between transposes (channels_last)
        x = [x[0], x[4], x[1], x[2], x[3]]
    if len(a["ksize"]) != 3 or len(a["strides"]) != 3 or len(a["paddings"]) not in (3, 6):
        ctx.fail(f"ksize {list(a['ksize'])} and strides {list(a['strides'])} need 3 entries, paddings 3 or 6")
    if not a["global_pooling"] and min(a["strides"]) < 1:
        ctx.fail(f"strides {list(a['strides'])} must be >= 1 (but with global_pooling)")
    out = pool3d_out(a, x[2:])
    ksize, _, pads = pool3d_geometry(a, x[2:]) if not a["adaptive"] else (a["ksize"], None, [0] * 6)
    for i in range(3):  # any ksize and paddings: Fluid's loops clip the windows (pool2d's)
        if x[2 + i] >= 0 and out[i] <= 0:
            ctx.fail(f"ksize {list(ksize)} with paddings {pads} leaves no output of X {fmt_shape(x)} (output {out})")
    ctx.set_output("Out", [x[0]] + out + [x[1]] if last else list(x[:2]) + out, ctx.dtype("X"))


def _grad(g):
    g.op(
        "pool3d_grad",
        {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


def _three(v):
    return int_list(v) and len(v) == 3


_ATTRS = {
    "pooling_type": Attr("max", choices=("max", "avg")),
    "ksize": Attr(lambda: [1, 1, 1], _three, "3 ints"),
    "global_pooling": False,  # (>= 1 but global: _infer)
    "strides": Attr(lambda: [1, 1, 1], _three, "3 ints"),
    "paddings": Attr(lambda: [0, 0, 0], int_list, "ints"),
    "exclusive": True,
    "adaptive": Attr(False, choices=(False, True)),
    "ceil_mode": False,
    "padding_algorithm": PADDING_ALGORITHM,
    "data_format": layout_attr("NCDHW", 3),
    **backend_attrs("use_cudnn", "use_mkldnn"),
}
register(
    "pool3d",
    kernel_module="pooling",
    inputs=["X"],
    outputs=["Out"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    traits=("paddle2_semantics",),
    grad_reads=("Out", "X"),
    channels_last=("X", "Out"),
    structured=Structured(meta=meta_rules.pool3d_meta, cpu=cpu_pooling.pool3d_out),
    doc="Max or average pooling over ksize windows of [N, C, D, H, W] (strides, paddings, ceil_mode, "
    "global_pooling); avg with exclusive divides by the window's elements inside X, else by the "
    "ksize volume. adaptive: Out is ksize big, window i spanning floor(i * n / k) to "
    "ceil((i + 1) * n / k) for avg (max: plain ksize windows at strides from 0, as Fluid's kernels). Max's gradient goes to the window's first maximum (row-major). NDHWC "
    "(data_format) runs the NCDHW kernels between transposes.",
)
register(
    "pool3d_grad",
    kernel_module="pooling",
    inputs=["X", "Out", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_ATTRS,
    traits=("paddle2_semantics",),
    infer=grads_like({"X@GRAD": "X"}),
    channels_last=("X", "Out", "Out@GRAD", "X@GRAD"),
    structured=Structured(meta=meta_rules.pool3d_grad_meta, cpu=cpu_pooling.pool3d_grad_out),
)


# -- spp (Fluid 1.8): spatial pyramid pooling ---------------------------------------------------------


def _infer_spp(ctx):
    x, height = ctx.shape("X"), ctx.attrs["pyramid_height"]
    if len(x) != 4:
        ctx.fail(f"X {fmt_shape(x)} must be [N, C, H, W]")
    bins = sum(4**p for p in range(height))
    ctx.set_output("Out", [x[0], x[1] * bins if x[1] >= 0 else -1], ctx.dtype("X"))


def _grad_spp(g):
    g.op(
        "spp_grad",
        {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


_SPP_ATTRS = {
    "pyramid_height": Attr(1, lambda v: isinstance(v, int) and v >= 1, "an int >= 1"),
    "pooling_type": Attr("max", choices=("max", "avg")),
}
register(
    "spp",
    kernel_module="pooling",
    inputs=["X"],
    outputs=["Out"],
    attrs=_SPP_ATTRS,
    infer=_infer_spp,
    grad=_grad_spp,
    grad_reads=("X", "Out"),
    lod="drop",
    structured=Structured(meta=meta_rules.spp_meta, cpu=cpu_pooling.spp),
    doc="Spatial pyramid pooling: for each level p < pyramid_height, X [N, C, H, W] max- or avg-pooled "
    "(padding excluded) into 2^p x 2^p bins (windows ceil(H / 2^p) wide, as many strides apart, "
    "padded by (window * 2^p - H + 1) / 2), flattened to [N, C * 4^p]; Out joins the levels along dim 1.",
)
register(
    "spp_grad",
    kernel_module="pooling",
    inputs=["X", "Out", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_SPP_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.spp_grad_meta, cpu=cpu_pooling.spp_grad),
)
