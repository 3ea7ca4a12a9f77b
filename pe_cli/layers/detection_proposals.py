"""Region proposal layers of Fluid 1.8's ``fluid.layers`` with its signatures: generate_proposals,
distribute_fpn_proposals, collect_fpn_proposals."""

__all__ = ["generate_proposals", "distribute_fpn_proposals", "collect_fpn_proposals"]
from ..base.errors import ArgumentTypeError, PeError
from .helper import LayerHelper
from .checks import fluid_checks
from .indexing import gather as gather
from .manipulation import reshape as reshape


def _float_var(layer, what, var):
    """Fluid's check_variable_and_dtype: a float32 or float64 Variable (TypeError else)."""
    if getattr(var, "dtype", None) not in ("float32", "float64"):
        raise ArgumentTypeError(
            f"{layer}: {what} must be a float32 or float64 Variable, not {getattr(var, 'dtype', type(var).__name__)}"
        )


@fluid_checks(
    "generate_proposals",
    scores=("float32",),
    bbox_deltas=("float32",),
    im_info=("float32", "float64"),
    anchors=("float32",),
    variances=("float32",),
)
def generate_proposals(
    scores,
    bbox_deltas,
    im_info,
    anchors,
    variances,
    pre_nms_top_n=6000,
    post_nms_top_n=1000,
    nms_thresh=0.5,
    min_size=0.1,
    eta=1.0,
    name=None,
    return_rois_num=False,
):
    """Faster R-CNN's proposals: per image the best-scored anchors (``scores`` [N, A, H, W]) moved by
    ``bbox_deltas`` [N, 4A, H, W], clipped to ``im_info`` [N, 3] (height, width, scale), small ones
    dropped, then NMS. Returns (rpn_rois [R, 4], rpn_roi_probs [R, 1]), a LoD sequence per image, and
    with ``return_rois_num`` the rois per image [N] (int32)."""
    helper = LayerHelper("generate_proposals", name=name)
    rois = helper.create_variable_for_type_inference(scores.dtype, stop_gradient=True)
    probs = helper.create_variable_for_type_inference(scores.dtype, stop_gradient=True)
    outputs = {"RpnRois": [rois], "RpnRoiProbs": [probs]}
    if return_rois_num:
        outputs["RpnRoisNum"] = [helper.create_variable_for_type_inference("int32", stop_gradient=True)]
    helper.append_op(
        "generate_proposals",
        {
            "Scores": [scores],
            "BboxDeltas": [bbox_deltas],
            "ImInfo": [im_info],
            "Anchors": [anchors],
            "Variances": [variances],
        },
        outputs,
        {
            "pre_nms_topN": pre_nms_top_n,
            "post_nms_topN": post_nms_top_n,
            "nms_thresh": float(nms_thresh),
            "min_size": float(min_size),
            "eta": float(eta),
        },
    )
    return (rois, probs, outputs["RpnRoisNum"][0]) if return_rois_num else (rois, probs)


def distribute_fpn_proposals(fpn_rois, min_level, max_level, refer_level, refer_scale, name=None, *, pixel_offset=True):
    """Splits ``fpn_rois`` [R, 4] (a LoD sequence per image) over the FPN levels min_level..max_level
    by size; returns (the list of the levels' rois, restore_ind [R, 1]: where each roi went in the
    levels' outputs concatenated, for gather to put their features back in order). pe's
    ``pixel_offset=False`` (Paddle 2.x's default) measures a roi without Fluid's + 1."""
    _float_var("distribute_fpn_proposals", "fpn_rois", fpn_rois)
    if max_level < min_level:
        raise PeError(f"distribute_fpn_proposals: max_level={max_level} is below min_level={min_level}")
    helper = LayerHelper("distribute_fpn_proposals", name=name)
    multi = [
        helper.create_variable_for_type_inference(fpn_rois.dtype, stop_gradient=True)
        for _ in range(max_level - min_level + 1)
    ]
    restore = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(
        "distribute_fpn_proposals",
        {"FpnRois": [fpn_rois]},
        {"MultiFpnRois": multi, "RestoreIndex": [restore]},
        {
            "min_level": min_level,
            "max_level": max_level,
            "refer_level": refer_level,
            "refer_scale": refer_scale,
            "pixel_offset": bool(pixel_offset),
        },
    )
    return multi, restore


def collect_fpn_proposals(multi_rois, multi_scores, min_level, max_level, post_nms_top_n, name=None):
    """The post_nms_top_n best-scored rois of levels min_level..max_level (``multi_rois`` and
    ``multi_scores`` lists, one per level), grouped by image: [K, 4] with a LoD sequence per image."""
    for what, value in (("multi_rois", multi_rois), ("multi_scores", multi_scores)):
        if not isinstance(value, (list, tuple)):
            raise ArgumentTypeError(
                f"collect_fpn_proposals: {what} must be a list of Variables (one per level), not {type(value).__name__}"
            )
        for var in value:
            _float_var("collect_fpn_proposals", what, var)
    levels = max_level - min_level + 1
    rois, scores = list(multi_rois)[:levels], list(multi_scores)[:levels]
    helper = LayerHelper("collect_fpn_proposals", name=name)
    out = helper.create_variable_for_type_inference(rois[0].dtype if rois else "float32", stop_gradient=True)
    helper.append_op(
        "collect_fpn_proposals",
        {"MultiLevelRois": rois, "MultiLevelScores": scores},
        {"FpnRois": [out]},
        {"post_nms_topN": post_nms_top_n},
    )
    return out
