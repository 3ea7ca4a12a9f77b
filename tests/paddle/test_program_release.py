"""A program follows Fluid 1.8 by default, Paddle 2.6 when made after ``paddle.enable_static()``
(pe_cli/framework/program_release.py), where the two differ: a Variable's operators
(pe_cli/layers/operator_promotion.py: integer ``/`` in float32, a float scalar promoting an integer
tensor to float32, float32 + float64 in float64, 0-D scalars), a fed name the program lacks (refused;
dropped with a warning in both; Fluid's CompiledProgram refuses it) and 0-D parameters (refused; allowed)."""

import warnings
import numpy as np
import pytest

from pe_cli import fluid, paddle

A = np.array([[3, 4], [10, -14]], dtype="int64")
F = np.array([[0.5, 1.5], [2.5, -1.0]], dtype="float32")


def _run(build):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        a = fluid.data("a", [2, 2], "int64")
        f = fluid.data("f", [2, 2], "float32")
        outs = build(a, f)
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed={"a": A, "f": F}, fetch_list=outs)
    return main, [(str(o.dtype), g) for o, g in zip(outs, got)]


def _builds(a, f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [
            a / 7,
            a / a,
            a + 1.5,
            a * 2,
            2.5 - a,
            a**2,
            f + fluid.layers.cast(f, "float64"),
            fluid.layers.cast(f, "float64") * f,
            f / a,
            -a,
            a < 2.5,
            7 / a,
        ]


def test_fluid_programs_keep_fluid_1_8s_rules():
    main, got = _run(_builds)
    assert not main._follows_paddle2
    assert [d for d, _ in got] == [
        "int64",
        "int64",
        "int64",
        "int64",
        "int64",
        "int64",
        "float32",
        "float64",
        "float32",
        "int64",
        "bool",
        "int64",
    ]
    np.testing.assert_array_equal(got[0][1], [[0, 0], [1, -2]])  # Fluid's integer division truncates
    np.testing.assert_array_equal(got[2][1], A + 1)  # 1.5 in the tensor's int64


def test_programs_after_enable_static_follow_paddle_2_6(paddle2):
    main, got = _run(_builds)
    assert main._follows_paddle2 and main.clone()._follows_paddle2
    want = [
        A / 7,
        A / A,
        A + 1.5,
        A * 2,
        2.5 - A,
        A**2,
        F + F.astype("float64"),
        F.astype("float64") * F,
        F / A,
        -A,
        A < 2.5,
        7 / A,
    ]
    dtypes = [
        "float32",
        "float32",
        "float32",
        "int64",
        "float32",
        "int64",
        "float64",
        "float64",
        "float32",
        "int64",
        "bool",
        "float32",
    ]
    assert [d for d, _ in got] == dtypes
    for (d, g), w in zip(got, want):
        assert g.dtype == np.dtype(d)
        np.testing.assert_allclose(g, np.asarray(w).astype(d), rtol=1e-6)


_EXPRESSIONS = "outs = [a / 7, a // -3, a % -3, -a, a + 1.5, a == a, a != a * 1, f - a]"


def _written_in(module):
    """_EXPRESSIONS written in a module named ``module``: the op types, dtypes and values they build."""

    def build(a, f):
        mine = {"a": a, "f": f}
        exec(_EXPRESSIONS, {"__name__": module}, mine)
        return mine["outs"]

    main, got = _run(build)
    return [op.type for op in main.global_block().ops], got


@pytest.mark.parametrize("paddle_2", [False, True])
def test_an_expression_builds_the_same_program_in_pes_code_as_in_a_users(paddle_2, request):
    """Which rules a Variable's operators follow is the program's (Program._follows_paddle2), never who
    wrote the expression: pe's own modules (a name under pe_cli.) get what a user's script gets."""
    if paddle_2:
        request.getfixturevalue("paddle2")
    users, pes = _written_in("users_script"), _written_in("pe_cli.paddle.some_function")
    assert users[0] == pes[0]
    assert [d for d, _ in users[1]] == [d for d, _ in pes[1]]
    for (_, u), (_, p) in zip(users[1], pes[1]):
        np.testing.assert_array_equal(u, p)
    quotient, floored = users[1][0], users[1][1]
    if paddle_2:  # Paddle 2.6: a true division in float32, a floor division that floors
        assert quotient[0] == "float32" and floored[1].tolist() == (A // -3).tolist() == [[-1, -2], [-4, 4]]
    else:  # Fluid 1.8: both integer divisions truncate towards zero
        assert quotient[0] == "int64" and floored[1].tolist() == [[-1, -1], [-3, 4]]
    assert [d for d, _ in users[1][5:7]] == ["bool", "bool"]  # == and != of two Variables build ops


def test_a_scalar_operand_is_0d_in_paddle_2_6(paddle2):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = paddle.full([], 3, "int64")
        outs = [x**2, x % 2, x + 1]
    assert [tuple(o.shape) for o in outs] == [(), (), ()]
    got = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=outs)
    assert [g.shape for g in got] == [(), (), ()] and [int(g) for g in got] == [9, 1, 4]


def test_item_is_the_variable_itself_up_to_1d():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        y = paddle.static.data("y", [3])
        assert y.item() is y
        with pytest.raises(TypeError, match="1-D Variable"):
            paddle.static.data("x", [3, 2]).item()


def _feed_unknown_and_0d_parameter():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = paddle.static.data("x", [2], "float32")
        y = x * 2
    (got,) = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": F[0], "axis": 1, "prepend": None}, fetch_list=[y])
    np.testing.assert_array_equal(got, F[0] * 2)
    return main.global_block().create_parameter(name="s", shape=[], dtype="float32")


def test_fluid_drops_an_unknown_feed_and_refuses_a_0d_parameter():
    with pytest.warns(UserWarning, match="The variable axis is not found in program"):  # Fluid 1.8.5's Executor
        with pytest.raises(ValueError, match="dimensions of shape for Parameter"):
            _feed_unknown_and_0d_parameter()
    with pytest.raises(ValueError, match="dimensions of shape for Parameter"):
        fluid.Program().global_block().create_parameter(name="s", shape=[], dtype="float32")


def test_paddle_2_6_drops_an_unknown_feed_and_has_0d_parameters(paddle2):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _feed_unknown_and_0d_parameter().shape == ()
    assert [str(w.message) for w in caught] == [
        f"The variable {n} is not found in program. It is not declared or is pruned." for n in ("axis", "prepend")
    ]


def _reductions():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        f = fluid.data("f", [2, 2], "float32")
        f.stop_gradient = False
        outs = [
            paddle.mean(f),
            paddle.sum(f),
            fluid.layers.mean(f),
            paddle.max(f, axis=[0, 1]),
            paddle.sum(f, axis=0),
            paddle.mean(f, keepdim=True),
        ]
        (grad,) = fluid.gradients(outs[0], f)
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed={"f": F}, fetch_list=outs + [grad])
    np.testing.assert_allclose([float(g.reshape(-1)[0]) for g in got[:4]], [F.mean(), F.sum(), F.mean(), F.max()])
    np.testing.assert_array_equal(got[-1], np.full([2, 2], 0.25, "float32"))
    return [tuple(o.shape) for o in outs], [g.shape for g in got[:-1]]


def test_fluid_reductions_to_one_value_have_shape_1():
    assert _reductions() == ([(1,), (1,), (1,), (1,), (2,), (1, 1)],) * 2


def test_paddle_2_6_reductions_to_one_value_are_0d(paddle2):
    """paddle.*'s are 0-D; fluid.layers.mean keeps [1], as on every Paddle that runs a program
    mixing the two (2.0-2.4), so a Fluid program's ``loss[0]`` after paddle.enable_static() works."""
    assert _reductions() == ([(), (), (1,), (), (2,), (1, 1)],) * 2


def test_fluid_layers_loss_indexes_after_enable_static(paddle2):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        f = fluid.data("f", [2, 2], "float32")
        loss = fluid.layers.mean(fluid.layers.reduce_sum(f, dim=1))
        first, total = loss[0], fluid.layers.reduce_sum(f)
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed={"f": F}, fetch_list=[loss, first, total])
    assert [g.shape for g in got] == [(1,), (1,), (1,)] and float(got[1]) == F.sum(axis=1).mean()


class _UsersMean(paddle.nn.Layer):
    def __init__(self, mean):
        super().__init__()
        self.mean = mean

    def forward(self, x):
        return self.mean(x)


def test_the_users_code_that_pe_calls_says_which_reduction_it_builds(paddle2):
    """Which face a call entered is explicit state (program_release.paddle_face / fluid_face), not
    the call stack: the user's forward run by paddle.nn.Sequential, and a branch run by
    paddle.static.nn.cond, build fluid.layers.mean's [1] and paddle.mean's 0-D as called directly."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        f = fluid.data("f", [2, 2], "float32")
        outs = [
            paddle.nn.Sequential(_UsersMean(fluid.layers.mean))(f),
            paddle.nn.Sequential(_UsersMean(paddle.mean))(f),
            paddle.static.nn.cond(f.sum() > 0, lambda: fluid.layers.mean(f), lambda: fluid.layers.reduce_max(f)),
            paddle.static.nn.cond(f.sum() > 0, lambda: paddle.mean(f), lambda: paddle.max(f)),
            paddle.nn.MSELoss()(f, f * 2.0),  # pe's forward calling paddle.nn.functional.mse_loss
        ]
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed={"f": F}, fetch_list=outs)
    assert [g.shape for g in got] == [(1,), (), (1,), (), ()]
    np.testing.assert_allclose([float(g.reshape(-1)[0]) for g in got], [F.mean()] * 4 + [(F**2).mean()])


class _RecordingDecoder(fluid.layers.BasicDecoder):
    """A user's decoder whose step also builds fluid.layers.mean's and paddle.mean's reductions."""

    def step(self, time, inputs, states, **kwargs):
        self.shapes = [tuple(fluid.layers.mean(states).shape), tuple(paddle.mean(states).shape)]
        return super().step(time, inputs, states, **kwargs)


def test_a_users_decoder_under_paddle_dynamic_decode_says_which_reduction_it_builds(paddle2):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x, h0 = fluid.data("x", [3, 4, 5], "float32"), fluid.data("h0", [3, 6], "float32")
        length = fluid.data("len", [3], "int64")
        decoder = _RecordingDecoder(fluid.layers.GRUCell(6), fluid.layers.TrainingHelper(x, length))
        paddle.nn.dynamic_decode(decoder, inits=h0, impute_finished=True)
    assert decoder.shapes == [(1,), ()]


def _names_of_operators_and_cond():
    main = fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, fluid.Program()):
        a, b = paddle.zeros([1, 1]), paddle.zeros([1, 1])
        c = a * b
        paddle.static.nn.cond(a < b, lambda: a + c, lambda: -b)
    return paddle.utils.get_inputs_outputs_in_block(main.block(1)), sorted(main.block(2).vars)


def test_fluid_programs_name_operators_by_their_layers():
    # a cond's branch result is copied into a variable named as Fluid 1.8.5 names it too
    (inputs, outputs), _ = _names_of_operators_and_cond()
    assert inputs == {"fill_constant_1.tmp_0", "elementwise_mul_0.tmp_0"} and outputs == {"_generated_var_0"}


def test_paddle_2_6_names_operator_results_tmp_and_cond_outputs_generated(paddle2):
    """Paddle 2.6's names: ``tmp_N`` for what an operator makes, ``_generated_var_N`` for a cond's
    output, and paddle.full's variable takes the second of two fill_constant names."""
    (inputs, outputs), false_block = _names_of_operators_and_cond()
    assert inputs == {"fill_constant_1.tmp_0", "tmp_0"} and outputs == {"_generated_var_0"}
    assert false_block == ["tmp_3"]


def _gradients_of_data():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = paddle.static.data("x", [3], "float32")
        y = paddle.sum(x * x)
        return paddle.static.gradients(y, x), paddle.static.gradients(y, [x, x]), x.stop_gradient


def test_fluid_gradients_differentiate_every_input():
    one, two, stop = _gradients_of_data()
    assert one[0].name == "x@GRAD" and len(two) == 2 and not stop


def test_paddle_2_6_gradients_skip_inputs_that_stop_gradients(paddle2):
    assert _gradients_of_data() == ([], [None, None], True)


@pytest.mark.parametrize("paddle_2", [False, True])
def test_static_rnn_finds_each_memory_itself_in_either_release(paddle_2, request):
    """update_memory looks its memory up by identity: ``mem in memories`` would ask ``==``, which
    builds an equal op between two Variables (always true as a Python value) and picks the first."""
    if paddle_2:
        request.getfixturevalue("paddle2")
    x = np.arange(12, dtype="float32").reshape(3, 2, 2)
    h = np.ones((2, 2), "float32")
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        xs = fluid.data("xs", [3, 2, 2], "float32")
        h0 = fluid.data("h0", [2, 2], "float32")
        rnn = fluid.layers.StaticRNN()
        with rnn.step():
            xt = rnn.step_input(xs)
            a, b = rnn.memory(init=h0), rnn.memory(init=h0)
            new_b, new_a = fluid.layers.elementwise_add(b, xt), fluid.layers.elementwise_sub(a, xt)
            rnn.update_memory(b, new_b)
            rnn.update_memory(a, new_a)
            rnn.step_output(new_a)
            rnn.step_output(new_b)
        outs = rnn()
    assert "equal" not in [op.type for block in main.blocks for op in block.ops]
    got_a, got_b = fluid.Executor(fluid.CPUPlace()).run(main, feed={"xs": x, "h0": h}, fetch_list=list(outs))
    np.testing.assert_array_equal(got_b, h + np.cumsum(x, axis=0))
    np.testing.assert_array_equal(got_a, h - np.cumsum(x, axis=0))
