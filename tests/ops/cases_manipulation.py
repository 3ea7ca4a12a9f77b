"""Op cases for family manipulation, combining and reshaping tensors: concat, split, unbind, stack,
reshape, flatten, squeeze, unsqueeze, transpose, cast, expand, tile, expand_as, reverse, shape, size."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(21)


def r(*shape):
    return rng.normal(size=shape)


def _reshape(shape):
    return lambda i, a: {"Out": i["X"].reshape(shape)}


CASES = [
    OpCase(
        "concat", {"X": [r(2, 3), r(4, 3), r(1, 3)]}, lambda i, a: {"Out": np.concatenate(i["X"], axis=0)}, grad=("X",)
    ),
    OpCase(
        "concat",
        {"X": [r(2, 1, 3), r(2, 4, 3)]},
        lambda i, a: {"Out": np.concatenate(i["X"], axis=1)},
        attrs={"axis": -2},
        grad=("X",),
        name="concat_axis_neg2",
    ),
    OpCase(
        "concat",
        {"X": [np.array([[1, 2]], dtype=np.int64), np.array([[3, 4]], dtype=np.int64)]},
        lambda i, a: {"Out": np.array([[1, 2, 3, 4]])},
        attrs={"axis": 1},
        name="concat_int64",
    ),
    OpCase(
        "split",
        {"X": r(2, 6)},
        lambda i, a: {"Out": np.split(i["X"], 3, axis=1)},
        attrs={"num": 3, "axis": 1},
        num_outputs={"Out": 3},
        grad=("X",),
    ),
    OpCase(
        "split",
        {"X": r(5, 2)},
        lambda i, a: {"Out": np.split(i["X"], [2, 3], axis=0)},
        attrs={"sections": [2, -1, 2]},
        num_outputs={"Out": 3},
        grad=("X",),
        name="split_sections",
    ),
    OpCase(
        "split",
        {"X": r(2, 3, 4)},
        lambda i, a: {"Out": np.split(i["X"], [1], axis=-1)},
        attrs={"sections": [1, 3], "axis": -1},
        num_outputs={"Out": 2},
        grad=("X",),
        name="split_last_axis",
    ),
    OpCase(
        "stack",
        {"X": [r(2, 3), r(2, 3), r(2, 3)]},
        lambda i, a: {"Y": np.stack(i["X"], axis=1)},
        attrs={"axis": 1},
        grad=("X",),
    ),
    OpCase(
        "stack",
        {"X": [r(3), r(3)]},
        lambda i, a: {"Y": np.stack(i["X"], axis=-1)},
        attrs={"axis": -1},
        grad=("X",),
        name="stack_last",
    ),
    OpCase("reshape", {"X": r(2, 3, 4)}, _reshape((6, 4)), attrs={"shape": [6, 4]}, grad=("X",)),
    OpCase(
        "reshape",
        {"X": r(2, 3, 4), "ShapeTensor": [np.array([4], np.int32), np.array([6], np.int32)]},
        _reshape((4, 6)),
        attrs={"shape": [-1, -1]},
        grad=("X",),
        name="reshape_shape_tensor_list",
    ),
    OpCase(
        "reshape",
        {"X": r(2, 3, 4)},
        _reshape((2, 12)),
        attrs={"shape": [0, -1]},
        grad=("X",),
        name="reshape_copy_and_infer",
    ),
    OpCase("reshape", {"X": r(2, 3, 4)}, _reshape((4, 3, 2)), attrs={"shape": [-1, 3, 2]}, name="reshape_infer_first"),
    OpCase(
        "reshape",
        {"X": r(2, 6), "Shape": np.array([3, 4], dtype=np.int32)},
        _reshape((3, 4)),
        attrs={"shape": [4, 3]},
        name="reshape_shape_input_overrides",
    ),
    OpCase(
        "reshape",
        {"X": r(2, 6), "Shape": np.array([3, -1], dtype=np.int64)},
        _reshape((3, 4)),
        attrs={"shape": [3, 4]},
        grad=("X",),
        name="reshape_shape_input",
    ),
    OpCase(
        "reshape2",
        {"X": r(2, 3, 4)},
        _reshape((2, 3, 2, 2)),
        attrs={"shape": [0, 0, 2, 2]},
        outputs=("Out", "XShape"),
        loss_outputs=("Out",),
        grad=("X",),
    ),
    # without XShape (as pe saved programs before it wrote it): the gradient reads X's shape from X
    OpCase(
        "reshape2",
        {"X": r(2, 3, 4)},
        _reshape((4, 6)),
        attrs={"shape": [4, 6]},
        outputs=("Out",),
        grad=("X",),
        name="reshape2_without_xshape",
    ),
    OpCase(
        "flatten2",
        {"X": r(2, 3, 2)},
        _reshape((6, 2)),
        attrs={"axis": 2},
        outputs=("Out",),
        grad=("X",),
        name="flatten2_without_xshape",
    ),
    OpCase(
        "squeeze2",
        {"X": r(2, 1, 3)},
        _reshape((2, 3)),
        attrs={"axes": [1]},
        outputs=("Out",),
        grad=("X",),
        name="squeeze2_without_xshape",
    ),
    OpCase("flatten", {"X": r(2, 3, 4)}, _reshape((6, 4)), attrs={"axis": 2}, grad=("X",)),
    OpCase("flatten", {"X": r(2, 3, 4)}, _reshape((1, 24)), attrs={"axis": 0}, name="flatten_axis0"),
    OpCase("flatten", {"X": r(2, 3, 4)}, _reshape((24, 1)), attrs={"axis": 3}, name="flatten_axis_rank"),
    OpCase(
        "flatten2", {"X": r(2, 3, 2)}, _reshape((2, 6)), outputs=("Out", "XShape"), loss_outputs=("Out",), grad=("X",)
    ),
    OpCase("squeeze", {"X": r(2, 1, 3, 1)}, _reshape((2, 3, 1)), attrs={"axes": [1]}, grad=("X",)),
    OpCase("squeeze", {"X": r(1, 3, 1)}, _reshape((3,)), name="squeeze_all"),
    OpCase("squeeze", {"X": r(2, 1, 3, 1)}, _reshape((2, 3)), attrs={"axes": [-1, 1]}, name="squeeze_negative"),
    OpCase("unsqueeze", {"X": r(2, 3)}, _reshape((1, 2, 1, 3)), attrs={"axes": [0, 2]}, grad=("X",)),
    OpCase("unsqueeze", {"X": r(2, 3)}, _reshape((2, 3, 1)), attrs={"axes": [-1]}, name="unsqueeze_append"),
    OpCase(
        "unsqueeze2",
        {"X": r(3)},
        _reshape((1, 3, 1)),
        attrs={"axes": [0, -1]},
        outputs=("Out", "XShape"),
        loss_outputs=("Out",),
        grad=("X",),
    ),
    OpCase(
        "transpose",
        {"X": r(2, 3, 4)},
        lambda i, a: {"Out": i["X"].transpose(2, 0, 1)},
        attrs={"axis": [2, 0, 1]},
        grad=("X",),
    ),
    OpCase(
        "transpose2",
        {"X": r(3, 2)},
        lambda i, a: {"Out": i["X"].T},
        attrs={"axis": [1, 0]},
        outputs=("Out", "XShape"),
        loss_outputs=("Out",),
        grad=("X",),
    ),
    OpCase(  # the attention's head split: the swap loop of adjacent axes (16,384 elements: SWAP_LOOP_MIN)
        "transpose2",
        {"X": r(4, 16, 16, 16)},
        lambda i, a: {"Out": i["X"].transpose(0, 2, 1, 3)},
        attrs={"axis": [0, 2, 1, 3]},
        outputs=("Out", "XShape"),
        loss_outputs=("Out",),
        grad=("X",),
        name="transpose2_swap_heads",
    ),
    OpCase(
        "cast",
        {"X": r(2, 3)},
        lambda i, a: {"Out": i["X"].astype(np.float32)},
        attrs={"in_dtype": "float64", "out_dtype": "float32"},
    ),
    OpCase(
        "cast",
        {"X": np.array([[1.7, -1.7, 0.2]])},
        lambda i, a: {"Out": np.array([[1, -1, 0]])},
        attrs={"out_dtype": "int64"},
        name="cast_to_int64_truncates",
    ),
    OpCase(
        "cast",
        {"X": np.array([[3, 0, 7]], dtype=np.int64)},
        lambda i, a: {"Out": np.array([[3, 0, 7]], dtype=np.float32)},
        attrs={"out_dtype": "float32"},
        name="cast_int64_to_float32",
    ),
    OpCase(
        "cast",
        {"X": r(2, 3)},
        lambda i, a: {"Out": i["X"]},
        attrs={"out_dtype": "float64"},
        grad=("X",),
        name="cast_same_dtype",
    ),
    OpCase(
        "expand",
        {"X": r(2, 3)},
        lambda i, a: {"Out": np.tile(i["X"], (2, 3))},
        attrs={"expand_times": [2, 3]},
        grad=("X",),
    ),
    OpCase(
        "expand",
        {"X": r(1, 3, 2)},
        lambda i, a: {"Out": np.tile(i["X"], (4, 1, 2))},
        attrs={"expand_times": [4, 1, 2]},
        grad=("X",),
        name="expand_3d",
    ),
    # Fluid 1.8's expand_times given at run time (test_expand_op's _tensor cases): the whole list in
    # ExpandTimes, or one tensor per dim in expand_times_tensor (the attribute -1 there)
    OpCase(
        "expand",
        {"X": r(2, 3), "ExpandTimes": np.array([3, 2], np.int32)},
        lambda i, a: {"Out": np.tile(i["X"], (3, 2))},
        grad=("X",),
        name="expand_times_tensor_whole",
    ),
    OpCase(
        "expand",
        {"X": r(2, 3), "expand_times_tensor": [np.array([2], np.int32), np.array([1], np.int32)]},
        lambda i, a: {"Out": np.tile(i["X"], (2, 1))},
        attrs={"expand_times": [-1, 1]},
        grad=("X",),
        name="expand_times_tensor_list",
    ),
    # Paddle 2.x's tile: the shorter of X's rank and repeat_times takes leading 1s
    OpCase(
        "tile",
        {"X": r(2, 3)},
        lambda i, a: {"Out": np.tile(i["X"], (2, 1, 2))},
        attrs={"repeat_times": [2, 1, 2]},
        grad=("X",),
    ),
    OpCase(
        "tile",
        {"X": r(2, 1, 3)},
        lambda i, a: {"Out": np.tile(i["X"], (3, 2))},
        attrs={"repeat_times": [3, 2]},
        grad=("X",),
        name="tile_short_times",
    ),
    OpCase(
        "tile",
        {"X": r(2, 3), "RepeatTimes": np.array([2, 2], np.int32)},
        lambda i, a: {"Out": np.tile(i["X"], (2, 2))},
        grad=("X",),
        name="tile_repeat_times_tensor",
    ),
    OpCase(
        "tile",
        {"X": r(2, 3), "repeat_times_tensor": [np.array([3], np.int32), np.array([1], np.int32)]},
        lambda i, a: {"Out": np.tile(i["X"], (3, 1))},
        attrs={"repeat_times": [-1, 1]},
        grad=("X",),
        name="tile_repeat_times_tensor_list",
    ),
]

CASES += [
    OpCase(
        "squeeze2",
        {"X": r(2, 1, 3)},
        _reshape((2, 3)),
        attrs={"axes": [1]},
        outputs=("Out", "XShape"),
        loss_outputs=("Out",),
        grad=("X",),
    ),
]

CASES += [
    OpCase(
        "unbind",
        {"X": r(3, 2, 4)},
        lambda i, a: {"Out": [i["X"][:, k] for k in range(2)]},
        attrs={"axis": 1},
        num_outputs={"Out": 2},
        grad=("X",),
    ),
    OpCase(
        "unbind",
        {"X": r(2, 3)},
        lambda i, a: {"Out": [i["X"][:, k] for k in range(3)]},
        attrs={"axis": -1},
        num_outputs={"Out": 3},
        grad=("X",),
        name="unbind_last_axis",
    ),
    OpCase("reverse", {"X": r(3, 4)}, lambda i, a: {"Out": i["X"][::-1]}, attrs={"axis": [0]}, grad=("X",)),
    OpCase(
        "reverse",
        {"X": r(2, 3, 4)},
        lambda i, a: {"Out": i["X"][:, ::-1, ::-1]},
        attrs={"axis": [-1, 1]},
        grad=("X",),
        name="reverse_two_axes",
    ),
    OpCase(
        "reverse",
        {"X": np.arange(6, dtype=np.int64).reshape(2, 3)},
        lambda i, a: {"Out": i["X"][::-1, ::-1]},
        attrs={"axis": [0, 1]},
        name="reverse_all_int64",
    ),
    OpCase(
        "expand_as",
        {"X": r(2, 3), "target_tensor": r(4, 6)},
        lambda i, a: {"Out": np.tile(i["X"], (2, 2))},
        grad=("X",),
    ),
    OpCase(
        "expand_as",
        {"X": r(1, 3, 2), "target_tensor": r(3, 3, 4)},
        lambda i, a: {"Out": np.tile(i["X"], (3, 1, 2))},
        grad=("X",),
        name="expand_as_3d",
    ),
    OpCase("size", {"Input": r(2, 3, 4)}, lambda i, a: {"Out": np.array([24], dtype=np.int64)}),
    OpCase("shape", {"Input": r(2, 3, 5)}, lambda i, a: {"Out": np.array([2, 3, 5], dtype=np.int32)}),
    OpCase(
        "shape",
        {"Input": np.zeros((0, 4), dtype=np.int64)},
        lambda i, a: {"Out": np.array([0, 4], dtype=np.int32)},
        name="shape_empty",
    ),
]


# Fluid 1.8's attributes given by tensors (pe_cli/kernels/tensor_attrs.py): the tensor holds a value other
# than the attribute's, so a kernel that read the attribute fails the reference.
CASES += [
    OpCase(
        "concat",
        {"X": [r(2, 3), r(2, 4)], "AxisTensor": np.array([1], dtype=np.int32)},
        lambda i, a: {"Out": np.concatenate(i["X"], axis=1)},
        attrs={"axis": 0},
        grad=("X",),
        name="concat_axis_tensor",
    ),
]


def _unstack(i, a):
    return {"Y": [np.take(i["X"], k, axis=a["axis"]) for k in range(i["X"].shape[a["axis"]])]}


CASES += [
    OpCase(
        "flip", {"X": r(2, 3, 4)}, lambda i, a: {"Out": np.flip(i["X"], (0, 2))}, attrs={"dims": [0, -1]}, grad=("X",)
    ),
    OpCase(
        "flip",
        {"X": np.arange(6).reshape(2, 3) > 2},
        lambda i, a: {"Out": np.flip(i["X"], 1)},
        attrs={"dims": [1, 1]},
        name="flip_bool_dim_twice",
    ),
    OpCase(
        "roll",
        {"X": r(3, 4)},
        lambda i, a: {"Out": np.roll(i["X"], (1, -5), (0, 1))},
        attrs={"shifts": [1, -5], "dims": [0, -1]},
        grad=("X",),
    ),
    OpCase(  # Paddle 2.x's shifts given by ShiftsTensor, read when the op runs (its gradient op reads it too)
        "roll",
        {"X": r(3, 4), "ShiftsTensor": np.array([2, -1], np.int64)},
        lambda i, a: {"Out": np.roll(i["X"], (2, -1), (0, 1))},
        attrs={"dims": [0, 1]},
        grad=("X",),
        name="roll_shifts_tensor",
    ),
    OpCase("unstack", {"X": r(2, 3, 4)}, _unstack, attrs={"axis": 1, "num": 3}, grad=("X",), num_outputs={"Y": 3}),
    OpCase(
        "unstack",
        {"X": np.arange(6).reshape(3, 2)},
        _unstack,
        attrs={"axis": -1, "num": 2},
        num_outputs={"Y": 2},
        name="unstack_int64_last_axis",
    ),
]

# Attribute values Fluid 1.8.5's kernels run (checked against it): split's num wins over sections, unbind
# with k outputs for more slices reads X's first elements as [rows before the axis, k, the rest] (the first
# slices along axis 0), and reverse reverses a dim named twice once
_attr_rng = np.random.default_rng(76)
_X26, _X324 = _attr_rng.normal(size=(2, 6)), _attr_rng.normal(size=(3, 2, 4))
CASES += [
    OpCase(
        "split",
        {"X": _X26},
        lambda i, a: {"Out": np.split(i["X"], 3, axis=1)},
        attrs={"num": 3, "sections": [3, 3, 3], "axis": 1},
        num_outputs={"Out": 3},
        grad=("X",),
        name="split_num_over_sections",
    ),
    OpCase(
        "unbind",
        {"X": _X324},
        lambda i, a: {"Out": [i["X"][0], i["X"][1]]},
        attrs={"axis": 0},
        num_outputs={"Out": 2},
        grad=("X",),
        name="unbind_first_slices",
    ),
    OpCase(
        "unbind",
        {"X": _X324},
        lambda i, a: {"Out": [i["X"].reshape(-1)[:12].reshape(6, 2)[:, k].reshape(3, 2) for k in range(2)]},
        attrs={"axis": -1},
        num_outputs={"Out": 2},
        grad=("X",),
        name="unbind_fewer_outputs_flat",
    ),
    OpCase(
        "reverse",
        {"X": _X324},
        lambda i, a: {"Out": i["X"][:, ::-1]},
        attrs={"axis": [1, 1, -2]},
        grad=("X",),
        name="reverse_axis_named_twice",
    ),
]

# Paddle 2.6.2 recorded (tools/paddle26_op_cases.py): the family's cases of issue 96
from tests.ops.paddle26 import recorded_cases  # noqa: E402

CASES += recorded_cases("manipulation")
