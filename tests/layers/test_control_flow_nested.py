"""Blocks inside blocks: a While in a While's body, a cond in a StaticRNN's step. Their forward
values and gradients against closed forms (tests/layers/test_control_flow_parallel.py trains the same
nestings on 1 and 2 devices)."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.fluid import layers


def _run(main, startup, feed, fetch):
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope)


@pytest.mark.parametrize("outer,inner", [(4, 2), (3, 3), (1, 0)])
def test_a_while_in_a_while_body_runs_and_differentiates(outer, inner):
    """out = outer * inner * x (the inner loop adds x to a copy of the outer state); loss = sum(out^2)
    so d loss / dx = 2 (outer * inner)^2 x."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", [3], dtype="float32")
        x.stop_gradient = False
        i, n = layers.fill_constant([1], "int64", 0), layers.fill_constant([1], "int64", outer)
        states = layers.create_array("float32")
        layers.array_write(layers.scale(x, 0.0), i, array=states)
        c = layers.less_than(i, n)
        loop = layers.While(c)
        with loop.block():
            cur = layers.assign(layers.array_read(states, i))
            j, m = layers.fill_constant([1], "int64", 0), layers.fill_constant([1], "int64", inner)
            c2 = layers.less_than(j, m)
            inner_loop = layers.While(c2)
            with inner_loop.block():
                layers.assign(layers.elementwise_add(cur, x), cur)
                layers.increment(j)
                layers.less_than(j, m, cond=c2)
            layers.increment(i)
            layers.array_write(cur, i, array=states)
            layers.less_than(i, n, cond=c)
        out = layers.array_read(states, i)
        loss = layers.reduce_sum(layers.elementwise_mul(out, out))
        fluid.backward.append_backward(loss)
    xv = np.array([[1, -2, 3], [0.5, 0, -1]], "float32")
    got, grad = _run(main, startup, {"x": xv}, [out, x.name + "@GRAD"])
    k = outer * inner
    np.testing.assert_allclose(got, k * xv, rtol=1e-6)
    np.testing.assert_allclose(grad, 2 * k * k * xv, rtol=1e-5)


def test_a_cond_in_a_static_rnn_step_picks_its_branch_at_every_step():
    """h_t = a h_{t-1} + x_t, a = 1 when the fed flag is set, 0.5 otherwise (cond inside the step);
    the gradient of sum(h^2) follows the branch taken."""
    T, B, D = 4, 2, 3
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", [T, B, D], dtype="float32", append_batch_size=False)
        flag = layers.data("flag", [1], dtype="float32", append_batch_size=False)
        x.stop_gradient = False
        rnn = layers.StaticRNN()
        with rnn.step():
            xt = rnn.step_input(x)
            h = rnn.memory(shape=[-1, D], batch_ref=xt)
            pred = layers.greater_than(layers.reduce_sum(flag), layers.fill_constant([1], "float32", 0.5))
            hn = layers.cond(
                pred, lambda: layers.elementwise_add(h, xt), lambda: layers.elementwise_add(layers.scale(h, 0.5), xt)
            )
            rnn.update_memory(h, hn)
            rnn.step_output(hn)
        out = rnn()
        fluid.backward.append_backward(layers.reduce_sum(layers.elementwise_mul(out, out)))
    xv = np.random.RandomState(0).randn(T, B, D).astype("float32")
    for f, a in ((1.0, 1.0), (0.0, 0.5)):
        got, grad = _run(main, startup, {"x": xv, "flag": np.array([f], "float32")}, [out, x.name + "@GRAD"])
        h, want = np.zeros((B, D)), []
        for t in range(T):
            h = a * h + xv[t]
            want.append(h)
        want = np.array(want)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        dx = [sum(2 * want[t] * a ** (t - s) for t in range(s, T)) for s in range(T)]
        np.testing.assert_allclose(grad, np.array(dx), rtol=1e-5, atol=1e-5)
