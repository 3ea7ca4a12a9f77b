"""Paddle 2.6.2 as the oracle of the cases of its own op tests (test/legacy_test, docs/OPTEST.md) that
pe failed and now passes: each a static program of tools/paddle_function_oracle.py's form (outputs and
the gradients of the float inputs), recorded in tests/data/paddle_oracle/optest26.json and replayed on
pe by tests/paddle/test_paddle_function_oracle.py; CI never needs Paddle.

    /work/p26/bin/python tools/optest26_oracle.py    # paddlepaddle==2.6.2

Nothing here imports paddle or pe at load time."""

import importlib
import importlib.util
import os

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "paddle_function_oracle", os.path.join(_HERE, "paddle_function_oracle.py")
)
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)
case = base._case

OUT = os.path.join(os.path.dirname(_HERE), "tests", "data", "paddle_oracle", "optest26.json")

X = np.random.RandomState(26).uniform(-1, 1, (2, 3)).astype("float32")
Y = np.random.RandomState(27).uniform(-1, 1, (2, 4)).astype("float32")
T = np.random.RandomState(28).uniform(-1, 1, (10, 8, 2)).astype("float32")


def _array_concat(P, x, axis):
    """test_concat_op.py's TestConcatAPIWithLoDTensorArray: a tensor array's items joined by paddle.concat."""
    array = P.tensor.create_array(dtype="float32")
    zero = P.tensor.fill_constant(shape=[1], value=0, dtype="int64")
    for i in range(3):
        P.tensor.array_write(x * float(i + 1), zero + i, array)
    return [P.concat(array, axis=axis)]


def _array_to_tensor(P, x, use_stack):
    """test_slice_op.py's tensor_array_to_tensor (paddle.tensor.manipulation's)."""
    # paddle.tensor.manipulation's: pe's module of that name (pe_cli/fluid/paddle2_modules.py) is tensor_manip
    where = ".tensor.manipulation" if P.__name__ == "paddle" else ".tensor_manip"
    tensor_array_to_tensor = importlib.import_module(P.__name__ + where).tensor_array_to_tensor
    array = P.tensor.create_array(dtype="float32")
    zero = P.zeros([1], "int64")
    for i in range(2):
        P.tensor.array_write(x + float(i), zero + i, array)
    return [tensor_array_to_tensor(array, axis=1, use_stack=use_stack)[0]]  # (Paddle fetches OutIndex as an object)


# name -> {"inputs": {feed name: array}, "build": build(paddle, **vars) -> [outputs], "grad": bool}
CASES = {
    "concat_tensor_array_axis1": case(lambda P, x: _array_concat(P, x, 1), grad=False, x=X),
    "concat_tensor_array_axis0": case(lambda P, x: _array_concat(P, x, 0), grad=False, x=X),
    # test_concat_op.py's TestConcatAPI: the axis an int64 tensor
    "concat_axis_tensor": case(
        lambda P, x, y: [P.concat([x, y], axis=P.tensor.fill_constant([1], "int64", 1))], x=X, y=Y
    ),
    "tensor_array_to_tensor": case(lambda P, x: _array_to_tensor(P, x, False), grad=False, x=X),
    "tensor_array_to_tensor_stack": case(lambda P, x: _array_to_tensor(P, x, True), grad=False, x=X),
    # test_full_op.py's TestFullAPI: a shape list holding a one-value int Tensor, and a shape Tensor
    "full_shape_tensor_list": case(lambda P, n: [P.full([1, n], 1.1, "float32")], grad=False, n=np.array([2], "int32")),
    "full_shape_tensor": case(lambda P, s: [P.full(s, 2.5, "float32")], grad=False, s=np.array([2, 3], "int64")),
    # test_transpose_op.py's TestCase10: negative axes (transpose2's axis < 0)
    "transpose_negative_axes": case(lambda P, t: [P.transpose(t, [-1, 1, -3])], t=T),
    "transpose_negative_tuple": case(lambda P, x: [P.transpose(x, (-1, 0))], x=X),
}


if __name__ == "__main__":
    base.main(CASES, OUT, "tools/optest26_oracle.py")
