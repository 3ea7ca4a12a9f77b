"""Op cases for momentum (Fluid 1.8's update, and Paddle 2.x's rescale_grad, l2_decay and master
copy) and merged_momentum (Paddle 2.x's momentum over lists; pe_cli/kernels/momentum_terms.py),
against numpy references written from the formulas."""

from op_test import OpCase
from tests.ops.cases_fused_optimizer import _lists
from tests.ops.cases_optimizer import _momentum, lr, r


def _momentum_2x(i, a):
    """Paddle 2.x's momentum: Grad * rescale_grad (+ regularization_coeff * Param for l2_decay), and with
    multi_precision the update on MasterParam, ParamOut its cast."""
    on_master = a.get("multi_precision") and "MasterParam" in i
    p = i["MasterParam"] if on_master else i["Param"]
    g = i["Grad"] * a.get("rescale_grad", 1.0)
    if a.get("regularization_method") == "l2_decay":
        g = g + a["regularization_coeff"] * p
    out = _momentum(dict(i, Param=p, Grad=g), dict(a, use_nesterov=a.get("use_nesterov", False)))
    if on_master:
        return dict(out, ParamOut=out["ParamOut"].astype(i["Param"].dtype), MasterParamOut=out["ParamOut"])
    return dict(out, MasterParamOut=i["MasterParam"]) if "MasterParam" in i else out


def _merged(i, a):
    """merged_momentum's reference: _momentum_2x on each parameter, its own learning rate or the one,
    its own regularization entry."""
    n, lrs = len(i["Param"]), i["LearningRate"]
    methods, coeffs = a.get("regularization_method") or [""] * n, a.get("regularization_coeff") or [0.0] * n
    outs = [
        _momentum_2x(
            dict(
                {s: v[k] for s, v in i.items() if s != "LearningRate"}, LearningRate=lrs[k] if len(lrs) > 1 else lrs[0]
            ),
            dict(a, regularization_method=methods[k], regularization_coeff=coeffs[k]),
        )
        for k in range(n)
    ]
    return {slot: [o[slot] for o in outs] for slot in outs[0]}


_MERGED_ATTRS = {
    "mu": 0.9,
    "use_nesterov": True,
    "rescale_grad": 0.5,
    "regularization_method": ["l2_decay", "", "l2_decay"],
    "regularization_coeff": [2.0, 0.0, 0.1],
}

CASES = [
    OpCase(
        "momentum",
        {"Param": r(3, 4), "Grad": r(3, 4), "Velocity": r(3, 4), "LearningRate": lr(0.1)},
        _momentum,
        attrs={"mu": 0.9},
    ),
    OpCase(
        "momentum",
        {"Param": r(2, 3), "Grad": r(2, 3), "Velocity": r(2, 3), "LearningRate": lr(0.05)},
        _momentum,
        attrs={"mu": 0.8, "use_nesterov": True},
        name="momentum_nesterov",
    ),
    OpCase(
        "momentum",
        {"Param": r(3, 4), "Grad": r(3, 4), "Velocity": r(3, 4), "LearningRate": lr(0.1)},
        _momentum_2x,
        attrs={"mu": 0.9, "rescale_grad": 0.25, "regularization_method": "l2_decay", "regularization_coeff": 2.0},
        name="momentum_paddle2_l2_decay",
    ),
    OpCase(
        "momentum",
        {
            "Param": r(3, 4, dtype="float32"),
            "Grad": r(3, 4, dtype="float32"),
            "Velocity": r(3, 4),
            "LearningRate": lr(0.1),
            "MasterParam": r(3, 4),
        },
        _momentum_2x,
        attrs={"mu": 0.9, "multi_precision": True},
        name="momentum_paddle2_master_param",
    ),
    OpCase(
        "merged_momentum",
        dict(_lists("Param", "Grad", "Velocity"), LearningRate=[lr(0.1), lr(0.2), lr(0.3)]),
        _merged,
        attrs=_MERGED_ATTRS,
        num_outputs={"ParamOut": 3, "VelocityOut": 3},
        name="merged_momentum",
    ),
    OpCase(
        "merged_momentum",
        dict(_lists("Param", "Grad", "Velocity"), LearningRate=[lr(0.1)]),
        _merged,
        attrs={"mu": 0.8},
        num_outputs={"ParamOut": 3, "VelocityOut": 3},
        name="merged_momentum_one_learning_rate",
    ),
]
