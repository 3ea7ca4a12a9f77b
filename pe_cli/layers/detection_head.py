"""Fluid 1.8's ``multi_box_head``: the SSD head, composed as Fluid's Python composes it of prior_box,
conv2d, transpose, reshape, flatten and concat (python/paddle/fluid/layers/detection.py)."""

import math

from ..base.errors import ArgumentValueError
from .convolution import conv2d
from .detection_box import prior_box
from .manipulation import concat, flatten, reshape, transpose

__all__ = ["multi_box_head"]


def _listed(v):
    return v if isinstance(v, (list, tuple)) else [v]


def _same_length(value, n, what):
    if value and not (isinstance(value, (list, tuple)) and len(value) == n):
        raise ArgumentValueError(
            f"multi_box_head: {what} should be list or tuple, and the length of inputs and {what} should be the same."
        )


def _sizes(num_layer, base_size, min_ratio, max_ratio, min_sizes, max_sizes):
    """Each input's min and max box sizes: given, or spread between min_ratio and max_ratio percent of
    base_size (the first input at 10% and 20%), as Fluid's."""
    if num_layer <= 2:
        if min_sizes is None or max_sizes is None or len(min_sizes) != num_layer or len(max_sizes) != num_layer:
            raise AssertionError("multi_box_head: with at most 2 inputs give min_sizes and max_sizes, one per input")
        return min_sizes, max_sizes
    if min_sizes is not None or max_sizes is not None:
        return min_sizes, max_sizes
    step = int(math.floor((max_ratio - min_ratio) / (num_layer - 2)))
    ratios = range(min_ratio, max_ratio + 1, step)
    return (
        [base_size * 0.10] + [base_size * r / 100.0 for r in ratios],
        [base_size * 0.20] + [base_size * (r + step) / 100.0 for r in ratios],
    )


def _head(input, num_out, width, kernel_size, pad, stride):
    """conv2d to num_out channels, NHWC, then [N, H * W * num_out / width, width]."""
    out = transpose(
        conv2d(input=input, num_filters=num_out, filter_size=kernel_size, padding=pad, stride=stride), perm=[0, 2, 3, 1]
    )
    return reshape(out, shape=[0, -1, width])


def _joined(locs, confs, boxes, variances):
    """(loc, conf, box, var) of all the inputs: each concatenated over them (one input's as it is), the
    prior boxes and variances flattened to [priors, 4] and never trained (stop_gradient)."""
    if len(boxes) == 1:
        box, var, loc, conf = boxes[0], variances[0], locs[0], confs[0]
    else:
        box = concat([flatten(b, axis=3) for b in boxes])
        var = concat([flatten(v, axis=3) for v in variances])
        loc, conf = concat(locs, axis=1), concat(confs, axis=1)
    box.stop_gradient = True
    var.stop_gradient = True
    return loc, conf, box, var


def multi_box_head(
    inputs,
    image,
    base_size,
    num_classes,
    aspect_ratios,
    min_ratio=None,
    max_ratio=None,
    min_sizes=None,
    max_sizes=None,
    steps=None,
    step_w=None,
    step_h=None,
    offset=0.5,
    variance=[0.1, 0.1, 0.2, 0.2],
    flip=True,
    clip=False,
    kernel_size=1,
    pad=0,
    stride=1,
    name=None,
    min_max_aspect_ratios_order=False,
):
    """SSD's head over the feature maps ``inputs``: (mbox_locs [N, priors, 4], mbox_confs [N, priors,
    num_classes], boxes, variances) -- a prior_box and two conv2d per input (box offsets and class
    scores), concatenated; boxes and variances are [priors, 4], or [H, W, P, 4] for one input."""
    if not isinstance(inputs, (list, tuple)):
        raise ArgumentValueError("multi_box_head: inputs should be a list or tuple.")
    num_layer = len(inputs)
    min_sizes, max_sizes = _sizes(num_layer, base_size, min_ratio, max_ratio, min_sizes, max_sizes)
    for value, what in ((aspect_ratios, "aspect_ratios"), (step_h, "step_h"), (step_w, "step_w"), (steps, "steps")):
        _same_length(value, num_layer, what)
    if steps:
        step_w = step_h = steps
    locs, confs, boxes, variances = [], [], [], []
    for i, input in enumerate(inputs):
        ratio = _listed(aspect_ratios[i]) if aspect_ratios is not None else []
        step = [step_w[i] if step_w else 0.0, step_h[i] if step_w else 0.0]  # (Fluid tests step_w for both)
        box, var = prior_box(
            input,
            image,
            _listed(min_sizes[i]),
            _listed(max_sizes[i]),
            ratio,
            variance,
            flip,
            clip,
            step,
            offset,
            None,
            min_max_aspect_ratios_order,
        )
        boxes.append(box)
        variances.append(var)
        num_boxes = box.shape[2]
        locs.append(_head(input, num_boxes * 4, 4, kernel_size, pad, stride))
        confs.append(_head(input, num_boxes * num_classes, num_classes, kernel_size, pad, stride))
    return _joined(locs, confs, boxes, variances)
