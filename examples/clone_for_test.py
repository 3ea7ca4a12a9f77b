"""The two ways of the Fluid docs to get a test program: clone(for_test=True) before minimize, or
building the network again with is_test=True under unique_name.guard(). Both give the same program
and, on the same parameters, the same results.

    python examples/clone_for_test.py
"""

import numpy as np

import pe_cli.fluid as fluid


def network(is_test):
    img = fluid.layers.data(name="image", shape=[784])
    hidden = fluid.layers.fc(input=img, size=200, act="relu")
    hidden = fluid.layers.dropout(hidden, dropout_prob=0.5, is_test=is_test)
    loss = fluid.layers.cross_entropy(
        input=fluid.layers.fc(hidden, size=10, act="softmax"),
        label=fluid.layers.data(name="label", shape=[1], dtype="int64"),
    )
    return fluid.layers.mean(loss)


# 1. clone(for_test=True) before minimize
train_program, startup_program = fluid.Program(), fluid.Program()
with fluid.program_guard(train_program, startup_program), fluid.unique_name.guard():
    loss = network(is_test=False)
    cloned_test_program = train_program.clone(for_test=True)
    fluid.optimizer.SGD(learning_rate=1e-3).minimize(loss)

# 2. the same network built again with is_test=True, names restarted so parameters match
built_test_program = fluid.Program()
with fluid.program_guard(built_test_program, fluid.Program()), fluid.unique_name.guard():
    test_loss = network(is_test=True)

exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup_program)
rng = np.random.default_rng(0)
feed = {"image": rng.random((16, 784), dtype="float32"), "label": rng.integers(0, 10, (16, 1))}
exe.run(train_program, feed=feed, fetch_list=[loss.name])
(a,) = exe.run(cloned_test_program, feed=feed, fetch_list=[loss.name])
(b,) = exe.run(built_test_program, feed=feed, fetch_list=[test_loss.name])
print(f"cloned test program: {float(a[0]):.6f}, rebuilt test program: {float(b[0]):.6f}")
assert np.allclose(a, b), "both test programs must compute the same loss"
