"""Resizing of the image family: nearest_interp, bilinear_interp, trilinear_interp, bicubic_interp and
their ``_v2`` forms. Their kernels are the family's (pe_cli/kernels/<device>/image.py).

The resize ops' output size comes from the OutSize input at run time, else from `scale` (> 0:
int(in * scale)), else from out_d / out_h / out_w. Their Paddle 2.x forms ``*_interp_v2`` (what
``paddle.nn.functional.interpolate`` saves, so such models load in pe) differ in three ways: `scale`
is a list (one per spatial dim), the size may also come from ``SizeTensor`` (one int32 [1] tensor per
dim, first of all) or a ``Scale`` tensor, and a scale > 0 sets the source ratio to 1 / scale rather
than in / out when corners are not aligned."""

from ..base.activations import real_number
from ..kernels.cpu import image_resize as cpu_resize
from ..shapes import image as rules
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, grads_like, is_int, register


# -- resize: nearest_interp, bilinear_interp, trilinear_interp (and _v2) -------------------------------

_SIZES = {4: ("out_h", "out_w"), 5: ("out_d", "out_h", "out_w")}


def spatial_axes(rank, layout):
    """The axes of X's spatial dims (H, W or D, H, W): after N, C in NCHW, after N in NHWC."""
    return tuple(range(2, rank)) if layout == "NCHW" else tuple(range(1, rank - 1))


def _infer_interp(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    rank = 5 if a["interp_method"] == "trilinear" else 4
    if len(x) != rank:
        ctx.fail(f"X {fmt_shape(x)} must be {rank}-D for {a['interp_method']} resizing ({a['data_layout']})")
    axes = spatial_axes(rank, a["data_layout"])
    out = list(x)
    v2 = isinstance(a["scale"], list)
    if ctx.num_inputs("SizeTensor") or ctx.has_input("Scale"):
        for ax in axes:
            out[ax] = -1
    elif ctx.has_input("OutSize"):
        size = ctx.shape("OutSize")
        if size not in ((len(axes),), (-1,)):  # (its dtype, int32, is checked when the op runs)
            ctx.fail(
                f"OutSize must be an int32 tensor of shape [{len(axes)}] (the output's spatial size), got "
                f"{fmt_shape(size)}"
            )
        for ax in axes:
            out[ax] = -1
    else:
        scales = _v2_scales(a["scale"], len(axes)) if v2 else [a["scale"]] * len(axes)
        scaled = all(sc > 0 for sc in scales)
        for ax, key, sc in zip(axes, _SIZES[rank], scales):
            out[ax] = (int(x[ax] * sc) if x[ax] >= 0 else -1) if scaled else a[key]
        if any(out[ax] == 0 or (out[ax] < 0 and x[ax] >= 0) for ax in axes):
            ctx.fail(
                f"the output size {[out[ax] for ax in axes]} of X {fmt_shape(x)} must be positive: give "
                f"{', '.join(_SIZES[rank])}, or a scale > 0"
            )
    ctx.set_output("Out", out, ctx.dtype("X"))


def _v2_scales(scale, n):
    """The per-dim scales of a v2 op's `scale` list: used only when it has one per spatial dim, as
    Paddle does; else none (0)."""
    return [float(v) for v in scale[:n]] if len(scale) >= n else [0.0] * n


def _grad_interp(g):
    ins = {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}
    for slot in ("OutSize", "SizeTensor", "Scale"):
        if g.input(slot):
            ins[slot] = g.input(slot)
    g.op(g.fwd.type + "_grad", ins, {"X@GRAD": g.in_grad("X")}, g.attrs)


def _attrs(v2=False):
    scale = (
        Attr(list, lambda v: all(e >= 0 for e in v), "a list of scales >= 0")
        if v2
        else Attr(0.0, real_number, "a number (> 0: the output is that much X's size)")
    )
    # Fluid's one maker for every resize op: the method by interp_method (bilinear by default; trilinear
    # for 5-D X, the others for 4-D), whichever op type carries it
    return {
        "out_d": 0,
        "out_h": 0,
        "out_w": 0,
        "scale": scale,
        "interp_method": Attr("bilinear", choices=("bilinear", "nearest", "bicubic", "trilinear")),
        "align_corners": Attr(True, choices=(False, True)),
        "align_mode": Attr(1, is_int, "an int (0, or 1 as any other)"),
        # channels first only for NCHW: NHWC and Fluid's AnyLayout are channels last, as in Fluid's kernel
        "data_layout": Attr("NCHW", choices=("NCHW", "NHWC", "AnyLayout")),
    }


for _type, _doc in (
    (
        "nearest_interp",
        "Out[k, l] = X[int(ratio_h * k (+ 0.5 with align_corners)), ...], ratio = (in - 1) / (out - 1) with "
        "align_corners, else in / out.",
    ),
    (
        "bilinear_interp",
        "Out = X interpolated linearly along height and width: the source of out position k is ratio * k, "
        "or ratio * (k + 0.5) - 0.5 (clamped at 0) when align_mode is 0 and not align_corners; ratio = "
        "(in - 1) / (out - 1) with align_corners, else in / out.",
    ),
    (
        "trilinear_interp",
        "Out = X [N, C, D, H, W] interpolated linearly along depth, height and width, each as bilinear_interp "
        "does along height and width.",
    ),
    (
        "bicubic_interp",
        "Out = X interpolated by cubic convolution (A = -0.75) along height and width: the source of out "
        "position k is ratio * k with align_corners, else ratio * (k + 0.5) - 0.5, its four neighbours clamped "
        "to X; align_mode is not used.",
    ),
):
    register(
        _type,
        kernel_module="image",
        kernel="interp",
        inputs=["X", "OutSize?", "SizeTensor*?", "Scale?"],
        outputs=["Out"],
        attrs=_attrs(),
        infer=_infer_interp,
        grad=_grad_interp,
        grad_reads=("OutSize", "SizeTensor", "Scale", "X"),
        run_dtypes={"OutSize": ("int32",)},
        doc=_doc + " (The method is interp_method's, whichever resize op carries it, as in Fluid's kernel.)"
        " The size from SizeTensor (one int tensor per dim), else OutSize, else the Scale tensor or "
        "`scale`, else out_h / out_w. The gradient adds Out@GRAD back with the same weights.",
        structured=Structured(meta=rules.interp_meta, cpu=cpu_resize.interp_out),
    )
    register(
        _type + "_grad",
        kernel_module="image",
        kernel="interp_grad",
        inputs=["X", "OutSize?", "SizeTensor*?", "Scale?", "Out@GRAD"],
        outputs=["X@GRAD"],
        attrs=_attrs(),
        infer=grads_like({"X@GRAD": "X"}),
        structured=Structured(meta=rules.interp_grad_meta, cpu=cpu_resize.interp_grad_out),
    )
    _v2 = _type + "_v2"
    register(
        _v2,
        kernel_module="image",
        kernel="interp",
        inputs=["X", "OutSize?", "SizeTensor*?", "Scale?"],
        outputs=["Out"],
        attrs=_attrs(v2=True),
        infer=_infer_interp,
        grad=_grad_interp,
        grad_reads=("OutSize", "SizeTensor", "Scale", "X"),
        run_dtypes={"OutSize": ("int32",)},
        doc=f"Paddle 2.x's {_type}: the size from SizeTensor, else Scale or the `scale` list (int(in * "
        f"scale)), then OutSize over both; a scale > 0 makes the source ratio 1 / scale. Else as {_type}.",
        structured=Structured(meta=rules.interp_meta, cpu=cpu_resize.interp_out),
    )
    register(
        _v2 + "_grad",
        kernel_module="image",
        kernel="interp_grad",
        inputs=["X", "OutSize?", "SizeTensor*?", "Scale?", "Out@GRAD"],
        outputs=["X@GRAD"],
        attrs=_attrs(v2=True),
        infer=grads_like({"X@GRAD": "X"}),
        structured=Structured(meta=rules.interp_grad_meta, cpu=cpu_resize.interp_grad_out),
    )
