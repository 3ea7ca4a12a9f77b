"""Paddle 2.6.2 as the oracle of arguments given as Tensors where pe took only Python values before 2026-11-29:
a reduction's ``axis`` as an int Tensor (or a list holding some), read when the program runs (Paddle's VAR
attribute; pe's AxisTensor / AxisTensorList); cumsum's ``axis`` (the same); roll's ``shifts`` (its ShiftsTensor); F.pad's ``pad`` (pad3d's Paddings). Records each case's values, dtype, shape and the float inputs'
gradients into tests/data/paddle_oracle/tensor_args26.json, with tools/paddle_function_oracle.py's runner;
tests/paddle/test_paddle_function_oracle.py replays them on pe.

    /work/p26/bin/python tools/paddle26_tensor_args_oracle.py    # paddlepaddle==2.6.2"""

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

OUT = os.path.join(os.path.dirname(_HERE), "tests", "data", "paddle_oracle", "tensor_args26.json")

# distinct values, a zero (prod's gradient) and ties (max's)
X = ((np.arange(24, dtype="float32").reshape(2, 3, 4) * 7) % 11 - 4.5).astype("float32")
X[0, 1, 2] = X[0, 0, 2]


def _ints(P, values, dtype="int64"):
    return P.assign(np.array(values, dtype))


CASES = {
    "sum_axis_tensor": case(lambda P, x: [P.sum(x, axis=P.full([1], 1, "int64"))], x=X),
    "sum_axis_tensor_keepdim": case(lambda P, x: [P.sum(x, axis=_ints(P, [0, 2]), keepdim=True)], x=X),
    "sum_axis_list_with_tensor": case(lambda P, x: [P.sum(x, axis=[P.full([1], 2, "int32"), 0])], x=X),
    "mean_axis_tensor_int32": case(lambda P, x: [P.mean(x, axis=_ints(P, [-1], "int32"))], x=X),
    "mean_axis_tensor_every_dim": case(lambda P, x: [P.mean(x, axis=_ints(P, [0, 1, 2]))], x=X),
    "max_axis_tensor": case(lambda P, x: [P.max(x, axis=P.full([1], 1, "int64"))], x=X),
    "min_axis_tensor_keepdim": case(lambda P, x: [P.min(x, axis=_ints(P, [2, 0]), keepdim=True)], x=X),
    "prod_axis_tensor": case(lambda P, x: [P.prod(x, axis=P.full([1], 2, "int64"))], x=X / 4),
    # cumsum's axis as an int Tensor: Paddle 2.6's VAR attribute (pe's AxisTensor)
    "cumsum_axis_tensor": case(lambda P, x: [P.cumsum(x, axis=P.full([1], 1, "int64"))], x=X),
    "cumsum_axis_tensor_int32_last": case(lambda P, x: [P.cumsum(x, axis=_ints(P, [-1], "int32"))], x=X),
    # F.pad's pad as an int32 Tensor: pad3d's Paddings (3-D and 4-D x completed with zeros by concat)
    "pad_tensor_constant": case(
        lambda P, x: [P.nn.functional.pad(P.unsqueeze(x, 1), _ints(P, [1, 2, 0, 1], "int32"), value=1.5)], x=X
    ),
    "pad_tensor_reflect_ncl": case(
        lambda P, x: [P.nn.functional.pad(x, _ints(P, [2, 1], "int32"), mode="reflect", data_format="NCL")], x=X
    ),
    "pad_tensor_circular_nhwc": case(
        lambda P, x: [
            P.nn.functional.pad(P.unsqueeze(x, 3), _ints(P, [1, 0, 2, 1], "int32"), mode="circular", data_format="NHWC")
        ],
        x=X,
    ),
    # roll's shifts as an int Tensor: the roll op's ShiftsTensor (and roll_grad's)
    "roll_shifts_tensor": case(lambda P, x: [P.roll(x, shifts=_ints(P, [1, -3]), axis=[1, 2])], x=X),
    "roll_shifts_tensor_flat": case(lambda P, x: [P.roll(x, shifts=P.full([1], 5, "int64"))], x=X),
    "roll_shifts_tensor_int32_axis": case(lambda P, x: [P.roll(x, shifts=_ints(P, [-1], "int32"), axis=0)], x=X),
}

if __name__ == "__main__":
    base.main(CASES, OUT, "tools/paddle26_tensor_args_oracle.py")
