# after: PaddlePaddle/Paddle python/paddle/fluid/tests/test_detection.py @ 007ff517954ba21e534c48bea63f91eb750662cc
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`. The cases of the layers pe
# has: detection_output, box_coder, iou_similarity, bipartite_match, target_assign, ssd_loss, prior_box,
# density_prior_box, anchor_generator, yolo_box, box_clip, multiclass_nms, box_decoder_and_assign. The
# proposal and RoI layers and yolov3_loss are fluid_detection_rcnn.py's; multi_box_head, detection_map and
# contrib's multiclass_nms2 (pe has none of them) are left out.
import paddle.fluid as fluid
import paddle.fluid.layers as layers
from paddle.fluid.framework import Program, program_guard


def raises_type_error(fn, **kwargs):
    try:
        fn(**kwargs)
    except TypeError:
        return
    raise AssertionError(f"{fn.__name__} did not raise TypeError")


# TestDetection.test_detection_output
program = Program()
with program_guard(program):
    pb = layers.data(name="prior_box", shape=[10, 4], append_batch_size=False, dtype="float32")
    pbv = layers.data(name="prior_box_var", shape=[10, 4], append_batch_size=False, dtype="float32")
    loc = layers.data(name="target_box", shape=[2, 10, 4], append_batch_size=False, dtype="float32")
    scores = layers.data(name="scores", shape=[2, 10, 20], append_batch_size=False, dtype="float32")
    out = layers.detection_output(scores=scores, loc=loc, prior_box=pb, prior_box_var=pbv)
    out2, index = layers.detection_output(scores=scores, loc=loc, prior_box=pb, prior_box_var=pbv, return_index=True)
    assert out is not None and out2 is not None and index is not None
    assert out.shape[-1] == 6
print(str(program))

# TestDetection.test_box_coder_api
program = Program()
with program_guard(program):
    x = layers.data(name="x", shape=[4], dtype="float32")
    y = layers.data(name="z", shape=[4], dtype="float32", lod_level=1)
    bcoder = layers.box_coder(
        prior_box=x, prior_box_var=[0.1, 0.2, 0.1, 0.2], target_box=y, code_type="encode_center_size"
    )
    assert bcoder is not None
print(str(program))

# TestDetection.test_box_coder_error
program = Program()
with program_guard(program):
    x1 = fluid.data(name="x1", shape=[10, 4], dtype="int32")
    y1 = fluid.data(name="y1", shape=[10, 4], dtype="float32", lod_level=1)
    x2 = fluid.data(name="x2", shape=[10, 4], dtype="float32")
    y2 = fluid.data(name="y2", shape=[10, 4], dtype="int32", lod_level=1)
    raises_type_error(
        layers.box_coder,
        prior_box=x1,
        prior_box_var=[0.1, 0.2, 0.1, 0.2],
        target_box=y1,
        code_type="encode_center_size",
    )
    raises_type_error(
        layers.box_coder,
        prior_box=x2,
        prior_box_var=[0.1, 0.2, 0.1, 0.2],
        target_box=y2,
        code_type="encode_center_size",
    )

# TestDetection.test_detection_api
program = Program()
with program_guard(program):
    x = layers.data(name="x", shape=[4], dtype="float32")
    y = layers.data(name="y", shape=[4], dtype="float32")
    z = layers.data(name="z", shape=[4], dtype="float32", lod_level=1)
    iou = layers.iou_similarity(x=x, y=y)
    bcoder = layers.box_coder(prior_box=x, prior_box_var=y, target_box=z, code_type="encode_center_size")
    assert iou is not None and bcoder is not None
    matched_indices, matched_dist = layers.bipartite_match(iou)
    assert matched_indices is not None and matched_dist is not None
    gt = layers.data(name="gt", shape=[1, 1], dtype="int32", lod_level=1)
    trg, trg_weight = layers.target_assign(gt, matched_indices, mismatch_value=0)
    assert trg is not None and trg_weight is not None
    gt2 = layers.data(name="gt2", shape=[10, 4], dtype="float32", lod_level=1)
    trg, trg_weight = layers.target_assign(gt2, matched_indices, mismatch_value=0)
    assert trg is not None and trg_weight is not None
print(str(program))

# TestDetection.test_ssd_loss
program = Program()
with program_guard(program):
    pb = layers.data(name="prior_box", shape=[10, 4], append_batch_size=False, dtype="float32")
    pbv = layers.data(name="prior_box_var", shape=[10, 4], append_batch_size=False, dtype="float32")
    loc = layers.data(name="target_box", shape=[10, 4], dtype="float32")
    scores = layers.data(name="scores", shape=[10, 21], dtype="float32")
    gt_box = layers.data(name="gt_box", shape=[4], lod_level=1, dtype="float32")
    gt_label = layers.data(name="gt_label", shape=[1], lod_level=1, dtype="int32")
    loss = layers.ssd_loss(loc, scores, gt_box, gt_label, pb, pbv)
    assert loss is not None
    assert loss.shape[-1] == 1
print(str(program))

# TestPriorBox, TestPriorBox2
for data in (
    (lambda: fluid.layers.data(name="pixel", shape=[3, 224, 224], dtype="float32")),
    (lambda: fluid.data(name="pixel", shape=[None, 3, None, None], dtype="float32")),
):
    program = Program()
    with program_guard(program):
        images = data()
        conv1 = fluid.layers.conv2d(images, 3, 3, 2)
        box, var = layers.prior_box(
            input=conv1, image=images, min_sizes=[100.0], aspect_ratios=[1.0], flip=True, clip=True
        )
        assert len(box.shape) == 4
        assert box.shape == var.shape
        assert box.shape[3] == 4

# TestDensityPriorBox
program = Program()
with program_guard(program):
    images = fluid.layers.data(name="pixel", shape=[3, 224, 224], dtype="float32")
    conv1 = fluid.layers.conv2d(images, 3, 3, 2)
    box, var = layers.density_prior_box(
        input=conv1, image=images, densities=[3, 4], fixed_sizes=[50.0, 60.0], fixed_ratios=[1.0], clip=True
    )
    assert len(box.shape) == 4
    assert box.shape == var.shape
    assert box.shape[-1] == 4

# TestAnchorGenerator (in the default program, as the test builds it)
images = fluid.layers.data(name="pixel", shape=[3, 224, 224], dtype="float32")
conv1 = fluid.layers.conv2d(images, 3, 3, 2)
anchor, var = fluid.layers.anchor_generator(
    input=conv1,
    anchor_sizes=[64, 128, 256, 512],
    aspect_ratios=[0.5, 1.0, 2.0],
    variance=[0.1, 0.1, 0.2, 0.2],
    stride=[16.0, 16.0],
    offset=0.5,
)
assert len(anchor.shape) == 4
assert anchor.shape == var.shape
assert anchor.shape[3] == 4

# TestYoloDetection.test_yolo_box
program = Program()
with program_guard(program):
    x = layers.data(name="x", shape=[30, 7, 7], dtype="float32")
    img_size = layers.data(name="img_size", shape=[2], dtype="int32")
    boxes, scores = layers.yolo_box(x, img_size, [10, 13, 30, 13], 10, 0.01, 32)
    assert boxes is not None and scores is not None

# TestBoxClip
program = Program()
with program_guard(program):
    input_box = layers.data(name="input_box", shape=[7, 4], dtype="float32", lod_level=1)
    im_info = layers.data(name="im_info", shape=[3], dtype="float32")
    out = layers.box_clip(input_box, im_info)
    assert out is not None

# TestMulticlassNMS
program = Program()
with program_guard(program):
    bboxes = layers.data(name="bboxes", shape=[-1, 10, 4], dtype="float32")
    scores = layers.data(name="scores", shape=[-1, 10], dtype="float32")
    output = layers.multiclass_nms(bboxes, scores, 0.3, 400, 200, 0.7)
    assert output is not None
program = Program()
with program_guard(program):
    bboxes1 = fluid.data(name="bboxes1", shape=[10, 10, 4], dtype="int32")
    scores1 = fluid.data(name="scores1", shape=[10, 10], dtype="float32")
    bboxes2 = fluid.data(name="bboxes2", shape=[10, 10, 4], dtype="float32")
    scores2 = fluid.data(name="scores2", shape=[10, 10], dtype="int32")
    raises_type_error(
        layers.multiclass_nms, bboxes=bboxes1, scores=scores1, score_threshold=0.5, nms_top_k=400, keep_top_k=200
    )
    raises_type_error(
        layers.multiclass_nms, bboxes=bboxes2, scores=scores2, score_threshold=0.5, nms_top_k=400, keep_top_k=200
    )

# TestBoxDecoderAndAssign
program = Program()
with program_guard(program):
    pb = fluid.data(name="prior_box", shape=[None, 4], dtype="float32")
    pbv = fluid.data(name="prior_box_var", shape=[4], dtype="float32")
    loc = fluid.data(name="target_box", shape=[None, 4 * 81], dtype="float32")
    scores = fluid.data(name="scores", shape=[None, 81], dtype="float32")
    decoded_box, output_assign_box = fluid.layers.box_decoder_and_assign(pb, pbv, loc, scores, 4.135)
    assert decoded_box is not None and output_assign_box is not None


def generate_input(pb_type, pbv_type, loc_type, score_type, name):
    pb = fluid.data(name="prior_box" + name, shape=[None, 4], dtype=pb_type)
    pbv = fluid.data(name="prior_box_var" + name, shape=[4], dtype=pbv_type)
    loc = fluid.data(name="target_box" + name, shape=[None, 4 * 81], dtype=loc_type)
    scores = fluid.data(name="scores" + name, shape=[None, 81], dtype=score_type)
    return pb, pbv, loc, scores


program = Program()
with program_guard(program):
    for types, name in (
        (("int32", "float32", "float32", "float32"), "1"),
        (("float32", "float32", "int32", "float32"), "2"),
        (("float32", "float32", "float32", "int32"), "3"),
    ):
        pb, pbv, loc, scores = generate_input(*types, name)
        raises_type_error(
            layers.box_decoder_and_assign,
            prior_box=pb,
            prior_box_var=pbv,
            target_box=loc,
            box_score=scores,
            box_clip=4.0,
        )
print("ok")
