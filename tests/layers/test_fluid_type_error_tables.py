"""Fluid 1.8's type errors of layers, table by table as their op tests check them (losses, casts and
lookups; detection layers; checks that come before shape checks; the fourth session's layers): each
bad call raises a TypeError (or, where Fluid's does, a ValueError) with the message naming the layer
and the argument, raised where the layer is built. The rest: test_fluid_argument_errors.py."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli import layers


@pytest.fixture
def program():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        yield


def test_type_errors_of_losses_casts_and_lookups(program):
    """test_smooth_l1_loss_op, test_cast_op, test_pad_constant_like, test_random_crop_op, test_unique,
    test_center_loss, test_sequence_pad_op, test_lookup_table_op, test_assign_op."""
    i32 = fluid.data("i32", shape=[4], dtype="int32")
    f32 = fluid.data("f32", shape=[2, 4], dtype="float32")
    ids = fluid.data("ids", shape=[4, 1], dtype="int64")
    seq = fluid.data("seq", shape=[10, 5], dtype="int16", lod_level=1)
    bad_calls = [
        (lambda: layers.smooth_l1(i32, i32), "smooth_l1_loss: X 'i32' is int32; it must be one of float32, float64"),
        (lambda: layers.cast(np.ones(3), "int32"), "cast: x must be Variable, got ndarray"),
        (
            lambda: layers.cast(fluid.data("i16", shape=[4], dtype="int16"), "int32"),
            "cast: x 'i16' is int16; it must be one of bool, float16, float32, float64, int32, int64, uint8",
        ),
        (
            lambda: layers.cast(i32, "int16"),
            "cast: the data type of dtype is int16; it must be one of bool, float16, float32, float64, int8,",
        ),
        (
            lambda: layers.pad_constant_like(np.ones((2, 4), "float32"), f32),
            "pad_constant_like: x must be Variable, got ndarray",
        ),
        (
            lambda: layers.pad_constant_like(f32, np.ones((2, 4), "float32")),
            "pad_constant_like: y must be Variable, got ndarray",
        ),
        (lambda: layers.random_crop(np.ones((2, 3), "float32"), [1]), "random_crop: x must be Variable, got ndarray"),
        (lambda: layers.random_crop(f32, shape=1), r"random_crop: shape must be list\|tuple\|Variable, got int"),
        (lambda: layers.unique([10]), "unique: x must be Variable, got list"),
        (
            lambda: layers.unique_with_counts(fluid.data("h", shape=[4], dtype="float16")),
            "unique_with_counts: x 'h' is float16; it must be one of float32, float64, int32, int64",
        ),
        (lambda: layers.center_loss([[1.0, 2.0]], ids, 10, 0.2, None), "center_loss: input must be Variable, got list"),
        (lambda: layers.center_loss(f32, [[2], [3]], 10, 0.2, None), "center_loss: label must be Variable, got list"),
        (
            lambda: layers.sequence_pad(np.ones((2, 4), "float32"), layers.assign(np.zeros(1, "float32"))),
            "sequence_pad: x must be Variable, got ndarray",
        ),
        (
            lambda: layers.sequence_pad(seq, layers.assign(np.zeros(1, "int32"))),
            "sequence_pad: x 'seq' is int16; it must be one of float32, float64, int32, int64",
        ),
        (lambda: layers.embedding(np.ones((4, 1), "int64"), (10, 8)), "embedding: input must be Variable, got ndarray"),
        (lambda: layers.embedding(f32, (10, 8)), "embedding: input 'f32' is float32; it must be one of int64"),
        (
            lambda: layers.embedding(ids, (10, 8), dtype="int64"),
            "embedding: the data type of dtype is int64; it must be one of float16, float32, float64",
        ),
        (lambda: fluid.embedding(f32, (10, 8)), r"fluid\.embedding: input 'f32' is float32; it must be one of int64"),
        (
            lambda: layers.assign(fluid.create_lod_tensor(np.array([[-1]]), [[1]], fluid.CPUPlace())),
            r"assign: input must be Variable\|ndarray, got LoDTensor",
        ),
        (
            lambda: layers.assign(fluid.data("u8", shape=[4], dtype="uint8")),
            "assign: input 'u8' is uint8; it must be one of float16, float32, float64, int32, int64, bool",
        ),
        (
            lambda: layers.assign(np.ones(2, "float64")),
            "assign: a numpy array given to assign must be bool, float32, int32 or int64, got float64",
        ),
        (
            lambda: layers.assign(np.ones(2, "uint8")),
            "assign: a numpy array given to assign must be bool, float32, int32 or int64, got uint8",
        ),
        (
            lambda: fluid.data("typo", shape=[4], dtype="intt32"),
            r"unknown dtype 'intt32'; use one of \['bool', 'complex128', 'complex64', 'float16', 'float32',",
        ),
    ]
    for i, (call, message) in enumerate(bad_calls):
        with pytest.raises(TypeError, match=message):
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
        (
            lambda: layers.deformable_conv([1, 3, 32, 32], x, x, num_filters=4, filter_size=1),
            "deformable_conv: input must be Variable, got list",
        ),
        (
            lambda: layers.deformable_conv(i32, x, x, num_filters=4, filter_size=1),
            "deformable_conv: input 'i32' is int32; it must be one of float32, float64",
        ),
        (
            lambda: layers.deformable_roi_pooling(x, 2, x, pooled_height=8, pooled_width=8),
            "deformable_roi_pooling: rois must be Variable, got int",
        ),
        (
            lambda: layers.deformable_roi_pooling(x, rois, x, group_size=1, pooled_height=8, pooled_width=8),
            r"deformable_roi_pooling: group_size must be list\|tuple, got int",
        ),
        (
            lambda: layers.deformable_roi_pooling(x, rois, x, pooled_height=8, pooled_width=8, part_size=8),
            r"deformable_roi_pooling: part_size must be list\|tuple, got int",
        ),
        (
            lambda: layers.roi_perspective_transform(x, [1.0], 7, 7),
            "roi_perspective_transform: rois must be Variable, got list",
        ),
        (
            lambda: layers.roi_perspective_transform(x, rois, 7.0, 7),
            "roi_perspective_transform: transformed_height must be int, got float",
        ),
        (
            lambda: layers.retinanet_target_assign([1], boxes, anchors, anchors, anchors, labels, labels, info, 10),
            "retinanet_target_assign: bbox_pred must be Variable, got list",
        ),
        (
            lambda: layers.retinanet_target_assign(boxes, boxes, anchors, anchors, anchors, info, labels, info, 10),
            "retinanet_target_assign: gt_labels 'info' is float32; it must be one of int32",
        ),
        (
            lambda: layers.retinanet_detection_output(boxes, [boxes], [anchors], info),
            "retinanet_detection_output: bboxes must be list, got Variable",
        ),
        (
            lambda: layers.retinanet_detection_output([boxes], [i32], [anchors], info),
            "retinanet_detection_output: score0 'i32' is int32; it must be one of float32, float64",
        ),
    ]
    for i, (call, message) in enumerate(bad_calls):
        with pytest.raises(TypeError, match=message):
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
        (lambda: layers.cos_sim(i32, i64), "cos_sim: X 'i32' is int32; it must be one of float32"),
        (
            lambda: layers.affine_channel(np.ones((2, 1, 2, 2), "float32")),
            "affine_channel: x must be Variable, got ndarray",
        ),
        (lambda: layers.affine_channel(i32), "affine_channel: x 'i32' is int32; it must be one of float32, float64"),
        (lambda: layers.affine_channel(x, scale=1), r"affine_channel: scale must be Variable\|NoneType, got int"),
        (lambda: layers.transpose("not_variable", perm=[1, 0, 2]), "transpose: x must be Variable, got str"),
        (
            lambda: layers.transpose(fluid.data("b", shape=[10, 5, 3], dtype="bool"), perm=[1, 0, 2]),
            "transpose: x 'b' is bool; it must be one of float16, float32, float64, int32, int64",
        ),
        (lambda: layers.transpose(x, perm="[1, 0, 2, 3]"), r"transpose: perm must be list\|tuple, got str"),
        (lambda: layers.sequence_concat(x), r"sequence_concat: input must be list\|tuple, got Variable"),
        (
            lambda: layers.sequence_concat([np.ones((1, 2), "float32"), x]),
            r"sequence_concat: input\[0\] must be Variable, got ndarray",
        ),
        (
            lambda: layers.sequence_concat([i32, x]),
            r"sequence_concat: input\[0\] 'i32' is int32; it must be one of int64, float32, float64",
        ),
        (lambda: layers.eye(-1), "eye: num_rows must be an int >= 0, got -1"),
        (lambda: layers.eye(10, num_columns=5.2), r"eye: num_columns must be an int >= 0, got 5\.2"),
        (
            lambda: layers.polygon_box_transform(i64),
            "polygon_box_transform: input 'i64' is int64; it must be one of float32, float64",
        ),
        (lambda: layers.softmax(i32), "softmax: input 'i32' is int32; it must be one of float16, float32, float64"),
        (
            lambda: layers.uniform_random_batch_size_like(x, shape="shape"),
            r"uniform_random_batch_size_like: shape must be list\|tuple, got str",
        ),
        (
            lambda: layers.uniform_random_batch_size_like(i32, [-1, 2]),
            "uniform_random_batch_size_like: Input 'i32' is int32; it must be one of float32, float64",
        ),
        (
            lambda: layers.elementwise_add(fluid.create_lod_tensor(np.ones(4), [[4]], fluid.CPUPlace()), x),
            "elementwise_add: x must be Variable, got LoDTensor",
        ),
        (
            lambda: layers.elementwise_mul(fluid.data("u8", shape=[3], dtype="uint8"), x),
            "elementwise_mul: x 'u8' is uint8; it must be one of float16, float32, float64, int32, int64",
        ),
        (
            lambda: layers.cross_entropy(i32, i32),
            "cross_entropy: input 'i32' is int32; it must be one of float16, float32, float64",
        ),
        (lambda: layers.where([10]), "where: condition must be Variable, got list"),
    ]
    for i, (call, message) in enumerate(bad_calls):
        with pytest.raises(TypeError, match=message):
            call()
            pytest.fail(f"bad call {i} raised nothing")
    for perm, message in (
        (
            [1, 0, 2, 3, 4],
            r"transpose: perm \[1, 0, 2, 3, 4\] must be a permutation of the 4 dims of x \[-1, 3, 4, 5\]",
        ),
        ([3, 5, 7, 0], r"transpose: perm \[3, 5, 7, 0\] must be a permutation of the 4 dims of x \[-1, 3, 4, 5\]"),
    ):
        with pytest.raises(ValueError, match=message):
            layers.transpose(x, perm=perm)
    assert layers.transpose(x, perm=[0, 2, 1, 3]).shape == (-1, 4, 3, 5)


def test_type_errors_of_the_fourth_session(program):
    """test_mul_op, test_sum_op, test_squeeze_op, test_unsqueeze_op, test_arg_min_max_op, test_reduce_op,
    test_fill_constant_op, test_split_op, test_crop_tensor_op, test_one_hot_op, test_conv2d_op."""
    i32, f32 = layers.data("i", shape=[4], dtype="int32"), layers.data("f", shape=[4], dtype="float32")
    lod = fluid.create_lod_tensor(np.array([[-1.0]]), [[1]], fluid.CPUPlace())
    for bad, message in (
        (lambda: layers.mul(i32, i32), "mul: x 'i' is int32; it must be one of float16, float32, float64"),
        (lambda: layers.matmul(i32, i32), "matmul: x 'i' is int32; it must be one of float16, float32, float64"),
        (lambda: layers.sums([11, 22]), r"sums: input\[0\] must be Variable, got int"),
        (lambda: layers.sum([i32, 1]), r"sum: x\[1\] must be Variable, got int"),
        (lambda: layers.squeeze(i32, axes=0), "squeeze: axes must be list, got int"),
        (
            lambda: layers.unsqueeze(f32, axes=3.2),
            r"unsqueeze: axes must be Integral\|list\|tuple\|Variable, got float",
        ),
        (lambda: layers.argmax([1, 2]), "argmax: x must be Variable, got list"),
        (lambda: layers.reduce_sum(lod), "reduce_sum: input must be Variable, got LoDTensor"),
        (
            lambda: layers.reduce_mean(layers.data("u", shape=[4], dtype="uint8")),
            "reduce_mean: input 'u' is uint8; it must be one of float32, float64, int32, int64",
        ),
        (lambda: layers.reduce_all(i32), "reduce_all: input 'i' is int32; it must be one of bool"),
        (
            lambda: layers.fill_constant([1], "int16", 5),
            "fill_constant: the data type of dtype is int16; it must be one of bool, float16, float32, float64,",
        ),
        (lambda: layers.fill_constant(1, "float32", 1), r"fill_constant: shape must be Variable\|list\|tuple, got int"),
        (
            lambda: layers.fill_constant([1], "float64", 5, out=i32),
            "fill_constant: the data type of dtype is float64; it must be one of int32",
        ),
        (lambda: layers.split(f32, 2.1), r"split: num_or_sections must be list\|Integral\|tuple, got float"),
        (lambda: layers.split(f32, 2, dim=3.2), r"split: dim must be Integral\|Variable, got float"),
        (lambda: layers.crop_tensor(f32, shape=3), r"crop_tensor: shape must be list\|tuple\|Variable, got int"),
        (
            lambda: layers.crop_tensor(f32, shape=[2, 2.0]),
            "crop_tensor: each item of shape must be Integral, got float",
        ),
        (lambda: layers.one_hot(f32, 4), "one_hot: input 'f' is float32; it must be one of int32, int64"),
        (lambda: layers.one_hot(i32, 4.1), r"one_hot: depth must be Integral\|Variable, got float"),
        (
            lambda: layers.conv2d(layers.data("c", shape=[3, 4, 5, 6], dtype="int32"), 1, 1),
            "conv2d: input 'c' is int32; it must be one of float16, float32, float64",
        ),
    ):
        with pytest.raises(TypeError, match=message):
            bad()
    with pytest.raises(
        ValueError,
        match="fill_constant: dtype 'uint4' is no dtype; it must be one of bool, float16, float32, float64, int32, int64",
    ):
        layers.fill_constant([1], "uint4", 5)  # no dtype of that name: Fluid's ValueError
    with pytest.raises(ValueError, match=r"crop_tensor: shape \[2, -2\]: each must be > 0 or -1"):
        layers.crop_tensor(f32, shape=[2, -2])
    with pytest.raises(
        ValueError,
        match="full_like: dtype 'float' is no dtype; it must be one of bool, float16, float32, float64, int32, int64",
    ):
        layers.full_like(f32, 1.0, dtype="float")  # Fluid's check_dtype takes the exact names only
    with pytest.raises(ValueError, match="full_like: device='opu' must be None, 'cpu' or 'gpu'"):
        layers.full_like(f32, 1.0, device="opu")
