"""What Fluid 1.8 checks only when a program runs (its InferShape's ``IsRuntime()`` checks, its kernels'
enforces), pe builds as Fluid does and refuses when it runs, with Fluid's fluid.core.EnforceNotMet:
data_norm of a 3-D X (test_data_norm_op.py), matrix_nms of BBoxes and Scores that count different boxes
(test_matrix_nms_op.py), one_hot of float ids (test_one_hot_op.py, test_runtime_and_compiletime_exception.py:
a rank-1 X is refused when built, as Fluid's InferShape does), gather of a float index (test_gather_op.py)."""
import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.fluid.core import EnforceNotMet


def _run(out, feed):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    return exe.run(feed=feed, fetch_list=[out])


def test_data_norm_builds_with_2_to_5_dims_and_runs_2_d_only():
    for dims, ok in ((2, True), (3, False)):
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            x = fluid.layers.data(name="x", shape=[3, 4][:dims - 1], dtype="float32")
            y = fluid.layers.data_norm(input=x, param_attr={}, enable_scale_and_shift=True)
            feed = {"x": np.ones((2, 3, 4)[:dims], "float32")}
            if ok:
                assert _run(y, feed)[0].shape == (2, 3)
                continue
            with pytest.raises(EnforceNotMet, match="must be 2-D"):
                _run(y, feed)


def test_matrix_nms_builds_mismatched_boxes_and_refuses_them_when_run():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        boxes = fluid.data(name="bboxes", shape=[7, 21, 4], dtype="float32")
        scores = fluid.data(name="scores", shape=[7, 2, 1200], dtype="float32")
        out = fluid.layers.matrix_nms(bboxes=boxes, scores=scores, nms_top_k=4, keep_top_k=2,
                                      score_threshold=0.5, post_threshold=0.1)
        with pytest.raises(EnforceNotMet, match="matrix_nms"):
            _run(out, {"bboxes": np.ones((7, 21, 4), "float32"), "scores": np.ones((7, 2, 1200), "float32")})


def test_one_hot_builds_float_ids_and_refuses_them_when_run():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.layers.data(name="x", shape=[1], dtype="float32")
        block = fluid.default_main_program().current_block()
        out = block.create_var(name="one_hot_out", dtype="float32")
        block.append_op(type="one_hot", inputs={"X": x}, outputs={"Out": out}, attrs={"depth": 4})
        with pytest.raises(EnforceNotMet, match="int32 or int64"):
            _run(out, {"x": np.zeros((3, 1), "float32")})
        with pytest.raises(EnforceNotMet, match="rank >= 2"):
            fluid.layers.one_hot(fluid.layers.data(name="y", shape=[1], dtype="int64", append_batch_size=False), 4)


def test_a_variable_index_of_minus_1_takes_the_last_element_of_a_strided_slice():
    """Fluid's ``x[i]`` with a Variable i ends at i + 1: for i = -1 that end is 0, which Fluid's
    strided_slice kernel reads as the last element (test_strided_slice_op.py's TestStridedSliceAPI)."""
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.layers.data(name="x", shape=[3, 4, 5], append_batch_size=False, dtype="float64")
        minus_1 = fluid.layers.fill_constant([1], "int32", -1)
        out = x[minus_1, 0:4:2, -1:1:-1]
        value = np.arange(60, dtype="float64").reshape(3, 4, 5)
        got, = _run(out, {"x": value})
    np.testing.assert_array_equal(got, value[-1, 0:4:2, -1:1:-1])


def test_gather_builds_a_float_index_and_refuses_it_when_run():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.layers.data(name="x", shape=[-1, 2], dtype="float64", append_batch_size=False)
        index = fluid.layers.data(name="index", shape=[-1, 1], dtype="float64", append_batch_size=False)
        out = fluid.layers.gather(x, index)
        with pytest.raises(EnforceNotMet, match="Index is float64; it must be int32 or int64"):
            _run(out, {"x": np.ones((3, 2)), "index": np.array([[1.0], [2.0]])})


def test_reverse_refuses_a_rank_above_6_when_run():
    """Fluid's reverse kernels take ranks up to 6 (test_reverse_op.py's TestCase4 feeds a rank-7 value
    into a layers.data it declared of rank 9, which Fluid does not check)."""
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        label = fluid.layers.data(name="label", shape=[1] * 6, dtype="int64")
        rev = fluid.layers.reverse(label, axis=[-1, -2])
        assert _run(rev, {"label": np.ones((2, 1, 1, 1, 1, 1, 1), "int64")[..., 0]})[0].shape == (2, 1, 1, 1, 1, 1)
        with pytest.raises(EnforceNotMet, match="ranks up to 6"):
            _run(rev, {"label": np.ones((2, 1, 1, 1, 1, 1, 1), "int64")})
