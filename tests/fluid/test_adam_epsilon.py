"""Adam's epsilon, in each face's form (issue 53): ``fluid.optimizer.Adam`` adds it as Fluid 1.8.5
does, ``lr_t * m / (sqrt(v) + eps)``; ``paddle.optimizer.Adam`` and a run config's ``adam`` as
Paddle 2.x does, ``eps * sqrt(1 - beta2^t)`` in that form. With eps 0.1, lr 1 and a gradient of 1,
one step moves the weight by -0.240 on Fluid's form and -0.909 on 2.x's."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
import pe_cli.paddle as paddle
from pe_cli import layers
from pe_cli.config.run import resolve_optimizer
from pe_cli.run.build import make_optimizer


def _one_step(make_optimizer_):
    """The change of a weight w (start 0) after one step on loss = sum(w * 1): gradient 1."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", shape=[1], dtype="float64", append_batch_size=False)
        w = layers.create_parameter([1], "float64", name="w", default_initializer=fluid.initializer.Constant(0.0))
        loss = layers.reduce_sum(layers.elementwise_mul(w, x))
        make_optimizer_().minimize(loss)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    exe.run(main, feed={"x": np.ones([1])}, scope=scope)
    return float(np.array(scope.find_var("w").get_tensor())[0])


def _expected(eps_scaled, lr=1.0, eps=0.1, b1=0.9, b2=0.999):
    m, v = 1 - b1, 1 - b2
    lr_t = lr * np.sqrt(1 - b2) / (1 - b1)
    return -lr_t * m / (np.sqrt(v) + (eps * np.sqrt(1 - b2) if eps_scaled else eps))


def test_fluid_adam_adds_epsilon_unscaled():
    moved = _one_step(lambda: fluid.optimizer.Adam(learning_rate=1.0, epsilon=0.1))
    assert moved == pytest.approx(_expected(False), rel=1e-12)
    assert round(moved, 3) == -0.240


def test_paddle_adam_scales_epsilon():
    moved = _one_step(lambda: paddle.optimizer.Adam(learning_rate=1.0, epsilon=0.1))
    assert moved == pytest.approx(_expected(True), rel=1e-12)
    assert round(moved, 3) == -0.909


def _run_config_optimizer(optimizer):
    """The optimizer a run config's ``optimizer:`` mapping makes (resolved as load_config resolves it)."""
    return make_optimizer(resolve_optimizer(None, optimizer))


def test_run_config_adam_keeps_paddle_2_form():
    moved = _one_step(lambda: _run_config_optimizer({"type": "adam", "learning_rate": 1.0, "epsilon": 0.1}))
    assert round(moved, 3) == -0.909


def test_lamb_moments_fluid_form_and_paddle_2_form():
    """Fluid 1.8's lamb takes the moments as they are; paddle.optimizer.Lamb and a run config's lamb
    bias-correct them (Paddle 2.x): the lamb op's attribute says which (tests/ops checks both forms)."""
    for make, corrected in (
        (lambda: fluid.optimizer.Lamb(learning_rate=1.0), False),
        (lambda: paddle.optimizer.Lamb(learning_rate=1.0), True),
        (lambda: _run_config_optimizer({"type": "lamb", "learning_rate": 1.0}), True),
    ):
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            w = layers.create_parameter([2], "float64", name="w")
            make().minimize(layers.reduce_sum(w))
        assert [op.attrs["bias_correction"] for op in main.global_block().ops if op.type == "lamb"] == [corrected]
