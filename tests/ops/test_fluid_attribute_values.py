"""Attribute values at the edge of what Fluid 1.8.5's op checkers let through, computed as Fluid's kernels
compute them where an op case's numpy reference cannot hold the result (inf and NaN outputs). The values
asserted are the oracle's (paddlepaddle 1.8.5 on the same inputs)."""

import dataclasses

import numpy as np
import pytest

from op_test import run_forward
from tests.ops.test_ops import all_cases

_CASES = {c.id: c for c in all_cases()}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the numpy reference, for the slot names
@pytest.mark.parametrize("ratio, loss", [(0, np.inf), (-1, np.nan)])
def test_yolov3_loss_downsample_ratio_below_1(ratio, loss):
    """input_size = downsample_ratio * H is 0 or negative: Fluid divides by it (inf) or takes the log of a
    negative size (NaN); its masks still come out, the oracle's."""
    case = dataclasses.replace(_CASES["yolov3_loss"], attrs=dict(_CASES["yolov3_loss"].attrs, downsample_ratio=ratio))
    outs = run_forward(case)
    np.testing.assert_array_equal(outs["Loss"], [loss, loss])
    np.testing.assert_array_equal(outs["GTMatchMask"], [[-1, -1, 0, 0, 0, 0, 0, 0], [-1, -1, 0, -1, 0, 0, 0, 0]])
