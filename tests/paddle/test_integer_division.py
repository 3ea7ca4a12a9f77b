"""Integer division and remainder follow the program's release (issue 96; docs/COMPAT.md, "Integer floor
division"): in a Paddle 2.x program (``paddle.enable_static()``) ``//``, ``paddle.floor_divide`` and the
elementwise_floordiv op floor as Paddle 2.6.2 does (``[-4, 0, -8] // [3, 5, 3]`` is ``[-2, 0, -3]``), ``%`` and
``paddle.remainder`` take the divisor's sign; in a Fluid 1.8 program they truncate, as Fluid 1.8.5's kernel did.
Paddle 2.6.2's values: tests/data/paddle_oracle/semantics26.json (tools/paddle26_op_oracle.py). An integer
division by zero stops the program with one line."""

import textwrap

import numpy as np
import pytest

from pe_cli import fluid, paddle
from pe_cli.base.errors import PeError
from tests.cli.test_helpers import pe
from tests.ops.paddle26 import RECORDED, array


def _recorded(op):
    rec = RECORDED[f"{op}_int64_signs"]
    return array(rec["inputs"]["X"][0]), array(rec["inputs"]["Y"][0]), array(rec["outputs"]["Out"][0])


def _run(build, x, y):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        a = fluid.data("x", list(x.shape), "int64")
        b = fluid.data("y", list(y.shape), "int64")
        outs = build(a, b)
    return fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": x, "y": y}, fetch_list=outs)


def test_paddle_2_programs_floor_as_paddle_2_6(paddle2):
    x, y, floored = _recorded("elementwise_floordiv")
    _, _, remainder = _recorded("elementwise_mod")
    _, _, divided = _recorded("elementwise_div")
    got = _run(
        lambda a, b: [a // b, paddle.floor_divide(a, b), a % b, paddle.remainder(a, b), paddle.divide(a, b)], x, y
    )
    np.testing.assert_array_equal(got[0], floored)
    np.testing.assert_array_equal(got[1], floored)
    np.testing.assert_array_equal(got[2], remainder)
    np.testing.assert_array_equal(got[3], remainder)
    np.testing.assert_array_equal(got[4], divided)
    assert floored[:3].tolist() == [-2, 0, -3]
    np.testing.assert_array_equal(x, floored * y + remainder)  # the two agree with each other


def test_paddle_2_floor_divide_takes_floats(paddle2):
    rec = RECORDED["elementwise_floordiv_float64_signs"]
    x, y = array(rec["inputs"]["X"][0]), array(rec["inputs"]["Y"][0])
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        out = paddle.floor_divide(fluid.data("x", [12], "float64"), fluid.data("y", [12], "float64"))
    (got,) = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": x, "y": y}, fetch_list=[out])
    np.testing.assert_array_equal(got, array(rec["outputs"]["Out"][0]))


def test_fluid_programs_truncate_as_fluid_1_8():
    x, y, _ = _recorded("elementwise_floordiv")
    layers = fluid.layers
    got = _run(lambda a, b: [a // b, layers.elementwise_floordiv(a, b), layers.elementwise_mod(a, b)], x, y)
    truncated = np.trunc(x / y).astype("int64")
    np.testing.assert_array_equal(got[0], truncated)
    np.testing.assert_array_equal(got[1], truncated)
    np.testing.assert_array_equal(got[2], np.fmod(x, y))  # C's remainder: X's sign
    assert got[0][:3].tolist() == [-1, 0, -2]


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "divide"])
def test_an_integer_division_by_zero_is_refused(paddle2, op):
    with pytest.raises(PeError, match="Y holds a zero; integer division by zero"):
        _run(lambda a, b: [getattr(paddle, op)(a, b)], np.array([1, 2, 3]), np.array([1, 0, 2]))


def test_an_integer_division_by_zero_is_one_line_in_pe_fluid(tmp_path):
    script = tmp_path / "floor_divide.py"
    script.write_text(
        textwrap.dedent(
            """
            import numpy as np
            import paddle
            paddle.enable_static()
            x = paddle.static.data("x", [3], "int64")
            out = x // paddle.static.data("y", [3], "int64")
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(feed={"x": np.array([1, 2, 3]), "y": np.array([1, 0, 2])}, fetch_list=[out])
            """
        )
    )
    proc = pe("fluid", script)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "elementwise_floordiv: Y holds a zero; integer division by zero" in lines[0], proc.stderr


def test_paddle_2_remainder_is_one_op_as_paddle_builds_it(paddle2):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        paddle.remainder(fluid.data("x", [3], "int64"), fluid.data("y", [3], "int64"))
    assert [op.type for op in main.global_block().ops] == ["elementwise_mod"]
