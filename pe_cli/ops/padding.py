"""Padding and cropping ops of Fluid 1.8: pad, pad2d, pad_constant_like, crop, crop_tensor, and
Paddle 2.x's pad3d (meta rules in shapes/padding.py, kernels in kernels/<device>/padding.py)."""

from ..kernels.cpu import padding as cpu_padding
from ..shapes import padding as metas
from ..shapes.manipulation import crop_window
from ..shapes.padding import padding_mismatch
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, grad_of, grad_of_linear_grad, grads_like, int_list, register


def _nonneg_list(v):
    return int_list(v) and all(p >= 0 for p in v)


# -- pad ------------------------------------------------------------------------------------------


def _infer_pad(ctx):
    x, pads = ctx.shape("X"), list(ctx.attrs["paddings"])
    if len(pads) != 2 * len(x):
        ctx.fail(f"paddings={pads} needs 2 entries (before, after) per dim of X {fmt_shape(x)}")
    out = [d + pads[2 * i] + pads[2 * i + 1] if d >= 0 else -1 for i, d in enumerate(x)]
    ctx.set_output("Out", out, ctx.dtype("X"))


_PAD_ATTRS = {"paddings": Attr(list, _nonneg_list, "a list of ints >= 0"), "pad_value": 0.0}
register(
    "pad",
    kernel_module="padding",
    inputs=["X"],
    outputs=["Out"],
    attrs=_PAD_ATTRS,
    infer=_infer_pad,
    grad=grad_of("pad_grad", ("X",)),
    grad_reads=("X",),
    doc="Out = X with paddings[2i] values before and paddings[2i+1] after it along each dim i, all "
    "pad_value. The gradient is Out@GRAD's window over X.",
    structured=Structured(meta=metas.pad_meta, cpu=cpu_padding.PAD),
)
register(
    "pad_grad",
    kernel_module="padding",
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_PAD_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    grad=grad_of_linear_grad("pad", "X", "Out"),
    doc="The gradient of pad; linear in Out@GRAD, its own gradient is pad of what reaches X@GRAD "
    "(Paddle's pad double grad).",
    structured=Structured(meta=metas.pad_grad_meta, cpu=cpu_padding.PAD_GRAD),
)


# -- pad2d ---------------------------------------------------------------------------------------


def _infer_pad2d(ctx):
    x, pads = ctx.shape("X"), list(ctx.attrs["paddings"])
    if len(x) != 4:
        ctx.fail(f"X {fmt_shape(x)} must be 4-D ({ctx.attrs['data_format']})")
    if ctx.has_input("Paddings"):  # given at run time: the height and width are known then
        h, w = (2, 3) if ctx.attrs["data_format"] == "NCHW" else (1, 2)
        ctx.set_output("Out", [-1 if i in (h, w) else d for i, d in enumerate(x)], ctx.dtype("X"))
        return
    if len(pads) != 4:
        ctx.fail(f"paddings={pads} must be [top, bottom, left, right]")
    h, w = (2, 3) if ctx.attrs["data_format"] == "NCHW" else (1, 2)
    if error := padding_mismatch(pads, [x[h], x[w]], [(pads[0], pads[1]), (pads[2], pads[3])], ctx.attrs["mode"]):
        ctx.fail(error)
    out = list(x)
    out[h] = x[h] + pads[0] + pads[1] if x[h] >= 0 else -1
    out[w] = x[w] + pads[2] + pads[3] if x[w] >= 0 else -1
    ctx.set_output("Out", out, ctx.dtype("X"))


def _grad_pad2d(g):
    pads = {"Paddings": g.input("Paddings")} if g.input("Paddings") else {}
    g.op("pad2d_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out"), **pads}, {"X@GRAD": g.in_grad("X")}, g.attrs)


# Fluid's kernel reads mode and data_format unchecked (reflect, edge, else constant; NCHW, else channels
# last), its layer writes only these values, which pe takes (another is refused: no default is guessed);
# a negative padding crops (checked at run time against the Paddings tensor)
_PAD2D_ATTRS = {
    "paddings": Attr(lambda: [0, 0, 0, 0], int_list, "[top, bottom, left, right], ints (< 0 crops)"),
    "mode": Attr("constant", choices=("constant", "reflect", "edge")),
    "pad_value": 0.0,
    "data_format": Attr("NCHW", choices=("NCHW", "NHWC")),
}
register(
    "pad2d",
    kernel_module="padding",
    inputs=["X", "Paddings?"],
    outputs=["Out"],
    attrs=_PAD2D_ATTRS,
    infer=_infer_pad2d,
    grad=_grad_pad2d,
    grad_reads=("X", "Paddings"),
    attr_tensors={"Paddings": "paddings"},
    doc="Out = the images of X padded by [top, bottom, left, right]: with pad_value (constant, or any "
    "mode other than reflect and edge, as Fluid's kernel), their mirror without the edge (reflect) or "
    "the edge repeated (edge); a negative padding crops. data_format NCHW, any other value channels "
    "last (Fluid's). The gradient sums Out@GRAD back onto the pixels each padded one copies. Fluid "
    "1.8's Paddings, an int32 [4] tensor, gives the paddings at run time.",
    structured=Structured(meta=metas.pad2d_meta, cpu=cpu_padding.PAD_ND),
)
register(
    "pad2d_grad",
    kernel_module="padding",
    inputs=["X", "Out@GRAD", "Paddings?"],
    outputs=["X@GRAD"],
    attrs=_PAD2D_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    attr_tensors={"Paddings": "paddings"},
    structured=Structured(meta=metas.pad2d_grad_meta, cpu=cpu_padding.PAD_ND_GRAD),
)


# -- pad3d (Paddle 2.x, so models paddle.nn.Pad3D / F.pad saved load in pe) -----------------------


def _infer_pad3d(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    if len(x) != 5:
        ctx.fail(f"X {fmt_shape(x)} must be 5-D ({a['data_format']})")
    axes = (2, 3, 4) if a["data_format"] == "NCDHW" else (1, 2, 3)
    out = list(x)
    if ctx.has_input("Paddings"):
        for ax in axes:
            out[ax] = -1
    else:
        pads = list(a["paddings"])
        if len(pads) != 6:
            ctx.fail(f"paddings={pads} must be [left, right, top, bottom, front, back]")
        pairs = ((pads[4], pads[5]), (pads[2], pads[3]), (pads[0], pads[1]))
        if error := padding_mismatch(pads, [x[ax] for ax in axes], pairs, a["mode"]):
            ctx.fail(error)
        for ax, (before, after) in zip(axes, pairs):
            out[ax] = x[ax] + before + after if x[ax] >= 0 else -1
    ctx.set_output("Out", out, ctx.dtype("X"))


def _grad_pad3d(g):
    ins = {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}
    if g.input("Paddings"):
        ins["Paddings"] = g.input("Paddings")
    g.op("pad3d_grad", ins, {"X@GRAD": g.in_grad("X")}, g.attrs)


_PAD3D_ATTRS = {
    "paddings": Attr(lambda: [0] * 6, _nonneg_list, "[left, right, top, bottom, front, back], ints >= 0"),
    "mode": Attr("constant", choices=("constant", "reflect", "replicate", "circular")),
    "value": 0.0,
    "data_format": Attr("NCDHW", choices=("NCDHW", "NDHWC")),
}
register(
    "pad3d",
    kernel_module="padding",
    inputs=["X", "Paddings?"],
    outputs=["Out"],
    attrs=_PAD3D_ATTRS,
    infer=_infer_pad3d,
    grad=_grad_pad3d,
    grad_reads=("X", "Paddings"),
    attr_tensors={"Paddings": "paddings"},
    doc="Out = the volumes of X padded by [left, right, top, bottom, front, back] (the Paddings tensor, "
    "when given, at run time): with value (constant), their mirror without the edge (reflect), the "
    "edge repeated (replicate) or X wrapped around (circular). The gradient sums Out@GRAD back "
    "onto the elements each padded one copies.",
    structured=Structured(meta=metas.pad3d_meta, cpu=cpu_padding.PAD_ND),
)
register(
    "pad3d_grad",
    kernel_module="padding",
    inputs=["X", "Paddings?", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_PAD3D_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    attr_tensors={"Paddings": "paddings"},
    structured=Structured(meta=metas.pad3d_grad_meta, cpu=cpu_padding.PAD_ND_GRAD),
)


# -- pad_constant_like ----------------------------------------------------------------------------


def _infer_pad_like(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if len(x) != len(y) or any(a >= 0 and b >= 0 and b > a for a, b in zip(x, y)):
        ctx.fail(f"Y {fmt_shape(y)} must have X's rank and fit inside X {fmt_shape(x)}")
    ctx.set_output("Out", x, ctx.dtype("Y"))


def _grad_pad_like(g):
    g.op("pad_constant_like_grad", {"Y": g.input("Y"), "Out@GRAD": g.out_grad("Out")}, {"Y@GRAD": g.in_grad("Y")})


register(
    "pad_constant_like",
    kernel_module="padding",
    inputs=["X", "Y"],
    outputs=["Out"],
    attrs={"pad_value": 0.0},
    infer=_infer_pad_like,
    grad=_grad_pad_like,
    grad_reads=("Y",),
    doc="Out = Y padded with pad_value at the end of each dim up to X's shape. No gradient flows to X.",
    structured=Structured(meta=metas.pad_constant_like_meta, cpu=cpu_padding.PAD_LIKE),
)
register(
    "pad_constant_like_grad",
    kernel_module="padding",
    inputs=["Y", "Out@GRAD"],
    outputs=["Y@GRAD"],
    infer=grads_like({"Y@GRAD": "Y"}),
    structured=Structured(meta=metas.pad_constant_like_grad_meta, cpu=cpu_padding.PAD_LIKE_GRAD),
)


# -- crop, crop_tensor ----------------------------------------------------------------------------

# crop_tensor's shape and offsets given at run time (Fluid 1.8's): a whole-list int tensor (Shape,
# Offsets) or one int [1] tensor per dim (ShapeTensor, OffsetsTensor)
_CROP_FROM = {"Shape": "shape", "ShapeTensor": "shape", "Offsets": "offsets", "OffsetsTensor": "offsets"}


def _infer_crop(ctx):
    x = ctx.shape("X")
    given = {attr for slot, attr in _CROP_FROM.items() if ctx.has_input(slot)}
    if given and ctx.has_input("Y"):  # crop's Offsets: the window has Y's shape
        ctx.set_output("Out", list(ctx.shape("Y")), ctx.dtype("X"))
        return
    if given:  # the window comes at run time: the shape's known sizes, -1 for the rest
        shape = [] if "shape" in given else list(ctx.attrs["shape"])
        out = [n if n > 0 else -1 for n in shape] if len(shape) == len(x) else [-1] * len(x)
        ctx.set_output("Out", out, ctx.dtype("X"))
        return
    shape = list(ctx.shape("Y")) if ctx.has_input("Y") else list(ctx.attrs["shape"])
    if ctx.op.type == "crop_tensor":  # a size <= 0 in the attribute: X's dim less the offset (Fluid's)
        shape = [n if n > 0 else -1 for n in shape]
    window, error = crop_window(x, shape, ctx.attrs["offsets"])
    if error:
        ctx.fail(f"cannot crop X {fmt_shape(x)}: {error}")
    ctx.set_output("Out", window[1], ctx.dtype("X"))


def _grad_crop(op_type):
    def grad(g):
        ins = {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}
        ins.update({slot: g.input(slot) for slot in ("Y",) + tuple(_CROP_FROM) if g.input(slot)})
        g.op(op_type, ins, {"X@GRAD": g.in_grad("X")}, g.attrs)

    return grad


_CROP_ATTRS = {
    "shape": Attr(list, int_list, "a list of ints (-1: X's dim less the offset)"),
    "offsets": Attr(list, int_list, "a list of ints >= 0"),
}
register(
    "crop",
    kernel_module="padding",
    inputs=["X", "Y?", "Offsets?"],
    outputs=["Out"],
    attrs=_CROP_ATTRS,
    infer=_infer_crop,
    grad=_grad_crop("crop_grad"),
    grad_reads=("X", "Y", "Offsets"),
    attr_tensors={"Offsets": "offsets"},
    doc="Out = the window of X at `offsets` (default 0; or given at run time by Offsets, an int tensor) "
    "of `shape`, or of Y's shape when Y is given (-1 in shape: X's dim less its offset). The "
    "gradient is Out@GRAD placed back in zeros.",
    structured=Structured(meta=metas.crop_meta, cpu=cpu_padding.CROP),
)
register(
    "crop_grad",
    kernel_module="padding",
    inputs=["X", "Y?", "Out@GRAD", "Offsets?"],
    outputs=["X@GRAD"],
    attrs=_CROP_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    attr_tensors={"Offsets": "offsets"},
    structured=Structured(meta=metas.crop_grad_meta, cpu=cpu_padding.CROP_GRAD),
)
_CROP_SLOTS = ["Shape?", "ShapeTensor*?", "Offsets?", "OffsetsTensor*?"]
register(
    "crop_tensor",
    kernel_module="padding",
    inputs=["X"] + _CROP_SLOTS,
    outputs=["Out"],
    attrs=_CROP_ATTRS,
    infer=_infer_crop,
    grad=_grad_crop("crop_tensor_grad"),
    grad_reads=("X",) + tuple(_CROP_FROM),
    attr_tensors=_CROP_FROM,
    doc="Out = the window of X at `offsets` (default 0) of `shape` (-1, or any size <= 0 of the "
    "attribute: X's dim less its offset); "
    "Fluid 1.8's Shape / Offsets (int tensors of the lists) or ShapeTensor / OffsetsTensor (one "
    "int [1] tensor per dim) give them at run time.",
    structured=Structured(meta=metas.crop_tensor_meta, cpu=cpu_padding.CROP),
)
register(
    "crop_tensor_grad",
    kernel_module="padding",
    inputs=["X", "Out@GRAD"] + _CROP_SLOTS,
    outputs=["X@GRAD"],
    attrs=_CROP_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    attr_tensors=_CROP_FROM,
    structured=Structured(meta=metas.crop_tensor_grad_meta, cpu=cpu_padding.CROP_GRAD),
)
