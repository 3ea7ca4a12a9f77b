"""Data parallelism over models with control flow: a recurrent (StaticRNN) or a conditional_block
(Switch learning rate) op is one node per device whose block runs sequentially inside it, so 2 CPU
devices end where 1 device ends (the mean loss's gradient averages over the devices)."""
import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.fluid import layers

T, D, H, BATCH, STEPS = 3, 4, 5, 8, 6


def build(with_switch):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = layers.data("x", [T, D], dtype="float32")              # [batch, T, D]
        y = layers.data("y", [1], dtype="float32")
        seq = layers.transpose(x, [1, 0, 2])                        # [T, batch, D]
        rnn = layers.StaticRNN()
        with rnn.step():
            xt = rnn.step_input(seq)
            hp = rnn.memory(shape=[-1, H], batch_ref=xt)
            h = layers.fc([xt, hp], H, act="tanh")
            rnn.update_memory(hp, h)
            rnn.step_output(h)
        last = layers.reshape(layers.slice(rnn(), [0], [T - 1], [T]), [-1, H])
        loss = layers.mean(layers.square_error_cost(layers.fc(last, 1), y))
        lr = 0.2
        if with_switch:
            step = layers.create_global_var([1], 0.0, "float32", persistable=True, name="step")
            layers.increment(step, 1.0)
            lr = layers.create_global_var([1], 0.0, "float32", persistable=True, name="lr")
            with layers.Switch() as switch:
                with switch.case(layers.less_than(step, layers.fill_constant([1], "float32", 3.0))):
                    layers.assign(layers.fill_constant([1], "float32", 0.2), lr)
                with switch.default():
                    layers.assign(layers.fill_constant([1], "float32", 0.05), lr)
        fluid.optimizer.SGD(lr).minimize(loss)
    return main, startup, loss


def feeds():
    rng = np.random.default_rng(5)
    return [{"x": rng.normal(size=(BATCH, T, D)).astype("float32"),
             "y": rng.normal(size=(BATCH, 1)).astype("float32")} for _ in range(STEPS)]


def train(devices, with_switch):
    main, startup, loss = build(with_switch)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    program = main
    if devices:
        program = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name,
                                                                 places=[fluid.CPUPlace()] * devices)
    losses = [float(np.mean(exe.run(program, feed=f, fetch_list=[loss], scope=scope)[0])) for f in feeds()]
    params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}
    return losses, params


@pytest.mark.parametrize("with_switch", [False, True], ids=["static_rnn", "static_rnn+switch_lr"])
def test_two_devices_match_one(with_switch):
    seq_losses, seq_params = train(0, with_switch)
    assert seq_losses[-1] < seq_losses[0]
    for devices in (1, 2):
        losses, params = train(devices, with_switch)
        np.testing.assert_allclose(losses, seq_losses, rtol=1e-5)
        for name, value in seq_params.items():
            np.testing.assert_allclose(params[name], value, rtol=1e-5, atol=1e-6, err_msg=f"{devices}: {name}")
