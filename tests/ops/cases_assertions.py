"""Op cases for family assertions: assert passes on a true Cond (a false one: tests/ops/test_assert_op.py)."""

import numpy as np
from op_test import OpCase


def _passes(outs, inputs):
    assert outs == {}


CASES = [
    OpCase(
        "assert",
        {"Cond": np.array([True]), "Data": [np.arange(3.0)]},
        lambda i, a: {},
        check=_passes,
        name="assert_true",
    )
]
