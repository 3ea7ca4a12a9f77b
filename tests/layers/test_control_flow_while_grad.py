"""Gradients through While: a recurrence carried in a parent variable and written to a tensor array,
against float64 central finite differences (through the executor) and against the same loop unrolled
by hand in the graph."""

import numpy as np

from control_flow_fd import finite_differences
from pe_cli import fluid
from pe_cli.fluid import layers
from pe_cli.training.param_attr import ParamAttr

B, D, H, N = 3, 4, 5, 3
PARAMS = ("wx", "wh", "b")
GRADS = ["x@GRAD", "h0@GRAD"] + [p + "@GRAD" for p in PARAMS]


def _cell(x, h):
    return layers.fc([x, h], H, act="tanh", param_attr=[ParamAttr("wx"), ParamAttr("wh")], bias_attr=ParamAttr("b"))


def _data():
    x = layers.data("x", [B, D], dtype="float64", append_batch_size=False)
    h0 = layers.data("h0", [B, H], dtype="float64", append_batch_size=False)
    x.stop_gradient = h0.stop_gradient = False
    return x, h0


def while_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x, h0 = _data()
        h = layers.assign(h0)
        i = layers.fill_constant([1], "int64", 0)
        n = layers.fill_constant([1], "int64", N)
        arr = layers.create_array("float64")
        c = layers.less_than(i, n)
        loop = layers.While(c)
        with loop.block():
            new = _cell(x, h)
            layers.assign(new, h)  # the carried value, overwritten each iteration
            layers.array_write(new, i, arr)
            layers.increment(i)
            layers.less_than(i, n, cond=c)
        first = layers.array_read(arr, layers.fill_constant([1], "int64", 0))
        loss = layers.reduce_sum(h * h) + layers.reduce_sum(first * 3.0)
        fluid.backward.append_backward(loss)
    return main, loss


def unrolled_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x, h0 = _data()
        h, outs = h0, []
        for _ in range(N):
            h = _cell(x, h)
            outs.append(h)
        loss = layers.reduce_sum(h * h) + layers.reduce_sum(outs[0] * 3.0)
        block = main.global_block()  # gradients() sums every contribution (x is read N times)
        grads = fluid.backward.gradients(loss, [x, h0] + [block.var(p) for p in PARAMS])
    return main, loss, grads


rng = np.random.default_rng(2)
VALUES = {
    "x": rng.normal(size=(B, D)),
    "h0": rng.normal(size=(B, H)),
    "wx": rng.normal(size=(D, H)) * 0.5,
    "wh": rng.normal(size=(H, H)) * 0.5,
    "b": rng.normal(size=(H,)) * 0.1,
}


def _run(program, fetch, values=VALUES):
    scope = fluid.core.Scope()
    for name in PARAMS:
        scope.var(name).get_tensor().set(values[name], fluid.CPUPlace())
    with fluid.scope_guard(scope):
        return fluid.Executor(fluid.CPUPlace()).run(
            program, feed={"x": values["x"], "h0": values["h0"]}, fetch_list=fetch
        )


def test_while_gradients_match_finite_differences():
    main, loss = while_program()
    grads = _run(main, GRADS)
    for name, grad in zip(["x", "h0"] + list(PARAMS), grads):
        want = finite_differences(lambda v: _run(main, [loss], v)[0][0], VALUES, name)
        np.testing.assert_allclose(grad, want, rtol=1e-5, atol=1e-8, err_msg=name)


def test_while_equals_the_unrolled_graph():
    main, loss = while_program()
    ref, ref_loss, ref_grads = unrolled_program()
    got, want = _run(main, [loss] + GRADS), _run(ref, [ref_loss] + ref_grads)
    for name, g, w in zip(["loss"] + GRADS, got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=name)


def test_array_gradients_in_the_global_block():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        a = layers.data("a", [2], dtype="float64", append_batch_size=False)
        b = layers.data("b", [2], dtype="float64", append_batch_size=False)
        a.stop_gradient = b.stop_gradient = False
        i0, i1 = layers.fill_constant([1], "int64", 0), layers.fill_constant([1], "int64", 1)
        arr = layers.array_write(a * 1.0, i0)
        layers.array_write(b * 1.0, i1, arr)  # the same array, written again in place
        read = layers.array_read
        loss = layers.reduce_sum(read(arr, i0) * 2.0 + read(arr, i1) * 3.0 + read(arr, i0))
        grads = fluid.backward.gradients(loss, [a, b])
    ga, gb = fluid.Executor(fluid.CPUPlace()).run(main, feed={"a": np.ones(2), "b": np.ones(2)}, fetch_list=grads)
    np.testing.assert_array_equal(ga, [3.0, 3.0])
    np.testing.assert_array_equal(gb, [3.0, 3.0])


def test_tensor_array_to_tensor_and_its_gradient():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        a = layers.data("a", [2, 3], dtype="float64", append_batch_size=False)
        b = layers.data("b", [2, 1], dtype="float64", append_batch_size=False)
        a.stop_gradient = b.stop_gradient = False
        arr = layers.array_write(a * 1.0, layers.fill_constant([1], "int64", 0))
        layers.array_write(b * 1.0, layers.fill_constant([1], "int64", 1), arr)
        out, index = layers.tensor_array_to_tensor(arr, axis=1)
        weights = layers.cast(layers.assign(np.arange(8, dtype="float32").reshape(2, 4)), "float64")
        grads = fluid.backward.gradients(layers.reduce_sum(out * weights), [a, b])
    av, bv = np.ones((2, 3)), np.full((2, 1), 2.0)
    got, idx, ga, gb = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"a": av, "b": bv}, fetch_list=[out, index] + grads
    )
    np.testing.assert_array_equal(got, np.concatenate([av, bv], axis=1))
    assert idx.tolist() == [3, 1]
    w = np.arange(8.0).reshape(2, 4)
    np.testing.assert_array_equal(ga, w[:, :3])
    np.testing.assert_array_equal(gb, w[:, 3:])
