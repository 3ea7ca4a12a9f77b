# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_py_reader_error_msg.py @ 14b01b9f1919f38c6da7df4e3b82b6d74555e414
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`. Facts:
# fluid.reader.GeneratorLoader._check_input_array accepts three int arrays of length 2 and raises
# TypeError for lengths 2, 1, 3; where CUDA is, py_reader(use_double_buffer=False) then
# double_buffer(reader, place=core.CUDAPlace(0)) then read_file builds (skipped without CUDA, as in Paddle).
import numpy as np
import paddle
import paddle.fluid as fluid

fluid.reader.GeneratorLoader._check_input_array([np.random.randint(100, size=[2]) for _ in range(3)])
try:
    fluid.reader.GeneratorLoader._check_input_array([np.random.randint(100, size=[n]) for n in (2, 1, 3)])
    raise AssertionError("ragged arrays were accepted")
except TypeError:
    pass

paddle.enable_static()
if fluid.core.is_compiled_with_cuda():
    reader = fluid.layers.py_reader(
        capacity=64, shapes=[(-1, 1, 28, 28), (-1, 1)], dtypes=["float32", "int64"], use_double_buffer=False
    )
    reader = fluid.layers.double_buffer(reader, place=fluid.core.CUDAPlace(0))
    image, label = fluid.layers.read_file(reader)
print("ok")
