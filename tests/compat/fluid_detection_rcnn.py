# after: PaddlePaddle/Paddle python/paddle/fluid/tests/test_detection.py @ 007ff517954ba21e534c48bea63f91eb750662cc
# Re-written for pe (the cases of the layers issue 11 part B built: generate_proposal_labels,
# generate_mask_labels, rpn_target_assign, yolov3_loss, collect_fpn_proposals, distribute_fpn_proposals,
# with their TypeErrors; same API calls, same facts asserted), run with `pe fluid`.
import paddle.fluid as fluid
import paddle.fluid.layers as layers
from paddle.fluid.framework import Program, program_guard


def raises_type_error(fn, **kwargs):
    try:
        fn(**kwargs)
    except TypeError:
        return
    raise AssertionError("%s(%s) did not raise TypeError" % (fn.__name__, sorted(kwargs)))


# TestGenerateProposalLabels
program = Program()
with program_guard(program):
    rpn_rois = layers.data(name="rpn_rois", shape=[4, 4], dtype="float32", lod_level=1, append_batch_size=False)
    gt_classes = layers.data(name="gt_classes", shape=[6], dtype="int32", lod_level=1, append_batch_size=False)
    is_crowd = layers.data(name="is_crowd", shape=[6], dtype="int32", lod_level=1, append_batch_size=False)
    gt_boxes = layers.data(name="gt_boxes", shape=[6, 4], dtype="float32", lod_level=1, append_batch_size=False)
    im_info = layers.data(name="im_info", shape=[1, 3], dtype="float32", lod_level=1, append_batch_size=False)
    class_nums = 5
    outs = fluid.layers.generate_proposal_labels(
        rpn_rois=rpn_rois,
        gt_classes=gt_classes,
        is_crowd=is_crowd,
        gt_boxes=gt_boxes,
        im_info=im_info,
        batch_size_per_im=2,
        fg_fraction=0.5,
        fg_thresh=0.5,
        bg_thresh_hi=0.5,
        bg_thresh_lo=0.0,
        bbox_reg_weights=[0.1, 0.1, 0.2, 0.2],
        class_nums=class_nums,
    )
    rois, labels_int32, bbox_targets, bbox_inside_weights, bbox_outside_weights = outs[:5]
    assert rois.shape[1] == 4
    assert rois.shape[0] == labels_int32.shape[0]
    assert rois.shape[0] == bbox_targets.shape[0]
    assert rois.shape[0] == bbox_inside_weights.shape[0]
    assert rois.shape[0] == bbox_outside_weights.shape[0]
    assert bbox_targets.shape[1] == 4 * class_nums
    assert bbox_inside_weights.shape[1] == 4 * class_nums
    assert bbox_outside_weights.shape[1] == 4 * class_nums

# TestGenerateMaskLabels
program = Program()
with program_guard(program):
    im_info = layers.data(name="im_info", shape=[1, 3], dtype="float32", lod_level=1, append_batch_size=False)
    gt_classes = layers.data(name="gt_classes", shape=[2, 1], dtype="int32", lod_level=1, append_batch_size=False)
    is_crowd = layers.data(name="is_crowd", shape=[2, 1], dtype="int32", lod_level=1, append_batch_size=False)
    gt_segms = layers.data(name="gt_segms", shape=[20, 2], dtype="float32", lod_level=3, append_batch_size=False)
    rois = layers.data(name="rois", shape=[4, 4], dtype="float32", lod_level=1, append_batch_size=False)
    labels_int32 = layers.data(name="labels_int32", shape=[4, 1], dtype="int32", lod_level=1, append_batch_size=False)
    num_classes = 5
    resolution = 14
    mask_rois, roi_has_mask_int32, mask_int32 = fluid.layers.generate_mask_labels(
        im_info=im_info,
        gt_classes=gt_classes,
        is_crowd=is_crowd,
        gt_segms=gt_segms,
        rois=rois,
        labels_int32=labels_int32,
        num_classes=num_classes,
        resolution=resolution,
    )
    assert mask_rois.shape[1] == 4
    assert mask_int32.shape[1] == num_classes * resolution * resolution

# TestRpnTargetAssign
program = Program()
with program_guard(program):
    bbox_pred = layers.data(name="bbox_pred", shape=[10, 50, 4], append_batch_size=False, dtype="float32")
    cls_logits = layers.data(name="cls_logits", shape=[10, 50, 2], append_batch_size=False, dtype="float32")
    anchor_box = layers.data(name="anchor_box", shape=[50, 4], append_batch_size=False, dtype="float32")
    anchor_var = layers.data(name="anchor_var", shape=[50, 4], append_batch_size=False, dtype="float32")
    gt_boxes = layers.data(name="gt_boxes", shape=[4], lod_level=1, dtype="float32")
    is_crowd = layers.data(name="is_crowd", shape=[1, 10], dtype="int32", lod_level=1, append_batch_size=False)
    im_info = layers.data(name="im_info", shape=[1, 3], dtype="float32", lod_level=1, append_batch_size=False)
    outs = layers.rpn_target_assign(
        bbox_pred=bbox_pred,
        cls_logits=cls_logits,
        anchor_box=anchor_box,
        anchor_var=anchor_var,
        gt_boxes=gt_boxes,
        is_crowd=is_crowd,
        im_info=im_info,
        rpn_batch_size_per_im=256,
        rpn_straddle_thresh=0.0,
        rpn_fg_fraction=0.5,
        rpn_positive_overlap=0.7,
        rpn_negative_overlap=0.3,
        use_random=False,
    )
    pred_scores, pred_loc, tgt_lbl, tgt_bbox, bbox_inside_weight = outs
    for v in outs:
        assert v is not None
    assert pred_scores.shape[1] == 1
    assert pred_loc.shape[1] == 4
    assert pred_loc.shape[1] == tgt_bbox.shape[1]

# TestYoloDetection.test_yolov3_loss
program = Program()
with program_guard(program):
    x = layers.data(name="x", shape=[30, 7, 7], dtype="float32")
    gt_box = layers.data(name="gt_box", shape=[10, 4], dtype="float32")
    gt_label = layers.data(name="gt_label", shape=[10], dtype="int32")
    gt_score = layers.data(name="gt_score", shape=[10], dtype="float32")
    loss = layers.yolov3_loss(
        x, gt_box, gt_label, [10, 13, 30, 13], [0, 1], 10, 0.7, 32, gt_score=gt_score, use_label_smooth=False
    )
    assert loss is not None

# TestCollectFpnPropsals
program = Program()
with program_guard(program):
    multi_bboxes, multi_scores = [], []
    for i in range(4):
        multi_bboxes.append(
            layers.data(name="rois" + str(i), shape=[10, 4], dtype="float32", lod_level=1, append_batch_size=False)
        )
        multi_scores.append(
            layers.data(name="scores" + str(i), shape=[10, 1], dtype="float32", lod_level=1, append_batch_size=False)
        )
    fpn_rois = layers.collect_fpn_proposals(multi_bboxes, multi_scores, 2, 5, 10)
    assert fpn_rois is not None


def generate_input(bbox_type, score_type, name):
    multi_bboxes, multi_scores = [], []
    for i in range(4):
        multi_bboxes.append(fluid.data(name="rois" + name + str(i), shape=[10, 4], dtype=bbox_type, lod_level=1))
        multi_scores.append(fluid.data(name="scores" + name + str(i), shape=[10, 1], dtype=score_type, lod_level=1))
    return multi_bboxes, multi_scores


program = Program()
with program_guard(program):
    bbox1 = fluid.data(name="rois", shape=[5, 10, 4], dtype="float32", lod_level=1)
    score1 = fluid.data(name="scores", shape=[5, 10, 1], dtype="float32", lod_level=1)
    bbox2, score2 = generate_input("int32", "float32", "2")
    raises_type_error(
        layers.collect_fpn_proposals,
        multi_rois=bbox1,
        multi_scores=score1,
        min_level=2,
        max_level=5,
        post_nms_top_n=2000,
    )
    raises_type_error(
        layers.collect_fpn_proposals,
        multi_rois=bbox2,
        multi_scores=score2,
        min_level=2,
        max_level=5,
        post_nms_top_n=2000,
    )

# TestDistributeFpnProposals
program = Program()
with program_guard(program):
    fpn_rois = fluid.layers.data(name="data", shape=[4], dtype="float32", lod_level=1)
    multi_rois, restore_ind = layers.distribute_fpn_proposals(
        fpn_rois=fpn_rois, min_level=2, max_level=5, refer_level=4, refer_scale=224
    )
    assert multi_rois is not None
    assert restore_ind is not None

program = Program()
with program_guard(program):
    fpn_rois = fluid.data(name="data_error", shape=[10, 4], dtype="int32", lod_level=1)
    raises_type_error(
        layers.distribute_fpn_proposals, fpn_rois=fpn_rois, min_level=2, max_level=5, refer_level=4, refer_scale=224
    )

print("ok")
