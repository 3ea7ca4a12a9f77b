"""Gradients of gradients (fluid.gradients of a gradient, as Fluid's double_grad_check and gradient
penalties use): for conv2d, conv3d, mul, matmul, reshape, slice, reduce_mean, instance_norm, batch_norm
(training, NCHW and NHWC; global statistics), the
activations relu, leaky_relu, elu, sqrt, square, sigmoid and tanh (a third order of sigmoid too) and elementwise add, sub, mul and div, the
second backward's gradients of S = sum_i <W_i, first-order gradient i> with respect to every input and
the incoming gradient dY equal central finite differences of S, in float64."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid import layers


def _data(name, shape):
    x = layers.data(name, shape, append_batch_size=False, dtype="float64")
    x.persistable = True
    return x


def _check(build, shapes, eps=1e-6, rtol=1e-5, atol=1e-7):
    """``build(inputs) -> (y, the inputs and parameters to differentiate)``; checks the double gradients."""
    analytic, want, _ = second_order(build, shapes, fluid.CPUPlace(), eps)
    for (name, got), expected in zip(analytic, want):
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, err_msg=f"d/d{name}")


def second_order(build, shapes, place, eps=None, seed=3, given=None):
    """([(input name, its double gradient)] on ``place``, with ``eps`` their finite differences, the
    values fed: ``given``'s, else drawn from ``seed``)."""
    rng = np.random.default_rng(seed)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        inputs = [_data(name, shape) for name, shape in shapes]
        y, xs = build(inputs)
        dy = _data("dy", list(y.shape))
        firsts = fluid.gradients([y], xs, [dy])
        weights = [_data(f"w{i}", list(g.shape)) for i, g in enumerate(firsts)]
        seconds = fluid.gradients(firsts, xs + [dy], weights)
    scope, exe = fluid.Scope(), fluid.Executor(place)
    exe.run(startup, scope=scope)
    values = {v.name: rng.uniform(-1, 1, v.shape) for v in xs if scope.find_var(v.name) is None}
    values.update({v.name: np.array(scope.find_var(v.name).get_tensor()) for v in xs if v.name not in values})
    values["dy"] = rng.uniform(-1, 1, dy.shape)
    values.update({w.name: rng.uniform(-1, 1, w.shape) for w in weights})
    values = dict(given) if given is not None else values

    def s_of(vals):
        got = exe.run(main, feed=vals, fetch_list=firsts, scope=scope)
        return sum(float(np.sum(w_value * g)) for w_value, g in zip((vals[w.name] for w in weights), got))

    fetched = iter(exe.run(main, feed=values, fetch_list=[g for g in seconds if g is not None], scope=scope))
    analytic = [
        (var.name, next(fetched) if grad is not None else np.zeros(var.shape)) for var, grad in zip(xs + [dy], seconds)
    ]
    wants = []
    for var in (xs + [dy]) if eps else ():
        want = np.zeros(var.shape)
        for i in range(want.size):
            for sign in (1, -1):
                bumped = dict(values)
                bumped[var.name] = values[var.name].copy()
                bumped[var.name].reshape(-1)[i] += sign * eps
                want.reshape(-1)[i] += sign * s_of(bumped) / (2 * eps)
        wants.append(want)
    return analytic, wants, values


def _params(*shapes):
    return [layers.create_parameter(list(s), "float64", name=f"p{i}") for i, s in enumerate(shapes)]


CASES = {
    "conv2d": (
        [("x", [1, 2, 3, 3])],
        lambda i: (lambda w: (layers.conv2d(i[0], 2, 2, padding=1, bias_attr=False, param_attr=w.name), [i[0], w]))(
            layers.create_parameter([2, 2, 2, 2], "float64", name="w")
        ),
    ),
    "conv2d_nhwc_groups": (
        [("x", [1, 3, 3, 4])],
        lambda i: (layers.conv2d(i[0], 2, 1, groups=2, bias_attr=False, data_format="NHWC"), [i[0]]),
    ),
    "conv3d": ([("x", [1, 2, 2, 3, 2])], lambda i: (layers.conv3d(i[0], 2, 2, padding=1, bias_attr=False), [i[0]])),
    "mul": ([("x", [3, 4]), ("y", [4, 2])], lambda i: (layers.mul(i[0], i[1]), i)),
    "matmul": (
        [("x", [2, 3, 4]), ("y", [2, 2, 4])],
        lambda i: (layers.matmul(i[0], i[1], transpose_y=True, alpha=0.5), i),
    ),
    "reshape": ([("x", [3, 4])], lambda i: (layers.reshape(i[0], [2, 6]), i)),
    "slice": ([("x", [3, 4, 2])], lambda i: (layers.slice(i[0], axes=[0, 2], starts=[1, -1], ends=[3, 2]), i)),
    "reduce_mean": ([("x", [3, 4])], lambda i: (layers.reduce_mean(i[0], dim=1, keep_dim=True), i)),
    "relu": ([("x", [3, 4])], lambda i: (layers.relu(i[0]), i)),
    "leaky_relu": ([("x", [3, 4])], lambda i: (layers.leaky_relu(i[0], alpha=0.2), i)),
    "elu": ([("x", [3, 4])], lambda i: (layers.elu(i[0], alpha=0.7), i)),
    "sqrt": ([("x", [3, 4])], lambda i: (layers.sqrt(layers.scale(i[0], bias=2.0)), i)),  # of 1 .. 3
    "square": ([("x", [3, 4])], lambda i: (layers.square(i[0]), i)),
    "sigmoid": ([("x", [3, 4])], lambda i: (layers.sigmoid(i[0]), i)),
    "tanh": ([("x", [3, 4])], lambda i: (layers.tanh(i[0]), i)),
    "elementwise_add": ([("x", [2, 3, 4]), ("y", [3])], lambda i: (layers.elementwise_add(i[0], i[1], axis=1), i)),
    "elementwise_sub": ([("x", [2, 3]), ("y", [2, 3])], lambda i: (layers.elementwise_sub(i[0], i[1]), i)),
    "elementwise_mul": ([("x", [2, 3, 4]), ("y", [3, 4])], lambda i: (layers.elementwise_mul(i[0], i[1], axis=1), i)),
    "elementwise_div": (
        [("x", [2, 3, 2]), ("y", [3])],  # Y of 1 .. 3
        lambda i: (layers.elementwise_div(i[0], layers.scale(i[1], bias=2.0), axis=1), i),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_double_gradient_equals_finite_differences(case):
    shapes, build = CASES[case]
    _check(build, shapes)


def build_instance_norm(inputs):
    x = inputs[0]
    y = layers.instance_norm(
        x,
        param_attr=fluid.ParamAttr(name="scale", initializer=fluid.initializer.Uniform(0.5, 1.5, seed=1)),
        bias_attr=fluid.ParamAttr(name="bias"),
    )
    block = x.block
    return y, [x, block.var("scale"), block.var("bias")]


def test_instance_norm_double_gradient_through_its_statistics_scale_and_bias():
    _check(build_instance_norm, [("x", [2, 2, 5])], rtol=1e-4, atol=1e-6)


def build_batch_norm(layout="NCHW", use_global_stats=False):
    def build(inputs):
        x = inputs[0]
        y = layers.batch_norm(
            x,
            data_layout=layout,
            use_global_stats=use_global_stats,
            param_attr=fluid.ParamAttr(name="scale", initializer=fluid.initializer.Uniform(0.5, 1.5, seed=1)),
            bias_attr=fluid.ParamAttr(name="bias"),
            moving_mean_name="mean",
            moving_variance_name="var",
        )
        block = x.block
        return y, [x, block.var("scale"), block.var("bias")]

    return build


@pytest.mark.parametrize("layout, global_stats", [("NCHW", False), ("NHWC", False), ("NCHW", True)])
def test_batch_norm_double_gradient(layout, global_stats):
    _check(build_batch_norm(layout, global_stats), [("x", [3, 2, 2, 2])], rtol=1e-4, atol=1e-6)


def test_a_seed_named_as_the_outputs_gradient_is_not_overwritten_by_the_second_backward():
    """Fluid's double_grad_check names the first backward's seed ``y@GRAD``: the second backward's
    gradient of y gets a name of its own, so the seed keeps its value and the result is exact."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = _data("x", [2, 3])
        y = layers.sqrt(x)
        dy = main.global_block().create_var(name=y.name + "@GRAD", shape=[2, 3], dtype="float64", persistable=True)
        dy.stop_gradient = False
        w = _data("w", [2, 3])
        gx, gdy = fluid.gradients(fluid.gradients(y, x, dy), [x, dy], w)
    assert not any(dy.name in op.output_arg_names for op in main.global_block().ops)
    rng = np.random.default_rng(0)
    feed = {"x": rng.uniform(0.5, 2, (2, 3)), dy.name: rng.uniform(-1, 1, (2, 3)), "w": rng.uniform(-1, 1, (2, 3))}
    got_x, got_dy = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[gx, gdy])
    np.testing.assert_allclose(got_x, -0.25 * feed["w"] * feed[dy.name] * feed["x"] ** -1.5, rtol=1e-12)
    np.testing.assert_allclose(got_dy, 0.5 * feed["w"] / np.sqrt(feed["x"]), rtol=1e-12)


def test_third_order_of_sigmoid_equals_finite_differences_of_the_second():
    """gradients() of a second backward: its temporaries and the seeds it reads keep their names, and
    the third-order gradients equal central differences of sum(v * second-order gradients)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x, dy, w, v0, v1 = (_data(n, [3, 4]) for n in ("x", "dy", "w", "v0", "v1"))
        firsts = fluid.gradients([layers.sigmoid(x)], [x], [dy])
        seconds = fluid.gradients(firsts, [x, dy], [w])
        thirds = fluid.gradients(seconds, [x, dy, w], [v0, v1])
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(0)
    values = {k: rng.uniform(-1, 1, (3, 4)) for k in ("x", "dy", "w", "v0", "v1")}

    def s_of(vals):
        a, b = exe.run(main, feed=vals, fetch_list=seconds, scope=scope)
        return float(np.sum(vals["v0"] * a) + np.sum(vals["v1"] * b))

    got = exe.run(main, feed=values, fetch_list=thirds, scope=scope)
    for name, analytic in zip(("x", "dy", "w"), got):
        want = np.zeros((3, 4))
        for i in range(12):
            for sign in (1, -1):
                bumped = dict(values, **{name: values[name].copy()})
                bumped[name].reshape(-1)[i] += sign * 1e-6
                want.reshape(-1)[i] += sign * s_of(bumped) / 2e-6
        np.testing.assert_allclose(analytic, want, rtol=1e-5, atol=1e-7, err_msg=f"d/d{name}")
