"""A parameter's shape and dtype are checked as Fluid's Parameter checks them (ValueError), and
fluid.io.get_parameter_value_by_name reads its value through the executor."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid.initializer import ConstantInitializer


@pytest.mark.parametrize("shape, dtype", [(None, "float32"), ([1], None), ([], "float32"), ([-1], "float32")])
def test_bad_parameter_shape_or_dtype(shape, dtype):
    with pytest.raises(ValueError):
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
    with pytest.raises(AssertionError):
        fluid.io.get_parameter_value(main.global_block().create_var(name="v", shape=[1]), exe)
