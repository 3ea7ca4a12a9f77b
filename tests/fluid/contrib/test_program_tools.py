"""fluid.contrib's program tools: extend_with_decoupled_weight_decay (the decay step, then the base
update), memory_usage and op_freq_statistic (counted by hand on a small program), and
mixed_precision.decorate (float32 on pe: the base optimizer's update, unchanged)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid.contrib import extend_with_decoupled_weight_decay, memory_usage, mixed_precision, op_freq_statistic


def _net(decorate):
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.layers.data("x", [3], dtype="float64")
        y = fluid.layers.fc(x, 2, bias_attr=False, param_attr=fluid.ParamAttr(name="w"))
        loss = fluid.layers.mean(y)
        decorate().minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(start, scope=scope)
    w0 = np.array(scope.find_var("w").get_tensor())
    exe.run(main, feed={"x": np.ones((4, 3))}, scope=scope)
    return main, w0, np.array(scope.find_var("w").get_tensor())


def test_decoupled_weight_decay_decays_then_updates():
    SGDW = extend_with_decoupled_weight_decay(fluid.optimizer.SGD)
    _, w0, w1 = _net(lambda: SGDW(weight_decay=0.1, learning_rate=0.5))
    # d mean(x @ w) / dw = 4 / 8 per element; the update reads the decayed parameter
    np.testing.assert_allclose(w1, w0 * 0.9 - 0.5 * 0.5, rtol=1e-12)
    skip = extend_with_decoupled_weight_decay(fluid.optimizer.SGD)(0.1, lambda name: name != "w", learning_rate=0.5)
    _, w0, w1 = _net(lambda: skip)
    np.testing.assert_allclose(w1, w0 - 0.25, rtol=1e-12)
    with pytest.raises(TypeError, match="derived class of Optimizer"):
        extend_with_decoupled_weight_decay(object)
    with pytest.raises(TypeError, match="coeff should be float"):
        SGDW(weight_decay=1, learning_rate=0.5)


def test_mixed_precision_decorate_is_the_base_update_in_float32():
    opt = mixed_precision.decorate(fluid.optimizer.SGD(learning_rate=0.5))
    _, w0, w1 = _net(lambda: opt)
    np.testing.assert_allclose(w1, w0 - 0.25, rtol=1e-12)
    assert opt.get_loss_scaling().persistable
    with pytest.raises(ValueError, match="overlap"):
        mixed_precision.AutoMixedPrecisionLists({"mul"}, {"mul"})


def test_memory_usage_and_op_frequencies():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.layers.data("x", [3], dtype="float32")  # [-1, 3]
        h = fluid.layers.fc(x, 4, act="relu", bias_attr=False)  # mul [-1, 4], relu [-1, 4]
        fluid.layers.mean(h)  # [1]
    lower, upper, unit = memory_usage(main, batch_size=10)
    total = (10 * 4 + 10 * 4 + 1) * 4
    assert (lower, upper, unit) == (pytest.approx(total * 1.05), pytest.approx(total * 1.1), "B")
    uni, adj = op_freq_statistic(main)
    assert dict(uni) == {"mul": 1, "relu": 1, "mean": 1}
    assert dict(adj) == {"mul->relu": 1, "relu->mean": 1}
    with pytest.raises(ValueError, match="positive"):
        memory_usage(main, 0)
    with pytest.raises(TypeError, match=r"The input type should be Porgram\.But you passed in <class 'str'>"):
        op_freq_statistic("main")
