"""roi_perspective_transform of Fluid 1.8 (kernels in kernels/<device>/detection_persp.py): each
quadrilateral roi [x0, y0, x1, y1, x2, y2, x3, y3] (a LoD sequence per image) warped by a perspective
transform onto a transformed_height x transformed_width grid, sampled bilinearly; gradient wrt X."""
from .define import Attr, fmt_shape, is_int, register

_POS = Attr(1, lambda v: is_int(v) and v > 0, "an int > 0")


def _infer(ctx):
    x, rois, a = ctx.shape("X"), ctx.shape("ROIs"), ctx.attrs
    if len(x) != 4:
        ctx.fail(f"X {fmt_shape(x)} must be 4-D [N, C, H, W]")
    if len(rois) != 2 or rois[1] not in (8, -1):
        ctx.fail(f"ROIs {fmt_shape(rois)} must be [num_rois, 8] (four corners x, y)")
    th, tw = a["transformed_height"], a["transformed_width"]
    ctx.set_output("Out", [rois[0], x[1], th, tw], ctx.dtype("X"), lod_level=0)
    ctx.set_output("Mask", [rois[0], 1, th, tw], "int32", lod_level=0)
    ctx.set_output("TransformMatrix", [rois[0], 9], ctx.dtype("X"), lod_level=0)


def _grad(g):
    g.op("roi_perspective_transform_grad", {"X": g.input("X"), "ROIs": g.input("ROIs"),
                                            "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")}, g.attrs)


def _infer_grad(ctx):
    ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X"))


_ATTRS = {"transformed_height": _POS, "transformed_width": _POS, "spatial_scale": 1.0}
register("roi_perspective_transform", kernel_module="detection_persp", inputs=["X", "ROIs"],
         outputs=["Out", "Mask", "TransformMatrix"], attrs=_ATTRS, infer=_infer, grad=_grad, grad_reads=("X", "ROIs"),
         lod="drop", needs_lod=True,
         doc="Out[r, c, i, j] = X[image(r), c] sampled bilinearly at TransformMatrix[r] (a 3x3 perspective map "
             "fitted to the roi's quadrilateral, scaled by spatial_scale) applied to (j, i, 1), where that point "
             "is inside the quadrilateral and the map, else 0; Mask[r, 0, i, j]: 1 where it is.")
register("roi_perspective_transform_grad", kernel_module="detection_persp", inputs=["X", "ROIs", "Out@GRAD"],
         outputs=["X@GRAD?"], attrs=_ATTRS, infer=_infer_grad, lod="drop", needs_lod=True)
