"""Fluid 1.8's layers refuse a bad argument with a TypeError before they build anything (their
``check_variable_and_dtype`` / ``check_type`` calls, and Fluid's Operator for any input that is no
Variable), some a missing one with an AssertionError; pe's do too, in Fluid programs: every call
tools/fluid_arg_checks.py recorded Fluid 1.8.5 refusing (tests/data/fluid_oracle/layer_type_errors.json)
raises the same class of exception on pe."""

import builtins
import json
import os
import re
import sys

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli import layers
from pe_cli.fluid.runner import pe_module_for
from pe_cli.framework import program_release
from pe_cli.layers.checks import fluid_checks, optional

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import fluid_arg_checks  # noqa: E402

RECORD = os.path.join(ROOT, "tests", "data", "fluid_oracle", "layer_type_errors.json")
# Where pe raises another error, with the part of issue 76 that owns it.
LEFT = {
    (
        "paddle.fluid.layers.nn",
        "pow",
        "factor",
        "ndarray",
    ): "an attribute value of the wrong type (a float attribute given an array): Fluid's op proto types it "
    "(TypeError), pe's registry checks its range (h76-registry: declared attribute types)"
}
# Layers whose error, on pe, is about another argument: the value the recorded call gives it (1, or a float32
# Variable) is refused first (crf_decoding's param_attr, py_func's func, density_prior_box's densities; addmm's
# and clamp's input, which Fluid leaves to its Operator's check and pe checks first).
OTHER_ARGUMENT_FIRST = {"crf_decoding", "py_func", "density_prior_box", "addmm", "clamp"}


def test_every_call_fluid_refuses_is_refused_with_its_exception_class_on_pe():
    calls = json.load(open(RECORD))["calls"]
    assert len(calls) > 850
    wrong = []
    for module, function, argument, kind, good, expected in calls:  # module: Fluid's (paddle.fluid.layers.nn)
        if (module, function, argument, kind) in LEFT or (function in OTHER_ARGUMENT_FIRST and kind == "None"):
            continue
        error = fluid_arg_checks.call(fluid, pe_module_for(module), function, argument, kind, good)
        named = (
            re.search(rf"\b{argument}\b", str(error), re.I)
            or str(error).startswith("op '")
            or function in OTHER_ARGUMENT_FIRST
            or expected != "TypeError"
        )
        if not isinstance(error, getattr(builtins, expected)) or not named:  # refused for the bad argument
            wrong.append(f"{module}.{function}({argument}={kind}): {type(error).__name__}: {error}")
    assert not wrong, "\n".join(wrong)


def test_fluid_checks_run_in_fluid_programs_only():
    """A Paddle 2.x program (after paddle.enable_static()) has Paddle's checks, not Fluid 1.8's: the
    decorated layer takes there what Fluid 1.8 refuses."""

    @fluid_checks("probe", x=("float32",), y=optional(("int64",)))
    def probe(x, y=None):
        return "built"

    old = program_release.follow_paddle2(False)
    try:
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            f32, i32 = fluid.data("f", [-1, 2], "float32"), fluid.data("i", [-1, 2], "int32")
            assert probe(f32) == "built" and probe(f32, y=None) == "built"
            for bad in ((i32,), (np.ones(2),), (f32, i32)):
                with pytest.raises(TypeError, match="probe: "):
                    probe(*bad)
        program_release.follow_paddle2(True)
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            assert probe(fluid.data("i", [-1, 2], "int32")) == "built"
    finally:
        program_release.follow_paddle2(old)


def test_an_input_that_is_no_variable_is_a_type_error_of_any_op():
    """Fluid's Operator: an op's input given a numpy array or a number raises a TypeError naming the op and
    the slot, whatever appends it (Block.append_op, no layer check in between); bytes names a variable; a
    missing input is an AssertionError, two for one a ValueError."""
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        block = fluid.default_main_program().global_block()
        x = fluid.data("x", [-1, 2], "float32")
        out = block.create_var(name="out", dtype="float32")
        for bad in (np.ones([2, 2], "float32"), 3):
            with pytest.raises(TypeError, match="op 'relu': input X must be a Variable"):
                block.append_op(type="relu", inputs={"X": [bad]}, outputs={"Out": [out]})
        assert block.append_op(type="relu", inputs={"X": [b"x"]}, outputs={"Out": [out]}).input("X") == ["x"]
        with pytest.raises(AssertionError, match="missing input 'X'"):  # Fluid: assert, "Input X not found"
            block.append_op(type="relu", inputs={}, outputs={"Out": [out]})
        with pytest.raises(ValueError, match="takes one variable, got 2"):
            block.append_op(type="relu", inputs={"X": [x, x]}, outputs={"Out": [out]})


def test_sign_takes_a_numpy_array_and_compare_checks_cond():
    """Fluid 1.8's sign assigns a numpy array given for x; the comparisons refuse a cond that is no Variable
    and less_than a force_cpu that is no bool (test_compare_op.py); full an out that is no Variable."""
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        y = layers.sign(np.array([3.0, 0.0, -2.0], dtype="float32"))
        x = fluid.data("x", [2], "int32")
        for compare, message in (
            (layers.less_than, r"less_than: cond must be Variable\|NoneType, got int"),
            (layers.equal, r"equal: cond must be Variable\|NoneType, got int"),
            (layers.greater_equal, r"greater_equal: cond must be Variable\|NoneType, got int"),
        ):
            with pytest.raises(TypeError, match=message):
                compare(x=x, y=x, cond=1)
        with pytest.raises(TypeError, match="less_than: force_cpu must be bool, got int"):
            layers.less_than(x=x, y=x, force_cpu=1)
        with pytest.raises(TypeError, match="out must be Variable"):  # test_full_op.py: fill_constant's check
            layers.full(shape=[1], fill_value=5, dtype="int32", out=np.ones((1, 2), "int32"))
        (out,) = fluid.Executor(fluid.CPUPlace()).run(fetch_list=[y])
    np.testing.assert_array_equal(out, [1.0, 0.0, -1.0])


def test_a_bad_attribute_value_names_fluids_invalid_argument_error():
    """Fluid's attribute checkers raise InvalidArgumentError; test_prelu_op.py's TestModeError looks for
    that name in the message of prelu(x, 'any')."""
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [2, 3, 4, 5], "float32")
        with pytest.raises(ValueError, match=r"mode='any' is not one of .*InvalidArgumentError"):
            fluid.default_main_program().global_block().append_op(
                type="prelu", inputs={"X": [x], "Alpha": [x]}, outputs={"Out": [x]}, attrs={"mode": "any"}
            )
