"""StaticRNN (the recurrent op): forward against numpy, gradients against float64 central finite
differences and against the same recurrence unrolled by hand in the graph (to 1e-5 and better)."""

import numpy as np
import pytest

from control_flow_fd import finite_differences
from pe_cli import fluid
from pe_cli.base.errors import PeError
from pe_cli.fluid import layers
from pe_cli.training.param_attr import ParamAttr

T, B, D, H = 4, 3, 5, 6
PARAMS = ("wx", "wh", "b")


def _attrs():
    return dict(param_attr=[ParamAttr("wx"), ParamAttr("wh")], bias_attr=ParamAttr("b"))


def _data():
    x = layers.data("x", [T, B, D], dtype="float64", append_batch_size=False)
    h0 = layers.data("h0", [B, H], dtype="float64", append_batch_size=False)
    x.stop_gradient = h0.stop_gradient = False
    return x, h0


def static_rnn_program(reverse_output=False):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x, h0 = _data()
        rnn = layers.StaticRNN()
        with rnn.step():
            xt = rnn.step_input(x)
            hp = rnn.memory(init=h0)
            h = layers.fc([xt, hp], H, act="tanh", **_attrs())
            rnn.update_memory(hp, h)
            rnn.step_output(h)
        hs = rnn()
        loss = layers.reduce_sum(hs * hs) * 0.5
        fluid.backward.append_backward(loss)
    return main, startup, hs, loss


def unrolled_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x, h0 = _data()
        h, outs = h0, []
        for t, xt in enumerate(layers.split(x, T, dim=0)):  # x read once: its gradient is one value
            xt = layers.reshape(xt, [B, D])
            h = layers.fc([xt, h], H, act="tanh", **_attrs())
            outs.append(layers.unsqueeze(h, [0]))
        hs = layers.concat(outs, axis=0)
        loss = layers.reduce_sum(hs * hs) * 0.5
        fluid.backward.append_backward(loss)
    return main, startup, hs, loss


rng = np.random.default_rng(3)
VALUES = {
    "x": rng.normal(size=(T, B, D)),
    "h0": rng.normal(size=(B, H)),
    "wx": rng.normal(size=(D, H)) * 0.5,
    "wh": rng.normal(size=(H, H)) * 0.5,
    "b": rng.normal(size=(H,)) * 0.1,
}


def _run(program, fetch, values=VALUES):
    scope = fluid.core.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    for name in PARAMS:
        scope.var(name).get_tensor().set(values[name], fluid.CPUPlace())
    with fluid.scope_guard(scope):
        return exe.run(program, feed={"x": values["x"], "h0": values["h0"]}, fetch_list=fetch)


def _numpy_forward(v):
    h, outs = v["h0"], []
    for t in range(T):
        h = np.tanh(v["x"][t] @ v["wx"] + h @ v["wh"] + v["b"])
        outs.append(h)
    return np.stack(outs)


GRADS = ["x@GRAD", "h0@GRAD"] + [p + "@GRAD" for p in PARAMS]


def test_forward_matches_numpy():
    main, _, hs, _ = static_rnn_program()
    (got,) = _run(main, [hs])
    np.testing.assert_allclose(got, _numpy_forward(VALUES), rtol=1e-12, atol=1e-12)


def test_gradients_match_finite_differences():
    main, _, _, loss = static_rnn_program()
    grads = _run(main, GRADS)
    for name, grad in zip(["x", "h0"] + list(PARAMS), grads):
        want = finite_differences(lambda v: 0.5 * float((_numpy_forward(v) ** 2).sum()), VALUES, name)
        np.testing.assert_allclose(grad, want, rtol=1e-5, atol=1e-7, err_msg=name)
    # and the program's own loss, perturbed through the executor, for one weight
    eps, idx = 1e-6, (1, 2)
    plus, minus = dict(VALUES), dict(VALUES)
    plus["wh"], minus["wh"] = VALUES["wh"].copy(), VALUES["wh"].copy()
    plus["wh"][idx] += eps
    minus["wh"][idx] -= eps
    fd = (_run(main, [loss], plus)[0] - _run(main, [loss], minus)[0]) / (2 * eps)
    np.testing.assert_allclose(grads[3][idx], fd[0], rtol=1e-5)


def test_forward_and_gradients_equal_the_unrolled_graph():
    main, _, hs, _ = static_rnn_program()
    ref_main, _, ref_hs, _ = unrolled_program()
    got = _run(main, [hs] + GRADS)
    want = _run(ref_main, [ref_hs] + GRADS)
    for name, g, w in zip(["out"] + GRADS, got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=name)


def test_memory_from_batch_ref_and_to_string_nests_the_step_block():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", [T, B, D], dtype="float32", append_batch_size=False)
        rnn = layers.StaticRNN()
        with rnn.step():
            xt = rnn.step_input(x)
            acc = rnn.memory(shape=[-1, D], batch_ref=xt, init_value=1.0)
            new = acc + xt
            rnn.update_memory(acc, new)
            rnn.step_output(new)
        out = rnn()
    text = main.to_string()
    assert "recurrent(" in text and "    block 1 (parent 0) {" in text
    assert "block 1" in main.clone(for_test=True).to_string()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    xv = np.arange(T * B * D, dtype="float32").reshape(T, B, D)
    (got,) = exe.run(main, feed={"x": xv}, fetch_list=[out])
    np.testing.assert_allclose(got, 1.0 + np.cumsum(xv, axis=0), rtol=1e-6)


def test_static_rnn_misuse_is_named():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = layers.data("x", [T, B, D], dtype="float32", append_batch_size=False)
        rnn = layers.StaticRNN()
        with pytest.raises(PeError, match="never updated"):
            with rnn.step():
                xt = rnn.step_input(x)
                rnn.memory(shape=[-1, D], batch_ref=xt)
                rnn.step_output(xt)
        with pytest.raises(PeError, match="inside `with rnn.step"):
            layers.StaticRNN().step_input(x)
        rnn = layers.StaticRNN()
        with pytest.raises(PeError, match="computed inside the step block"):
            with rnn.step():
                rnn.step_input(layers.transpose(x, [0, 1, 2]))
        rnn = layers.StaticRNN()
        with pytest.raises(
            PeError, match=r"memory\(init='fill_constant.*computed inside the step, .* before `with rnn.step"
        ):
            with rnn.step():
                rnn.step_input(x)
                rnn.memory(init=layers.fill_constant([1], "float32", 0.0))
