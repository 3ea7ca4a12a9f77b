"""A Variable's operators follow the rules of the API the program was built with
(pe_cli/framework/operator_rules.py, pe_cli/layers/operator_promotion.py): Fluid 1.8's by default,
Paddle 2.6's in a program made after ``paddle.enable_static()`` (integer ``/`` in float32, a float
scalar promoting an integer tensor to float32, float32 + float64 in float64, 0-D scalars)."""
import warnings

import numpy as np
import pytest

from pe_cli import fluid, paddle
from pe_cli.framework import operator_rules

A = np.array([[3, 4], [10, -14]], dtype="int64")
F = np.array([[0.5, 1.5], [2.5, -1.0]], dtype="float32")


@pytest.fixture
def paddle2():
    old = operator_rules.follow_paddle2(False)
    paddle.enable_static()
    yield
    operator_rules.follow_paddle2(old)


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
        return [a / 7, a / a, a + 1.5, a * 2, 2.5 - a, a ** 2, f + fluid.layers.cast(f, "float64"),
                fluid.layers.cast(f, "float64") * f, f / a, -a, a < 2.5, 7 / a]


def test_fluid_programs_keep_fluid_1_8s_rules():
    main, got = _run(_builds)
    assert not main._follows_paddle2
    assert [d for d, _ in got] == ["int64", "int64", "int64", "int64", "int64", "int64", "float32",
                                   "float64", "float32", "int64", "bool", "int64"]
    np.testing.assert_array_equal(got[0][1], [[0, 0], [1, -2]])     # Fluid's integer division truncates
    np.testing.assert_array_equal(got[2][1], A + 1)                  # 1.5 in the tensor's int64


def test_programs_after_enable_static_follow_paddle_2_6(paddle2):
    main, got = _run(_builds)
    assert main._follows_paddle2 and main.clone()._follows_paddle2
    want = [A / 7, A / A, A + 1.5, A * 2, 2.5 - A, A ** 2, F + F.astype("float64"),
            F.astype("float64") * F, F / A, -A, A < 2.5, 7 / A]
    dtypes = ["float32", "float32", "float32", "int64", "float32", "int64", "float64", "float64",
              "float32", "int64", "bool", "float32"]
    assert [d for d, _ in got] == dtypes
    for (d, g), w in zip(got, want):
        assert g.dtype == np.dtype(d)
        np.testing.assert_allclose(g, np.asarray(w).astype(d), rtol=1e-6)


def test_a_scalar_operand_is_0d_in_paddle_2_6(paddle2):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = paddle.full([], 3, "int64")
        outs = [x ** 2, x % 2, x + 1]
    assert [tuple(o.shape) for o in outs] == [(), (), ()]
    got = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=outs)
    assert [g.shape for g in got] == [(), (), ()] and [int(g) for g in got] == [9, 1, 4]


def test_item_is_the_variable_itself_up_to_1d():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        y = paddle.static.data("y", [3])
        assert y.item() is y
        with pytest.raises(TypeError, match="1-D Variable"):
            paddle.static.data("x", [3, 2]).item()
