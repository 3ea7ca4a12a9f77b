"""The meta rules of the box ops (ops/detection_box.py), structured kernels (shapes/structured.py; out-kernels:
kernels/cpu/detection_box.py). Variants: "boxes" (prior_box, density_prior_box, anchor_generator: the boxes and
variances depend on Input's and Image's shapes and the attributes alone, so the rule computes them, float64, once
per shape signature (``Meta.args``) and the out-kernel casts them into the buffers), "out" (numpy's ufuncs written
into the output through out=, in the dtype the values give, then cast as the kernels' astype did) and "fresh"
(the numpy form, its result cast to the output's dtype: box_coder, box_clip, box_decoder_and_assign)."""

import numpy as np

from . import detection as geo
from .structured import Meta


def _spec(x):
    return tuple(x.shape), np.dtype(x.dtype)


def _hw(x):
    return int(x.shape[2]), int(x.shape[3])


def _boxes_meta(names, made, x):
    boxes, variances = made
    dtype = np.dtype(x.dtype)
    return Meta({names[0]: (boxes.shape, dtype), names[1]: (variances.shape, dtype)}, "boxes", args=made)


def prior_box_meta(attrs, ins, facts):
    """prior_box: Boxes and Variances [H, W, P, 4] in Input's dtype (shapes/detection.prior_boxes)."""
    x = ins["Input"]
    return _boxes_meta(("Boxes", "Variances"), geo.prior_boxes(_hw(x), _hw(ins["Image"]), attrs), x)


def density_prior_box_meta(attrs, ins, facts):
    """density_prior_box: Boxes and Variances ([H*W*P, 4] with flatten_to_2d) in Input's dtype."""
    x = ins["Input"]
    return _boxes_meta(("Boxes", "Variances"), geo.density_boxes(_hw(x), _hw(ins["Image"]), attrs), x)


def anchor_generator_meta(attrs, ins, facts):
    """anchor_generator: Anchors and Variances [H, W, A, 4] in Input's dtype."""
    x = ins["Input"]
    return _boxes_meta(("Anchors", "Variances"), geo.anchors(_hw(x), attrs), x)


def iou_similarity_meta(attrs, ins, facts):
    """iou_similarity: Out [N, M] (X's rows by Y's) in X's dtype."""
    x, y = ins["X"], ins["Y"]
    return Meta({"Out": ((x.shape[0], y.shape[0]), np.dtype(x.dtype))}, "out")


def _broadcast(*shapes):
    """numpy's broadcast of the shapes, or the first where they do not broadcast (the values then raise numpy's
    own error, as they did)."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return tuple(shapes[0])


def box_coder_meta(attrs, ins, facts):
    """box_coder: OutputBox in TargetBox's dtype: [T, P, 4] encoding T boxes against P priors; decoding, TargetBox's
    boxes broadcast against the priors along ``axis`` (0: [1, P], 1: [P, 1]), 4 values each."""
    prior, target = ins["PriorBox"], ins["TargetBox"]
    p = prior.shape[0]
    if attrs["code_type"] == "encode_center_size":
        shape = (target.shape[0], p, 4)
    else:
        along = (p, 1) if attrs["axis"] == 1 else (1, p)
        shape = _broadcast(tuple(target.shape[:-1]), along) + (4,)
    return Meta({"OutputBox": (shape, np.dtype(target.dtype))}, "fresh", fresh=True)


def box_clip_meta(attrs, ins, facts):
    """box_clip: Output of Input's shape and dtype (the windows: the ImInfo values, per image of Input's LoD)."""
    return Meta({"Output": _spec(ins["Input"])}, "fresh", fresh=True)


def polygon_box_transform_meta(attrs, ins, facts):
    """polygon_box_transform: Output of Input's shape and dtype; 4 * the grid of each channel (x for the even ones,
    y for the odd) in Input's dtype (``Meta.args``), which Input is taken from."""
    x = ins["Input"]
    _, c, h, w = x.shape
    dtype = np.dtype(x.dtype)
    cols = np.broadcast_to(np.arange(w, dtype=dtype)[None, :], (h, w))
    rows = np.broadcast_to(np.arange(h, dtype=dtype)[:, None], (h, w))
    grid = np.stack([cols if k % 2 == 0 else rows for k in range(c)])
    return Meta({"Output": _spec(x)}, "out", args=(4 * grid[None],))


def box_decoder_and_assign_meta(attrs, ins, facts):
    """box_decoder_and_assign: DecodeBox of TargetBox's shape, OutputAssignBox of PriorBox's, TargetBox's dtype."""
    prior, target = ins["PriorBox"], ins["TargetBox"]
    dtype = np.dtype(target.dtype)
    outputs = {"DecodeBox": (tuple(target.shape), dtype), "OutputAssignBox": (tuple(prior.shape), dtype)}
    return Meta(outputs, "fresh", fresh=True)
