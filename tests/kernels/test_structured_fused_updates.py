"""The fused update ops' structured kernels (shapes/fused_optimizer.py, kernels/cpu/fused_optimizer.py; issue 95):
fused_sgd, fused_momentum and fused_adam, the meta rule of their update (sgd's, momentum's, adam's) on each
parameter's entries and the "each" variant (fresh: the values each parameter's update made). Checked here: every op
case of them puts, for every list output, one array per parameter of the Meta's shape and dtype, with the recorded
values and the separate updates' bits; where the call lets updates write in place, each parameter's update writes
over its Param and state as the separate update does; a step decides its Meta once per shape signature."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

_CASES = CASES["fused updates"]


def _outputs(op, ins, attrs, ctx):
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    assert meta.variant == "each" and meta.fresh, op
    outs = {}
    assert structured.cpu(ins, outs, dict(attrs), meta, ctx) is None, f"{op}: the out-kernel returned something"
    assert outs.keys() == meta.outputs.keys(), op
    for slot, specs in meta.outputs.items():
        assert len(outs[slot]) == len(specs) == len(ins["Param"]), (op, slot)
        for got, (shape, dtype) in zip(outs[slot], specs):
            assert got.shape == tuple(shape) and got.dtype == dtype, (op, slot, got.shape, shape)
    return outs


def _copied(inputs):
    return {s: [np.array(a) for a in v] if isinstance(v, list) else np.array(v) for s, v in inputs.items()}


@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_out_kernels_put_each_parameters_update(case):
    attrs = _attrs_with_defaults(case)
    ins = _copied(case.inputs)
    outs = _outputs(case.op, ins, attrs, KernelContext())
    base = registry.get(case.op[len("fused_") :]).kernel("cpu")
    for i in range(len(ins["Param"])):
        one = dict({s: v[i] for s, v in ins.items() if s != "LearningRate"}, LearningRate=ins["LearningRate"])
        want = base(one, dict(attrs))
        for slot in outs:
            assert outs[slot][i].tobytes() == np.asarray(want[slot]).tobytes(), (case.id, slot, i)
    if case.ref is not None:
        for slot, value in case.ref(case.inputs, attrs).items():
            for a, b in zip(outs[slot], value, strict=True):
                np.testing.assert_allclose(a, b, rtol=case.rtol, atol=case.atol, err_msg=f"{case.id} {slot}")


@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_in_place_each_update_writes_over_its_parameter(case):
    attrs = _attrs_with_defaults(case)
    apart = _outputs(case.op, _copied(case.inputs), attrs, KernelContext())
    ins = _copied(case.inputs)
    outs = _outputs(case.op, ins, attrs, KernelContext(update_in_place=True))
    for i, p in enumerate(outs["ParamOut"]):
        assert p is ins["Param"][i] and p.tobytes() == apart["ParamOut"][i].tobytes(), (case.id, i)


def test_a_step_decides_its_meta_once_per_signature():
    step = _step(
        "fused_sgd",
        {"Param": ["p0", "p1"], "Grad": ["g0", "g1"], "LearningRate": ["lr"]},
        {},
        {"ParamOut": ["p0", "p1"]},
    )
    inner, calls = inspect.unwrap(step.kernel), []
    rule = inner.meta

    def counted(attrs, ins, facts):
        calls.append(tuple(p.shape for p in ins["Param"]))
        return rule(attrs, ins, facts)

    inner.meta = counted
    for n in (3, 3, 4):
        feed = {"p0": np.ones(n), "p1": np.ones((2, n)), "g0": np.ones(n), "g1": np.full((2, n), 2.0)}
        values = Values(dict(feed, lr=np.array([0.5])))
        run_step(step, values)
        assert values["p0"].tolist() == [0.5] * n and values["p1"].tolist() == [[0.0] * n] * 2
    assert calls == [((3,), (2, 3)), ((4,), (2, 4))]
