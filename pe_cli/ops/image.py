"""Image ops of Fluid 1.8 (kernels in kernels/<device>/image.py): on 4-D feature maps pixel_shuffle,
space_to_depth, shuffle_channel (each a fixed permutation of the elements) and similarity_focus;
resizing (nearest_interp, bilinear_interp, trilinear_interp, bicubic_interp and their ``_v2`` forms); and the spatial
transformer's affine_grid (sampling grids from affine transforms) and grid_sampler (bilinear
sampling of images at grid points); unfold (im2col: each sliding block of a feature map as a column).

The resize ops are registered in image_resize.py."""

from ..kernels.cpu import image as cpu_image
from ..shapes import image as rules
from ..shapes.conv_pool import unfold_blocks
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, grad_of, grads_like, int_list, is_int, register

POS_INT = Attr(None, lambda v: is_int(v) and v > 0, "an int > 0")


def four_d(ctx, slot="X"):
    x = ctx.shape(slot)
    if len(x) != 4:
        ctx.fail(f"{slot} {fmt_shape(x)} must be 4-D [N, C, H, W]")
    return list(x)


def divides(ctx, x, dim, by, what):
    if x[dim] >= 0 and x[dim] % by:
        ctx.fail(f"X {fmt_shape(x)}: its dim {dim} ({x[dim]}) must be a multiple of {what}")


def _mul(d, k):
    return d * k if d >= 0 else -1


def div(d, k):
    return d // k if d >= 0 else -1


def _register_permutation(name, attr, infer, doc, default, long=False, layouts=False):
    """An op that moves X's elements to fixed places (its grad op moves them back); ``attr`` (Fluid's
    ``default``) sizes the blocks; ``layouts``: Paddle 2.x's ``data_format`` (NHWC: X and Out channels last,
    transposed around the NCHW kernel, kernels/layout.py)."""

    attrs = {attr: Attr(default, POS_INT.check, POS_INT.expect, long=long)}
    if layouts:
        attrs["data_format"] = Attr("NCHW", choices=("NCHW", "NHWC"), fill=False)
    last = ("X", "Out") if layouts else ()
    register(
        name,
        kernel_module="image",
        inputs=["X"],
        outputs=["Out"],
        attrs=attrs,
        infer=infer,
        grad=grad_of(f"{name}_grad", ("X",)),
        grad_reads=("X",),
        doc=doc,
        channels_last=last,
        structured=Structured(meta=rules.permutation_meta(name), cpu=cpu_image.permutation_out),
    )
    register(
        f"{name}_grad",
        kernel_module="image",
        inputs=["X", "Out@GRAD"],
        outputs=["X@GRAD"],
        attrs=attrs,
        infer=grads_like({"X@GRAD": "X"}),
        channels_last=("X", "Out@GRAD", "X@GRAD") if layouts else (),
        structured=Structured(meta=rules.permutation_grad_meta(name), cpu=cpu_image.permutation_grad_out),
    )


def _infer_pixel_shuffle(ctx):
    x, r = four_d(ctx), ctx.attrs["upscale_factor"]
    nhwc = ctx.attrs.get("data_format") == "NHWC"
    if nhwc:
        x = [x[0], x[3], x[1], x[2]]
    divides(ctx, x, 1, r * r, f"upscale_factor^2 = {r * r}")
    out = [x[0], div(x[1], r * r), _mul(x[2], r), _mul(x[3], r)]
    ctx.set_output("Out", [out[0], out[2], out[3], out[1]] if nhwc else out, ctx.dtype("X"))


_register_permutation(
    "pixel_shuffle",
    "upscale_factor",
    _infer_pixel_shuffle,
    "Out[n, c, h*r + i, w*r + j] = X[n, c*r*r + i*r + j, h, w], r = upscale_factor: "
    "[N, C*r^2, H, W] -> [N, C, H*r, W*r]; Paddle 2.x's data_format NHWC: the same on "
    "[N, H, W, C*r^2] -> [N, H*r, W*r, C].",
    1,
    layouts=True,
)


def _infer_space_to_depth(ctx):
    x, b = four_d(ctx), ctx.attrs["blocksize"]
    divides(ctx, x, 1, b * b, f"blocksize^2 = {b * b}")
    divides(ctx, x, 2, b, f"blocksize = {b}")
    divides(ctx, x, 3, b, f"blocksize = {b}")
    ctx.set_output("Out", [x[0], _mul(x[1], b * b), div(x[2], b), div(x[3], b)], ctx.dtype("X"))


_register_permutation(
    "space_to_depth",
    "blocksize",
    _infer_space_to_depth,
    "[N, C, H, W] -> [N, C*b^2, H/b, W/b] with Fluid's (Darknet's reorg) element order: "
    "X seen as [N, b, b, C/b^2, H, W] is transposed to [N, C/b^2, H, b, W, b] and read flat.",
    2,
    long=True,
)


def _infer_shuffle_channel(ctx):
    x = four_d(ctx)
    divides(ctx, x, 1, ctx.attrs["group"], f"group = {ctx.attrs['group']}")
    ctx.set_output("Out", x, ctx.dtype("X"))


_register_permutation(
    "shuffle_channel",
    "group",
    _infer_shuffle_channel,
    "Out = X's channels regrouped: [N, g, C/g, H, W] transposed to [N, C/g, g, H, W].",
    1,
)


# -- similarity_focus ------------------------------------------------------------------------------


def _infer_similarity_focus(ctx):
    x, axis, indexes = four_d(ctx), ctx.attrs["axis"], list(ctx.attrs["indexes"])
    if axis not in (1, 2, 3):
        ctx.fail(f"axis={axis} must be 1, 2 or 3")
    if not indexes or any(i < 0 or (x[axis] >= 0 and i >= x[axis]) for i in indexes):
        ctx.fail(f"indexes={indexes} must be a non-empty list of positions along axis {axis} of X {fmt_shape(x)}")
    ctx.set_output("Out", x, ctx.dtype("X"))


register(
    "similarity_focus",
    kernel_module="image",
    inputs=["X"],
    outputs=["Out"],
    infer=_infer_similarity_focus,
    attrs={
        "axis": Attr(1, is_int, "1, 2 or 3"),
        "indexes": Attr(list, lambda v: all(is_int(i) for i in v), "a list of ints"),
    },
    lod="drop",
    doc="Out = a 0/1 mask like X: for each sample and each index along `axis`, the slice there (a 2-D "
    "map) gives its largest values one at a time, skipping any in a row or column already taken, "
    "until every row or every column has one; each taken (row, column) is set to 1 through the "
    "whole `axis`. No gradient.",
    structured=Structured(meta=rules.similarity_focus_meta, cpu=cpu_image.similarity_focus_out),
)


# -- affine_grid, grid_sampler -----------------------------------------------------------------------


def _infer_affine_grid(ctx):
    theta = ctx.shape("Theta")
    if len(theta) != 3 or tuple(theta[1:]) != (2, 3):
        ctx.fail(f"Theta {fmt_shape(theta)} must be [N, 2, 3]")
    if ctx.has_input("OutputShape"):
        ctx.set_output("Output", [theta[0], -1, -1, 2], ctx.dtype("Theta"))
        return
    shape = list(ctx.attrs["output_shape"])
    if len(shape) != 4 or min(shape[2:]) <= 0:
        ctx.fail(f"output_shape={shape} must be [N, C, H, W] with H, W > 0 (or give OutputShape)")
    ctx.set_output("Output", [theta[0], shape[2], shape[3], 2], ctx.dtype("Theta"))


def _grad_affine_grid(g):
    ins = {"Theta": g.input("Theta"), "Output@GRAD": g.out_grad("Output")}
    if g.input("OutputShape"):
        ins["OutputShape"] = g.input("OutputShape")
    g.op("affine_grid_grad", ins, {"Theta@GRAD": g.in_grad("Theta")}, g.attrs)


_AG_ATTRS = {
    "output_shape": Attr(list, int_list, "[N, C, H, W]"),
    "use_cudnn": True,
    "align_corners": Attr(True, choices=(False, True)),
}
register(
    "affine_grid",
    kernel_module="image",
    inputs=["Theta", "OutputShape?"],
    outputs=["Output"],
    attrs=_AG_ATTRS,
    infer=_infer_affine_grid,
    grad=_grad_affine_grid,
    grad_reads=("OutputShape", "Theta"),
    lod="drop",
    doc="Output[n, h, w] = Theta[n] @ (x_w, y_h, 1): the points of an H x W grid spanning [-1, 1] "
    "(align_corners; else the pixel centres), moved by each affine Theta [2, 3]; the size is "
    "output_shape [N, C, H, W] or the int32 OutputShape input at run time.",
    structured=Structured(meta=rules.affine_grid_meta, cpu=cpu_image.affine_grid_out),
)
register(
    "affine_grid_grad",
    kernel_module="image",
    inputs=["Theta", "OutputShape?", "Output@GRAD"],
    outputs=["Theta@GRAD"],
    attrs=_AG_ATTRS,
    infer=grads_like({"Theta@GRAD": "Theta"}),
    structured=Structured(meta=rules.affine_grid_grad_meta, cpu=cpu_image.affine_grid_grad_out),
)


def _infer_grid_sampler(ctx):
    x, grid = ctx.shape("X"), ctx.shape("Grid")
    # (Fluid compares the batches when it runs; and Grid's H_out, W_out with X's H, W, where pe takes others)
    if len(x) != 4 or len(grid) != 4 or grid[3] not in (2, -1) or (ctx.is_runtime and x[0] != grid[0]):
        ctx.fail(f"X {fmt_shape(x)} must be [N, C, H, W] and Grid {fmt_shape(grid)} [N, H_out, W_out, 2]")
    if ctx.dtype("Grid") != ctx.dtype("X"):
        ctx.fail(f"Grid is {ctx.dtype('Grid')} but X is {ctx.dtype('X')}")
    ctx.set_output("Output", [x[0], x[1], grid[1], grid[2]], ctx.dtype("X"))


def _grad_grid_sampler(g):
    g.op(
        "grid_sampler_grad",
        {"X": g.input("X"), "Grid": g.input("Grid"), "Output@GRAD": g.out_grad("Output")},
        {"X@GRAD": g.in_grad("X"), "Grid@GRAD": g.in_grad("Grid")},
        g.attrs,
    )


_GS_ATTRS = {
    "use_cudnn": True,
    "align_corners": Attr(True, choices=(False, True)),
    "mode": Attr("bilinear", choices=("bilinear", "nearest")),
    "padding_mode": Attr("zeros", choices=("zeros", "border", "reflection")),
}
register(
    "grid_sampler",
    kernel_module="image",
    inputs=["X", "Grid"],
    outputs=["Output"],
    attrs=_GS_ATTRS,
    run_infer=True,
    infer=_infer_grid_sampler,
    grad=_grad_grid_sampler,
    grad_reads=("Grid", "X"),
    lod="drop",
    doc="Output[n, c, h, w] = X[n, c] sampled bilinearly (or at the nearest pixel, ties away from 0: mode "
    "nearest) at Grid[n, h, w] = (x, y) in [-1, 1] (-1: the first pixel, 1: the last, with align_corners as "
    "Fluid 1.8; else pixel edges); padding_mode zeros: neighbours outside X count as 0; border: the point "
    "clipped into X; reflection: mirrored about X's edges, then clipped. Gradients flow to X and Grid "
    "(nearest: Grid's is 0).",
    structured=Structured(meta=rules.grid_sampler_meta, cpu=cpu_image.GRID_SAMPLER),
)
register(
    "grid_sampler_grad",
    kernel_module="image",
    inputs=["X", "Grid", "Output@GRAD"],
    outputs=["X@GRAD?", "Grid@GRAD?"],
    attrs=_GS_ATTRS,
    infer=grads_like({"X@GRAD": "X", "Grid@GRAD": "Grid"}),
    structured=Structured(meta=rules.grid_sampler_grad_meta, cpu=cpu_image.grid_sampler_grad_out),
)


# -- unfold (im2col) ---------------------------------------------------------------------------------


def _infer_unfold(ctx):
    x, a = four_d(ctx), ctx.attrs
    # paddings and dilations of any sign, as Fluid's im2col reads them (a tap outside X reads 0); a kernel
    # size below 1 leaves its columns unwritten in Fluid, strides below 1 divide by them
    for key, n, lo in (("kernel_sizes", 2, 1), ("strides", 2, 1), ("paddings", 4, None), ("dilations", 2, None)):
        if len(a[key]) != n or (lo is not None and min(a[key]) < lo):
            ctx.fail(f"{key}={a[key]} must be {n} ints" + (f", each >= {lo}" if lo is not None else ""))
    oh, ow = unfold_blocks(x, a)
    if oh == 0 or ow == 0 or min(oh, ow) < -1:
        ctx.fail(
            f"X {fmt_shape(x)} with kernel_sizes {a['kernel_sizes']}, paddings {a['paddings']} and dilations "
            f"{a['dilations']} leaves no sliding block; the padded input must hold one kernel"
        )
    kh, kw = a["kernel_sizes"]
    blocks = oh * ow if oh > 0 and ow > 0 else -1
    ctx.set_output("Y", [x[0], x[1] * kh * kw if x[1] >= 0 else -1, blocks], ctx.dtype("X"))


_UNFOLD_ATTRS = {
    "kernel_sizes": Attr([3, 3], int_list, "2 ints"),
    "strides": Attr([1, 1], int_list, "2 ints"),
    "paddings": Attr([0, 0, 0, 0], int_list, "4 ints"),
    "dilations": Attr([1, 1], int_list, "2 ints"),
}
register(
    "unfold",
    kernel_module="image",
    inputs=["X"],
    outputs=["Y"],
    attrs=_UNFOLD_ATTRS,
    infer=_infer_unfold,
    grad=grad_of("unfold_grad", ("X",), out_grads=("Y",)),
    grad_reads=("X",),
    lod="drop",
    doc="Y [N, C * kh * kw, L]: each of the L = out_h * out_w sliding kh x kw blocks of X [N, C, H, W] (padded "
    "by paddings: up, left, down, right; its taps dilations apart, blocks strides apart) as a column, "
    "in the order (channel, kernel row, kernel column); any signs of paddings and dilations read as "
    "Fluid's im2col reads them (0 outside X). The gradient adds each column back (col2im).",
    structured=Structured(meta=rules.unfold_meta, cpu=cpu_image.unfold_out),
)
register(
    "unfold_grad",
    kernel_module="image",
    inputs=["X", "Y@GRAD"],
    outputs=["X@GRAD"],
    attrs=_UNFOLD_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=rules.unfold_grad_meta, cpu=cpu_image.unfold_grad_out),
)


# -- fsp (Fluid 1.8's op behind layers.fsp_matrix) ----------------------------------------------------


def _infer_fsp(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if len(x) != 4 or len(y) != 4:
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must be [N, C, H, W]")
    if any(a >= 0 and b >= 0 and a != b for a, b in zip(x[2:], y[2:])):
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must have the same height and width")
    ctx.set_output("Out", [x[0], x[1], y[1]], ctx.dtype("X"))


def _grad_fsp(g):
    g.op(
        "fsp_grad",
        {"X": g.input("X"), "Y": g.input("Y"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")},
        g.attrs,
    )


register(
    "fsp",
    kernel_module="image",
    inputs=["X", "Y"],
    outputs=["Out"],
    infer=_infer_fsp,
    grad=_grad_fsp,
    grad_reads=("X", "Y"),
    lod="drop",
    doc="The flow of solution procedure matrix: Out[n, i, j] = the mean over the H * W pixels of "
    "X[n, i] * Y[n, j], X [N, C1, H, W], Y [N, C2, H, W], Out [N, C1, C2].",
    structured=Structured(meta=rules.fsp_meta, cpu=cpu_image.FSP),
)
register(
    "fsp_grad",
    kernel_module="image",
    inputs=["X", "Y", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    infer=grads_like({"X@GRAD": "X", "Y@GRAD": "Y"}),
    structured=Structured(meta=rules.fsp_grad_meta, cpu=cpu_image.fsp_grad_out),
)
