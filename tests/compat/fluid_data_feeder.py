# after: PaddlePaddle/Paddle python/paddle/fluid/tests/test_data_feeder.py @ 74a2c33ce5e88ae7871a8aba9c99aba2070aee85
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
import numpy as np
import paddle.fluid as fluid

# a non-default Program, as Paddle's test builds it
prog = fluid.Program()
with fluid.program_guard(prog, fluid.Program()):
    img = fluid.layers.data(name="image", shape=[1, 28, 28])
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    feeder = fluid.DataFeeder([img, label], fluid.CPUPlace(), program=prog)
    result = feeder.feed([([0] * 784, [9]), ([1] * 784, [1])])
assert result["image"].shape() == [2, 1, 28, 28]
assert result["label"].shape() == [2, 1]
assert result["image"].recursive_sequence_lengths() == []
assert result["label"].recursive_sequence_lengths() == []
assert np.array(result["label"]).reshape(-1).tolist() == [9, 1]
print("ok")
