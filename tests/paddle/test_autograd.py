"""paddle.autograd in static mode: backward_mode.gradients_with_optimizer appends the gradients of a
program's outputs and the optimizer's update of its parameters (an SGD step equal to numpy's); the
dygraph names refuse in one line."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import FluidUnsupported
from pe_cli.executor.scope import Scope


def test_gradients_with_optimizer_updates_the_parameters_by_the_outputs_gradients():
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [2, 3], "float32")
        w = paddle.create_parameter([3, 1], "float32", name="w_awo")
        paddle.mean(paddle.matmul(x, w))
        ops, param_grads = paddle.autograd.backward_mode.gradients_with_optimizer(main, paddle.optimizer.SGD(0.5))
    assert [p.name for p, _ in param_grads] == ["w_awo"] and "sgd" in [op.type for op in ops]
    xv = np.arange(6, dtype="float32").reshape(2, 3)
    scope = Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(start)
        before = np.array(scope.find_var("w_awo").get_tensor())
        exe.run(main, feed={"x": xv})
        after = np.array(scope.find_var("w_awo").get_tensor())
    np.testing.assert_allclose(after, before - 0.5 * xv.mean(0).reshape(3, 1), rtol=1e-6)
    with pytest.raises(
        TypeError, match=r"paddle\.static\.gradients_with_optimizer: optimizer must be Optimizer, got str"
    ):
        paddle.autograd.backward_mode.gradients_with_optimizer(main, "sgd")
    with pytest.raises(FluidUnsupported, match="paddle.autograd.PyLayer"):
        paddle.autograd.PyLayer()


def test_ir_backward_grad_builds_the_static_gradients():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3], "float32")
        x.stop_gradient = False
        unused = paddle.static.data("u", [3], "float32")
        y = paddle.sum(paddle.square(x))
        (dx,) = paddle.autograd.ir_backward.grad(y, [x])
        with pytest.raises(ValueError, match="u do not reach"):
            paddle.autograd.ir_backward.grad(y, [x, unused])
        assert paddle.autograd.ir_backward.grad(y, [x, unused], allow_unused=True)[1] is None
    (got,) = paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed={"x": np.array([1, -2, 3], "float32"), "u": np.zeros(3, "float32")}, fetch_list=[dx]
    )
    np.testing.assert_allclose(got, [2, -4, 6])
