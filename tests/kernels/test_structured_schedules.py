"""The structured kernels of lr_schedule, average_accumulates, dpsgd and dgc_momentum (shapes/optimizer.py;
kernels/cpu/optimizer_schedules.py, optimizer.py; issue 95): lr_schedule's "fill" writes its rate into the buffer it
is handed; average_accumulates, dpsgd and dgc_momentum are "numpy" variants (fresh), dgc_momentum before any ramp-up
its inputs as they are (Meta.aliases). Checked here: every op case of them, outputs of the Meta's shapes and dtypes,
a fresh one sharing no input's memory, a handed buffer filled completely, with the recorded values and the op's
kernel's bits (dpsgd's noise drawn alike from a seeded Generator); average_accumulates' rule refuses a window it
cannot keep with the kernel's line; a step decides its Meta once per shape signature."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

_CASES = CASES["schedules and noisy updates"]


def _context():
    return KernelContext(rng=np.random.default_rng(11))


def _outputs(op, ins, attrs):
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, _context())
    told = getattr(structured.cpu, "takes_context", False)
    answers = []
    for fill in (None,) if meta.fresh or meta.aliases else (np.nan, -7.25):
        outs = {slot: ins[src] for slot, src in meta.aliases.items()}
        if not meta.fresh and not meta.aliases:
            outs = {s: np.full(shape, fill, dt) for s, (shape, dt) in meta.outputs.items()}
        handed = dict(outs)
        args = (ins, outs, dict(attrs), meta) + ((_context(),) if told else ())
        assert structured.cpu(*args) is None, f"{op}: the out-kernel returned something"
        assert outs.keys() == meta.outputs.keys() and all(outs[s] is handed[s] for s in handed), op
        answers.append(outs)
    given = [v for v in ins.values() if isinstance(v, np.ndarray)]
    for slot, (shape, dtype) in meta.outputs.items():
        got = answers[0][slot]
        assert got.shape == tuple(shape) and got.dtype == dtype and got.flags.c_contiguous, (op, slot)
        if slot in meta.aliases:
            assert got is ins[meta.aliases[slot]], (op, slot)
        elif meta.fresh:
            assert not any(np.shares_memory(got, a) for a in given), f"{op}: {slot} shares an input's memory"
        else:
            assert got.tobytes() == answers[1][slot].tobytes(), f"{op}: {slot} not filled completely"
    return answers[0]


@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_out_kernels_put_the_meta_outputs(case):
    attrs = _attrs_with_defaults(case)
    ins = dict(case.inputs)
    outs = _outputs(case.op, ins, attrs)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), _context())
    assert outs.keys() == want.keys()
    for slot in outs:
        assert outs[slot].tobytes() == np.asarray(want[slot]).tobytes(), (case.id, slot)
    if case.ref is not None and case.op != "dpsgd":  # (dpsgd's reference draws its own noise)
        for slot, value in case.ref(case.inputs, attrs).items():
            np.testing.assert_allclose(outs[slot], value, rtol=case.rtol, atol=case.atol, err_msg=f"{case.id} {slot}")


def test_dgc_momentum_before_any_ramp_up_passes_its_inputs_through():
    op = registry.get("dgc_momentum")
    ins = {"Param": np.ones(3), "Grad": np.full(3, 2.0), "Velocity": np.zeros(3), "LearningRate": np.array([0.1])}
    ins.update(current_step=np.array([0.0]), nranks=np.array([2.0]))
    meta = op.structured.meta(dict(op.default_attrs(), rampup_begin_step=-1), ins, _context())
    assert meta.variant == "through" and dict(meta.aliases) == {
        "ParamOut": "Param",
        "VelocityOut": "Velocity",
        "Grad_out": "Grad",
    }
    moved = _outputs("dgc_momentum", ins, dict(op.default_attrs(), rampup_begin_step=0))
    assert moved["Grad_out"].tolist() == [1.0] * 3 and moved["ParamOut"].tolist() == [0.9] * 3


def test_average_accumulates_meta_refuses_a_window_it_cannot_keep():
    op = registry.get("average_accumulates")
    attrs = dict(op.default_attrs(), min_average_window=30, max_average_window=10)
    ins = {"param": np.ones(2), **{f"in_sum_{i}": np.ones(2) for i in (1, 2, 3)}}
    with pytest.raises(ValueError, match="min_average_window 30 exceeds max_average_window 10"):
        op.structured.meta(attrs, ins, _context())


def test_a_step_decides_its_meta_once_per_signature():
    attrs = {"kind": "exponential", "decay_steps": 2.0, "decay_rate": 0.5}
    step = _step("lr_schedule", {"Step": ["s"]}, attrs, {"Out": ["o"]})
    inner, calls = inspect.unwrap(step.kernel), []
    rule = inner.meta

    def counted(attrs, ins, facts):
        calls.append(ins["Step"].dtype)
        return rule(attrs, ins, facts)

    inner.meta = counted
    for s, dt in ((2, "int64"), (4, "int64"), (4, "int32")):
        values = Values({"s": np.array([s], dt)})
        run_step(step, values)
        assert values["o"].tolist() == [0.5 ** (s / 2)] and values["o"].dtype == np.float32
    assert calls == [np.dtype("int64"), np.dtype("int32")]
