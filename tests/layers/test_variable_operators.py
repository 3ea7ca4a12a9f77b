"""Variable's Python operators (pe_cli/layers/math_op_patch.py), as Fluid 1.8 patches them: arithmetic
builds the elementwise (or scale) ops; <, <=, >, >= build the compare ops and give bool variables,
with scalars on either side; == stays Python's (see the module)."""

import numpy as np

from pe_cli import fluid
from pe_cli.fluid import layers


def _run(build, feed):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        outs = build()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return outs, exe.run(main, feed=feed, fetch_list=outs)


def test_arithmetic_with_variables_and_scalars():
    xv = np.array([[1.0, -2.0, 4.0]], "float32")

    def build():
        x = layers.data("x", [3], dtype="float32")
        return [x + 1, 1 - x, x * x, 2 * x, x / 4, 8 / x, -x]

    _, got = _run(build, {"x": xv})
    for g, want in zip(got, [xv + 1, 1 - xv, xv * xv, 2 * xv, xv / 4, 8 / xv, -xv]):
        np.testing.assert_allclose(g, want, rtol=1e-6)


def test_comparisons_give_bool_variables():
    xv = np.array([[0.0, 1.0, -1.0]], "float32")

    def build():
        i = layers.fill_constant([1], "int64", 3)
        x = layers.data("x", [3], dtype="float32")
        return [i < 5, i <= 2, i > 3, i >= 3, 5 <= i, x > 0.5, x < x * 2]

    outs, got = _run(build, {"x": xv})
    assert [o.dtype for o in outs] == ["bool"] * 7
    assert [g.tolist() for g in got] == [
        [True],
        [False],
        [False],
        [True],
        [False],
        [[False, True, False]],
        [[False, True, False]],
    ]


def test_a_while_condition_written_with_an_operator():
    def build():
        i = layers.fill_constant([1], "int64", 0)
        total = layers.fill_constant([1], "int64", 0)
        cond = i < 4
        loop = layers.While(cond)
        with loop.block():
            layers.assign(total + i, total)
            layers.increment(i)
            layers.less_than(i, layers.fill_constant([1], "int64", 4), cond=cond)
        return [total]

    _, (total,) = _run(build, {})
    assert total.tolist() == [6]


def test_equality_between_variables_is_an_op_as_in_fluid():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        a, b = layers.data("a", [1]), layers.data("b", [1])
        eq, ne = a == b, a != b
        assert [op.type for op in main.global_block().ops[-2:]] == ["equal", "not_equal"]
        assert eq.dtype == ne.dtype == "bool"
        assert a in {a} and b not in {a}  # hashing stays identity: variables key dicts and sets
        assert (a == "a") is False


def test_an_operand_of_another_dtype_is_cast_to_the_left_ones_as_in_fluid():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        total = layers.fill_constant([1], "float32", 7.0)
        count = layers.fill_constant([1], "int64", 2)
        ratio = total / count
    assert ratio.dtype == "float32"
    (got,) = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=[ratio], scope=fluid.Scope())
    assert got[0] == 3.5
