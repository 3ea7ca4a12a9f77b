"""Op cases for the fused update ops (pe_cli/ops/fused_optimizer.py): each list entry updated by the
numpy reference of its update op (tests/ops/cases_optimizer.py, written from the formulas), the
learning rate shared. Parameters of different shapes, as a model's weights and biases."""

from op_test import OpCase
from pe_cli.ops import registry
from tests.ops.cases_optimizer import _adam, _momentum, _sgd, lr, pos, r


def _fused(update):
    """The reference of a fused op: ``update`` on the i-th entry of every list, in turn."""

    def ref(i, a):
        n = len(i["Param"])
        outs = [
            update(dict({s: v[k] for s, v in i.items() if s != "LearningRate"}, LearningRate=i["LearningRate"]), a)
            for k in range(n)
        ]
        return {slot: [o[slot] for o in outs] for slot in outs[0]}

    return ref


def _case(op, update, inputs, attrs=None, name="", **kw):
    n = len(inputs["Param"])
    outs = [slot.name for slot in registry.get(op).outputs]
    return OpCase(
        op, inputs, _fused(update), attrs=attrs or {}, num_outputs={s: n for s in outs}, name=name or op, **kw
    )


_SHAPES = [(3, 4), (4,), (2, 2, 3)]


def _lists(*names, make=r, dtype="float64"):
    return {name: [make(*s, dtype=dtype) for s in _SHAPES] for name in names}


CASES = [
    _case("fused_sgd", _sgd, dict(_lists("Param", "Grad"), LearningRate=lr(0.1))),
    _case(
        "fused_sgd",
        _sgd,
        dict(_lists("Param", "Grad", dtype="float32"), LearningRate=lr(0.5, "float32")),
        name="fused_sgd_float32",
    ),
    _case(
        "fused_momentum", _momentum, dict(_lists("Param", "Grad", "Velocity"), LearningRate=lr(0.1)), attrs={"mu": 0.9}
    ),
    _case(
        "fused_momentum",
        _momentum,
        dict(_lists("Param", "Grad", "Velocity"), LearningRate=lr(0.05)),
        attrs={"mu": 0.8, "use_nesterov": True},
        name="fused_momentum_nesterov",
    ),
    _case(
        "fused_adam",
        _adam,
        dict(
            _lists("Param", "Grad", "Moment1"),
            **_lists("Moment2", make=pos),
            Beta1Pow=[lr(0.9**k) for k in (1, 2, 3)],
            Beta2Pow=[lr(0.999**k) for k in (1, 2, 3)],
            LearningRate=lr(0.01),
        ),
        attrs={"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
    ),
]
