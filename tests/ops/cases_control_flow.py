"""Op cases for family control_flow: split_lod_tensor, merge_lod_tensor (and its inference twin), is_empty,
select_input and select_output (the block ops and
tensor arrays are checked in tests/test_control_flow_*.py)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(13)
M = np.array([[True], [False], [True], [True], [False]])
R = rng.normal(size=(5, 3))

CASES = [
    OpCase(
        "split_lod_tensor",
        {"X": R, "Mask": M},
        lambda i, a: {"OutTrue": i["X"][i["Mask"][:, 0]], "OutFalse": i["X"][~i["Mask"][:, 0]]},
        grad=("X",),
    ),
    OpCase(
        "merge_lod_tensor",
        {"Mask": M, "InTrue": R[:3], "InFalse": R[3:]},
        lambda i, a: {"Out": np.stack([R[0], R[3], R[1], R[2], R[4]])},
        grad=("InTrue", "InFalse"),
    ),
    OpCase(
        "merge_lod_tensor_infer",
        {"Mask": M, "InTrue": R[:3], "InFalse": R[3:]},
        lambda i, a: {"Out": np.stack([R[0], R[3], R[1], R[2], R[4]])},
    ),
    OpCase("is_empty", {"X": R}, lambda i, a: {"Out": np.array([False])}),
    OpCase("is_empty", {"X": np.zeros((0, 3))}, lambda i, a: {"Out": np.array([True])}, name="is_empty_true"),
    OpCase(
        "select_input",
        {"X": [R, R * 2, R * 3], "Mask": np.array([1], np.int32)},
        lambda i, a: {"Out": i["X"][1]},
        grad=("X",),
    ),
    OpCase(
        "select_output",
        {"X": R, "Mask": np.array([0], np.int32)},
        lambda i, a: {"Out": [i["X"]]},
        num_outputs={"Out": 1},
        grad=("X",),
    ),
]
