"""``paddle.vision.ops.distribute_fpn_proposals``: Paddle 2.6's signature and errors, and its default
``pixel_offset=False`` (a roi's size without Fluid 1.8's + 1); multiclass_nms2's empty result in a Paddle 2.x
program."""

import numpy as np
import pytest

from pe_cli import fluid, paddle
from pe_cli.base.errors import PeError


def _rois(name="rois", dtype="float32"):
    return paddle.static.data(name=name, shape=[-1, 4], dtype=dtype, lod_level=1)


def test_levels_by_size_without_the_pixel_offset():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        multi, restore, nums = paddle.vision.ops.distribute_fpn_proposals(_rois(), 2, 5, 4, 224)
        fluid_multi, _ = fluid.layers.distribute_fpn_proposals(main.global_block().var("rois"), 2, 5, 4, 224)
    assert nums is None and len(multi) == 4
    rois = fluid.create_lod_tensor(np.array([[0, 0, 223, 223], [0, 0, 20, 20]], "float32"), [[2]], fluid.CPUPlace())
    got = paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed={"rois": rois}, fetch_list=multi + [restore] + fluid_multi, return_numpy=False
    )
    sizes = [np.asarray(t).shape[0] for t in got]
    assert sizes[:4] == [1, 1, 0, 0]  # 21x21 -> level 2; 223x223 -> level 3 (224 with + 1: 4)
    assert sizes[5:] == [1, 0, 1, 0]  # Fluid 1.8's layer counts the + 1
    assert np.asarray(got[4]).ravel().tolist() == [1, 0]


@pytest.mark.parametrize(
    "levels,error, message",
    [
        ((0, -1), AssertionError, "min_level and max_level should be greater than 0"),
        ((2, 2), AssertionError, "max_level should be greater than min_level"),
        ((2, 500), AssertionError, r"Only support max to 100 levels, \(max_level - min_level \+ 1 < 100\)"),
    ],
)
def test_bad_levels_are_assertion_errors(levels, error, message):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        with pytest.raises(error, match=message):
            paddle.vision.ops.distribute_fpn_proposals(_rois(), *levels, 4, 224)


def test_integer_rois_and_rois_num_are_refused():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        with pytest.raises(
            TypeError, match="distribute_fpn_proposals: fpn_rois must be a float32 or float64 Variable, not int32"
        ):
            paddle.vision.ops.distribute_fpn_proposals(_rois("r", "int32"), 2, 5, 4, 224)
        with pytest.raises(PeError, match="LoD"):
            paddle.vision.ops.distribute_fpn_proposals(
                _rois(), 2, 5, 4, 224, rois_num=paddle.static.data("n", [-1], "int32")
            )


def test_multiclass_nms2_keeping_nothing_gives_paddle26s_shapes(paddle2):
    """multiclass_nms2 of a Paddle 2.x program that keeps no box: Out [0, 6] and Index [0, 1], as Paddle 2.6's kernel
    (paddle/fluid/operators/detection/multiclass_nms_op.cc: ``{0, out_dim}`` with return_index) and its
    test_multiclass_nms_op.py (TestMulticlassNMS2LoDNoOutput) give; pe gave what Fluid 1.8.5 fetches, [0]."""
    rng = np.random.default_rng(40)
    boxes = rng.random((2, 6, 4)).astype("float32")
    boxes[..., 2:] += boxes[..., :2]
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        b = paddle.static.data("b", [2, 6, 4], "float32")
        s = paddle.static.data("s", [2, 3, 6], "float32")
        block = main.global_block()
        out, index = block.create_var(name="o", dtype="float32"), block.create_var(name="i", dtype="int32")
        attrs = {"score_threshold": 2.0, "nms_top_k": 5, "keep_top_k": 3, "nms_threshold": 0.5, "background_label": 0}
        block.append_op("multiclass_nms2", {"BBoxes": [b], "Scores": [s]}, {"Out": [out], "Index": [index]}, attrs)
    feed = {"b": boxes, "s": rng.random((2, 3, 6)).astype("float32")}
    got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed, fetch_list=[out, index], return_numpy=False)
    assert [np.array(t).shape for t in got] == [(0, 6), (0, 1)]


def test_read_file_builds_the_op_and_gives_the_bytes_paddle_gives(tmp_path):
    """paddle.vision.ops.read_file: the read_file op, Out [-1] uint8 when built; run, the file's bytes (Paddle
    2.6.2 gave [97, 98, 99, 0, 255, 10] for these six bytes and an empty [0] for an empty file)."""
    (tmp_path / "f.bin").write_bytes(b"abc\x00\xff\n")
    (tmp_path / "empty").write_bytes(b"")
    paddle.enable_static()  # (a Paddle 2.x program: an empty fetch is an empty array, not Fluid 1.8's None)
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        out = paddle.vision.ops.read_file(str(tmp_path / "f.bin"))
        empty = paddle.vision.ops.read_file(str(tmp_path / "empty"))
    assert [op.type for op in main.global_block().ops] == ["read_file", "read_file"]
    assert tuple(out.shape) == (-1,) and out.dtype == paddle.uint8
    got, nothing = paddle.static.Executor(paddle.CPUPlace()).run(main, fetch_list=[out, empty])
    assert got.dtype == np.uint8 and got.tolist() == [97, 98, 99, 0, 255, 10] and nothing.shape == (0,)
