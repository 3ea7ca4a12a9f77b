# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_static_save_load.py @ 012a6d0301e0c83a3fc294ff91ef03bf91416601
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`. Differences: Paddle's
# PTB model is a dygraph Layer called in a static program; pe runs static graphs only, so the same
# shape of model (embedding, an LSTM-like gate, a softmax projection) is written with static layers;
# 20 batches instead of 200. The four cases kept: save/load through the .pdparams path, a partial
# (test) program loaded through the .pdopt and .pdmodel paths, load through the prefix, and
# load_program_state of each path with set_program_state of the test program.
import os
import tempfile

import numpy as np
import paddle.fluid as fluid
import paddle.fluid.framework as framework
from paddle.fluid.optimizer import Adam

hidden_size, vocab_size, num_steps, batch_size, batch_num = 10, 1000, 3, 4, 20
place = fluid.CPUPlace()


def build():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 90
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=[num_steps], dtype="int64")
        y = fluid.layers.data(name="y", shape=[1], dtype="int64")
        emb = fluid.layers.embedding(
            x,
            size=[vocab_size, hidden_size],
            param_attr=fluid.ParamAttr(
                name="embedding_para", initializer=fluid.initializer.UniformInitializer(low=-0.1, high=0.1)
            ),
        )
        flat = fluid.layers.reshape(emb, shape=[-1, num_steps * hidden_size])
        gates = fluid.layers.fc(flat, size=hidden_size * 4)
        i, j, f, o = fluid.layers.split(gates, num_or_sections=4, dim=-1)
        c = fluid.layers.sigmoid(i) * fluid.layers.tanh(j)
        h = fluid.layers.tanh(c) * fluid.layers.sigmoid(o)
        logits = fluid.layers.fc(h, size=vocab_size)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits=logits, label=y))
        test_program = main.clone(for_test=True)
        fluid.layers.fc(h, size=hidden_size, bias_attr=False)  # a parameter the test program lacks
        Adam(learning_rate=1e-3).minimize(loss)
    return main, startup, test_program, loss


def persistables(program):
    return [v for v in program.list_vars() if isinstance(v, framework.Parameter) or v.persistable]


def value(name):
    return np.array(fluid.global_scope().find_var(name).get_tensor())


def trained(exe):
    main, startup, test_program, loss = build()
    exe.run(startup)
    x_data = np.arange(12).reshape(4, 3).astype("int64")
    y_data = np.arange(1, 13).reshape(4, 3).astype("int64")[:, :1]
    for _ in range(batch_num):
        exe.run(main, feed={"x": x_data, "y": y_data}, fetch_list=[loss])
    base_map = {}
    for var in persistables(main):
        t = value(var.name)
        assert np.sum(np.abs(t)) != 0, var.name  # every parameter and optimizer variable was updated
        base_map[var.name] = t
    return main, test_program, base_map


def zero_all(program):
    for var in persistables(program):
        ten = fluid.global_scope().find_var(var.name).get_tensor()
        ten.set(np.zeros_like(np.array(ten)), place)
        assert np.sum(np.abs(value(var.name))) == 0


def check(program, base_map):
    for var in persistables(program):
        np.testing.assert_array_equal(value(var.name), base_map[var.name])


exe = fluid.Executor(place)
temp_dir = tempfile.mkdtemp()
path = os.path.join(temp_dir, "test_1")

# TestSaveLoadBase
with fluid.scope_guard(fluid.Scope()):
    main, test_program, base_map = trained(exe)
    fluid.save(main, path)
    zero_all(main)
    fluid.load(main, path + ".pdparams", exe)
    check(main, base_map)

# TestSaveLoadPartial
with fluid.scope_guard(fluid.Scope()):
    main, test_program, base_map = trained(exe)
    fluid.save(main, path)
    zero_all(main)
    fluid.load(test_program, path + ".pdopt", None)
    check(test_program, base_map)
    fluid.load(test_program, path + ".pdmodel", None)

# TestSaveLoadSetStateDict
with fluid.scope_guard(fluid.Scope()):
    main, test_program, base_map = trained(exe)
    fluid.save(main, path)
    zero_all(main)
    fluid.load(main, path, exe)
    check(main, base_map)

# TestProgramStatePartial
with fluid.scope_guard(fluid.Scope()):
    main, test_program, base_map = trained(exe)
    fluid.save(main, path)
    states = [fluid.load_program_state(path + ext) for ext in ("", ".pdparams", ".pdopt", ".pdmodel")]
    for state in states:
        zero_all(main)
        fluid.set_program_state(test_program, state)
        check(test_program, base_map)

print("ok")
