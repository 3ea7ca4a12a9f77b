"""Op cases for inplace_abn (ops/normalization_activated.py): batch_norm's reference then the activation;
its gradient (which reads Y and inverts the activation) against float64 finite differences."""

import numpy as np

from op_test import OpCase
from tests.ops.cases_normalization import bn_ref

rng = np.random.default_rng(61)
_X = rng.normal(size=(3, 2, 2, 2))
_STATS = {"Scale": rng.uniform(0.5, 1.5, 2), "Bias": rng.normal(size=2), "Mean": np.zeros(2), "Variance": np.ones(2)}


def _abn(i, a):
    out = bn_ref(i["X"], i["Scale"], i["Bias"], i["Mean"], i["Variance"], is_test=a["is_test"])
    y = out["Y"]
    if a["activation"] == "leaky_relu":
        out["Y"] = np.where(y >= 0, y, a["alpha"] * y)
    elif a["activation"] == "elu":
        out["Y"] = np.where(y > 0, y, a["alpha"] * (np.exp(y) - 1))
    return out


CASES = [
    OpCase(
        "inplace_abn",
        dict(_STATS, X=_X),
        _abn,
        attrs={"activation": "leaky_relu", "alpha": 0.1},
        grad=("X", "Scale", "Bias"),
        outputs=("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance"),
        loss_outputs=("Y",),
        grad_rtol=1e-4,
    ),
    OpCase(
        "inplace_abn",
        dict(_STATS, X=_X),
        _abn,
        attrs={"activation": "elu", "alpha": 1.0},
        grad=("X", "Scale", "Bias"),
        outputs=("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance"),
        loss_outputs=("Y",),
        grad_rtol=1e-4,
        name="inplace_abn_elu",
    ),
    OpCase(
        "inplace_abn",
        dict(_STATS, X=_X),
        lambda i, a: {"Y": _abn(i, a)["Y"]},
        attrs={"is_test": True},
        name="inplace_abn_test",
    ),
]
