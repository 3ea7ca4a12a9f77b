# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_initializer.py @ 02c53c2deaa4a3752e53a80f278729600eaa084a
# Re-written for pe (same API calls and facts), run with `pe fluid`: the float32 cases of the
# Constant, Uniform, Normal, Xavier, MSRA and NumpyArray initializers (creating a parameter twice
# appends its initializer once; a seed of 0 records the program's random_seed). Left out: the
# float16/bfloat16 casts, BilinearInitializer (pe does not have it yet), set_global_initializer
# and the dygraph cases.
import numpy as np
import paddle.fluid.framework as framework
import paddle.fluid.initializer as initializer

DELTA = 0.00001


def init_ops(shape, init, name="param", program=None):
    program = program or framework.Program()
    block = program.global_block()
    param = None
    for _ in range(2):
        param = block.create_parameter(dtype="float32", shape=shape, lod_level=0, name=name, initializer=init)
    return block, param


def close(a, b):
    assert abs(a - b) <= DELTA, (a, b)


block, _ = init_ops([5, 10], initializer.ConstantInitializer())
assert len(block.ops) == 1 and block.ops[0].type == "fill_constant"
close(block.ops[0].attr("value"), 0.0)
block, _ = init_ops([5, 10], initializer.ConstantInitializer(2.3))
assert len(block.ops) == 1 and block.ops[0].type == "fill_constant"
close(block.ops[0].attr("value"), 2.3)

block, _ = init_ops([5, 10], initializer.UniformInitializer())
op = block.ops[0]
assert len(block.ops) == 1 and op.type == "uniform_random"
close(op.attr("min"), -1.0)
close(op.attr("max"), 1.0)
assert op.attr("seed") == 0

program = framework.Program()
program.random_seed = 123
block = program.global_block()
for _ in range(2):
    block.create_parameter(
        dtype="float32", shape=[5, 10], lod_level=0, name="param1", initializer=initializer.UniformInitializer()
    )
    block.create_parameter(
        dtype="float32", shape=[5, 10], lod_level=0, name="param2", initializer=initializer.UniformInitializer(seed=456)
    )
assert block.ops[1].attr("seed") == 123  # initializers go first: the last one made is ops[0]
assert block.ops[0].attr("seed") == 456

block, _ = init_ops([5, 10], initializer.UniformInitializer(-4.2, 3.1, 123))
op = block.ops[0]
assert len(block.ops) == 1 and op.type == "uniform_random"
close(op.attr("min"), -4.2)
close(op.attr("max"), 3.1)
assert op.attr("seed") == 123

program = framework.Program()
block = program.global_block()
for i in range(2):
    block.create_parameter(
        dtype="float32",
        shape=[5, 10],
        lod_level=0,
        name="param",
        initializer=initializer.UniformInitializer(-4.2, float(i), 123),
    )
assert len(block.ops) == 1
close(block.ops[0].attr("max"), 0.0)

block, _ = init_ops([5, 10], initializer.NormalInitializer())
op = block.ops[0]
assert len(block.ops) == 1 and op.type == "gaussian_random"
close(op.attr("mean"), 0.0)
close(op.attr("std"), 1.0)
assert op.attr("seed") == 0
block, _ = init_ops([5, 10], initializer.NormalInitializer(2.3, 1.9, 123))
op = block.ops[0]
close(op.attr("mean"), 2.3)
close(op.attr("std"), 1.9)
assert op.attr("seed") == 123

for shape, receptive in (([5, 10], 1.0), ([5, 10, 15, 20], 15.0 * 20)):
    block, param = init_ops(shape, initializer.XavierInitializer())
    op = block.ops[0]
    assert len(block.ops) == 1 and op.type == "uniform_random"
    limit = np.sqrt(6.0 / ((param.shape[0] + param.shape[1]) * receptive))
    close(op.attr("min"), -limit)
    close(op.attr("max"), limit)
    assert op.attr("seed") == 0
    block, param = init_ops(shape, initializer.XavierInitializer(uniform=False))
    op = block.ops[0]
    assert len(block.ops) == 1 and op.type == "gaussian_random"
    close(op.attr("mean"), 0.0)
    close(op.attr("std"), np.sqrt(2.0 / ((param.shape[0] + param.shape[1]) * receptive)))
    assert op.attr("seed") == 0
for uniform in (True, False):
    block, _ = init_ops([5, 10], initializer.XavierInitializer(uniform=uniform, fan_in=12, fan_out=23, seed=134))
    op = block.ops[0]
    assert len(block.ops) == 1 and op.type == ("uniform_random" if uniform else "gaussian_random")
    if uniform:
        close(op.attr("min"), -np.sqrt(6.0 / (12 + 23)))
        close(op.attr("max"), np.sqrt(6.0 / (12 + 23)))
    assert op.attr("seed") == 134

for shape, fan_in in (([5, 10], 5.0), ([5, 10, 15, 20], 10.0 * 15 * 20)):
    block, _ = init_ops(shape, initializer.MSRAInitializer())
    op = block.ops[0]
    assert len(block.ops) == 1 and op.type == "uniform_random"
    close(op.attr("min"), -np.sqrt(6.0 / fan_in))
    close(op.attr("max"), np.sqrt(6.0 / fan_in))
    assert op.attr("seed") == 0
    block, _ = init_ops(shape, initializer.MSRAInitializer(uniform=False))
    op = block.ops[0]
    assert len(block.ops) == 1 and op.type == "gaussian_random"
    close(op.attr("mean"), 0.0)
    close(op.attr("std"), np.sqrt(2.0 / fan_in))
    assert op.attr("seed") == 0
block, _ = init_ops([5, 10], initializer.MSRAInitializer(fan_in=12, seed=134))
op = block.ops[0]
assert len(block.ops) == 1 and op.type == "uniform_random"
close(op.attr("min"), -np.sqrt(6.0 / 12))
assert op.attr("seed") == 134

np_array = np.random.random((10000)).astype("float32")
program = framework.Program()
block = program.global_block()
for _ in range(2):
    block.create_parameter(
        dtype=np_array.dtype,
        shape=np_array.shape,
        lod_level=0,
        name="param",
        initializer=initializer.NumpyArrayInitializer(np_array),
    )
assert len(block.ops) == 1 and block.ops[0].type == "assign_value"
assert (np.array(block.ops[0].attr("fp32_values")) == np_array).all()
print("ok")
