# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_memory_optimization_transpiler.py @ 07bb6a24dbcc3ebdd29e11d304dbef880a9fa69b
# Re-written for pe (same API calls), run with `pe fluid`: memory_optimize on a fit-a-line program and
# on one with reshapes, printing the program before and after, as the test does; the program must stay
# runnable. TestMemoryTranspiler3 is left out: it names `fluid` without importing it, and asserts
# which gradient variables Fluid's transpiler renamed away, where pe's pass releases buffers instead of
# renaming variables (docs/PARALLEL.md).
import numpy as np
import paddle.fluid as fluid
import paddle.fluid.layers as layers
import paddle.fluid.optimizer as optimizer
from paddle.fluid.framework import Program, program_guard
from paddle.fluid.transpiler import memory_optimize


def fit_a_line():
    program, startup = Program(), Program()
    with program_guard(program, startup_program=startup):
        x = layers.data(name="x", shape=[13], dtype="float32")
        y_predict = layers.fc(input=x, size=1, act=None)
        y = layers.data(name="y", shape=[1], dtype="float32")
        avg_cost = layers.mean(layers.square_error_cost(input=y_predict, label=y))
        optimizer.SGD(learning_rate=0.001).minimize(avg_cost)
    return program, startup, avg_cost


def with_reshapes():
    program, startup = Program(), Program()
    with program_guard(program, startup_program=startup):
        x = layers.data(name="x", shape=[13], dtype="float32")
        fc = layers.fc(input=x, size=10, act=None)
        reshape = layers.reshape(x=fc, shape=[-1, 2, 5])
        fc = layers.reshape(x=reshape, shape=[-1, 5, 2])
        y_predict = layers.fc(input=fc, size=1, act=None)
        y = layers.data(name="y", shape=[1], dtype="float32")
        avg_cost = layers.mean(layers.square_error_cost(input=y_predict, label=y))
        optimizer.SGD(learning_rate=0.001).minimize(avg_cost)
    return program, startup, avg_cost


rng = np.random.default_rng(0)
feed = {"x": rng.normal(size=(4, 13)).astype("float32"), "y": rng.normal(size=(4, 1)).astype("float32")}
for build in (fit_a_line, with_reshapes):
    program, startup, avg_cost = build()
    startup.random_seed = 1  # both runs start from the same parameters
    losses = []
    for optimize in (False, True):
        scope = fluid.Scope()
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        if optimize:
            print("before optimization")
            print(str(program))
            result_program = memory_optimize(program)
            print("after optimization")
            print(str(result_program))
        losses.append([float(exe.run(program, feed=feed, fetch_list=[avg_cost], scope=scope)[0]) for _ in range(3)])
    assert losses[0] == losses[1], losses  # the pass never changes a number
print("ok")
