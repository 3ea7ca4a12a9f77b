"""Op cases for ops/tensor_storage.py: coalesce_tensor's outputs (its FusedOutput's length is the place's
alignment: tests/fluid/test_service_ops.py checks the CPU's) and delete_var (nothing to compute)."""

import numpy as np

from op_test import OpCase

_A, _B = np.arange(6, dtype=np.float32).reshape(2, 3), np.array([7.0, 8.0], np.float32)

CASES = [
    OpCase(
        "coalesce_tensor",
        {"Input": [_A, _B]},
        lambda i, a: {"Output": [_A, _B]},
        attrs={"copy_data": True, "dtype": "float32"},
        num_outputs={"Output": 2},
    ),
    OpCase(
        "coalesce_tensor",
        {"Input": [_A, _B]},
        lambda i, a: {"Output": [np.full((2, 3), 0.5, np.float32), np.full(2, 0.5, np.float32)]},
        attrs={"set_constant": True, "constant": 0.5, "dtype": "float32"},
        num_outputs={"Output": 2},
        name="coalesce_tensor_constant",
    ),
    OpCase("delete_var", {"X": [_A, _B]}, lambda i, a: {}),
]
