"""assert on a false Cond stops the run with one line naming the data's first `summarize` values (Paddle 2.6.2's
Assert raises, showing them)."""

import numpy as np
import pytest

from op_test import OpCase, run_forward
from pe_cli.base.errors import PeError


def test_assert_false_stops_the_run():
    case = OpCase(
        "assert",
        {"Cond": np.array([False]), "Data": [np.arange(5.0), np.array([7, 8])]},
        lambda i, a: {},
        attrs={"summarize": 2},
        check=lambda outs, inputs: None,
        name="assert_false",
    )
    with pytest.raises(
        PeError, match=r"assert: Cond is false; Data\[0\] \[5\]: \[0.0, 1.0\]; Data\[1\] \[2\]: \[7, 8\]"
    ):
        run_forward(case)
