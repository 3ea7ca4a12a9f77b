"""Op cases for family complex: complex, as_complex, as_real, real, imag, angle (forward; their gradients,
complex between real ends, are checked through chains against Paddle 2.6.2 and finite differences in
tests/paddle/test_paddle_function_oracle.py and tests/paddle/test_tensor_complex.py). References are
numpy's."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(764)
_Z = (rng.normal(size=(2, 3)) + 1j * rng.normal(size=(2, 3))).astype(np.complex128)
_Z[1, 1] = 0.0

CASES = [
    OpCase(
        "complex",
        {"X": rng.normal(size=(2, 3)), "Y": rng.normal(size=(1, 3))},
        lambda i, a: {"Out": i["X"] + 1j * i["Y"]},
    ),
    OpCase(
        "complex",
        {"X": rng.normal(size=(3,)).astype(np.float32), "Y": rng.normal(size=(3,)).astype(np.float32)},
        lambda i, a: {"Out": (i["X"] + 1j * i["Y"]).astype(np.complex64)},
        name="complex_float32",
    ),
    OpCase("as_complex", {"X": rng.normal(size=(2, 3, 2))}, lambda i, a: {"Out": i["X"][..., 0] + 1j * i["X"][..., 1]}),
    OpCase("as_real", {"X": _Z}, lambda i, a: {"Out": np.stack([i["X"].real, i["X"].imag], -1)}),
    OpCase("real", {"X": _Z}, lambda i, a: {"Out": i["X"].real}),
    OpCase("imag", {"X": _Z.astype(np.complex64)}, lambda i, a: {"Out": i["X"].imag}),
    OpCase("angle", {"X": _Z}, lambda i, a: {"Out": np.angle(i["X"])}),
    OpCase(
        "angle",
        {"X": np.array([[1.5, -2.0, 0.5]])},
        lambda i, a: {"Out": np.array([[0.0, np.pi, 0.0]])},
        grad=("X",),
        name="angle_of_real",
    ),
]
