# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_inference_model_io.py @ 8ac09e0f10275d7a04cbf422954ef865f03b6961
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
import tempfile
import numpy as np
import paddle.fluid as fluid
import paddle.fluid.layers as layers
import paddle.fluid.optimizer as optimizer
from paddle.fluid.framework import Program, program_guard
from paddle.fluid.io import save_inference_model, load_inference_model

init_program, program = Program(), Program()
with program_guard(program, init_program):
    x = layers.data(name="x", shape=[2], dtype="float32")
    y = layers.data(name="y", shape=[1], dtype="float32")
    y_predict = layers.fc(input=x, size=1, act=None)
    cost = layers.square_error_cost(input=y_predict, label=y)
    avg_cost = layers.mean(cost)
    optimizer.SGDOptimizer(learning_rate=0.001).minimize(avg_cost, init_program)

exe = fluid.Executor(fluid.CPUPlace())
exe.run(init_program, feed={}, fetch_list=[])
tensor_x = np.array([[1, 1], [1, 2], [3, 4], [5, 2]]).astype("float32")
tensor_y = np.array([[-2], [-3], [-7], [-7]]).astype("float32")
for i in range(3):
    exe.run(program, feed={"x": tensor_x, "y": tensor_y}, fetch_list=[avg_cost])

MODEL_DIR = tempfile.mkdtemp()
save_inference_model(MODEL_DIR, ["x", "y"], [avg_cost], exe, program)
expected = exe.run(program, feed={"x": tensor_x, "y": tensor_y}, fetch_list=[avg_cost])[0]

infer_prog, feed_var_names, fetch_vars = load_inference_model(MODEL_DIR, exe)
outs = exe.run(infer_prog, feed={feed_var_names[0]: tensor_x, feed_var_names[1]: tensor_y}, fetch_list=fetch_vars)
assert feed_var_names == ["x", "y"]
assert len(fetch_vars) == 1
assert np.allclose(expected, outs[0]), (expected, outs[0])
print("ok")
