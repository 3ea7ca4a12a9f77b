"""Image ops of Fluid 1.8 (4-D feature maps): pixel_shuffle, space_to_depth, shuffle_channel (each a
fixed permutation of the elements), affine_channel, maxout, lrn (kernels in
kernels/<device>/image_extra.py)."""
from .registry import Attr, fmt_shape, grads_like, is_int, register

_POS_INT = Attr(None, lambda v: is_int(v) and v > 0, "an int > 0")


def _four_d(ctx, slot="X"):
    x = ctx.shape(slot)
    if len(x) != 4:
        ctx.fail(f"{slot} {fmt_shape(x)} must be 4-D [N, C, H, W]")
    return list(x)


def _divides(ctx, x, dim, by, what):
    if x[dim] >= 0 and x[dim] % by:
        ctx.fail(f"X {fmt_shape(x)}: its dim {dim} ({x[dim]}) must be a multiple of {what}")


def _mul(d, k):
    return d * k if d >= 0 else -1


def _div(d, k):
    return d // k if d >= 0 else -1


def _register_permutation(name, attr, infer, doc):
    """An op that moves X's elements to fixed places (its grad op moves them back)."""
    def grad(g):
        g.op(f"{name}_grad", {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")}, g.attrs)

    attrs = {attr: _POS_INT}
    register(name, kernel_module="image_extra", inputs=["X"], outputs=["Out"], attrs=attrs, infer=infer, grad=grad,
             grad_reads=("X",), doc=doc)
    register(f"{name}_grad", kernel_module="image_extra", inputs=["X", "Out@GRAD"], outputs=["X@GRAD"],
             attrs=attrs, infer=grads_like({"X@GRAD": "X"}))


def _infer_pixel_shuffle(ctx):
    x, r = _four_d(ctx), ctx.attrs["upscale_factor"]
    _divides(ctx, x, 1, r * r, f"upscale_factor^2 = {r * r}")
    ctx.set_output("Out", [x[0], _div(x[1], r * r), _mul(x[2], r), _mul(x[3], r)], ctx.dtype("X"))


_register_permutation("pixel_shuffle", "upscale_factor", _infer_pixel_shuffle,
                      "Out[n, c, h*r + i, w*r + j] = X[n, c*r*r + i*r + j, h, w], r = upscale_factor: "
                      "[N, C*r^2, H, W] -> [N, C, H*r, W*r].")


def _infer_space_to_depth(ctx):
    x, b = _four_d(ctx), ctx.attrs["blocksize"]
    _divides(ctx, x, 1, b * b, f"blocksize^2 = {b * b}")
    _divides(ctx, x, 2, b, f"blocksize = {b}")
    _divides(ctx, x, 3, b, f"blocksize = {b}")
    ctx.set_output("Out", [x[0], _mul(x[1], b * b), _div(x[2], b), _div(x[3], b)], ctx.dtype("X"))


_register_permutation("space_to_depth", "blocksize", _infer_space_to_depth,
                      "[N, C, H, W] -> [N, C*b^2, H/b, W/b] with Fluid's (Darknet's reorg) element order: "
                      "X seen as [N, b, b, C/b^2, H, W] is transposed to [N, C/b^2, H, b, W, b] and read flat.")


def _infer_shuffle_channel(ctx):
    x = _four_d(ctx)
    _divides(ctx, x, 1, ctx.attrs["group"], f"group = {ctx.attrs['group']}")
    ctx.set_output("Out", x, ctx.dtype("X"))


_register_permutation("shuffle_channel", "group", _infer_shuffle_channel,
                      "Out = X's channels regrouped: [N, g, C/g, H, W] transposed to [N, C/g, g, H, W].")


# -- affine_channel -------------------------------------------------------------------------------

def _channel_axis(ctx):
    return 1 if ctx.attrs["data_layout"] == "NCHW" else len(ctx.shape("X")) - 1


def _infer_affine_channel(ctx):
    x = ctx.shape("X")
    if len(x) < 2:
        ctx.fail(f"X {fmt_shape(x)} needs a channel dim")
    c = x[_channel_axis(ctx)]
    for slot in ("Scale", "Bias"):
        s = ctx.shape(slot)
        if len(s) != 1 or (s[0] >= 0 and c >= 0 and s[0] != c):
            ctx.fail(f"{slot} {fmt_shape(s)} must be [{c}], one value per channel of X {fmt_shape(x)}")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_affine_channel(g):
    g.op("affine_channel_grad", {"X": g.input("X"), "Scale": g.input("Scale"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X"), "Scale@GRAD": g.in_grad("Scale"), "Bias@GRAD": g.in_grad("Bias")}, g.attrs)


_AC_ATTRS = {"data_layout": Attr("NCHW", choices=("NCHW", "NHWC", "AnyLayout"))}
register("affine_channel", kernel_module="image_extra", inputs=["X", "Scale", "Bias"], outputs=["Out"],
         attrs=_AC_ATTRS, infer=_infer_affine_channel, grad=_grad_affine_channel, grad_reads=("Scale", "X"),
         doc="Out = X * Scale[c] + Bias[c] per channel c (dim 1 in NCHW, the last in NHWC).")
register("affine_channel_grad", kernel_module="image_extra", inputs=["X", "Scale", "Out@GRAD"],
         outputs=["X@GRAD?", "Scale@GRAD?", "Bias@GRAD?"], attrs=_AC_ATTRS,
         infer=grads_like({"X@GRAD": "X", "Scale@GRAD": "Scale", "Bias@GRAD": "Scale"}))


# -- maxout, lrn ----------------------------------------------------------------------------------

def _infer_maxout(ctx):
    x, g, axis = _four_d(ctx), ctx.attrs["groups"], ctx.attrs["axis"]
    if axis not in (1, -1, 3):
        ctx.fail(f"axis={axis} must be 1 (NCHW) or -1 / 3 (NHWC)")
    axis %= 4
    _divides(ctx, x, axis, g, f"groups = {g}")
    out = list(x)
    out[axis] = _div(x[axis], g)
    ctx.set_output("Out", out, ctx.dtype("X"))


def _grad_maxout(g):
    g.op("maxout_grad", {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X")}, g.attrs)


_MAXOUT_ATTRS = {"groups": _POS_INT, "axis": Attr(1, is_int, "1 or -1")}
register("maxout", kernel_module="image_extra", inputs=["X"], outputs=["Out"], attrs=_MAXOUT_ATTRS,
         infer=_infer_maxout, grad=_grad_maxout, grad_reads=("Out", "X"),
         doc="Out[.., c, ..] = max over k < groups of X[.., c*groups + k, ..] along the channel `axis`; "
             "the gradient goes to the first maximum.")
register("maxout_grad", kernel_module="image_extra", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"],
         attrs=_MAXOUT_ATTRS, infer=grads_like({"X@GRAD": "X"}))


def _infer_lrn(ctx):
    x = _four_d(ctx)
    ctx.set_output("Out", x, ctx.dtype("X"))
    ctx.set_output("MidOut", x, ctx.dtype("X"))


def _grad_lrn(g):
    g.op("lrn_grad", {"X": g.input("X"), "Out": g.output("Out"), "MidOut": g.output("MidOut"),
                      "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")}, g.attrs)


_LRN_ATTRS = {"n": Attr(5, lambda v: is_int(v) and v > 0, "an int > 0"), "k": 2.0, "alpha": 1e-4, "beta": 0.75,
              "is_test": False,
              "data_format": Attr("AnyLayout", choices=("NCHW", "NHWC", "AnyLayout"))}
register("lrn", kernel_module="image_extra", inputs=["X"], outputs=["Out", "MidOut"], attrs=_LRN_ATTRS,
         infer=_infer_lrn, grad=_grad_lrn, grad_reads=("MidOut", "Out", "X"),
         doc="MidOut = k + alpha * (sum of X^2 over the n channels from c - (n-1)//2); Out = X * MidOut^-beta "
             "(local response normalization across channels; NHWC: channels last).")
register("lrn_grad", kernel_module="image_extra", inputs=["X", "Out", "MidOut", "Out@GRAD"], outputs=["X@GRAD"],
         attrs=_LRN_ATTRS, infer=grads_like({"X@GRAD": "X"}))


# -- similarity_focus ------------------------------------------------------------------------------

def _infer_similarity_focus(ctx):
    x, axis, indexes = _four_d(ctx), ctx.attrs["axis"], list(ctx.attrs["indexes"])
    if axis not in (1, 2, 3):
        ctx.fail(f"axis={axis} must be 1, 2 or 3")
    if not indexes or any(i < 0 or (x[axis] >= 0 and i >= x[axis]) for i in indexes):
        ctx.fail(f"indexes={indexes} must be a non-empty list of positions along axis {axis} of X {fmt_shape(x)}")
    ctx.set_output("Out", x, ctx.dtype("X"))


register("similarity_focus", kernel_module="image_extra", inputs=["X"], outputs=["Out"], infer=_infer_similarity_focus,
         attrs={"axis": Attr(1, is_int, "1, 2 or 3"), "indexes": Attr(list, lambda v: all(is_int(i) for i in v),
                                                                     "a list of ints")}, lod="drop",
         doc="Out = a 0/1 mask like X: for each sample and each index along `axis`, the slice there (a 2-D "
             "map) gives its largest values one at a time, skipping any in a row or column already taken, "
             "until every row or every column has one; each taken (row, column) is set to 1 through the "
             "whole `axis`. No gradient.")
