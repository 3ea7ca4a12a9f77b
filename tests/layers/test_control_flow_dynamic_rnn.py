"""DynamicRNN over LoD sequences of different lengths (not sorted): forward against numpy run per
sequence, gradients (step input, memory init, static input, parameters) against float64 central
finite differences, the output's LoD is the input's."""

import numpy as np
import pytest

from control_flow_fd import finite_differences
from pe_cli import fluid
from pe_cli.base.errors import PeError
from pe_cli.fluid import layers
from pe_cli.training.param_attr import ParamAttr

LENGTHS, D, H, S = [2, 4, 1], 3, 4, 2
N, TOKENS = len(LENGTHS), sum(LENGTHS)
OFFSETS = np.concatenate([[0], np.cumsum(LENGTHS)])
PARAMS = ("wx", "wh", "ws", "b")
BOOT = 0.3


def data():
    """The feeds: x (sequences), h0 (a memory's init) and s (a static input), all differentiable."""
    x = layers.data("x", [D], dtype="float64", lod_level=1)
    h0 = layers.data("h0", [H], dtype="float64")
    s = layers.data("s", [S], dtype="float64")
    for v in (x, h0, s):
        v.stop_gradient = False
    return x, h0, s


def program(boot=True):
    """``boot=False``: the memory starts as the constant BOOT instead of h0."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x, h0, s = data()
        drnn = layers.DynamicRNN()
        with drnn.block():
            xt = drnn.step_input(x)
            st = drnn.static_input(s)
            prev = (
                drnn.memory(init=h0, need_reorder=True) if boot else drnn.memory(shape=[H], value=BOOT, dtype="float64")
            )
            h = layers.fc(
                [xt, prev, st],
                H,
                act="tanh",
                bias_attr=ParamAttr("b"),
                param_attr=[ParamAttr("wx"), ParamAttr("wh"), ParamAttr("ws")],
            )
            drnn.update_memory(prev, h)
            drnn.output(h)
        out = drnn()
        loss = layers.reduce_sum(out * out) * 0.5
        fluid.backward.append_backward(loss)
    return main, out, loss


rng = np.random.default_rng(9)
VALUES = {
    "x": rng.normal(size=(TOKENS, D)),
    "h0": rng.normal(size=(N, H)),
    "s": rng.normal(size=(N, S)),
    "wx": rng.normal(size=(D, H)) * 0.5,
    "wh": rng.normal(size=(H, H)) * 0.5,
    "ws": rng.normal(size=(S, H)) * 0.5,
    "b": rng.normal(size=(H,)) * 0.1,
}


def _run(main, fetch, values=VALUES, return_numpy=True):
    scope = fluid.core.Scope()
    for name in PARAMS:
        scope.var(name).get_tensor().set(values[name], fluid.CPUPlace())
    x = fluid.create_lod_tensor(values["x"], [LENGTHS], fluid.CPUPlace())
    with fluid.scope_guard(scope):
        return fluid.Executor(fluid.CPUPlace()).run(
            main, feed={"x": x, "h0": values["h0"], "s": values["s"]}, fetch_list=fetch, return_numpy=return_numpy
        )


def numpy_forward(v):
    out = np.zeros((TOKENS, H))
    for n in range(N):
        h = v["h0"][n]
        for row in range(OFFSETS[n], OFFSETS[n + 1]):
            h = np.tanh(v["x"][row] @ v["wx"] + h @ v["wh"] + v["s"][n] @ v["ws"] + v["b"])
            out[row] = h
    return out


def test_forward_runs_each_sequence_and_keeps_its_lod():
    main, out, _ = program()
    (got,) = _run(main, [out], return_numpy=False)
    np.testing.assert_allclose(np.array(got), numpy_forward(VALUES), rtol=1e-12, atol=1e-12)
    assert got.recursive_sequence_lengths() == [LENGTHS]


@pytest.mark.parametrize("name", ["x", "h0", "s"] + list(PARAMS))
def test_gradients_match_finite_differences(name):
    main, _, _ = program()
    (grad,) = _run(main, [name + "@GRAD"])
    want = finite_differences(lambda v: 0.5 * float((numpy_forward(v) ** 2).sum()), VALUES, name)
    np.testing.assert_allclose(grad, want, rtol=1e-5, atol=1e-8)


def test_a_memory_without_init_starts_at_its_value_and_differentiates():
    main, out, _ = program(boot=False)
    got, gx, gwh = _run(main, [out, "x@GRAD", "wh@GRAD"])
    booted = dict(VALUES, h0=np.full((N, H), BOOT))
    np.testing.assert_allclose(got, numpy_forward(booted), rtol=1e-12, atol=1e-12)
    for name, grad in (("x", gx), ("wh", gwh)):
        want = finite_differences(lambda v: 0.5 * float((numpy_forward(v) ** 2).sum()), booted, name)
        np.testing.assert_allclose(grad, want, rtol=1e-5, atol=1e-8, err_msg=name)


def test_a_plain_tensor_fed_as_step_input_is_refused_when_it_runs():
    # as Fluid's: the program builds (a variable declared without lod_level may be fed a LoDTensor);
    # the rank table refuses a value without LoD
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data("x", [D], dtype="float32")
        drnn = layers.DynamicRNN()
        with drnn.block():
            drnn.output(drnn.step_input(x) * 2.0)
        out = drnn()
    with pytest.raises(PeError, match="lod_rank_table: X has no LoD"):
        fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": np.ones((3, D), "float32")}, fetch_list=[out])


LOSS_WEIGHTS = rng.normal(size=(TOKENS, H))


def _lstm_program(with_drnn):
    """An LSTM over the sequences: dynamic_lstm, or the same cell written in a DynamicRNN step with the
    dynamic_lstm layer's weight and bias (gate order: candidate, input, forget, output)."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data("x", [4 * H], dtype="float64", lod_level=1)
        h0 = layers.data("h0", [H], dtype="float64")
        c0 = layers.data("c0", [H], dtype="float64")
        for v in (x, h0, c0):
            v.stop_gradient = False
        if not with_drnn:
            hidden, _ = layers.dynamic_lstm(
                x, 4 * H, h_0=h0, c_0=c0, use_peepholes=False, param_attr=ParamAttr("lw"), bias_attr=ParamAttr("lb")
            )
        else:
            w = layers.create_parameter([H, 4 * H], "float64", name="lw")
            b = layers.create_parameter([1, 4 * H], "float64", name="lb")
            drnn = layers.DynamicRNN()
            with drnn.block():
                xt = drnn.step_input(x)
                hp, cp = drnn.memory(init=h0, need_reorder=True), drnn.memory(init=c0, need_reorder=True)
                g = xt + layers.matmul(hp, w) + layers.reshape(b, [4 * H])
                cand, gi, gf, go = layers.split(g, 4, dim=1)
                c = layers.sigmoid(gf) * cp + layers.sigmoid(gi) * layers.tanh(cand)
                h = layers.sigmoid(go) * layers.tanh(c)
                drnn.update_memory(hp, h)
                drnn.update_memory(cp, c)
                drnn.output(h)
            hidden = drnn()
        weights = layers.cast(layers.assign(LOSS_WEIGHTS.astype("float32")), "float64")
        loss = layers.reduce_sum(hidden * weights)
        fluid.backward.append_backward(loss)
    return main, hidden


def test_dynamic_rnn_lstm_equals_dynamic_lstm():
    values = {
        "x": rng.normal(size=(TOKENS, 4 * H)),
        "h0": rng.normal(size=(N, H)),
        "c0": rng.normal(size=(N, H)),
        "lw": rng.normal(size=(H, 4 * H)) * 0.5,
        "lb": rng.normal(size=(1, 4 * H)) * 0.1,
    }
    fetch = ["x@GRAD", "h0@GRAD", "c0@GRAD", "lw@GRAD", "lb@GRAD"]
    results = []
    for with_drnn in (False, True):
        main, hidden = _lstm_program(with_drnn)
        scope = fluid.core.Scope()
        for name in ("lw", "lb"):
            scope.var(name).get_tensor().set(values[name], fluid.CPUPlace())
        feed = {
            "x": fluid.create_lod_tensor(values["x"], [LENGTHS], fluid.CPUPlace()),
            "h0": values["h0"],
            "c0": values["c0"],
        }
        with fluid.scope_guard(scope):
            results.append(fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[hidden] + fetch))
    for name, want, got in zip(["hidden"] + fetch, *results):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-10, err_msg=name)
