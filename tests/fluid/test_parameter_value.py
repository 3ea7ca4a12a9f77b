"""A parameter's shape and dtype are checked as Fluid's Parameter checks them (ValueError), and
fluid.io.get_parameter_value_by_name reads its value through the executor."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid.initializer import ConstantInitializer


@pytest.mark.parametrize(
    "shape, dtype, message",
    [
        (None, "float32", "The shape of Parameter should not be None"),
        ([1], None, "The dtype of Parameter should not be None"),
        ([], "float32", "The dimensions of shape for Parameter must be greater than 0"),
        ([-1], "float32", r"Each dimension of shape for Parameter must be greater than 0, but received \[-1\]"),
    ],
)
def test_bad_parameter_shape_or_dtype(shape, dtype, message):
    with pytest.raises(ValueError, match=message):
        fluid.Program().global_block().create_parameter(name="w", shape=shape, dtype=dtype)


def test_get_parameter_value_by_name():
    main = fluid.Program()
    main.global_block().create_parameter(
        name="fc.w", shape=[3, 2], dtype="float32", initializer=ConstantInitializer(1.5)
    )
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(main)
        value = fluid.io.get_parameter_value_by_name("fc.w", exe, main)
    np.testing.assert_array_equal(value, np.full((3, 2), 1.5, "float32"))
    with pytest.raises(AssertionError, match="get_parameter_value: 'v' is not a parameter"):
        fluid.io.get_parameter_value(main.global_block().create_var(name="v", shape=[1]), exe)
