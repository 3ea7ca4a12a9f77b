"""paddle.incubate (pe_cli/paddle/incubate): pow2_decay_with_linear_warmup advances its learning rate
at every run by Paddle's formula; batch_fc is a per-slot matmul plus bias and activation; the contrib
layers are Fluid's; what pe lacks is a one-line refusal."""

import numpy as np
import pytest

from pe_cli import fluid, paddle
from pe_cli.base.errors import FluidUnsupported
from pe_cli.executor.scope import Scope

S = paddle.static
INC = paddle.incubate


def _pow2_reference(k, warmup, total, base, end):
    if k <= warmup:
        return k / warmup * base
    if k < total:
        return (base - end) * (1 - (k - warmup) / (total - warmup)) ** 2 + end
    return end


def test_pow2_decay_with_linear_warmup_follows_paddles_formula_run_by_run():
    main, startup = S.Program(), S.Program()
    with S.program_guard(main, startup):
        lr = INC.layers.pow2_decay_with_linear_warmup(3, 7, 0.02, 0.001)
    assert lr.persistable and list(lr.shape) == [1]
    exe = S.Executor(paddle.CPUPlace())
    with S.scope_guard(Scope()):
        exe.run(startup)
        got = [float(exe.run(main, fetch_list=[lr])[0][0]) for _ in range(9)]
    want = [_pow2_reference(k, 3, 7, 0.02, 0.001) for k in range(1, 10)]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(AssertionError, match="warmup_steps"):
        INC.layers.pow2_decay_with_linear_warmup(8, 7, 0.02, 0.001)


def test_batch_fc_is_a_matmul_per_slot_plus_bias_and_activation():
    rng = np.random.RandomState(1)
    x_np = rng.randn(4, 2, 3).astype("float32")
    main, startup = S.Program(), S.Program()
    with S.program_guard(main, startup):
        x = S.data("x", [4, 2, 3], "float32")
        out = INC.layers.batch_fc(
            x,
            [4, 3, 5],
            paddle.ParamAttr(name="bw"),
            [4, 5],
            paddle.ParamAttr(name="bb", initializer=paddle.nn.initializer.Normal()),
            act="relu",
        )
        shuffled = INC.layers.shuffle_batch(x)
    exe = S.Executor(paddle.CPUPlace())
    scope = Scope()
    with S.scope_guard(scope):
        exe.run(startup)
        got, sh = exe.run(main, feed={"x": x_np}, fetch_list=[out, shuffled])
    w, b = np.array(scope.find_var("bw").get_tensor()), np.array(scope.find_var("bb").get_tensor())
    np.testing.assert_allclose(got, np.maximum(np.matmul(x_np, w) + b[:, None, :], 0), rtol=1e-5, atol=1e-6)
    assert got.shape == (4, 2, 5)
    np.testing.assert_array_equal(np.sort(sh.reshape(-1)), np.sort(x_np.reshape(-1)))
    with pytest.raises(AssertionError, match="shapes disagree"):
        with S.program_guard(S.Program(), S.Program()):
            INC.layers.batch_fc(S.data("y", [4, 2, 3]), [4, 2, 5], None, [4, 5], None)


def test_what_pe_lacks_is_a_one_line_refusal():
    with pytest.raises(FluidUnsupported, match="GradientMergeOptimizer"):
        INC.optimizer.GradientMergeOptimizer(paddle.optimizer.SGD(), k_steps=4)
    with pytest.raises(FluidUnsupported, match="correlation"):
        INC.layers.correlation(None, None, 1, 1, 1, 1, 1)
    assert INC.optimizer.RecomputeOptimizer is fluid.optimizer.RecomputeOptimizer
