# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_while_op.py @ 0283919eebd2a383d676da26bca00507b06ba206
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
import numpy
import paddle.fluid as fluid
import paddle.fluid.core as core
import paddle.fluid.layers as layers
from paddle.fluid.backward import append_backward
from paddle.fluid.executor import Executor


def simple_net():
    d0 = layers.data("d0", shape=[10], append_batch_size=False, dtype="float32")
    d1 = layers.data("d1", shape=[10], append_batch_size=False, dtype="float32")
    d2 = layers.data("d2", shape=[10], append_batch_size=False, dtype="float32")
    i = layers.zeros(shape=[1], dtype="int64")
    i.stop_gradient = True
    init = layers.zeros(shape=[10], dtype="float32")
    mem_array = layers.array_write(x=init, i=i)
    data_array = layers.array_write(x=d0, i=i)
    i = layers.increment(i)
    layers.array_write(d1, i, array=data_array)
    i = layers.increment(i)
    layers.array_write(d2, i, array=data_array)
    i = layers.zeros(shape=[1], dtype="int64")
    i.stop_gradient = True
    array_len = layers.fill_constant(shape=[1], dtype="int64", value=1)
    array_len.stop_gradient = True
    cond = layers.less_than(x=i, y=array_len)
    j = layers.fill_constant(shape=[1], dtype="int64", value=1)
    j.stop_gradient = True
    array_len2 = layers.fill_constant(shape=[1], dtype="int64", value=3)
    array_len2.stop_gradient = True
    cond2 = layers.less_than(x=j, y=array_len2)
    while_op = layers.While(cond=cond)
    while_op2 = layers.While(cond=cond2)
    with while_op.block():  # two loops, one inside the other
        d = layers.array_read(array=data_array, i=i)
        prev = layers.array_read(array=mem_array, i=i)
        result = layers.sums(input=[d, prev])
        i = layers.increment(x=i, in_place=True)
        layers.array_write(result, i=i, array=mem_array)
        layers.less_than(x=i, y=array_len, cond=cond)
        with while_op2.block():
            d2 = layers.array_read(array=data_array, i=j)
            prev2 = layers.array_read(array=mem_array, i=j)
            result2 = layers.sums(input=[d2, prev2])
            j = layers.increment(x=j, in_place=True)
            layers.array_write(result2, i=j, array=mem_array)
            layers.less_than(x=j, y=array_len2, cond=cond2)
    sum_result = layers.array_read(array=mem_array, i=j)
    loss = layers.mean(sum_result)
    return loss, sum_result


# test_simple_net: the nested loops sum d0 + d1 + d2, and the program differentiates
main_program, startup_program = fluid.Program(), fluid.Program()
with fluid.program_guard(main_program, startup_program):
    loss, sum_result = simple_net()
    append_backward(loss)
    exe = Executor(core.CPUPlace())
    d = [numpy.random.random(size=[10]).astype("float32") for _ in range(3)]
    outs = exe.run(feed={"d0": d[0], "d1": d[1], "d2": d[2]}, fetch_list=[sum_result])
    assert abs(numpy.sum(d) - numpy.sum(outs[0])) < 0.01, (numpy.sum(d), numpy.sum(outs[0]))

# test_simple_net_forward: the same program, forward only, through a CompiledProgram, twice
main_program, startup_program = fluid.Program(), fluid.Program()
with fluid.program_guard(main_program, startup_program):
    simple_net()
    binary = fluid.compiler.CompiledProgram(main_program)
    exe = Executor(core.CPUPlace())
    for _ in range(2):
        exe.run(binary, feed={"d0": d[0], "d1": d[1], "d2": d[2]})

# test_exceptions: the condition must be one bool
with fluid.program_guard(fluid.Program(), fluid.Program()):
    i = layers.zeros(shape=[2], dtype="int64")
    array_len = layers.fill_constant(shape=[2], dtype="int64", value=1)
    cond = layers.less_than(x=i, y=array_len)
    try:
        layers.While(cond=cond)
        raise AssertionError("While accepted a condition of shape [2]")
    except TypeError:
        pass
    cond = layers.cast(cond, dtype="float64")
    try:
        layers.While(cond=cond)
        raise AssertionError("While accepted a float64 condition")
    except TypeError:
        pass

# BadInputTest: increment of a Python list
with fluid.program_guard(fluid.Program()):
    try:
        fluid.layers.increment([1, 2, 3])
        raise AssertionError("increment accepted a list")
    except TypeError:
        pass
print("ok")
