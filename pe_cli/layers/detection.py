"""Fluid 1.8's ``layers.detection``: the detection layers (boxes, anchors, NMS, proposals, targets,
losses), which pe defines in its detection_* modules."""

from .fluid_module import resolver

__all__ = [
    "prior_box",
    "density_prior_box",
    "bipartite_match",
    "target_assign",
    "detection_output",
    "ssd_loss",
    "rpn_target_assign",
    "retinanet_target_assign",
    "sigmoid_focal_loss",
    "anchor_generator",
    "roi_perspective_transform",
    "generate_proposal_labels",
    "generate_proposals",
    "generate_mask_labels",
    "iou_similarity",
    "box_coder",
    "multi_box_head",
    "polygon_box_transform",
    "yolov3_loss",
    "yolo_box",
    "box_clip",
    "multiclass_nms",
    "locality_aware_nms",
    "matrix_nms",
    "retinanet_detection_output",
    "distribute_fpn_proposals",
    "box_decoder_and_assign",
    "collect_fpn_proposals",
]
__getattr__ = resolver(__name__, __all__)
