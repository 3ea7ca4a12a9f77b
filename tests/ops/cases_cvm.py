"""Op cases for cvm (ops/cvm.py): forward against Fluid 1.8's formulas. Its gradient is not a
derivative (Fluid passes the CVM input back on the show and click columns), so it is checked in
tests/layers/test_cvm.py against that rule rather than by finite differences."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(73)
_X = np.concatenate([rng.integers(0, 9, (4, 2)).astype(np.float64), rng.normal(size=(4, 3))], axis=1)


def _use_cvm(i, a):
    x = i["X"].copy()
    x[:, 0] = np.log(i["X"][:, 0] + 1)
    x[:, 1] = np.log(i["X"][:, 1] + 1) - np.log(i["X"][:, 0] + 1)
    return {"Y": x}


CASES = [
    OpCase("cvm", {"X": _X, "CVM": _X[:, :2].copy()}, _use_cvm),
    OpCase(
        "cvm",
        {"X": _X, "CVM": _X[:, :2].copy()},
        lambda i, a: {"Y": i["X"][:, 2:]},
        attrs={"use_cvm": False},
        name="cvm_drop_columns",
    ),
]
