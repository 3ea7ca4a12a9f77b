"""The recurrent ops' structured kernels (shapes/recurrent.py, kernels/cpu/gru.py and lstm.py, issue 95): gru,
fusion_gru, lstm, gru_unit, lstm_unit and their gradients are fresh variants whose out-kernels hand over new
arrays of the Meta's shapes and dtypes (sharing no input's memory), the op's kernel's bits and the op cases'
reference values; the LoD ops' meta rules read the call's LoD, so a step keeps a Meta per shape signature and LoD;
their refusals come from the meta rules."""

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

rng = np.random.default_rng(29)


def _case_inputs(case, dtype):
    """The case's inputs as arrays (its float values in ``dtype``, ids as they are) and their LoDs."""
    ins = {}
    for slot, value in case.inputs.items():
        a = np.asarray(value)
        ins[slot] = a.astype(dtype) if a.dtype.kind == "f" else a
    lods = {slot: v.lod() for slot, v in case.inputs.items() if hasattr(v, "lod") and v.lod()}
    return ins, lods


def _out_kernel(op, ins, attrs, ctx):
    """The op's meta rule and out-kernel on ``ins`` into sentinel buffers of two fills: every output of a fresh
    Meta handed over as a new C-contiguous array of its shape (its length where the Meta's is -1) and dtype,
    sharing no input's memory; a loop's (beam_log_probs' float32 rows) the buffer handed, every element written."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    told = getattr(structured.cpu, "takes_context", False)
    answers = []
    for fill in (np.nan, -7.25):
        outs = {
            s: np.full(shape, fill if np.dtype(dtype).kind == "f" else 77, dtype)
            for s, (shape, dtype) in meta.outputs.items()
            if -1 not in shape
        }
        given = dict(outs)
        result = structured.cpu(ins, outs, dict(attrs), meta, ctx) if told else structured.cpu(ins, outs, attrs, meta)
        assert result is None, f"{op}: the out-kernel returned something"
        for slot, (shape, dtype) in meta.outputs.items():
            got = outs[slot]
            assert (got is not given.get(slot)) == meta.fresh and got.dtype == dtype, (op, slot)
            assert len(got.shape) == len(shape) and all(n in (-1, m) for n, m in zip(shape, got.shape)), (op, slot)
            assert got.flags.c_contiguous and not any(np.shares_memory(got, v) for v in ins.values()), (op, slot)
        answers.append(outs)
        if meta.fresh:
            break
    assert all(answers[0][s].tobytes() == answers[-1][s].tobytes() for s in meta.outputs), f"{op}: not all written"
    return answers[0]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["recurrent"], ids=[c.id for c in CASES["recurrent"]])
def test_recurrent_out_kernels_hand_over_every_output(case, dtype):
    """Every op case of the family in two dtypes, forward and gradient (from a random gradient of each float
    output): the outputs are the Meta's, the op's kernel's bits, and (float64) the case's reference values."""
    attrs = _attrs_with_defaults(case)
    ins, lods = _case_inputs(case, dtype)

    def ctx():  # (a drawing op's Generator seeded alike for each call: nce's, sample_logits')
        return KernelContext(rng=np.random.default_rng(5), lod=lods)

    outs = _out_kernel(case.op, ins, attrs, ctx())
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx())
    assert set(outs) == {s for s, v in want.items() if v is not None}
    assert all(outs[s].tobytes() == want[s].tobytes() for s in outs)
    if case.ref is not None and dtype == "float64":
        ref = case.ref(case.inputs, attrs)  # (the LoD tensors: the reference reads their sequences)
        for slot in [s for s in ref if s in (case.outputs or ref)]:
            np.testing.assert_allclose(outs[slot], ref[slot], rtol=case.rtol, atol=case.atol, err_msg=case.op + slot)
    if case.op + "_grad" not in registry.all_op_types():
        return
    grad = registry.get(case.op + "_grad")
    douts = {f"{s}@GRAD": rng.uniform(-1, 1, v.shape).astype(v.dtype) for s, v in outs.items()}
    given = {**ins, **outs, **douts}
    gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
    dins = _out_kernel(grad.type, gins, attrs, ctx())
    want = grad.kernel("cpu")(gins, dict(attrs), ctx())
    assert set(dins) == {s for s, v in want.items() if v is not None}
    for slot, value in dins.items():
        assert value.tobytes() == want[slot].tobytes(), (grad.type, slot)
        src = slot[: -len("@GRAD")]
        if src in gins and src not in ("H0", "C0"):
            assert value.shape == gins[src].shape, (grad.type, slot)


@pytest.mark.parametrize("op, gates", [("gru", 3), ("lstm", 4)])
def test_a_recurrent_step_keeps_a_meta_per_lod(op, gates):
    """A gru (lstm) step run on rows of one shape with two LoDs, each twice: Hidden is what the op's kernel
    computes with that call's LoD; lstm's step keeps one Meta per (signature, LoD), never one LoD's for the other
    (gru's, whose run-time infer checks its inputs (run_infer), runs its meta rule on every call)."""
    d = 2
    outputs = {"Hidden": ["h"], **({"Cell": ["c"]} if op == "lstm" else {})}
    step = _step(op, {"Input": ["x"], "Weight": ["w"], "Bias": ["b"]}, {}, outputs)
    x, w = rng.standard_normal((6, gates * d)), rng.standard_normal((d, gates * d))
    b = rng.standard_normal((1, 7 * d if op == "lstm" else 3 * d))
    kernel, attrs = registry.get(op).kernel("cpu"), registry.get(op).default_attrs()
    for lod in ([[0, 2, 6]], [[0, 1, 3, 6]], [[0, 2, 6]], [[0, 1, 3, 6]]):
        values = Values({"x": x, "w": w, "b": b}, {"x": lod})
        run_step(step, values)
        want = kernel({"Input": x, "Weight": w, "Bias": b}, dict(attrs), KernelContext(lod={"Input": lod}))
        assert values["h"].tobytes() == want["Hidden"].tobytes()
    if op == "lstm":
        assert len(inspect.unwrap(step.kernel).metas) == 2
    else:
        assert registry.get(op).run_infer and not registry.get(op).steps_structured()


def test_the_meta_rules_refuse_what_the_kernels_refused():
    """An initial state of another count of rows than Input's sequences, a LoD that does not end at Input's rows:
    refused by the meta rule, in one line naming them, before any out-kernel runs."""
    d = 2
    ins = {"Input": np.zeros((5, 3 * d)), "Weight": np.zeros((d, 3 * d)), "H0": np.zeros((3, d))}
    meta = registry.get("gru").structured.meta
    with pytest.raises(PeError, match="H0 has 3 rows but Input holds 2 sequences"):
        meta({}, ins, KernelContext(lod={"Input": [[0, 2, 5]]}))
    with pytest.raises(PeError, match="LoD ends at 4 but it has 5 rows"):
        registry.get("lstm").structured.meta(
            {}, {**ins, "Weight": np.zeros((d, 4 * d))}, KernelContext(lod={"Input": [[0, 4]]})
        )
