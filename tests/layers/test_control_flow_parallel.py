"""Data parallelism over models with control flow: a recurrent (StaticRNN), while or conditional_block
(IfElse branches, a Switch learning rate) op is one node per device whose block runs sequentially inside it, so 2 CPU
devices end where 1 device ends (the mean loss's gradient averages over the devices). Blocks nest: a
While in a While's body, a cond in a StaticRNN's step."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.fluid import layers

T, D, H, BATCH, STEPS = 3, 4, 5, 8, 6


def _while_last(x):
    """The same recurrence written with While, the state carried in a parent variable."""
    h = layers.fill_constant_batch_size_like(x, [-1, H], "float32", 0.0)
    i = layers.fill_constant([1], "int64", 0)
    n = layers.fill_constant([1], "int64", T)
    c = layers.less_than(i, n)
    loop = layers.While(c)
    with loop.block():
        layers.assign(layers.fc([layers.reduce_mean(x, dim=1), h], H, act="tanh"), h)
        layers.increment(i)
        layers.less_than(i, n, cond=c)
    return h


def _ifelse_last(x):
    """Rows whose first feature is negative take one branch, the others another (IfElse)."""
    flat = layers.reshape(x, [-1, T * D])
    first = layers.slice(flat, [1], [0], [1])
    c = layers.less_than(first, layers.fill_constant_batch_size_like(first, [-1, 1], "float32", 0.0))
    ie = layers.IfElse(c)
    with ie.true_block():
        ie.output(layers.fc(ie.input(flat), H, act="tanh"))
    with ie.false_block():
        ie.output(layers.fc(ie.input(flat), H, act="sigmoid"))
    return ie()[0]


def _nested_while_last(x):
    """A While whose body runs an inner While (two fc steps per outer step): a block in a block."""
    h = layers.fill_constant_batch_size_like(x, [-1, H], "float32", 0.0)
    i, n = layers.fill_constant([1], "int64", 0), layers.fill_constant([1], "int64", T)
    c = layers.less_than(i, n)
    outer = layers.While(c)
    with outer.block():
        j, two = layers.fill_constant([1], "int64", 0), layers.fill_constant([1], "int64", 2)
        c2 = layers.less_than(j, two)
        inner = layers.While(c2)
        with inner.block():
            layers.assign(layers.fc([layers.reduce_mean(x, dim=1), h], H, act="tanh"), h)
            layers.increment(j)
            layers.less_than(j, two, cond=c2)
        layers.increment(i)
        layers.less_than(i, n, cond=c)
    return h


def _rnn_cond_last(x):
    """A StaticRNN whose step branches with cond (tanh at the first two steps, sigmoid after, by a step
    counter kept as a memory): a block in a step."""
    seq = layers.transpose(x, [1, 0, 2])
    zero = layers.fill_constant([1], "float32", 0.0)
    rnn = layers.StaticRNN()
    with rnn.step():
        xt = rnn.step_input(seq)
        hp = rnn.memory(shape=[-1, H], batch_ref=xt)
        count = rnn.memory(init=zero)
        rnn.update_memory(count, layers.increment(count, in_place=False))
        pred = layers.less_than(count, layers.fill_constant([1], "float32", 1.5))
        h = layers.cond(pred, lambda: layers.fc([xt, hp], H, act="tanh"), lambda: layers.fc([xt, hp], H, act="sigmoid"))
        rnn.update_memory(hp, h)
        rnn.step_output(h)
    return layers.reshape(layers.slice(rnn(), [0], [T - 1], [T]), [-1, H])


def _rnn_last(x):
    seq = layers.transpose(x, [1, 0, 2])  # [T, batch, D]
    rnn = layers.StaticRNN()
    with rnn.step():
        xt = rnn.step_input(seq)
        hp = rnn.memory(shape=[-1, H], batch_ref=xt)
        h = layers.fc([xt, hp], H, act="tanh")
        rnn.update_memory(hp, h)
        rnn.step_output(h)
    return layers.reshape(layers.slice(rnn(), [0], [T - 1], [T]), [-1, H])


def build(model):
    with_switch = model.endswith("switch_lr")
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = layers.data("x", [T, D], dtype="float32")  # [batch, T, D]
        y = layers.data("y", [1], dtype="float32")
        last = {
            "while": _while_last,
            "ifelse": _ifelse_last,
            "nested_while": _nested_while_last,
            "rnn_cond": _rnn_cond_last,
        }.get(model, _rnn_last)(x)
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
    rng = np.random.default_rng(5)  # one batch, so the loss must fall
    batch = {"x": rng.normal(size=(BATCH, T, D)).astype("float32"), "y": rng.normal(size=(BATCH, 1)).astype("float32")}
    return [batch] * STEPS


def train(devices, model, memory_passes=False):
    main, startup, loss = build(model)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    start = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}
    program = main
    if devices:
        bs = fluid.BuildStrategy()
        bs.memory_optimize = bs.enable_inplace = memory_passes
        program = fluid.CompiledProgram(main).with_data_parallel(
            loss_name=loss.name, build_strategy=bs, places=[fluid.CPUPlace()] * devices
        )
    losses = [float(np.mean(exe.run(program, feed=f, fetch_list=[loss], scope=scope)[0])) for f in feeds()]
    params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}
    unchanged = [n for n, v in params.items() if np.array_equal(v, start[n])]
    assert not unchanged, f"parameters the loop's gradient never reached: {unchanged}"
    return losses, params


@pytest.mark.parametrize("model", ["static_rnn", "static_rnn+switch_lr", "while", "ifelse", "nested_while", "rnn_cond"])
def test_two_devices_match_one(model):
    seq_losses, seq_params = train(0, model)
    assert seq_losses[-1] < seq_losses[0]
    for devices in (1, 2):
        losses, params = train(devices, model)
        np.testing.assert_allclose(losses, seq_losses, rtol=1e-5)
        for name, value in seq_params.items():
            np.testing.assert_allclose(params[name], value, rtol=1e-5, atol=1e-6, err_msg=f"{devices}: {name}")


@pytest.mark.parametrize("model", ["static_rnn", "while", "ifelse"])
def test_memory_passes_leave_control_flow_bitwise_unchanged(model):
    """memory_optimize frees values after their last reader (a block op's inputs list what its block
    reads); enable_inplace never writes over a value a kept step scope still holds."""
    (losses, params), (want_losses, want_params) = train(2, model, memory_passes=True), train(2, model)
    assert losses == want_losses
    for name, value in want_params.items():
        np.testing.assert_array_equal(params[name], value, err_msg=name)
