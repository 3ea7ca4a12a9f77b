"""paddle.static.nn.static_pylayer: a forward block run by the pylayer op, its gradient the backward
block Python built (not derived), through StaticPyLayerBlock and through static_pylayer's functions."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.paddle.static.nn.static_pylayer import StaticPyLayerBlock

X = np.random.RandomState(0).rand(4, 3).astype("float32")


def run(main, start, fetch):
    exe = paddle.static.Executor()
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(start)
        return exe.run(main, feed={"x": X}, fetch_list=fetch)


def test_blocks_built_by_hand():
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [4, 3])
        x.stop_gradient = False
        mgr = StaticPyLayerBlock(inputs=[x])
        out = paddle.tensor.create_tensor("float32")
        with mgr.block(is_backward_block=False):
            paddle.assign(paddle.tanh(x) * 2.0, out)
            mgr.fwd_outputs = [out]
        with mgr.block(is_backward_block=True):
            made = paddle.full([4, 3], 7.0)  # the "gradient" of x, whatever x's real one is
            mgr.var_old_to_new[made.name] = x.name + "@GRAD"
        paddle.static.append_backward(paddle.mean(out))
    got, grad = run(main, start, [out, x.grad_name])
    np.testing.assert_allclose(got, np.tanh(X) * 2.0, rtol=1e-6)
    np.testing.assert_array_equal(grad, np.full((4, 3), 7.0, "float32"))


def test_static_pylayer_functions():
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [4, 3])
        x.stop_gradient = False
        y = paddle.static.nn.static_pylayer(lambda v: paddle.exp(v), [x], backward_fn=lambda dy: dy * 3.0)
        loss = paddle.mean(y)
        (grad,) = paddle.static.gradients([loss], [x])
        with pytest.raises(ValueError, match="returned 2 gradients for 1 inputs"):
            paddle.static.nn.static_pylayer(lambda v: v * 2.0, [x], backward_fn=lambda dy: (dy, dy))
    got, g = run(main, start, [y, grad])
    np.testing.assert_allclose(got, np.exp(X), rtol=1e-6)
    np.testing.assert_allclose(g, np.full((4, 3), 3.0 / 12), rtol=1e-6)  # backward_fn's, not exp's
