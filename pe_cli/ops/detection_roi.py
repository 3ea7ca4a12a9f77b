"""RoI pooling ops of Fluid 1.8 (kernels in kernels/<device>/detection_roi.py): each roi [x1, y1, x2,
y2] of ROIs [R, 4] pools a [PH, PW] grid from its image of X [N, C, H, W]; which image comes from
RoisNum / BatchRoINums (rois per image) when given, else from the ROIs' LoD (one level: rois per
image). roi_pool (max over integer bins, with Argmax), roi_align (bilinear samples averaged),
psroi_pool (position-sensitive: bin (i, j) of output channel k reads input channel (k*PH + i)*PW + j),
prroi_pool (the exact integral of the bilinear surface over each bin)."""
from .define import Attr, fmt_shape, is_int, register

_POS_INT = Attr(1, lambda v: is_int(v) and v > 0, "an int > 0")


def _check(ctx, counts_slot=None):
    x, rois = ctx.shape("X"), ctx.shape("ROIs")
    if len(x) != 4:
        ctx.fail(f"X {fmt_shape(x)} must be 4-D [N, C, H, W]")
    if len(rois) != 2 or rois[1] not in (4, -1):
        ctx.fail(f"ROIs {fmt_shape(rois)} must be [num_rois, 4] (x1, y1, x2, y2)")
    if ctx.dtype("ROIs") not in ("float32", "float64"):
        ctx.fail(f"ROIs must be float32 or float64, not {ctx.dtype('ROIs')}")
    if counts_slot and ctx.has_input(counts_slot) and ctx.dtype(counts_slot) not in ("int32", "int64"):
        ctx.fail(f"{counts_slot} (rois per image) must be int32 or int64, not {ctx.dtype(counts_slot)}")
    if not ctx.attrs["spatial_scale"] > 0:
        ctx.fail(f"spatial_scale={ctx.attrs['spatial_scale']} must be > 0")
    return x, rois


def _out_shape(ctx, channels):
    return [ctx.shape("ROIs")[0], channels, ctx.attrs["pooled_height"], ctx.attrs["pooled_width"]]


def _infer_roi_pool(ctx):
    x, _ = _check(ctx, "RoisNum")
    ctx.set_output("Out", _out_shape(ctx, x[1]), ctx.dtype("X"), lod_level=0)
    ctx.set_output("Argmax", _out_shape(ctx, x[1]), "int64", lod_level=0)


def _infer_same_channels(counts_slot):
    def infer(ctx):
        x, _ = _check(ctx, counts_slot)
        ctx.set_output("Out", _out_shape(ctx, x[1]), ctx.dtype("X"), lod_level=0)
    return infer


def _infer_psroi(ctx):
    x, _ = _check(ctx)
    a = ctx.attrs
    need = a["output_channels"] * a["pooled_height"] * a["pooled_width"]
    if x[1] >= 0 and x[1] != need:
        ctx.fail(f"X has {x[1]} channels; psroi_pool needs output_channels * pooled_height * pooled_width "
                 f"= {a['output_channels']} * {a['pooled_height']} * {a['pooled_width']} = {need}")
    ctx.set_output("Out", _out_shape(ctx, a["output_channels"]), ctx.dtype("X"), lod_level=0)


def _grad_maker(extra_outputs=()):
    def grad(g):
        ins = {s: g.input(s) for s in ("X", "ROIs", "RoisNum", "BatchRoINums") if g.input(s)}
        ins.update({s: g.output(s) for s in extra_outputs})
        ins["Out@GRAD"] = g.out_grad("Out")
        g.op(g.fwd.type + "_grad", ins, {"X@GRAD": g.in_grad("X")}, g.attrs)
    return grad


def _infer_grad(ctx):
    ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X"))


_SCALE = {"pooled_height": _POS_INT, "pooled_width": _POS_INT, "spatial_scale": 1.0}
_SPECS = [
    ("roi_pool", ["RoisNum?"], ["Argmax"], {}, _infer_roi_pool,
     "Out[r, c, i, j] = the maximum of X[image(r), c] over bin (i, j) of the roi rounded to whole "
     "cells (round(x1 * spatial_scale) ... round(x2 * spatial_scale), at least 1x1); an empty bin is 0. "
     "Argmax: the index in the H*W plane of that maximum (-1 for an empty bin), which the gradient reads."),
    ("roi_align", ["RoisNum?"], [], {"sampling_ratio": Attr(-1, is_int, "an int")}, _infer_same_channels("RoisNum"),
     "Out[r, c, i, j] = the mean of X[image(r), c] sampled bilinearly on a sampling_ratio x sampling_ratio "
     "grid in bin (i, j) of the roi scaled by spatial_scale (at least 1x1; sampling_ratio <= 0: "
     "ceil(bin size) samples per side)."),
    ("psroi_pool", [], [], {"output_channels": _POS_INT}, _infer_psroi,
     "Out[r, k, i, j] = the mean of X[image(r), (k * PH + i) * PW + j] over bin (i, j) of the roi "
     "(corners rounded, the end cell included, scaled by spatial_scale); an empty bin is 0."),
    ("prroi_pool", ["BatchRoINums?"], [], {}, _infer_same_channels("BatchRoINums"),
     "Out[r, c, i, j] = the integral of the bilinear interpolation of X[image(r), c] over bin (i, j) of "
     "the roi scaled by spatial_scale, divided by the bin's area (0 for an empty roi)."),
]
for _type, _extra_in, _extra_out, _attrs, _infer, _doc in _SPECS:
    _attrs = dict(_SCALE, **_attrs)
    _counts = [s.rstrip("?") for s in _extra_in]
    register(_type, kernel_module="detection_roi", inputs=["X", "ROIs"] + _extra_in, outputs=["Out"] + _extra_out,
             attrs=_attrs, infer=_infer, grad=_grad_maker(tuple(_extra_out)),
             grad_reads=tuple(["X", "ROIs"] + _counts + _extra_out), lod="drop", needs_lod=True, doc=_doc)
    register(_type + "_grad", kernel_module="detection_roi", inputs=["X", "ROIs"] + _extra_in + _extra_out
             + ["Out@GRAD"], outputs=["X@GRAD?"], attrs=_attrs, infer=_infer_grad, lod="drop", needs_lod=True)
