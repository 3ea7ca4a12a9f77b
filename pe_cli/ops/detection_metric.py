"""Detection metrics: detection_map, the mean average precision of detections against the ground
truth (Fluid's op behind fluid.metrics.DetectionMAP), per batch or accumulated over batches through
its state inputs and outputs. No gradient."""

from ..kernels.cpu import detection_metric as cpu_kernels
from ..shapes import detection_metric as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, is_int, register


def _infer_detection_map(ctx):
    det, label = ctx.shape("DetectRes"), ctx.shape("Label")
    if len(det) != 2 or det[1] not in (-1, 6):
        ctx.fail(f"DetectRes {fmt_shape(det)} must be [M, 6] rows (label, score, xmin, ymin, xmax, ymax) with a LoD")
    if len(label) != 2 or label[1] not in (-1, 5, 6):
        ctx.fail(
            f"Label {fmt_shape(label)} must be [N, 6] rows (label, difficult, xmin, ymin, xmax, ymax) or [N, 5] "
            "(label, xmin, ymin, xmax, ymax) with a LoD"
        )
    ctx.set_output("AccumPosCount", [ctx.attrs["class_num"], 1], "int32")
    ctx.set_output("AccumTruePos", [-1, 2], ctx.dtype("DetectRes"), lod_level=1)
    ctx.set_output("AccumFalsePos", [-1, 2], ctx.dtype("DetectRes"), lod_level=1)
    ctx.set_output("MAP", [1], "float32")


register(
    "detection_map",
    structured=Structured(meta=metas.detection_map_meta, cpu=cpu_kernels.detection_map_out),
    kernel_module="detection_metric",
    inputs=["DetectRes", "Label", "HasState?", "PosCount?", "TruePos?", "FalsePos?"],
    outputs=["AccumPosCount", "AccumTruePos", "AccumFalsePos", "MAP"],
    infer=_infer_detection_map,
    traits=("metric",),
    lod="drop",
    needs_lod=True,
    attrs={
        "class_num": Attr(None, is_int, "an int"),
        "background_label": 0,
        "overlap_threshold": 0.5,
        "evaluate_difficult": True,
        "ap_type": Attr("integral", choices=("integral", "11point")),
    },
    doc="Mean average precision of detections (per image a LoD group of DetectRes rows) against the "
    "ground truth (Label rows, difficult optional), as Fluid's detection_map: per class, detections "
    "sorted by score are true positives when their best IoU with an unmatched box of the class "
    "exceeds overlap_threshold; AP is the area under the precision-recall steps (integral) or the "
    "11-point mean; MAP averages the classes with positives but background_label. With HasState "
    "1, the counts and (score, flag) lists of PosCount/TruePos/FalsePos (the Accum* outputs of "
    "earlier batches) are added first.",
)
