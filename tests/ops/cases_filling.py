"""Op cases for family filling: Paddle 2.6.2's recorded values (tests/ops/paddle26.py); empty's values are not
meant to be read: its case checks the shape and dtype; full_int_array (a PIR op Paddle 2.6.2's static executor
crashes on, SIGSEGV) against its definition."""

import numpy as np

from op_test import OpCase
from tests.ops.paddle26 import recorded_cases


def _empty_check(outs, inputs):
    assert outs["Out"].shape == (2, 3) and outs["Out"].dtype == np.float64


CASES = recorded_cases("filling") + [
    OpCase("empty", {}, attrs={"shape": [2, 3], "dtype": 6}, outputs=("Out",), check=_empty_check, name="empty"),
    OpCase(
        "full_int_array",
        {},
        lambda i, a: {"out": np.array([3, -1, 7], np.int64)},
        attrs={"value": [3, -1, 7], "dtype": 3},
        name="full_int_array",
    ),
]
