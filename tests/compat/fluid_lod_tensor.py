# after: PaddlePaddle/Paddle python/paddle/fluid/tests/test_lod_tensor.py @ 74a2c33ce5e88ae7871a8aba9c99aba2070aee85
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
import numpy as np
import paddle.fluid as fluid
import paddle.fluid.core as core
from paddle.fluid.lod_tensor import create_lod_tensor, create_random_int_lodtensor

tensor = core.LoDTensor()
tensor.set_recursive_sequence_lengths([[2, 1], [3, 3, 4]])
assert tensor.recursive_sequence_lengths() == [[2, 1], [3, 3, 4]]
tensor.set(np.zeros((10, 1), "int64"), fluid.CPUPlace())
assert tensor.has_valid_recursive_sequence_lengths()
try:  # lengths that do not fit the 10 rows: Fluid 1.8.5 refuses them
    tensor.set_recursive_sequence_lengths([[2, 1], [3, 3, 5]])
    raise AssertionError("invalid lengths were accepted")
except core.EnforceNotMet:
    pass
assert tensor.recursive_sequence_lengths() == [[2, 1], [3, 3, 4]]

data = [[1, 2], [3], [3, 4]]
t = create_lod_tensor(data, [[len(s) for s in data]], fluid.CPUPlace())
assert t.recursive_sequence_lengths() == [[2, 1, 2]]
assert np.array(t).shape == (5, 1)
assert np.array(t).reshape(-1).tolist() == [1, 2, 3, 3, 4]

arr = np.random.random((10, 1)).astype("float64")
t = create_lod_tensor(arr, [[2, 3, 5]], fluid.CPUPlace())
assert np.allclose(np.array(t), arr)

t = create_random_int_lodtensor([[2, 3, 5]], [784], fluid.CPUPlace(), low=0, high=9)
assert t.recursive_sequence_lengths() == [[2, 3, 5]]
assert t.shape() == [10, 784]
print("ok")
