"""RoI pooling ops of Fluid 1.8 (kernels in kernels/<device>/detection_roi.py): each roi [x1, y1, x2,
y2] of ROIs [R, 4] pools a [PH, PW] grid from its image of X [N, C, H, W]; which image comes from
RoisNum / BatchRoINums (rois per image) when given, else from the ROIs' LoD (one level: rois per
image). roi_pool (max over integer bins, with Argmax), roi_align (bilinear samples averaged),
psroi_pool (position-sensitive: bin (i, j) of output channel k reads input channel (k*PH + i)*PW + j),
prroi_pool (the exact integral of the bilinear surface over each bin); deformable_psroi_pooling (the op of
fluid.layers.deformable_roi_pooling: position-sensitive pooling whose bins move by learned offsets,
Trans, with gradients wrt Input and Trans); roi_perspective_transform (each quadrilateral roi [x0, y0,
..., x3, y3] warped by a perspective transform onto a transformed_height x transformed_width grid,
sampled bilinearly; gradient wrt X). Structured kernels: meta rules in shapes/detection_roi.py, CPU out-kernels in
kernels/cpu/detection_roi.py."""

from ..kernels.cpu import detection_roi as cpu_roi
from ..shapes import detection_roi as roi_rules
from .define import Attr, Structured, fmt_shape, int_list, is_int, register

_POS_INT = Attr(1, lambda v: is_int(v) and v > 0, "an int > 0")


def _check(ctx, counts_slot=None):
    x, rois = ctx.shape("X"), ctx.shape("ROIs")
    if len(x) != 4:
        ctx.fail(f"X {fmt_shape(x)} must be 4-D [N, C, H, W]")
    width_at_run = ctx.opdef.type == "roi_align"  # (Fluid's roi_align checks the width when it runs)
    if len(rois) != 2 or rois[1] not in (4, -1) and (ctx.is_runtime or not width_at_run):
        ctx.fail(f"ROIs {fmt_shape(rois)} must be [num_rois, 4] (x1, y1, x2, y2)")
    if ctx.dtype("ROIs") not in ("float32", "float64"):
        ctx.fail(f"ROIs must be float32 or float64, not {ctx.dtype('ROIs')}")
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
        ctx.fail(
            f"X has {x[1]} channels; psroi_pool needs output_channels * pooled_height * pooled_width "
            f"= {a['output_channels']} * {a['pooled_height']} * {a['pooled_width']} = {need}"
        )
    ctx.set_output("Out", _out_shape(ctx, a["output_channels"]), ctx.dtype("X"), lod_level=0)


def _grad_maker(extra_outputs=()):
    def grad(g):
        ins = {s: g.input(s) for s in ("X", "ROIs", "RoisNum", "RoisLod", "BatchRoINums") if g.input(s)}
        ins.update({s: g.output(s) for s in extra_outputs})
        ins["Out@GRAD"] = g.out_grad("Out")
        g.op(g.fwd.type + "_grad", ins, {"X@GRAD": g.in_grad("X")}, g.attrs)

    return grad


def _infer_grad(ctx):
    ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X"))


_SCALE = {"pooled_height": _POS_INT, "pooled_width": _POS_INT, "spatial_scale": 1.0}
_SPECS = [
    (
        "roi_pool",
        ["RoisNum?", "RoisLod?"],
        ["Argmax"],
        {},
        _infer_roi_pool,
        "Out[r, c, i, j] = the maximum of X[image(r), c] over bin (i, j) of the roi rounded to whole "
        "cells (round(x1 * spatial_scale) ... round(x2 * spatial_scale), at least 1x1); an empty bin is 0. "
        "Argmax: the index in the H*W plane of that maximum (-1 for an empty bin), which the gradient reads.",
    ),
    (
        "roi_align",
        ["RoisNum?", "RoisLod?"],
        [],
        # aligned (Paddle 2.x's): the roi shifted by half a cell and not widened to one cell
        {"sampling_ratio": Attr(-1, is_int, "an int"), "aligned": Attr(False, fill=False)},
        _infer_same_channels("RoisNum"),
        "Out[r, c, i, j] = the mean of X[image(r), c] sampled bilinearly on a sampling_ratio x sampling_ratio "
        "grid in bin (i, j) of the roi scaled by spatial_scale (at least 1x1; sampling_ratio <= 0: "
        "ceil(bin size) samples per side).",
    ),
    (
        "psroi_pool",
        [],
        [],
        {"output_channels": _POS_INT},
        _infer_psroi,
        "Out[r, k, i, j] = the mean of X[image(r), (k * PH + i) * PW + j] over bin (i, j) of the roi "
        "(corners rounded, the end cell included, scaled by spatial_scale); an empty bin is 0.",
    ),
    (
        "prroi_pool",
        ["BatchRoINums?"],
        [],
        {},
        _infer_same_channels("BatchRoINums"),
        "Out[r, c, i, j] = the integral of the bilinear interpolation of X[image(r), c] over bin (i, j) of "
        "the roi scaled by spatial_scale, divided by the bin's area (0 for an empty roi).",
    ),
]
_METAS = {
    "roi_pool": roi_rules.roi_pool_meta,
    "roi_align": roi_rules.pooled_meta,
    "psroi_pool": roi_rules.psroi_pool_meta,
    "prroi_pool": roi_rules.pooled_meta,
}
for _type, _extra_in, _extra_out, _attrs, _infer, _doc in _SPECS:
    _attrs = dict(_SCALE, **_attrs)
    _counts = [s.rstrip("?") for s in _extra_in]
    register(
        _type,
        kernel_module="detection_roi",
        inputs=["X", "ROIs"] + _extra_in,
        outputs=["Out"] + _extra_out,
        attrs=_attrs,
        infer=_infer,
        grad=_grad_maker(tuple(_extra_out)),
        grad_reads=tuple(["X", "ROIs"] + _counts + _extra_out),
        lod="drop",
        needs_lod=True,
        doc=_doc,
        run_dtypes={s: ("int32", "int64") for s in _counts if s != "RoisLod"},
        run_infer=_type == "roi_align",
        structured=Structured(meta=_METAS[_type], cpu=getattr(cpu_roi, _type.upper())),
    )
    register(
        _type + "_grad",
        kernel_module="detection_roi",
        inputs=["X", "ROIs"] + _extra_in + _extra_out + ["Out@GRAD"],
        outputs=["X@GRAD?"],
        attrs=_attrs,
        infer=_infer_grad,
        lod="drop",
        needs_lod=True,
        structured=Structured(meta=roi_rules.x_grad_meta, cpu=getattr(cpu_roi, _type.upper() + "_GRAD")),
    )


_PAIR = Attr(lambda: [1, 1], lambda v: int_list(v) and len(v) == 2 and min(v) > 0, "2 ints > 0")


def _infer_deform(ctx):
    x, rois, a = ctx.shape("Input"), ctx.shape("ROIs"), ctx.attrs
    if len(x) != 4:
        ctx.fail(f"Input {fmt_shape(x)} must be 4-D [N, C, H, W]")
    if len(rois) != 2 or rois[1] not in (4, -1):
        ctx.fail(f"ROIs {fmt_shape(rois)} must be [num_rois, 4] (x1, y1, x2, y2)")
    od, (gh, gw) = a["output_dim"], a["group_size"]
    # Fluid's kernel reads channel (k * group_h + gi) * group_w + gj of the roi's image, Trans flat as [R,
    # classes, 2, part_size...]: more channels, or a larger Trans, are read as it reads them; fewer it reads
    # past the image (or Trans)
    if x[1] >= 0 and x[1] < od * gh * gw:
        ctx.fail(f"Input has {x[1]} channels; it needs output_dim * group_size = {od} * {gh} * {gw} = {od * gh * gw}")
    if not a["no_trans"]:
        if not ctx.has_input("Trans"):
            ctx.fail("Trans is needed unless no_trans")
        t = ctx.shape("Trans")
        if (
            len(t) != 4
            or (t[1] >= 0 and (t[1] % 2 or od % (t[1] // 2)))
            or any(d >= 0 and d < p for d, p in zip(t[2:], a["part_size"]))
        ):
            ctx.fail(
                f"Trans {fmt_shape(t)} must be [num_rois, 2 * classes, part_size...] = [R, 2 * classes, "
                f">= {a['part_size'][0]}, >= {a['part_size'][1]}], classes dividing output_dim={od}"
            )
    shape = [rois[0], od, a["pooled_height"], a["pooled_width"]]
    ctx.set_output("Output", shape, ctx.dtype("Input"), lod_level=0)
    ctx.set_output("TopCount", shape, ctx.dtype("Input"), lod_level=0)


def _grad_deform(g):
    ins = {s: g.input(s) for s in ("Input", "ROIs", "Trans") if g.input(s)}
    ins["Output@GRAD"] = g.out_grad("Output")
    outs = {"Input@GRAD": g.in_grad("Input")}
    if g.input("Trans"):
        outs["Trans@GRAD"] = g.in_grad("Trans")
    g.op("deformable_psroi_pooling_grad", ins, outs, g.attrs)


def _infer_deform_grad(ctx):
    for slot in ("Input", "Trans"):
        if ctx.has_output(slot + "@GRAD"):
            ctx.set_output(slot + "@GRAD", ctx.shape(slot), ctx.dtype(slot))


_DEFORM_ATTRS = {
    "no_trans": False,
    "spatial_scale": 1.0,
    "output_dim": _POS_INT,
    "group_size": _PAIR,
    "pooled_height": _POS_INT,
    "pooled_width": _POS_INT,
    "part_size": _PAIR,
    "sample_per_part": _POS_INT,
    "trans_std": 0.1,
}
register(
    "deformable_psroi_pooling",
    structured=Structured(meta=roi_rules.deformable_psroi_pooling_meta, cpu=cpu_roi.DEFORMABLE_PSROI_POOLING),
    kernel_module="detection_roi",
    inputs=["Input", "ROIs", "Trans?"],
    outputs=["Output", "TopCount"],
    attrs=_DEFORM_ATTRS,
    infer=_infer_deform,
    grad=_grad_deform,
    grad_reads=("Input", "ROIs", "Trans"),
    lod="drop",
    needs_lod=True,
    doc="Output[r, k, i, j] = the mean of sample_per_part^2 bilinear samples of Input[image(r), channel "
    "(k * group_h + gi) * group_w + gj] over bin (i, j) of the roi (corners rounded, scaled by "
    "spatial_scale, less 0.5), the bin moved by Trans[r, class of k, :, part of (i, j)] * trans_std * "
    "the roi's size; samples outside the map are skipped. TopCount: how many samples were inside.",
)
register(
    "deformable_psroi_pooling_grad",
    structured=Structured(meta=roi_rules.deformable_psroi_pooling_grad_meta, cpu=cpu_roi.DEFORMABLE_PSROI_POOLING_GRAD),
    kernel_module="detection_roi",
    inputs=["Input", "ROIs", "Trans?", "Output@GRAD"],
    outputs=["Input@GRAD?", "Trans@GRAD?"],
    attrs=_DEFORM_ATTRS,
    infer=_infer_deform_grad,
    lod="drop",
    needs_lod=True,
)


def _infer_persp(ctx):
    x, rois, a = ctx.shape("X"), ctx.shape("ROIs"), ctx.attrs
    if len(x) != 4:
        ctx.fail(f"X {fmt_shape(x)} must be 4-D [N, C, H, W]")
    if len(rois) != 2 or rois[1] not in (8, -1):
        ctx.fail(f"ROIs {fmt_shape(rois)} must be [num_rois, 8] (four corners x, y)")
    th, tw = a["transformed_height"], a["transformed_width"]
    ctx.set_output("Out", [rois[0], x[1], th, tw], ctx.dtype("X"), lod_level=0)
    ctx.set_output("Mask", [rois[0], 1, th, tw], "int32", lod_level=0)
    ctx.set_output("TransformMatrix", [rois[0], 9], ctx.dtype("X"), lod_level=0)
    ctx.set_output("Out2InIdx", [rois[0], x[1], th, tw], "int32", lod_level=0)  # (Fluid's shapes)
    ctx.set_output("Out2InWeights", [rois[0], x[1], th, tw], ctx.dtype("X"), lod_level=0)


def _grad_persp(g):
    g.op(
        "roi_perspective_transform_grad",
        {"X": g.input("X"), "ROIs": g.input("ROIs"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


def _infer_persp_grad(ctx):
    ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X"))


_PERSP_ATTRS = {"transformed_height": _POS_INT, "transformed_width": _POS_INT, "spatial_scale": 1.0}
register(
    "roi_perspective_transform",
    structured=Structured(meta=roi_rules.roi_perspective_transform_meta, cpu=cpu_roi.ROI_PERSPECTIVE_TRANSFORM),
    kernel_module="detection_roi",
    inputs=["X", "ROIs"],
    outputs=["Out", "Mask", "TransformMatrix", "Out2InIdx", "Out2InWeights"],
    attrs=_PERSP_ATTRS,
    infer=_infer_persp,
    grad=_grad_persp,
    grad_reads=("X", "ROIs"),
    lod="drop",
    needs_lod=True,
    doc="Out[r, c, i, j] = X[image(r), c] sampled bilinearly at TransformMatrix[r] (a 3x3 perspective map "
    "fitted to the roi's quadrilateral, scaled by spatial_scale) applied to (j, i, 1), where that point "
    "is inside the quadrilateral and the map, else 0; Mask[r, 0, i, j]: 1 where it is. Out2InIdx and "
    "Out2InWeights, Fluid's CUDA kernel's sampling taps kept for its gradient, are left unwritten, as "
    "Fluid's CPU kernel leaves them (the gradient samples again).",
)
register(
    "roi_perspective_transform_grad",
    structured=Structured(meta=roi_rules.x_grad_meta, cpu=cpu_roi.ROI_PERSPECTIVE_TRANSFORM_GRAD),
    kernel_module="detection_roi",
    inputs=["X", "ROIs", "Out2InIdx?", "Out2InWeights?", "Out@GRAD"],
    outputs=["X@GRAD?"],
    attrs=_PERSP_ATTRS,
    infer=_infer_persp_grad,
    lod="drop",
    needs_lod=True,
)
