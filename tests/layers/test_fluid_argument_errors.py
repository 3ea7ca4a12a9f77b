"""Fluid 1.8's argument errors of layers whose op tests check them (test_lrn_op, test_maxout_op,
test_isfinite_op, test_instance_norm_op, test_lod_reset_op, test_batch_norm_op, test_clip_op,
test_concat_op, and those below): a wrong dtype or type is a TypeError, a wrong value a ValueError, raised where the
layer is built."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli import layers


@pytest.fixture
def program():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        yield


def test_dtype_and_type_errors(program):
    i32 = layers.data("i", shape=[3, 4, 5], dtype="int32")
    with pytest.raises(TypeError):
        layers.lrn(layers.data("l", shape=[3, 3, 3], dtype="int64"))
    with pytest.raises(TypeError):
        layers.maxout(i32, 2)
    with pytest.raises(TypeError):  # test_dropout_op.py
        layers.dropout(i32, dropout_prob=0.5)
    with pytest.raises(TypeError):  # test_group_norm_op.py
        layers.group_norm(i32, 2)
    f32 = fluid.data("f", shape=[None, 1], dtype="float32")
    for bad in ((f32, [512, 1]), ([512, 1], f32)):  # test_teacher_student_sigmoid_loss_op.py
        with pytest.raises(TypeError):
            layers.teacher_student_sigmoid_loss(*bad)
    with pytest.raises(TypeError):
        layers.isfinite(layers.data("h", shape=[10], dtype="float16", append_batch_size=False))
    with pytest.raises(TypeError):
        layers.instance_norm(i32)
    with pytest.raises(TypeError):
        layers.batch_norm(i32)
    with pytest.raises(TypeError):
        layers.lod_reset(np.ones(4), target_lod=[2, 2])
    with pytest.raises(TypeError):
        layers.lod_reset(layers.data("x", shape=[4]), layers.data("y", shape=[4], dtype="float32"))


def test_value_errors(program):
    x = fluid.data("x", shape=[2, 4, 5, 5], dtype="float32")
    with pytest.raises(ValueError):
        layers.lrn(x, data_format="NDHW")
    with pytest.raises(ValueError):
        layers.lrn(fluid.data("x5", shape=[2, 4, 5, 5, 5], dtype="float32"))
    with pytest.raises(ValueError):
        layers.maxout(x, groups=2, axis=2)
    assert layers.lrn(x).shape == (2, 4, 5, 5)


def test_mean_and_prelu_take_float_variables(program):
    i32 = fluid.data("i32", shape=[12, 10], dtype="int32")
    for bad in (12, i32):
        with pytest.raises(TypeError):
            layers.mean(bad)
    for bad in (0.1, i32):
        with pytest.raises(TypeError):
            layers.prelu(bad, "all")


def test_type_errors_of_losses_casts_and_lookups(program):
    """test_smooth_l1_loss_op, test_cast_op, test_pad_constant_like, test_random_crop_op, test_unique,
    test_center_loss, test_sequence_pad_op, test_lookup_table_op, test_assign_op."""
    i32 = fluid.data("i32", shape=[4], dtype="int32")
    f32 = fluid.data("f32", shape=[2, 4], dtype="float32")
    ids = fluid.data("ids", shape=[4, 1], dtype="int64")
    seq = fluid.data("seq", shape=[10, 5], dtype="int16", lod_level=1)
    bad_calls = [
        lambda: layers.smooth_l1(i32, i32),
        lambda: layers.cast(np.ones(3), "int32"),
        lambda: layers.cast(fluid.data("i16", shape=[4], dtype="int16"), "int32"),
        lambda: layers.cast(i32, "int16"),
        lambda: layers.pad_constant_like(np.ones((2, 4), "float32"), f32),
        lambda: layers.pad_constant_like(f32, np.ones((2, 4), "float32")),
        lambda: layers.random_crop(np.ones((2, 3), "float32"), [1]),
        lambda: layers.random_crop(f32, shape=1),
        lambda: layers.unique([10]),
        lambda: layers.unique_with_counts(fluid.data("h", shape=[4], dtype="float16")),
        lambda: layers.center_loss([[1.0, 2.0]], ids, 10, 0.2, None),
        lambda: layers.center_loss(f32, [[2], [3]], 10, 0.2, None),
        lambda: layers.sequence_pad(np.ones((2, 4), "float32"), layers.assign(np.zeros(1, "float32"))),
        lambda: layers.sequence_pad(seq, layers.assign(np.zeros(1, "int32"))),
        lambda: layers.embedding(np.ones((4, 1), "int64"), (10, 8)),
        lambda: layers.embedding(f32, (10, 8)),
        lambda: layers.embedding(ids, (10, 8), dtype="int64"),
        lambda: fluid.embedding(f32, (10, 8)),
        lambda: layers.assign(fluid.create_lod_tensor(np.array([[-1]]), [[1]], fluid.CPUPlace())),
        lambda: layers.assign(fluid.data("u8", shape=[4], dtype="uint8")),
        lambda: layers.assign(np.ones(2, "float64")),
        lambda: layers.assign(np.ones(2, "uint8")),
        lambda: fluid.data("typo", shape=[4], dtype="intt32"),
    ]
    for i, call in enumerate(bad_calls):
        with pytest.raises(TypeError):
            call()
            pytest.fail(f"bad call {i} raised nothing")
    assert layers.embedding(ids, (10, 8), dtype="float16").dtype == "float16"
    assert layers.assign(np.ones(2, "int64")).dtype == "int64"


def test_type_errors_of_detection_layers(program):
    """test_deformable_conv_op, test_deformable_psroi_pooling, test_roi_perspective_transform_op,
    test_rpn_target_assign_op, test_retinanet_detection_output."""
    x = fluid.data("x", shape=[2, 192, 8, 8], dtype="float32")
    i32 = fluid.data("i32", shape=[2, 3, 8, 8], dtype="int32")
    rois = fluid.data("rois", shape=[-1, 4], dtype="float32", lod_level=1)
    boxes = fluid.data("boxes", shape=[1, 10, 4], dtype="float32")
    anchors = fluid.data("anchors", shape=[10, 4], dtype="float32")
    labels = fluid.data("labels", shape=[10, 1], dtype="int32")
    info = fluid.data("info", shape=[1, 3], dtype="float32")
    bad_calls = [
        lambda: layers.deformable_conv([1, 3, 32, 32], x, x, num_filters=4, filter_size=1),
        lambda: layers.deformable_conv(i32, x, x, num_filters=4, filter_size=1),
        lambda: layers.deformable_roi_pooling(x, 2, x, pooled_height=8, pooled_width=8),
        lambda: layers.deformable_roi_pooling(x, rois, x, group_size=1, pooled_height=8, pooled_width=8),
        lambda: layers.deformable_roi_pooling(x, rois, x, pooled_height=8, pooled_width=8, part_size=8),
        lambda: layers.roi_perspective_transform(x, [1.0], 7, 7),
        lambda: layers.roi_perspective_transform(x, rois, 7.0, 7),
        lambda: layers.retinanet_target_assign([1], boxes, anchors, anchors, anchors, labels, labels, info, 10),
        lambda: layers.retinanet_target_assign(boxes, boxes, anchors, anchors, anchors, info, labels, info, 10),
        lambda: layers.retinanet_detection_output(boxes, [boxes], [anchors], info),
        lambda: layers.retinanet_detection_output([boxes], [i32], [anchors], info),
    ]
    for i, call in enumerate(bad_calls):
        with pytest.raises(TypeError):
            call()
            pytest.fail(f"bad call {i} raised nothing")


def test_type_and_value_errors_before_shape_checks(program):
    """test_cos_sim_op, test_affine_channel_op, test_transpose_op, test_sequence_concat, test_eye_op,
    test_polygon_box_transform, test_softmax_op, test_uniform_random_op, test_elementwise_*_op: Fluid's argument checks come
    before pe's shape inference, so a wrong type is a TypeError, not a ShapeError."""
    x = fluid.data("x", shape=[-1, 3, 4, 5], dtype="float32")
    i32 = fluid.data("i32", shape=[3, 4, 5, 6], dtype="int32")
    i64 = fluid.data("i64", shape=[3, 4, 5, 6], dtype="int64")
    bad_calls = [
        lambda: layers.cos_sim(i32, i64),
        lambda: layers.affine_channel(np.ones((2, 1, 2, 2), "float32")),
        lambda: layers.affine_channel(i32),
        lambda: layers.affine_channel(x, scale=1),
        lambda: layers.transpose("not_variable", perm=[1, 0, 2]),
        lambda: layers.transpose(fluid.data("b", shape=[10, 5, 3], dtype="bool"), perm=[1, 0, 2]),
        lambda: layers.transpose(x, perm="[1, 0, 2, 3]"),
        lambda: layers.sequence_concat(x),
        lambda: layers.sequence_concat([np.ones((1, 2), "float32"), x]),
        lambda: layers.sequence_concat([i32, x]),
        lambda: layers.eye(-1),
        lambda: layers.eye(10, num_columns=5.2),
        lambda: layers.polygon_box_transform(i64),
        lambda: layers.softmax(i32),
        lambda: layers.uniform_random_batch_size_like(x, shape="shape"),
        lambda: layers.uniform_random_batch_size_like(i32, [-1, 2]),
        lambda: layers.elementwise_add(fluid.create_lod_tensor(np.ones(4), [[4]], fluid.CPUPlace()), x),
        lambda: layers.elementwise_mul(fluid.data("u8", shape=[3], dtype="uint8"), x),
        lambda: layers.cross_entropy(i32, i32),
        lambda: layers.where([10]),
    ]
    for i, call in enumerate(bad_calls):
        with pytest.raises(TypeError):
            call()
            pytest.fail(f"bad call {i} raised nothing")
    for perm in ([1, 0, 2, 3, 4], [3, 5, 7, 0]):
        with pytest.raises(ValueError):
            layers.transpose(x, perm=perm)
    assert layers.transpose(x, perm=[0, 2, 1, 3]).shape == (-1, 4, 3, 5)


def test_type_errors_of_the_fourth_session(program):
    """test_mul_op, test_sum_op, test_squeeze_op, test_unsqueeze_op, test_arg_min_max_op, test_reduce_op,
    test_fill_constant_op, test_split_op, test_crop_tensor_op, test_one_hot_op, test_conv2d_op."""
    i32, f32 = layers.data("i", shape=[4], dtype="int32"), layers.data("f", shape=[4], dtype="float32")
    lod = fluid.create_lod_tensor(np.array([[-1.0]]), [[1]], fluid.CPUPlace())
    for bad in (
        lambda: layers.mul(i32, i32),
        lambda: layers.matmul(i32, i32),
        lambda: layers.sums([11, 22]),
        lambda: layers.sum([i32, 1]),
        lambda: layers.squeeze(i32, axes=0),
        lambda: layers.unsqueeze(f32, axes=3.2),
        lambda: layers.argmax([1, 2]),
        lambda: layers.reduce_sum(lod),
        lambda: layers.reduce_mean(layers.data("u", shape=[4], dtype="uint8")),
        lambda: layers.reduce_all(i32),
        lambda: layers.fill_constant([1], "int16", 5),
        lambda: layers.fill_constant(1, "float32", 1),
        lambda: layers.fill_constant([1], "float64", 5, out=i32),
        lambda: layers.split(f32, 2.1),
        lambda: layers.split(f32, 2, dim=3.2),
        lambda: layers.crop_tensor(f32, shape=3),
        lambda: layers.crop_tensor(f32, shape=[2, 2.0]),
        lambda: layers.one_hot(f32, 4),
        lambda: layers.one_hot(i32, 4.1),
        lambda: layers.conv2d(layers.data("c", shape=[3, 4, 5, 6], dtype="int32"), 1, 1),
    ):
        with pytest.raises(TypeError):
            bad()
    with pytest.raises(ValueError):
        layers.fill_constant([1], "uint4", 5)  # no dtype of that name: Fluid's ValueError
    with pytest.raises(ValueError):
        layers.crop_tensor(f32, shape=[2, -2])
    with pytest.raises(ValueError):
        layers.full_like(f32, 1.0, dtype="float")  # Fluid's check_dtype takes the exact names only
    with pytest.raises(ValueError):
        layers.full_like(f32, 1.0, device="opu")


def test_type_errors_of_hsigmoid_tree_conv_and_pooling(program):
    """test_hsigmoid_op, test_tree_conv_op, test_pool2d_op (use_cudnn given as a list)."""
    label, f32 = layers.data("label", shape=[1], dtype="int64"), layers.data("x", shape=[3], dtype="float32")
    nodes = layers.data("nodes", shape=[10, 5], dtype="float32")
    img = layers.data("img", shape=[3, 8, 8], dtype="float32")
    vol = layers.data("vol", shape=[3, 4, 4, 4], dtype="float32")
    for bad in (
        lambda: layers.hsigmoid(1, label, 2),
        lambda: layers.hsigmoid(f32, 1, 2),
        lambda: layers.hsigmoid(layers.data("xi", shape=[3], dtype="int32"), label, 2),
        lambda: layers.hsigmoid(f32, layers.data("li", shape=[1], dtype="int32"), 2),
        lambda: fluid.contrib.layers.tree_conv(np.ones((10, 5), "float32"), nodes, 3),
        lambda: fluid.contrib.layers.tree_conv(nodes, np.ones((10, 2), "float32"), 3),
        lambda: layers.pool2d(img, 2, use_cudnn=[0]),
        lambda: layers.pool3d(vol, 2, use_cudnn=1),
    ):
        with pytest.raises(TypeError):
            bad()


def test_gather_nd_of_too_long_an_index_row_says_it_in_fluids_words(program):
    """test_gather_nd_op matches the message."""
    x, index = layers.data("x", shape=[3, 4, 5], dtype="float32"), layers.data("ix", shape=[2, 10], dtype="int32")
    with pytest.raises(ValueError, match=r"Input\(Index\)\.shape\[-1\] should be no greater than Input\(X\)\.rank"):
        layers.gather_nd(x, index)


def test_value_errors_of_pool2d_and_pool3d(program):
    """test_pool2d_op's and test_pool3d_op's TestPool*API_Error: Fluid 1.8's ValueErrors."""
    img = layers.data("img", shape=[2, 5, 5, 3], dtype="float32", append_batch_size=False)
    vol = layers.data("vol", shape=[2, 5, 5, 5, 3], dtype="float32", append_batch_size=False)
    for bad in (
        lambda: layers.pool2d(img, 3, data_format="NHWCC"),
        lambda: layers.pool2d(img, 3, pool_type="min"),
        lambda: layers.pool2d(img, 3, pool_padding="VALIDSAME", data_format="NHWC"),
        lambda: layers.pool2d(img, 3, pool_padding="VALID", ceil_mode=True, data_format="NHWC"),
        lambda: layers.pool2d(img, 3, pool_padding=[[1, 1], [0, 0], [0, 0], [1, 1]], data_format="NHWC"),
        lambda: layers.pool2d(img),
        lambda: layers.pool3d(vol, 3, data_format="NDHWCC"),
        lambda: layers.pool3d(vol, 3, pool_padding="VALID", ceil_mode=True, data_format="NDHWC"),
    ):
        with pytest.raises(ValueError):
            bad()


def test_type_errors_of_sigmoid_focal_loss_and_sequence_reverse(program):
    """test_sigmoid_focal_loss_op's and test_sequence_reverse's error cases."""
    label, fg = layers.fill_constant([10, 1], "int32", 1), layers.fill_constant([1], "int32", 5)
    x = layers.data("x", shape=[10, 10], dtype="float64")
    for bad in (
        lambda: layers.sigmoid_focal_loss([2], label, fg),
        lambda: layers.sigmoid_focal_loss(layers.data("xi", shape=[10], dtype="int16"), label, fg),
        lambda: layers.sigmoid_focal_loss(x, [2], fg),
        lambda: layers.sigmoid_focal_loss(x, layers.fill_constant([10, 1], "float32", 1.0), fg),
        lambda: layers.sigmoid_focal_loss(x, label, [2]),
        lambda: layers.sigmoid_focal_loss(x, label, layers.fill_constant([1], "float32", 5.0)),
        lambda: layers.sequence_reverse(np.ones((2, 4), "float32")),
        lambda: layers.sequence_reverse(layers.data("h", shape=[4], dtype="float16")),
    ):
        with pytest.raises(TypeError):
            bad()


def test_reshape_errors_as_fluid(program):
    """test_reshape_op.py's TestReshapeOpError: TypeErrors of x, shape and actual_shape, AssertionErrors of
    a 0 past x's dims and of a negative size other than -1; paddle.reshape still takes bool."""
    x = fluid.data("x", shape=[2, 25], dtype="float32")
    for bad in (
        lambda: layers.reshape(fluid.create_lod_tensor(np.array([[-1]]), [[1]], fluid.CPUPlace()), [1]),
        lambda: layers.reshape(fluid.data("b", shape=[2, 25], dtype="bool"), [2, 5, 5]),
        lambda: layers.reshape(x, shape=1),
        lambda: layers.reshape(x, [25, 2], actual_shape=1),
    ):
        with pytest.raises(TypeError):
            bad()
    for shape in ([-1, -1, 5], [2, 5, 5, 0], [-1, -2, 5]):
        with pytest.raises(AssertionError):
            layers.reshape(x, shape)
    import pe_cli.paddle as paddle

    assert paddle.reshape(fluid.data("b2", shape=[2, 25], dtype="bool"), [2, 5, 5]).shape == (2, 5, 5)


def test_locality_aware_nms_type_errors_as_fluid(program):
    """test_locality_aware_nms_op.py's TestLocalityAwareNMSError: each attribute of the wrong Python type is
    Fluid 1.8's TypeError (an int threshold, a float top_k or label); polygon boxes [N, M, 8] build."""
    boxes = fluid.data("bboxes", shape=[None, 81, 8], dtype="float32")
    scores = fluid.data("scores", shape=[None, 1, 81], dtype="float32")
    assert layers.locality_aware_nms(boxes, scores, 0.5, 400, 200).shape == (-1, 10)
    for args in (
        (1, 400, 200),
        (0.5, 400.5, 200),
        (0.5, 400, 200.5),
        (0.5, 400, 200, 0),
        (0.5, 400, 200, 0.5, True, 1),
        (0.5, 400, 200, 0.5, True, 1.0, 1.5),
    ):
        with pytest.raises(TypeError):
            layers.locality_aware_nms(boxes, scores, *args)
