"""The metric ops' structured kernels (shapes/metric.py, kernels/cpu/metric.py; issue 95): accuracy, auc, mean_iou,
positive_negative_pair and precision_recall count over the batch and write their few values into the buffers they
are handed ("counts"). Checked here: every op case of the family fills every element of the sentinel buffers it is
handed (two patterns, the same bits) with the op case's values and the op's kernel's bits; accuracy's and auc's
results are 0-D where the op builds Paddle 2.x's (``zero_dim``), [1] in Fluid's; auc's rule refuses a Predict that
is not [N, 1] or [N, 2] with the kernel's line; a step decides its Meta once per shape signature."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.errors import PeError
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

_METRIC = CASES["metric"]


def _filled(op, ins, attrs, ctx):
    """The op's out-kernel into buffers of two sentinel patterns; the outputs of the first (every element written:
    the two give the same bits)."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    assert meta.variant == "counts" and not meta.fresh, op
    answers = []
    for fill in (np.nan, -7.25):
        outs = {
            s: np.full(shape, fill if np.dtype(dt).kind == "f" else (77 if np.isnan(fill) else -5), dt)
            for s, (shape, dt) in meta.outputs.items()
        }
        handed = dict(outs)
        assert structured.cpu(ins, outs, dict(attrs), meta) is None, f"{op}: the out-kernel returned something"
        assert all(outs[s] is handed[s] for s in handed), f"{op}: an output is not the buffer it was handed"
        answers.append(outs)
    for slot in answers[0]:
        assert answers[0][slot].tobytes() == answers[1][slot].tobytes(), f"{op}: {slot} not filled completely"
    return answers[0]


@pytest.mark.parametrize("zero_dim", [False, True])
@pytest.mark.parametrize("case", _METRIC, ids=[c.id for c in _METRIC])
def test_out_kernels_fill_the_buffers_they_are_handed(case, zero_dim):
    attrs, ctx = _attrs_with_defaults(case), KernelContext(zero_dim=zero_dim)
    ins = dict(case.inputs)
    outs = _filled(case.op, ins, attrs, ctx)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    assert outs.keys() == want.keys()
    for slot in outs:
        assert outs[slot].shape == np.shape(want[slot]) and outs[slot].tobytes() == want[slot].tobytes(), slot
    if case.ref is not None:
        for slot, value in case.ref(case.inputs, attrs).items():
            np.testing.assert_allclose(outs[slot].reshape(-1), np.reshape(value, -1), rtol=case.rtol, atol=case.atol)


@pytest.mark.parametrize("op", ["accuracy", "auc"])
def test_one_value_is_0d_in_a_paddle2_program_and_1_in_fluid(op):
    if op == "accuracy":
        ins = {"Out": np.ones((3, 1)), "Indices": np.array([[1], [2], [0]]), "Label": np.array([[1], [0], [0]])}
        attrs, slot, want = {}, "Accuracy", np.float32(2 / 3)
    else:
        p = np.array([[0.9], [0.2], [0.6]])
        ins = {"Predict": p, "Label": np.array([[1], [0], [1]]), "StatPos": np.zeros((1, 4), "int64")}
        ins["StatNeg"] = ins["StatPos"]
        attrs, slot, want = {"num_thresholds": 3, "slide_steps": 0}, "AUC", 1.0
    attrs = dict(registry.get(op).default_attrs(), **attrs)
    for zero_dim, shape in ((True, ()), (False, (1,))):
        outs = _filled(op, ins, attrs, KernelContext(zero_dim=zero_dim))
        assert outs[slot].shape == shape and outs[slot].reshape(-1)[0] == want


def test_auc_meta_refuses_a_predict_of_more_than_two_columns():
    meta = registry.get("auc").structured.meta
    ins = {"Predict": np.ones((4, 3)), "Label": np.ones((4, 1)), "StatPos": np.zeros(1), "StatNeg": np.zeros(1)}
    with pytest.raises(PeError, match=r"auc: Predict \[4, 3\] must be \[N, 2\]"):
        meta({"num_thresholds": 3, "slide_steps": 0}, ins, KernelContext())


def test_a_step_decides_its_meta_once_per_signature():
    """(accuracy, auc and precision_recall run Fluid's shape checks on every call: their kernel by name, the rule run
    each time; mean_iou's step keeps its Meta.)"""
    outs = {"OutMeanIou": ["m"], "OutWrong": ["w"], "OutCorrect": ["c"]}
    step = _step("mean_iou", {"Predictions": ["p"], "Labels": ["l"]}, {"num_classes": 3}, outs)
    inner, calls = inspect.unwrap(step.kernel), []
    rule = inner.meta

    def counted(attrs, ins, facts):
        calls.append(ins["Predictions"].shape)
        return rule(attrs, ins, facts)

    inner.meta = counted
    for n in (4, 4, 6):
        p = np.arange(n, dtype="int32") % 3
        values = Values({"p": p, "l": np.zeros(n, "int32")})
        run_step(step, values)
        assert values["c"].tolist() == [(n + 2) // 3, 0, 0] and values["w"].sum() == 2 * (n - (n + 2) // 3)
    assert calls == [(4,), (6,)]
