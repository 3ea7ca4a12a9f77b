"""More of Fluid 1.8's detection ops: yolo_box (YOLOv3 boxes and scores from a head's output),
sigmoid_focal_loss (RetinaNet's loss, the only one here with a gradient, as in Fluid),
polygon_box_transform (EAST's geometry map to absolute coordinates) and box_decoder_and_assign
(Faster R-CNN's per-class decoding and the best class's box)."""
from .registry import Attr, fmt_shape, int_list, register


def _infer_yolo(ctx):
    x, size = ctx.shape("X"), ctx.shape("ImgSize")
    a = ctx.attrs
    if len(a["anchors"]) % 2 or not a["anchors"]:
        ctx.fail(f"anchors {list(a['anchors'])} must be (width, height) pairs")
    anchors = len(a["anchors"]) // 2
    if len(x) != 4 or (x[1] >= 0 and x[1] != anchors * (5 + a["class_num"])):
        ctx.fail(f"X {fmt_shape(x)} must be [N, anchors * (5 + class_num), H, W] = [N, "
                 f"{anchors * (5 + a['class_num'])}, H, W]")
    if len(size) != 2 or size[1] != 2:
        ctx.fail(f"ImgSize {fmt_shape(size)} must be [N, 2] (height, width)")
    if ctx.dtype("ImgSize") != "int32":
        ctx.fail(f"ImgSize is {ctx.dtype('ImgSize')}; it must be int32")
    boxes = anchors * x[2] * x[3] if x[2] >= 0 and x[3] >= 0 else -1
    ctx.set_output("Boxes", [x[0], boxes, 4], ctx.dtype("X"), lod_level=0)
    ctx.set_output("Scores", [x[0], boxes, a["class_num"]], ctx.dtype("X"), lod_level=0)


register("yolo_box", kernel_module="detection_more", inputs=["X", "ImgSize"], outputs=["Boxes", "Scores"],
         attrs={"anchors": Attr([], int_list, "ints: width, height pairs"),
                "class_num": Attr(1, lambda v: v > 0, "> 0"), "conf_thresh": 0.01,
                "downsample_ratio": Attr(32, lambda v: v > 0, "> 0"), "clip_bbox": True},
         infer=_infer_yolo, lod="drop",
         doc="Per anchor and cell of X: the box (xmin, ymin, xmax, ymax) in ImgSize's pixels and the class "
             "scores (objectness times each class's sigmoid); zeros where the objectness is below conf_thresh.")


def _infer_focal(ctx):
    x, label, fg = ctx.shape("X"), ctx.shape("Label"), ctx.shape("FgNum")
    if len(x) != 2:
        ctx.fail(f"X {fmt_shape(x)} must be [N, C] logits")
    if len(label) != 2 or label[1] != 1 or (label[0] >= 0 and x[0] >= 0 and label[0] != x[0]):
        ctx.fail(f"Label {fmt_shape(label)} must be [N, 1] for X {fmt_shape(x)}")
    if ctx.dtype("Label") != "int32" or ctx.dtype("FgNum") != "int32":
        ctx.fail(f"Label ({ctx.dtype('Label')}) and FgNum ({ctx.dtype('FgNum')}) must be int32")
    if [d for d in fg if d != 1]:
        ctx.fail(f"FgNum {fmt_shape(fg)} must hold one number")
    ctx.set_output("Out", x, ctx.dtype("X"))


def _grad_focal(g):
    g.op("sigmoid_focal_loss_grad", {"X": g.input("X"), "Label": g.input("Label"), "FgNum": g.input("FgNum"),
                                     "Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")},
         {"gamma": g.attrs["gamma"], "alpha": g.attrs["alpha"]})


register("sigmoid_focal_loss", kernel_module="detection_more", inputs=["X", "Label", "FgNum"], outputs=["Out"],
         attrs={"gamma": 2.0, "alpha": 0.25}, infer=_infer_focal, grad=_grad_focal,
         grad_reads=("X", "Label", "FgNum"), lod="drop",
         doc="Out[i, d] = the focal loss of class d + 1 for sample i (Label 0: background, -1: ignored), "
             "alpha / FgNum on the positive term and (1 - alpha) / FgNum on the negative ones.")
register("sigmoid_focal_loss_grad", kernel_module="detection_more", inputs=["X", "Label", "FgNum", "Out@GRAD"],
         outputs=["X@GRAD"], attrs={"gamma": 2.0, "alpha": 0.25},
         infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X")))


def _infer_polygon(ctx):
    x = ctx.shape("Input")
    if len(x) != 4 or (x[1] >= 0 and x[1] % 2):
        ctx.fail(f"Input {fmt_shape(x)} must be [N, geo_channels, H, W] with an even geo_channels")
    ctx.set_output("Output", x, ctx.dtype("Input"), lod_level=0)


register("polygon_box_transform", kernel_module="detection_more", inputs=["Input"], outputs=["Output"],
         infer=_infer_polygon, lod="drop",
         doc="Output = 4 * (the cell's column on even channels, its row on odd ones) - Input.")


def _infer_decode_assign(ctx):
    prior, target, score = ctx.shape("PriorBox"), ctx.shape("TargetBox"), ctx.shape("BoxScore")
    if len(prior) != 2 or prior[1] != 4:
        ctx.fail(f"PriorBox {fmt_shape(prior)} must be boxes [N, 4]")
    if list(ctx.shape("PriorBoxVar")) not in ([4], [1, 4]):
        ctx.fail(f"PriorBoxVar {fmt_shape(ctx.shape('PriorBoxVar'))} must hold 4 variances")
    if len(score) != 2 or len(target) != 2 or (target[1] >= 0 and score[1] >= 0 and target[1] != 4 * score[1]):
        ctx.fail(f"TargetBox {fmt_shape(target)} must be [N, 4 * C] for BoxScore {fmt_shape(score)} [N, C]")
    ctx.set_output("DecodeBox", target, ctx.dtype("TargetBox"), lod_level=ctx.input_var("TargetBox").lod_level)
    ctx.set_output("OutputAssignBox", prior, ctx.dtype("TargetBox"),
                   lod_level=ctx.input_var("TargetBox").lod_level)


register("box_decoder_and_assign", kernel_module="detection_more",
         inputs=["PriorBox", "PriorBoxVar", "TargetBox", "BoxScore"], outputs=["DecodeBox", "OutputAssignBox"],
         attrs={"box_clip": 4.135}, infer=_infer_decode_assign,
         doc="Decodes each RoI's per-class deltas (pixel boxes, log sizes clipped at box_clip); OutputAssignBox is "
             "the box of the best scoring class but class 0 (the RoI itself when there is only class 0).")
