"""Op cases for ops/linalg_fused.py against numpy: fusion_repeated_fc_relu (three fc + relu layers;
the layers before the last are ReluOut) and fusion_squared_mat_sub ((X Y)^2 - X^2 Y^2, times a float
attribute Fluid reads as float32). Forward only: Fluid gives them no gradient."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(76)
_WS = [rng.normal(size=s) for s in ((4, 3), (3, 5), (5, 2))]
_BS = [rng.normal(size=(1, w.shape[1])) for w in _WS]


def _repeated_ref(i, a):
    h, outs = i["X"], []
    for w, b in zip(i["W"], i["Bias"]):
        h = np.maximum(h @ w + b, 0)
        outs.append(h)
    return {"ReluOut": outs[:-1], "Out": outs[-1]}


def _squared_ref(i, a):
    x, y = i["X"], i["Y"]
    return {
        "SquaredX": x**2,
        "SquaredY": y**2,
        "SquaredXY": (x @ y) ** 2,
        "Out": ((x @ y) ** 2 - (x**2) @ (y**2)) * float(np.float32(a["scalar"])),
    }


CASES = [
    OpCase(
        "fusion_repeated_fc_relu",
        {"X": rng.normal(size=(3, 4)), "W": _WS, "Bias": _BS},
        _repeated_ref,
        num_outputs={"ReluOut": 2},
    ),
    OpCase(
        "fusion_squared_mat_sub",
        {"X": rng.normal(size=(3, 4)), "Y": rng.normal(size=(4, 2))},
        _squared_ref,
        attrs={"scalar": -0.3},
    ),
]
