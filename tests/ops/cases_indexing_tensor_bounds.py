"""Op cases for slice's and strided_slice's bounds given by tensors (Fluid 1.8's StartsTensor,
StartsTensorList, EndsTensor(List), StridesTensor(List); pe_cli/kernels/tensor_attrs.py): each tensor
holds a value other than the attribute's, so a kernel that read the attribute fails the reference."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(53)


def i32(*values):
    return np.array(values, dtype=np.int32)


_x = rng.uniform(-1.0, 1.0, (3, 4, 5))
CASES = [
    OpCase(
        "slice",
        {"Input": _x, "StartsTensor": i32(1, -3), "EndsTensor": i32(3, 100)},
        lambda i, a: {"Out": i["Input"][1:3, :, -3:]},
        attrs={"axes": [0, 2], "infer_flags": [-1, -1]},
        grad=("Input",),
        name="slice_starts_ends_tensors",
    ),
    OpCase(
        "slice",
        {"Input": _x, "StartsTensorList": [i32(2), i32(1)]},
        lambda i, a: {"Out": i["Input"][:, 2, 1:3]},
        attrs={"axes": [1, 2], "starts": [-1, 1], "ends": [3, 3], "infer_flags": [-1, 1], "decrease_axis": [1]},
        grad=("Input",),
        name="slice_starts_tensor_list",
    ),
    OpCase(
        "slice",
        {"Input": _x, "StartsTensorList": [i32(-1)], "EndsTensorList": [i32(0)]},
        lambda i, a: {"Out": i["Input"][:, :, -1]},
        attrs={"axes": [2], "starts": [-1], "ends": [-1], "infer_flags": [-1], "decrease_axis": [2]},
        grad=("Input",),
        name="slice_variable_index_last",
    ),  # var[i], a Variable i of -1: Fluid's kernel takes the last
    OpCase(
        "strided_slice",
        {"Input": _x, "StartsTensor": i32(4), "EndsTensorList": [i32(0)], "StridesTensor": i32(-2)},
        lambda i, a: {"Out": i["Input"][:, :, 4:0:-2]},
        attrs={"axes": [2], "starts": [0], "ends": [5], "strides": [1], "infer_flags": [-1]},
        grad=("Input",),
        name="strided_slice_tensors",
    ),
    OpCase(
        "strided_slice",
        {"Input": _x, "StartsTensor": i32(4), "EndsTensorList": [i32(0)], "StridesTensor": i32(-2)},
        lambda i, a: {"Out": i["Input"][:, :, 4:0:-2]},
        attrs={"axes": [2], "starts": [0], "ends": [5], "strides": [1], "infer_flags": [-1]},
        grad=("Input",),
        name="strided_slice_tensors",
    ),
    OpCase(
        "strided_slice",
        {
            "Input": _x,
            "StartsTensorList": [i32(0), i32(1)],
            "EndsTensor": i32(3, 4),
            "StridesTensorList": [i32(2), i32(2)],
        },
        lambda i, a: {"Out": i["Input"][0:3:2, :, 1:4:2]},
        attrs={"axes": [0, 2], "starts": [-1, -1], "ends": [1, 1], "strides": [-1, -1], "infer_flags": [-1, -1]},
        grad=("Input",),
        name="strided_slice_tensor_lists",
    ),
]
