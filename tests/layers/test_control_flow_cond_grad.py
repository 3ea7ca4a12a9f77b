"""Gradients through branches (conditional_block): cond and Switch, each branch taken, against
float64 central finite differences through the executor."""

import numpy as np
import pytest

from control_flow_fd import finite_differences
from pe_cli import fluid
from pe_cli.fluid import layers
from pe_cli.training.param_attr import ParamAttr

B, D, H = 3, 4, 2


def cond_program():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data("x", [B, D], dtype="float64", append_batch_size=False)
        flag = layers.data("flag", [1], dtype="float64", append_batch_size=False)
        x.stop_gradient = False
        h = layers.fc(x, H, param_attr=ParamAttr("w"), bias_attr=False)
        pred = layers.less_than(flag, layers.fill_constant([1], "float64", 0.5))
        out = layers.cond(
            pred,
            lambda: layers.tanh(h) * 2.0,
            lambda: layers.fc(h, H, act="sigmoid", param_attr=ParamAttr("v"), bias_attr=False),
        )
        loss = layers.reduce_sum(out * out)
        fluid.backward.append_backward(loss)
    return main, loss


rng = np.random.default_rng(4)
VALUES = {"x": rng.normal(size=(B, D)), "w": rng.normal(size=(D, H)), "v": rng.normal(size=(H, H))}


def _run(main, fetch, flag, values=VALUES):
    scope = fluid.core.Scope()
    for name in ("w", "v"):
        scope.var(name).get_tensor().set(values[name], fluid.CPUPlace())
    with fluid.scope_guard(scope):
        return fluid.Executor(fluid.CPUPlace()).run(
            main, feed={"x": values["x"], "flag": np.array([flag])}, fetch_list=fetch
        )


@pytest.mark.parametrize("flag", [0.0, 1.0], ids=["true_branch", "false_branch"])
def test_cond_gradients_match_finite_differences(flag):
    main, loss = cond_program()
    grads = _run(main, ["x@GRAD", "w@GRAD", "v@GRAD"], flag)
    for name, grad in zip(("x", "w", "v"), grads):
        want = finite_differences(lambda v: _run(main, [loss], flag, v)[0][0], VALUES, name)
        np.testing.assert_allclose(grad, want, rtol=1e-5, atol=1e-8, err_msg=name)
    if flag == 0.0:
        assert not grads[2].any()  # v is used only by the branch not taken


def ifelse_program():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data("x", [B, D], dtype="float64", append_batch_size=False)
        mask = layers.data("mask", [B, 1], dtype="float64", append_batch_size=False)
        x.stop_gradient = False
        c = layers.less_than(mask, layers.fill_constant([B, 1], "float64", 0.5))
        ie = layers.IfElse(c)
        with ie.true_block():
            ie.output(layers.tanh(layers.fc(ie.input(x), H, param_attr=ParamAttr("w"), bias_attr=False)))
        with ie.false_block():
            ie.output(layers.fc(ie.input(x), H, param_attr=ParamAttr("v0"), bias_attr=False) * 3.0)
        (out,) = ie()
        loss = layers.reduce_sum(out * out)
        fluid.backward.append_backward(loss)
    return main, out, loss


IE_VALUES = {"x": VALUES["x"], "w": VALUES["w"], "v0": rng.normal(size=(D, H))}


def _run_ie(main, fetch, mask, values=IE_VALUES):
    scope = fluid.core.Scope()
    for name in ("w", "v0"):
        scope.var(name).get_tensor().set(values[name], fluid.CPUPlace())
    with fluid.scope_guard(scope):
        return fluid.Executor(fluid.CPUPlace()).run(
            main, feed={"x": values["x"], "mask": np.array(mask, dtype="float64").reshape(B, 1)}, fetch_list=fetch
        )


@pytest.mark.parametrize("mask", [[0, 1, 0], [0, 0, 0], [1, 1, 1]], ids=["mixed", "all_true", "all_false"])
def test_ifelse_rows_take_their_branch_and_gradients_match(mask):
    main, out, loss = ifelse_program()
    got, *grads = _run_ie(main, [out, "x@GRAD", "w@GRAD", "v0@GRAD"], mask)
    x, rows = IE_VALUES["x"], np.array(mask) < 0.5
    want = np.where(rows[:, None], np.tanh(x @ IE_VALUES["w"]), x @ IE_VALUES["v0"] * 3.0)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    for name, grad in zip(("x", "w", "v0"), grads):
        fd = finite_differences(lambda v: _run_ie(main, [loss], mask, v)[0][0], IE_VALUES, name)
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-8, err_msg=name)
