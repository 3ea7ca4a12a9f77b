"""pe does not compute paddle.fft's gradients: a backward pass through fft_c2r (real Out; fft_c2c and fft_r2c
have the same grad maker) stops in one line naming the op, never a silent zero gradient."""

import numpy as np
import pytest

from op_test import OpCase, build_program
from pe_cli.base.errors import PeError


@pytest.mark.parametrize(
    "op,x,attrs",
    [
        ("fft_c2r", np.zeros((3, 4), np.complex128), {"axes": [1], "normalization": "backward", "forward": False}),
    ],
)
def test_fft_gradient_refused(op, x, attrs):
    case = OpCase(op, {"X": x}, lambda i, a: {}, attrs=attrs, grad=("X",), outputs=("Out",))
    with pytest.raises(PeError, match=f"{op}: pe does not compute its gradient"):
        build_program(case, ("Out",), with_loss=True)
