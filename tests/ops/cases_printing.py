"""Op cases for ops/printing.py: print passes its input through, forward and backward (what it writes
is checked in tests/layers/test_print_layer.py)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(52)

CASES = [
    OpCase("print", {"In": rng.normal(size=(2, 3))}, lambda i, a: {"Out": i["In"]}, grad=("In",)),
    OpCase(
        "print",
        {"In": rng.integers(0, 9, (4,)).astype(np.int64)},
        lambda i, a: {"Out": i["In"]},
        attrs={"summarize": -1, "print_phase": "FORWARD"},
        name="print_int64",
    ),
]
