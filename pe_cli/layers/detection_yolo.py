"""yolov3_loss of Fluid 1.8's ``fluid.layers`` with its signature and its argument type checks."""
__all__ = ["yolov3_loss"]
import numbers

from ..errors import ArgumentTypeError
from ..framework.variable import Variable
from .helper import LayerHelper


def _check(name, value, types, what):
    if not isinstance(value, types) or (types is numbers.Integral and isinstance(value, bool)):
        raise ArgumentTypeError(f"yolov3_loss: {name} must be {what}, got {type(value).__name__}")


def yolov3_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh, downsample_ratio, gt_score=None,
                use_label_smooth=True, name=None, scale_x_y=1.0):
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
    helper.append_op("yolov3_loss", inputs, {"Loss": [loss], "ObjectnessMask": [objectness], "GTMatchMask": [matched]},
                     {"anchors": list(anchors), "anchor_mask": list(anchor_mask), "class_num": class_num,
                      "ignore_thresh": ignore_thresh, "downsample_ratio": downsample_ratio,
                      "use_label_smooth": use_label_smooth, "scale_x_y": float(scale_x_y)})
    return loss
