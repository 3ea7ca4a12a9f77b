"""generate_mask_labels of Fluid 1.8 (kernels in kernels/<device>/detection_mask.py): Mask R-CNN's mask
targets: for each foreground roi (LabelsInt32 > 0) the gt object (GtSegms: polygons, a 3-level LoD
images / objects / polygons) whose polygons' box overlaps it most, rasterized in the roi at
resolution x resolution into its class's slot. No gradient."""
from .define import Attr, fmt_shape, is_int, register

_POS = Attr(1, lambda v: is_int(v) and v > 0, "an int > 0")


def _infer(ctx):
    if len(ctx.shape("Rois")) != 2 or ctx.shape("Rois")[1] != 4:
        ctx.fail(f"Rois {fmt_shape(ctx.shape('Rois'))} must be [R, 4]")
    if list(ctx.shape("GtSegms")[-1:]) != [2]:
        ctx.fail(f"GtSegms {fmt_shape(ctx.shape('GtSegms'))} must be [S, 2] polygon points")
    width = ctx.attrs["num_classes"] * ctx.attrs["resolution"] ** 2
    ctx.set_output("MaskRois", [-1, 4], ctx.dtype("Rois"), lod_level=1)
    ctx.set_output("RoiHasMaskInt32", [-1, 1], "int32", lod_level=1)
    ctx.set_output("MaskInt32", [-1, width], "int32", lod_level=1)


register("generate_mask_labels", kernel_module="detection_mask",
         inputs=["ImInfo", "GtClasses", "IsCrowd", "GtSegms", "Rois", "LabelsInt32"],
         outputs=["MaskRois", "RoiHasMaskInt32", "MaskInt32"],
         attrs={"num_classes": _POS, "resolution": _POS}, infer=_infer, lod="drop", needs_lod=True,
         doc="Per image: MaskRois, the foreground rois; RoiHasMaskInt32, their rows in Rois; MaskInt32 "
             "[P, num_classes * resolution^2], -1 everywhere but the roi's class, where the best-overlapping "
             "non-crowd object's polygons rasterized in the roi (COCO's rule) give 0 / 1. An image without "
             "foreground gives its first roi with all -1 (as Fluid).")
