"""Fluid 1.8's ``layers.detection``: the detection layers (boxes, anchors, NMS, proposals, targets,
losses), which pe defines in its detection_* modules."""

from .detection_box import (
    anchor_generator,
    box_clip,
    box_coder,
    box_decoder_and_assign,
    density_prior_box,
    iou_similarity,
    polygon_box_transform,
    prior_box,
)
from .detection_head import multi_box_head
from .detection_loss import sigmoid_focal_loss, ssd_loss
from .detection_match import bipartite_match, target_assign
from .detection_nms import detection_output, locality_aware_nms, matrix_nms, multiclass_nms, retinanet_detection_output
from .detection_proposals import collect_fpn_proposals, distribute_fpn_proposals, generate_proposals
from .detection_roi import roi_perspective_transform
from .detection_target import generate_mask_labels, generate_proposal_labels, retinanet_target_assign, rpn_target_assign
from .detection_yolo import yolo_box, yolov3_loss

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
