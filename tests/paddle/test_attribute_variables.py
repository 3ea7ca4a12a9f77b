"""Attributes held in a Variable, as Paddle 2.x builds them (pe_cli/framework/attribute_variables.py):
``dropout(x, p=Variable)`` reads p when the program runs, forward and backward; the op's
``all_attrs()`` and the program's text show the Variable; the op proto marks the attributes a
Variable may give (``support_tensor``); ``paddle.tile`` takes its times as Tensors (the tile op)."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.fluid.framework import OpProtoHolder

X = np.random.RandomState(2).uniform(1, 2, (40, 50)).astype("float32")


def _dropout_program(p_value):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [40, 50], "float32")
        x.stop_gradient = False
        p = paddle.full([1], p_value, "float32")
        out = paddle.nn.functional.dropout(x, p=p)
        (dx,) = paddle.static.gradients([paddle.sum(out)], [x])
    return main, p, out, dx


def test_dropout_reads_p_from_its_variable_forward_and_backward():
    main, p, out, dx = _dropout_program(0.25)
    op = next(op for op in main.global_block().ops if op.type == "dropout")
    assert op.all_attrs()["dropout_prob"].name == p.name and f"dropout_prob=Var[{p.name}]" in str(main)
    got, grad = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": X}, fetch_list=[out, dx])
    kept = got != 0
    np.testing.assert_allclose(got[kept], X[kept] / 0.75, rtol=1e-6)  # upscale_in_train by 1 / (1 - p)
    np.testing.assert_allclose(grad, kept / 0.75, rtol=1e-6)
    assert abs(kept.mean() - 0.75) < 0.05


def test_an_attribute_without_a_tensor_form_refuses_a_variable():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        with pytest.raises(TypeError, match="attribute 'scale' takes a value, not a Variable"):
            x.block.append_op("scale", {"X": [x]}, {"Out": [x]}, {"scale": paddle.full([1], 2.0, "float32")})
        with pytest.raises(TypeError, match=r"p.shape == \[1\]"):
            paddle.nn.functional.dropout(x, p=paddle.full([2], 0.5, "float32"))


def test_op_protos_mark_the_attributes_a_variable_may_give():
    protos = OpProtoHolder.instance()
    marked = {
        op: {a.name for a in protos.get_op_proto(op).attrs if a.support_tensor} for op in ("dropout", "tile", "scale")
    }
    assert marked == {"dropout": {"dropout_prob"}, "tile": {"repeat_times"}, "scale": set()}


def test_tile_takes_its_times_as_tensors():
    main = paddle.static.Program()
    a = np.arange(6, dtype="float32").reshape(2, 3)
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        outs = [
            paddle.tile(x, [3, paddle.full([1], 2, "int32"), paddle.full([1], 1, "int32")]),
            paddle.tile(x, paddle.assign(np.array([2, 2], "int32"))),
            paddle.tile(x, [2]),
        ]
    got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": a}, fetch_list=outs)
    for g, w in zip(got, [np.tile(a, (3, 2, 1)), np.tile(a, (2, 2)), np.tile(a, 2)]):
        np.testing.assert_array_equal(g, w)


def test_bincount_refuses_a_minlength_given_as_a_tensor():
    """Paddle 2.6 reads bincount's minlength from a Tensor when the program runs; pe refuses it in one line (it failed
    on an int() of the Variable)."""
    from pe_cli.base.errors import FluidUnsupported

    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [5], "int64")
        with pytest.raises(
            FluidUnsupported, match=r"^paddle.bincount\(minlength=Tensor\): pe takes minlength as an int"
        ):
            paddle.bincount(x, minlength=paddle.full([1], 7, "int32"))


@pytest.mark.parametrize("axis", ["tensor", "list"])
def test_squeeze_refuses_axes_given_as_tensors(axis):
    """Paddle 2.6 squeezes by axes a Tensor holds when the program runs (squeeze2's ``axes`` a Variable); pe does
    not, and says so in one line rather than fail on an int() of a Variable."""
    from pe_cli.base.errors import FluidUnsupported

    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [2, 1, 3], "float32")
        ax = paddle.full([1], 1, "int64")
        with pytest.raises(FluidUnsupported, match=r"^paddle.squeeze\(axis=Tensor\): pe takes axis as an int"):
            paddle.squeeze(x, axis=ax if axis == "tensor" else [ax])


def test_max_unpool2d_reads_an_output_size_holding_tensors_when_it_runs():
    """Paddle 2.6's static max_unpool2d takes output_size holding Variables (a VARS attribute, unchecked against the
    default size, shown as Vars[...]): Out's dims unknown when built, the values and gradient Paddle 2.6.2 gave (loss
    sum(Out * W));
    pe failed on int() of the Variable. A Tensor alone is Paddle's AssertionError; unpool3d takes no Variable there,
    Paddle's ValueError."""
    x_value = np.arange(32, dtype="float32").reshape(1, 2, 4, 4)[:, :, ::-1].copy()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [1, 2, 4, 4], "float32")
        x.stop_gradient = False
        pooled, mask = paddle.nn.functional.max_pool2d(x, 2, 2, return_mask=True)
        out = paddle.nn.functional.max_unpool2d(pooled, mask, 2, 2, output_size=[paddle.full([1], 5, "int64"), 5])
        weights = paddle.assign(np.arange(50, dtype="float32").reshape(1, 2, 5, 5))
        (dx,) = paddle.static.gradients([paddle.sum(out * weights)], [x])
        assert list(out.shape) == [1, 2, -1, -1]
        op = next(op for op in main.global_block().ops if op.type == "unpool")
        assert [v.dtype for v in op.all_attrs()["output_size"]] == ["int32", "int32"]
        assert "output_size=Vars[" in str(main)  # (Paddle's text; its test_unpool_op.py TestOutputSizeTensor asks)
        with pytest.raises(AssertionError, match="output_size must be None, a list or a tuple"):
            paddle.nn.functional.max_unpool2d(pooled, mask, 2, 2, output_size=paddle.full([2], 5, "int32"))
        with pytest.raises(ValueError, match="unpool3d takes only ints there"):
            paddle.nn.functional.max_unpool3d(
                paddle.unsqueeze(pooled, 2),
                paddle.unsqueeze(mask, 2),
                [1, 2, 2],
                output_size=[1, 4, paddle.full([1], 5, "int32")],
            )
    got, grad = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": x_value}, fetch_list=[out, dx])
    want = np.zeros((2, 5, 5), "float32")  # Paddle 2.6.2's: each plane's maxima at their flat 4x4 positions in 5x5
    want[0, 0, 1], want[0, 0, 3], want[0, 1, 4], want[0, 2, 1] = 13, 15, 5, 7
    want[1, 0, 1], want[1, 0, 3], want[1, 1, 4], want[1, 2, 1] = 29, 31, 21, 23
    np.testing.assert_array_equal(got, want[None])
    paddle_dx = [[[0, 1, 0, 3], [0] * 4, [0, 9, 0, 11], [0] * 4], [[0, 26, 0, 28], [0] * 4, [0, 34, 0, 36], [0] * 4]]
    np.testing.assert_array_equal(grad, np.array([paddle_dx], "float32"))
