"""The framework internals Paddle 2.6's own unit tests call (core's prim and bfloat16 queries, its
test exception, flags pe keeps without effect, fluid.backward's _infer_var_data_type_shape_,
dygraph.base.switch_to_static_graph, paddle.static.io, paddle.static.nn.control_flow's names,
Optimizer.append_regularization_ops), each doing what Paddle's does."""

import warnings

import numpy as np
import pytest

from pe_cli import fluid, paddle
from pe_cli.fluid import core
from pe_cli.fluid.backward import _infer_var_data_type_shape_
from pe_cli.fluid.dygraph import base as dygraph_base


def test_core_queries_and_the_test_exception():
    assert not core._is_bwd_prim_enabled() and not core._is_fwd_prim_enabled()
    assert not core.supports_bfloat16() and not core.supports_bfloat16_fast_performance()
    with pytest.raises(core.EnforceNotMet, match="test exception"):  # Fluid 1.8's test
        core.__unittest_throw_exception__()
    with pytest.raises(RuntimeError, match="This is a test of exception"):  # Paddle 2.6's
        core.__unittest_throw_exception__()


def test_flags_kept_without_effect():
    fluid.set_flags({"FLAGS_enable_pir_in_executor": True, "FLAGS_call_stack_level": 2})
    assert fluid.get_flags(["FLAGS_enable_pir_in_executor", "FLAGS_call_stack_level"]) == {
        "FLAGS_enable_pir_in_executor": True,
        "FLAGS_call_stack_level": 2,
    }
    fluid.set_flags({"FLAGS_enable_pir_in_executor": False, "FLAGS_call_stack_level": 1})
    assert not paddle.framework.in_pir_mode()


def test_infer_var_data_type_shape_takes_the_forward_variables_or_warns():
    block = fluid.Program().global_block()
    block.create_var(name="w", shape=[3, 2], dtype="float64")
    known = block.create_var(name="w@GRAD", shape=[1], dtype="float32")
    orphan = block.create_var(name="tmp@GRAD", shape=[1, 1], dtype="float64")
    _infer_var_data_type_shape_("w@GRAD", block)
    assert known.dtype == "float64" and tuple(known.shape) == (3, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _infer_var_data_type_shape_("tmp@GRAD", block)
    assert orphan.dtype == "float32" and "can't find its related forward var" in str(caught[-1].message)


def test_switch_to_static_graph_builds_static_inside_a_dygraph_guard():
    @dygraph_base.switch_to_static_graph
    def build():
        return type(fluid.default_main_program()).__name__, dygraph_base.enabled()

    assert build() == ("Program", False)
    with dygraph_base.guard():
        assert build() == ("Program", False)
        assert dygraph_base.enabled() and type(fluid.default_main_program()).__name__ == "EagerProgram"


def test_static_io_and_control_flow_names_are_paddle_statics():
    assert paddle.static.io.save_inference_model is paddle.static.save_inference_model
    assert paddle.static.io.load_program_state is paddle.static.load_program_state
    from pe_cli.paddle.static.nn import control_flow

    assert control_flow.select_input is fluid.layers.control_flow.select_input
    assert control_flow.ConditionalBlock is fluid.layers.control_flow.ConditionalBlock


def test_optimizer_appends_regularization_ops_as_paddles():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        w = paddle.create_parameter([3], "float32", attr=paddle.ParamAttr(regularizer=paddle.regularizer.L2Decay(0.5)))
        loss = paddle.sum(paddle.square(w))
        params_grads = fluid.backward.append_backward(loss)
        count = len(main.global_block().ops)
        ((param, grad),) = paddle.optimizer.Adam().append_regularization_ops(params_grads)
    ops = [op.type for op in main.global_block().ops[count:]]
    assert param is w and ops == ["scale", "sum"]
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(fluid.default_startup_program(), scope=scope)
    value = np.array([1.0, -2.0, 3.0], "float32")
    scope.var(w.name).get_tensor().set(value, fluid.CPUPlace())
    (got,) = exe.run(main, fetch_list=[grad], scope=scope)
    np.testing.assert_allclose(got, 2 * value + 0.5 * value, rtol=1e-6)
