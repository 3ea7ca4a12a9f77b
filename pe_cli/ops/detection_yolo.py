"""YOLOv3's ops of Fluid 1.8 (kernels in kernels/<device>/detection_yolo.py): yolo_box (boxes and
scores from a head's output; no gradient) and yolov3_loss, the training loss of one output level, per
image: for each gt box the anchor (of all ``anchors``) whose shape fits it best; where that anchor is
in ``anchor_mask``, location (sigmoid cross-entropy on x, y; L1 on log w, h; weighted (2 - w*h) *
score), class (sigmoid cross-entropy, label-smoothed) and objectness losses at its cell; objectness 0
elsewhere, except predictions overlapping a gt box by more than ignore_thresh. Structured kernels: meta rules in
shapes/detection_yolo.py, CPU out-kernels in kernels/cpu/detection_yolo.py."""

from ..kernels.cpu import detection_yolo as cpu_yolo
from ..shapes import detection_yolo as yolo_rules
from .define import Attr, Structured, fmt_shape, int_list, is_int, register


def _infer(ctx):
    x, box, label = ctx.shape("X"), ctx.shape("GTBox"), ctx.shape("GTLabel")
    a = ctx.attrs
    anchors, mask, c = a["anchors"], a["anchor_mask"], a["class_num"]
    if len(anchors) % 2 or not anchors:
        ctx.fail(f"anchors {anchors} must be (width, height) pairs")
    if any(not 0 <= m < len(anchors) // 2 for m in mask) or not mask:
        ctx.fail(f"anchor_mask {mask} must pick anchors 0..{len(anchors) // 2 - 1}")
    if len(x) != 4 or (x[1] >= 0 and x[1] != len(mask) * (5 + c)):
        ctx.fail(f"X {fmt_shape(x)} must be [N, len(anchor_mask) * (5 + class_num) = {len(mask) * (5 + c)}, H, W]")
    if x[2] >= 0 and x[3] >= 0 and x[2] != x[3]:  # (Paddle 2.6.2 refuses it too: its kernel takes H for both)
        ctx.fail(f"X {fmt_shape(x)} must have H == W (a square grid), as Paddle requires")
    if len(box) != 3 or box[2] not in (4, -1):
        ctx.fail(f"GTBox {fmt_shape(box)} must be [N, B, 4] (x, y, w, h relative to the image)")
    if len(label) != 2 or (all(d >= 0 for d in list(label) + list(box[:2])) and list(label) != list(box[:2])):
        ctx.fail(f"GTLabel {fmt_shape(label)} must be int32 [N, B] as GTBox {fmt_shape(box)}")
    if ctx.has_input("GTScore") and len(ctx.shape("GTScore")) != 2:
        ctx.fail(f"GTScore {fmt_shape(ctx.shape('GTScore'))} must be [N, B]")
    dtype = ctx.dtype("X")
    ctx.set_output("Loss", [x[0]], dtype, lod_level=0)
    ctx.set_output("ObjectnessMask", [x[0], len(mask), x[2], x[3]], dtype, lod_level=0)
    ctx.set_output("GTMatchMask", [x[0], box[1]], "int32", lod_level=0)


_READS = ("X", "GTBox", "GTLabel", "GTScore")


def _grad(g):
    ins = {s: g.input(s) for s in _READS if g.input(s)}
    ins.update({s: g.output(s) for s in ("ObjectnessMask", "GTMatchMask")})
    ins["Loss@GRAD"] = g.out_grad("Loss")
    g.op("yolov3_loss_grad", ins, {"X@GRAD": g.in_grad("X")}, g.attrs)


def _infer_grad(ctx):
    ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X"))


_ATTRS = {
    "anchors": Attr(lambda: [], int_list, "a list of ints"),
    "anchor_mask": Attr(lambda: [], int_list, "a list of ints"),
    "class_num": Attr(1, lambda v: is_int(v) and v > 0, "an int > 0"),
    "ignore_thresh": 0.7,
    "downsample_ratio": Attr(32, is_int, "an int"),
    "use_label_smooth": True,
    "scale_x_y": 1.0,
}
register(
    "yolov3_loss",
    structured=Structured(meta=yolo_rules.yolov3_loss_meta, cpu=cpu_yolo.YOLOV3_LOSS),
    kernel_module="detection_yolo",
    inputs=["X", "GTBox", "GTLabel", "GTScore?"],
    run_dtypes={"GTLabel": ("int32", "int64")},
    outputs=["Loss", "ObjectnessMask", "GTMatchMask"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=_READS + ("ObjectnessMask", "GTMatchMask"),
    lod="drop",
    doc="Loss[n]: YOLOv3's loss of image n (Fluid 1.8's yolov3_loss); ObjectnessMask: per prediction the "
    "objectness target (the gt score, 0, or -1 ignored); GTMatchMask: per gt box its anchor's index "
    "in anchor_mask (-1: none, or an empty box).",
)
register(
    "yolov3_loss_grad",
    structured=Structured(meta=yolo_rules.yolov3_loss_grad_meta, cpu=cpu_yolo.YOLOV3_LOSS_GRAD),
    kernel_module="detection_yolo",
    inputs=["X", "GTBox", "GTLabel", "GTScore?", "ObjectnessMask", "GTMatchMask", "Loss@GRAD"],
    outputs=["X@GRAD?"],
    attrs=_ATTRS,
    infer=_infer_grad,
    lod="drop",
)


def _infer_yolo(ctx):
    x, size = ctx.shape("X"), ctx.shape("ImgSize")
    a = ctx.attrs
    if len(a["anchors"]) % 2 or not a["anchors"]:
        ctx.fail(f"anchors {list(a['anchors'])} must be (width, height) pairs")
    anchors = len(a["anchors"]) // 2
    per = 5 + a["class_num"] + bool(a["iou_aware"])  # (iou_aware: one IoU channel per anchor first)
    if len(x) != 4 or (x[1] >= 0 and x[1] != anchors * per):
        ctx.fail(
            f"X {fmt_shape(x)} must be [N, anchors * ({'6' if a['iou_aware'] else '5'} + class_num), H, W] = [N, "
            f"{anchors * per}, H, W]"
        )
    if len(size) != 2 or size[1] not in (2, -1):
        ctx.fail(f"ImgSize {fmt_shape(size)} must be [N, 2] (height, width)")
    boxes = anchors * x[2] * x[3] if x[2] >= 0 and x[3] >= 0 else -1
    ctx.set_output("Boxes", [x[0], boxes, 4], ctx.dtype("X"), lod_level=0)
    ctx.set_output("Scores", [x[0], boxes, a["class_num"]], ctx.dtype("X"), lod_level=0)


register(
    "yolo_box",
    structured=Structured(meta=yolo_rules.yolo_box_meta, cpu=cpu_yolo.YOLO_BOX),
    kernel_module="detection_yolo",
    inputs=["X", "ImgSize"],
    outputs=["Boxes", "Scores"],
    run_dtypes={"ImgSize": ("int32",)},
    attrs={
        "anchors": Attr([], int_list, "ints: width, height pairs"),
        "class_num": Attr(1, lambda v: v > 0, "> 0"),
        "conf_thresh": 0.01,
        "downsample_ratio": Attr(32, is_int, "an int"),
        "clip_bbox": True,
        "scale_x_y": 1.0,
        "iou_aware": Attr(False, choices=(False, True)),
        "iou_aware_factor": Attr(0.5, lambda v: 0 <= v <= 1, "in [0, 1]"),
    },
    infer=_infer_yolo,
    lod="drop",
    traits=("paddle2_semantics",),
    doc="Per anchor and cell of X: the box (xmin, ymin, xmax, ymax) in ImgSize's pixels and the class scores "
    "(the confidence times each class's sigmoid); zeros where the confidence is below conf_thresh. The "
    "confidence: the objectness's sigmoid, with iou_aware (Paddle 2.x; X's first channels one IoU per anchor) "
    "obj^(1 - iou_aware_factor) * iou^iou_aware_factor of the sigmoids. Centres on the W x H grid and sizes "
    "over downsample_ratio * W (x) and * H (y), as Paddle 2.x's kernel; in a Fluid 1.8 program on a grid of X's "
    "height along both axes and sizes over downsample_ratio * H, as Fluid 1.8's kernel (docs/COMPAT.md, "
    '"yolo_box on a grid with H != W").',
)
