"""YOLOv3's layers of Fluid 1.8's ``fluid.layers`` with their signatures and argument type checks:
yolov3_loss (the training loss of one output level) and yolo_box (boxes and class scores from a
head's output)."""

__all__ = ["yolov3_loss", "yolo_box"]
import numbers

from ..base.errors import ArgumentTypeError
from ..framework.variable import Variable
from .detection_box import float_input
from .helper import LayerHelper


def _check(name, value, types, what):
    if not isinstance(value, types) or (types is numbers.Integral and isinstance(value, bool)):
        raise ArgumentTypeError(f"yolov3_loss: {name} must be {what}, got {type(value).__name__}")


def yolov3_loss(
    x,
    gt_box,
    gt_label,
    anchors,
    anchor_mask,
    class_num,
    ignore_thresh,
    downsample_ratio,
    gt_score=None,
    use_label_smooth=True,
    name=None,
    scale_x_y=1.0,
):
    """YOLOv3's loss for one output level: ``x`` [N, len(anchor_mask) * (5 + class_num), H, W],
    ``gt_box`` [N, B, 4] (centre x, y, w, h relative to the image; w or h 0: no box), ``gt_label``
    [N, B] int32, ``gt_score`` [N, B] (mixup weights, default 1). Returns the loss [N]."""
    for arg, value in (("x", x), ("gt_box", gt_box), ("gt_label", gt_label)):
        _check(arg, value, Variable, "a Variable")
    if gt_score is not None:
        _check("gt_score", gt_score, Variable, "a Variable")
    _check("anchors", anchors, (list, tuple), "a list of ints")
    _check("anchor_mask", anchor_mask, (list, tuple), "a list of ints")
    _check("class_num", class_num, numbers.Integral, "an int")
    _check("ignore_thresh", ignore_thresh, float, "a float")
    _check("use_label_smooth", use_label_smooth, bool, "a bool")
    helper = LayerHelper("yolov3_loss", name=name)
    loss = helper.create_variable_for_type_inference(x.dtype)
    objectness = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    matched = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    inputs = {"X": [x], "GTBox": [gt_box], "GTLabel": [gt_label]}
    if gt_score is not None:
        inputs["GTScore"] = [gt_score]
    helper.append_op(
        "yolov3_loss",
        inputs,
        {"Loss": [loss], "ObjectnessMask": [objectness], "GTMatchMask": [matched]},
        {
            "anchors": list(anchors),
            "anchor_mask": list(anchor_mask),
            "class_num": class_num,
            "ignore_thresh": ignore_thresh,
            "downsample_ratio": downsample_ratio,
            "use_label_smooth": use_label_smooth,
            "scale_x_y": float(scale_x_y),
        },
    )
    return loss


def yolo_box(
    x,
    img_size,
    anchors,
    class_num,
    conf_thresh,
    downsample_ratio,
    clip_bbox=True,
    name=None,
    scale_x_y=1.0,
    *,
    iou_aware=None,
    iou_aware_factor=None,
):
    """YOLOv3's boxes [N, M, 4] (in img_size's pixels) and class scores [N, M, class_num] from a head's
    output x [N, anchors * (5 + class_num), H, W]; img_size [N, 2] int32 (height, width). ``scale_x_y``
    stretches the centres' sigmoid about the cell's middle (YOLOv4: c = cell + s * sigmoid(t) - (s - 1) / 2)."""
    float_input("yolo_box", "x", x)
    if not isinstance(img_size, Variable):
        raise ArgumentTypeError(f"yolo_box: img_size must be an int32 Variable [N, 2], got {type(img_size).__name__}")
    if not isinstance(anchors, (list, tuple)):
        raise ArgumentTypeError(f"yolo_box: anchors={anchors!r} must be a list or tuple of ints")
    if not isinstance(class_num, int):
        raise ArgumentTypeError(f"yolo_box: class_num={class_num!r} must be an int")
    if not isinstance(conf_thresh, float):
        raise ArgumentTypeError(f"yolo_box: conf_thresh={conf_thresh!r} must be a float")
    helper = LayerHelper("yolo_box", name=name)
    boxes = helper.create_variable_for_type_inference(x.dtype)
    scores = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(
        "yolo_box",
        {"X": [x], "ImgSize": [img_size]},
        {"Boxes": [boxes], "Scores": [scores]},
        {
            "anchors": [int(a) for a in anchors],
            "class_num": class_num,
            "conf_thresh": float(conf_thresh),
            "downsample_ratio": int(downsample_ratio),
            "clip_bbox": bool(clip_bbox),
            "scale_x_y": float(scale_x_y),
            # Paddle 2.x's (paddle.vision.ops.yolo_box): written only where given
            **(
                {} if iou_aware is None else {"iou_aware": bool(iou_aware), "iou_aware_factor": float(iou_aware_factor)}
            ),
        },
    )
    return boxes, scores
