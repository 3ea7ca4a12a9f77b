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
    with pytest.raises(TypeError, match="lrn: input 'l' is int64; it must be one of float32"):
        layers.lrn(layers.data("l", shape=[3, 3, 3], dtype="int64"))
    with pytest.raises(TypeError, match="maxout: x 'i' is int32; it must be one of float16, float32, float64"):
        layers.maxout(i32, 2)
    # test_dropout_op.py
    with pytest.raises(TypeError, match="dropout: x 'i' is int32; it must be one of float16, float32, float64"):
        layers.dropout(i32, dropout_prob=0.5)
    # test_group_norm_op.py
    with pytest.raises(TypeError, match="group_norm: input 'i' is int32; it must be one of float32, float64"):
        layers.group_norm(i32, 2)
    f32 = fluid.data("f", shape=[None, 1], dtype="float32")
    # test_teacher_student_sigmoid_loss_op.py
    for bad, message in (
        ((f32, [512, 1]), "teacher_student_sigmoid_loss: label must be Variable, got list"),
        (([512, 1], f32), "teacher_student_sigmoid_loss: input must be Variable, got list"),
    ):
        with pytest.raises(TypeError, match=message):
            layers.teacher_student_sigmoid_loss(*bad)
    with pytest.raises(TypeError, match="isfinite: x 'h' is float16; it must be one of float32, float64, int32, int64"):
        layers.isfinite(layers.data("h", shape=[10], dtype="float16", append_batch_size=False))
    with pytest.raises(TypeError, match="instance_norm: input 'i' is int32; it must be one of float32, float64"):
        layers.instance_norm(i32)
    with pytest.raises(TypeError, match="batch_norm: input 'i' is int32; it must be one of float16, float32, float64"):
        layers.batch_norm(i32)
    with pytest.raises(TypeError, match="lod_reset: x must be Variable, got ndarray"):
        layers.lod_reset(np.ones(4), target_lod=[2, 2])
    with pytest.raises(TypeError, match="lod_reset: y 'y' is float32; it must be one of int32"):
        layers.lod_reset(layers.data("x", shape=[4]), layers.data("y", shape=[4], dtype="float32"))


def test_value_errors(program):
    x = fluid.data("x", shape=[2, 4, 5, 5], dtype="float32")
    with pytest.raises(ValueError, match="lrn: data_format='NDHW' must be 'NCHW' or 'NHWC'"):
        layers.lrn(x, data_format="NDHW")
    with pytest.raises(ValueError, match=r"lrn: input 'x5' must be 4-D, got shape \(2, 4, 5, 5, 5\)"):
        layers.lrn(fluid.data("x5", shape=[2, 4, 5, 5, 5], dtype="float32"))
    with pytest.raises(ValueError, match=r"maxout: axis=2 must be 1 \(NCHW\) or -1 / 3 \(NHWC\)"):
        layers.maxout(x, groups=2, axis=2)
    assert layers.lrn(x).shape == (2, 4, 5, 5)


def test_mean_and_prelu_take_float_variables(program):
    i32 = fluid.data("i32", shape=[12, 10], dtype="int32")
    for bad, message in (
        (12, "mean: x must be Variable, got int"),
        (i32, "mean: x 'i32' is int32; it must be one of float16, float32, float64"),
    ):
        with pytest.raises(TypeError, match=message):
            layers.mean(bad)
    for bad, message in (
        (0.1, "prelu: x must be Variable, got float"),
        (i32, "prelu: x 'i32' is int32; it must be one of float16, float32, float64"),
    ):
        with pytest.raises(TypeError, match=message):
            layers.prelu(bad, "all")


def test_type_errors_of_hsigmoid_tree_conv_and_pooling(program):
    """test_hsigmoid_op, test_tree_conv_op, test_pool2d_op (use_cudnn given as a list)."""
    label, f32 = layers.data("label", shape=[1], dtype="int64"), layers.data("x", shape=[3], dtype="float32")
    nodes = layers.data("nodes", shape=[10, 5], dtype="float32")
    img = layers.data("img", shape=[3, 8, 8], dtype="float32")
    vol = layers.data("vol", shape=[3, 4, 4, 4], dtype="float32")
    for bad, message in (
        (lambda: layers.hsigmoid(1, label, 2), "hsigmoid: input must be Variable, got int"),
        (lambda: layers.hsigmoid(f32, 1, 2), "hsigmoid: label must be Variable, got int"),
        (
            lambda: layers.hsigmoid(layers.data("xi", shape=[3], dtype="int32"), label, 2),
            "hsigmoid: input 'xi' is int32; it must be one of float32, float64",
        ),
        (
            lambda: layers.hsigmoid(f32, layers.data("li", shape=[1], dtype="int32"), 2),
            "hsigmoid: label 'li' is int32; it must be one of int64",
        ),
        (
            lambda: fluid.contrib.layers.tree_conv(np.ones((10, 5), "float32"), nodes, 3),
            "tree_conv: nodes_vector must be Variable, got ndarray",
        ),
        (
            lambda: fluid.contrib.layers.tree_conv(nodes, np.ones((10, 2), "float32"), 3),
            "tree_conv: edge_set must be Variable, got ndarray",
        ),
        (
            lambda: layers.pool2d(img, 2, use_cudnn=[0]),
            r"Attr\(use_cudnn\) should be True or False\. Received Attr\(use_cudnn\): \[0\]\.",
        ),
        (
            lambda: layers.pool3d(vol, 2, use_cudnn=1),
            r"Attr\(use_cudnn\) should be True or False\. Received Attr\(use_cudnn\): 1\.",
        ),
    ):
        with pytest.raises(TypeError, match=message):
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
    for bad, message in (
        (
            lambda: layers.pool2d(img, 3, data_format="NHWCC"),
            r"pool2d layer 'pool2d_\d+': data_format='NHWCC' must be 'NCHW' or 'NHWC'",
        ),
        (
            lambda: layers.pool2d(img, 3, pool_type="min"),
            r"pool2d layer 'pool2d_\d+': pool_type='min' must be 'max' or 'avg'",
        ),
        (
            lambda: layers.pool2d(img, 3, pool_padding="VALIDSAME", data_format="NHWC"),
            r"pool2d layer 'pool2d_\d+': pool_padding='VALIDSAME' must be 'SAME', 'VALID', an int or a list",
        ),
        (
            lambda: layers.pool2d(img, 3, pool_padding="VALID", ceil_mode=True, data_format="NHWC"),
            r"pool2d layer 'pool2d_\d+': ceil_mode must be False with pool_padding='VALID'",
        ),
        (
            lambda: layers.pool2d(img, 3, pool_padding=[[1, 1], [0, 0], [0, 0], [1, 1]], data_format="NHWC"),
            r"pool2d layer 'pool2d_\d+': pool_padding \[\[1, 1\], \[0, 0\], \[0, 0\], \[1, 1\]\] pads the batch or channel",
        ),
        (lambda: layers.pool2d(img), r"pool2d layer 'pool2d_\d+': pass pool_size \(or global_pooling=True\)"),
        (
            lambda: layers.pool3d(vol, 3, data_format="NDHWCC"),
            "pool3d: data_format='NDHWCC' must be 'NCDHW' or 'NDHWC'",
        ),
        (
            lambda: layers.pool3d(vol, 3, pool_padding="VALID", ceil_mode=True, data_format="NDHWC"),
            "pool3d: ceil_mode must be False with pool_padding='VALID'",
        ),
    ):
        with pytest.raises(ValueError, match=message):
            bad()


def test_type_errors_of_sigmoid_focal_loss_and_sequence_reverse(program):
    """test_sigmoid_focal_loss_op's and test_sequence_reverse's error cases."""
    label, fg = layers.fill_constant([10, 1], "int32", 1), layers.fill_constant([1], "int32", 5)
    x = layers.data("x", shape=[10, 10], dtype="float64")
    for bad, message in (
        (lambda: layers.sigmoid_focal_loss([2], label, fg), "sigmoid_focal_loss: x must be Variable, got list"),
        (
            lambda: layers.sigmoid_focal_loss(layers.data("xi", shape=[10], dtype="int16"), label, fg),
            "sigmoid_focal_loss: x 'xi' is int16; it must be one of float32, float64",
        ),
        (lambda: layers.sigmoid_focal_loss(x, [2], fg), "sigmoid_focal_loss: label must be Variable, got list"),
        (
            lambda: layers.sigmoid_focal_loss(x, layers.fill_constant([10, 1], "float32", 1.0), fg),
            r"sigmoid_focal_loss: label 'fill_constant_\d+\.tmp_\d+' is float32; it must be one of int32",
        ),
        (lambda: layers.sigmoid_focal_loss(x, label, [2]), "sigmoid_focal_loss: fg_num must be Variable, got list"),
        (
            lambda: layers.sigmoid_focal_loss(x, label, layers.fill_constant([1], "float32", 5.0)),
            r"sigmoid_focal_loss: fg_num 'fill_constant_\d+\.tmp_\d+' is float32; it must be one of int32",
        ),
        (
            lambda: layers.sequence_reverse(np.ones((2, 4), "float32")),
            "sequence_reverse: x must be Variable, got ndarray",
        ),
        (
            lambda: layers.sequence_reverse(layers.data("h", shape=[4], dtype="float16")),
            "sequence_reverse: x 'h' is float16; it must be one of float32, float64, int8, int32, int64",
        ),
    ):
        with pytest.raises(TypeError, match=message):
            bad()


def test_reshape_errors_as_fluid(program):
    """test_reshape_op.py's TestReshapeOpError: TypeErrors of x, shape and actual_shape, AssertionErrors of
    a 0 past x's dims and of a negative size other than -1; paddle.reshape still takes bool."""
    x = fluid.data("x", shape=[2, 25], dtype="float32")
    for bad, message in (
        (
            lambda: layers.reshape(fluid.create_lod_tensor(np.array([[-1]]), [[1]], fluid.CPUPlace()), [1]),
            "reshape: x must be Variable, got LoDTensor",
        ),
        (
            lambda: layers.reshape(fluid.data("b", shape=[2, 25], dtype="bool"), [2, 5, 5]),
            "reshape: x 'b' is bool; it must be one of float16, float32, float64, int32, int64",
        ),
        (lambda: layers.reshape(x, shape=1), r"reshape: shape must be list\|tuple\|Variable, got int"),
        (
            lambda: layers.reshape(x, [25, 2], actual_shape=1),
            r"reshape: actual_shape must be Variable\|NoneType, got int",
        ),
    ):
        with pytest.raises(TypeError, match=message):
            bad()
    for shape, message in (
        (
            [-1, -1, 5],
            r"reshape of 'x': Only one dimension value of 'shape' in reshape can be -1\. But received shape\[1\] is",
        ),
        (
            [2, 5, 5, 0],
            r"reshape of 'x': The index of 0 in 'shape' must be less than the input's 2 dims\. But received",
        ),
        (
            [-1, -2, 5],
            "reshape of 'x': Each dimension value of 'shape' in reshape must not be negative except one unknown",
        ),
    ):
        with pytest.raises(AssertionError, match=message):
            layers.reshape(x, shape)
    import pe_cli.paddle as paddle

    assert paddle.reshape(fluid.data("b2", shape=[2, 25], dtype="bool"), [2, 5, 5]).shape == (2, 5, 5)


def test_locality_aware_nms_type_errors_as_fluid(program):
    """test_locality_aware_nms_op.py's TestLocalityAwareNMSError: each attribute of the wrong Python type is
    Fluid 1.8's TypeError (an int threshold, a float top_k or label); polygon boxes [N, M, 8] build."""
    boxes = fluid.data("bboxes", shape=[None, 81, 8], dtype="float32")
    scores = fluid.data("scores", shape=[None, 1, 81], dtype="float32")
    assert layers.locality_aware_nms(boxes, scores, 0.5, 400, 200).shape == (-1, 10)
    for args, message in (
        ((1, 400, 200), "locality_aware_nms: score_threshold must be float, got int"),
        ((0.5, 400.5, 200), "locality_aware_nms: nms_top_k must be int, got float"),
        ((0.5, 400, 200.5), "locality_aware_nms: keep_top_k must be int, got float"),
        ((0.5, 400, 200, 0), "locality_aware_nms: nms_threshold must be float, got int"),
        ((0.5, 400, 200, 0.5, True, 1), "locality_aware_nms: nms_eta must be float, got int"),
        ((0.5, 400, 200, 0.5, True, 1.0, 1.5), "locality_aware_nms: background_label must be int, got float"),
    ):
        with pytest.raises(TypeError, match=message):
            layers.locality_aware_nms(boxes, scores, *args)
