"""Op cases for Fluid 1.8's attributes given by tensors that Paddle's op tests use (issue 53): unsqueeze's
AxesTensor / AxesTensorList, split's AxisTensor / SectionsTensorList, pad2d's Paddings, one_hot's
depth_tensor, crop_tensor's Shape / Offsets / ShapeTensor / OffsetsTensor, crop's Offsets and pow's FactorTensor.
Each tensor holds a value other than the attribute's (or the attribute is empty), so a kernel that
read the attribute fails the reference; the gradients run through the same tensors. One concept over
several families (tests/ops/test_coverage.py's CROSS_FAMILY_FILES)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(5301)


def i32(*values):
    return np.array(values, dtype=np.int32)


def _r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


_x3 = _r(2, 3, 4)
_img = _r(2, 3, 4, 5)
_ids = np.array([[0], [3], [1]], dtype=np.int64)


CASES = [
    OpCase(
        "unsqueeze2",
        {"X": _x3, "AxesTensor": i32(1, 4)},
        lambda i, a: {"Out": i["X"].reshape(2, 1, 3, 4, 1)},
        attrs={"axes": []},
        outputs=("Out",),
        grad=("X",),
        name="unsqueeze2_axes_tensor",
    ),
    OpCase(
        "unsqueeze",
        {"X": _x3, "AxesTensorList": [i32(0), i32(3)]},
        lambda i, a: {"Out": i["X"].reshape(1, 2, 3, 1, 4)},
        attrs={"axes": [2]},
        grad=("X",),
        name="unsqueeze_axes_tensor_list",
    ),
    OpCase(
        "split",
        {"X": _x3, "AxisTensor": i32(2)},
        lambda i, a: {"Out": np.split(i["X"], 2, axis=2)},
        attrs={"num": 2, "axis": 0},
        num_outputs={"Out": 2},
        grad=("X",),
        name="split_axis_tensor",
    ),
    OpCase(
        "split",
        {"X": _x3, "SectionsTensorList": [i32(1), i32(2)]},
        lambda i, a: {"Out": np.split(i["X"], [1], axis=1)},
        attrs={"sections": [-1, -1], "axis": 1},
        num_outputs={"Out": 2},
        grad=("X",),
        name="split_sections_tensor_list",
    ),
    OpCase(
        "pad2d",
        {"X": _img, "Paddings": i32(1, 0, 2, 1)},
        lambda i, a: {"Out": np.pad(i["X"], [(0, 0), (0, 0), (1, 0), (2, 1)], constant_values=0.5)},
        attrs={"paddings": [], "pad_value": 0.5},
        grad=("X",),
        name="pad2d_paddings_tensor",
    ),
    OpCase(
        "one_hot",
        {"X": _ids, "depth_tensor": i32(5)},
        lambda i, a: {"Out": np.eye(5, dtype=np.float32)[[0, 3, 1]]},
        attrs={"depth": 2},
        name="one_hot_depth_tensor",
    ),
    OpCase(
        "crop_tensor",
        {"X": _x3, "Shape": i32(1, 2, 2), "Offsets": i32(1, 0, 2)},
        lambda i, a: {"Out": i["X"][1:2, 0:2, 2:4]},
        attrs={"shape": [], "offsets": []},
        grad=("X",),
        name="crop_tensor_shape_offsets",
    ),
    OpCase(
        "crop_tensor",
        {"X": _x3, "ShapeTensor": [i32(2), i32(1), i32(3)], "OffsetsTensor": [i32(0), i32(2), i32(1)]},
        lambda i, a: {"Out": i["X"][0:2, 2:3, 1:4]},
        attrs={"shape": [-1, -1, 3], "offsets": [-1, -1, 0]},
        grad=("X",),
        name="crop_tensor_shape_offsets_lists",
    ),
    OpCase(
        "crop",
        {"X": _x3, "Offsets": i32(1, 1, 0)},
        lambda i, a: {"Out": i["X"][1:2, 1:3, 0:3]},
        attrs={"shape": [1, 2, 3], "offsets": [0, 0, 0]},
        grad=("X",),
        name="crop_offsets_tensor",
    ),
]
CASES.append(
    OpCase(
        "pow",
        {"X": np.abs(_x3) + 0.5, "FactorTensor": np.array([2.5], np.float32)},
        lambda i, a: {"Out": i["X"] ** 2.5},
        attrs={"factor": 1.0},
        grad=("X",),
        rtol=1e-5,
        name="pow_factor_tensor",
    )
)
