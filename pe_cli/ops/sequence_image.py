"""im2sequence: each image's filter-sized patches as a sequence (Fluid's im2sequence): X [N, C, H, W]
-> Out [N * oh * ow, C * kh * kw], one sequence of oh * ow patches per image, each patch's values in
(channel, row, column) order."""

from ..kernels.cpu import sequence_image as cpu_image
from ..shapes import sequence_image as metas
from ..shapes.conv_pool import conv_out_size
from ..shapes.structured import Structured
from .define import Attr, grads_like, register


def _pairs(n):
    return lambda v: isinstance(v, (list, tuple)) and len(v) == n and all(isinstance(a, int) for a in v)


_ATTRS = {
    "kernels": Attr([1, 1], lambda v: _pairs(2)(v) and min(v) > 0, "[kh, kw], both > 0"),
    "strides": Attr([1, 1], lambda v: _pairs(2)(v) and min(v) > 0, "[sh, sw], both > 0"),
    "paddings": Attr([0, 0, 0, 0], lambda v: _pairs(4)(v) and min(v) >= 0, "[up, left, down, right], >= 0"),
    "out_stride": Attr([1, 1], lambda v: _pairs(2)(v) and min(v) > 0, "[sh, sw], both > 0"),
}


def im2sequence_size(x_shape, attrs):
    """(oh, ow): the patches along each side (-1 where the side is unknown)."""
    (kh, kw), (sh, sw), (pu, pl, pd, pr) = attrs["kernels"], attrs["strides"], attrs["paddings"]
    return conv_out_size(x_shape[2], kh, pu, pd, sh, 1), conv_out_size(x_shape[3], kw, pl, pr, sw, 1)


def _infer(ctx):
    x = ctx.input_var("X")
    if x.shape is None or len(x.shape) != 4:
        ctx.fail(f"X {list(x.shape or [])} must be a batch of images [N, C, H, W]")
    oh, ow = im2sequence_size(x.shape, ctx.attrs)
    if (x.shape[2] >= 0 and oh <= 0) or (x.shape[3] >= 0 and ow <= 0):
        ctx.fail(
            f"kernels {ctx.attrs['kernels']} with paddings {ctx.attrs['paddings']} do not fit images "
            f"{list(x.shape[2:])}"
        )
    kh, kw = ctx.attrs["kernels"]
    c = x.shape[1] * kh * kw if x.shape[1] >= 0 else -1
    ctx.set_output("Out", [-1, c], x.dtype, lod_level=1)


def _grad(g):
    ins = {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}
    if g.input("Y"):
        ins["Y"] = g.input("Y")
    g.op("im2sequence_grad", ins, {"X@GRAD": g.in_grad("X")}, g.attrs)


# needs_lod: the executor then carries the LoD the kernel computes (``ctx.set_lod``) though X has none.
register(
    "im2sequence",
    kernel_module="sequence_image",
    structured=Structured(meta=metas.im2sequence_meta, cpu=cpu_image.im2sequence),
    inputs=["X", "Y?"],
    outputs=["Out"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=("X", "Y"),
    lod="drop",
    needs_lod=True,
    doc="Each image's kh x kw patches (stride, zero padding [up, left, down, right]) as one sequence of "
    "oh * ow rows of C * kh * kw values; given Y (each image's real [height, width]), only the "
    "patches that fit its real size divided by out_stride (rounded up), as Fluid's.",
)
register(
    "im2sequence_grad",
    kernel_module="sequence_image",
    structured=Structured(meta=metas.im2sequence_grad_meta, cpu=cpu_image.im2sequence_grad),
    inputs=["X", "Y?", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    lod="drop",
)
