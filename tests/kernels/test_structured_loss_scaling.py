"""The structured kernels of ops/adamw.py's other ops (shapes/optimizer.py, kernels/cpu/adamw.py; issue 95):
check_finite_and_unscale, update_loss_scaling and merged_adam, "numpy" variants (fresh: a new C-contiguous array of
its Meta's shape and dtype for each output, a list slot's one per variable), and pow2_decay_with_linear_warmup's
"fill", its two values written into the buffers it is handed (over LearningRate and Step where the executor lets
it: Meta.inplace). Checked here: every op case of them puts outputs of the Meta's shapes and dtypes with the recorded
values and the op's kernel's bits; pow2's buffers filled completely, also when they are its inputs; a step decides
its Meta once per shape signature."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.kernels.structured import allocate
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

_CASES = CASES["loss scaling"]


def _listed(value):
    return value if isinstance(value, list) else [value]


def _sentinel(shape, dtype, fill):
    """A buffer holding ``fill`` alone (NaN or -7.25; 77 or -5 in ints)."""
    return np.full(shape, fill if np.dtype(dtype).kind == "f" else (77 if np.isnan(fill) else -5), dtype)


def _outputs(op, ins, attrs):
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, KernelContext())
    answers = []
    for fill in (None,) if meta.fresh else (np.nan, -7.25):
        outs = {} if meta.fresh else {s: _sentinel(shape, dt, fill) for s, (shape, dt) in meta.outputs.items()}
        handed = dict(outs)
        assert structured.cpu(ins, outs, dict(attrs), meta) is None, f"{op}: the out-kernel returned something"
        assert outs.keys() == meta.outputs.keys(), op
        assert all(outs[s] is handed[s] for s in handed), f"{op}: an output is not the buffer it was handed"
        answers.append(outs)
    given = [a for v in ins.values() for a in _listed(v) if isinstance(a, np.ndarray)]
    for slot, spec in meta.outputs.items():
        got = _listed(answers[0][slot])
        assert len(got) == len(_listed(spec)), (op, slot)
        for a, (shape, dtype) in zip(got, _listed(spec)):
            assert isinstance(a, np.ndarray) and a.flags.c_contiguous and a.shape == tuple(shape), (op, slot)
            assert a.dtype == dtype, (op, slot, a.dtype, dtype)
            if meta.fresh:
                assert not any(np.shares_memory(a, g) for g in given), f"{op}: {slot} shares an input's memory"
        if not meta.fresh:  # (an element left unwritten keeps its sentinel, which differs between the runs)
            assert answers[0][slot].tobytes() == answers[1][slot].tobytes(), f"{op}: {slot} not filled completely"
    return answers[0]


@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_out_kernels_put_the_meta_outputs(case):
    attrs = _attrs_with_defaults(case)
    ins = dict(case.inputs)
    outs = _outputs(case.op, ins, attrs)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs))
    assert outs.keys() == want.keys()
    for slot in outs:
        for a, b in zip(_listed(outs[slot]), _listed(want[slot]), strict=True):
            assert a.tobytes() == np.asarray(b).tobytes(), (case.id, slot)
    if case.ref is not None:
        for slot, value in case.ref(case.inputs, attrs).items():
            for a, b in zip(_listed(outs[slot]), _listed(value), strict=True):
                np.testing.assert_allclose(a, b, rtol=case.rtol, atol=case.atol, err_msg=f"{case.id} {slot}")


def test_pow2_decay_writes_over_its_learning_rate_and_step_where_it_is_let():
    op = registry.get("pow2_decay_with_linear_warmup")
    attrs = dict(op.default_attrs(), warmup_steps=4, total_steps=8, base_lr=0.5, end_lr=0.0)
    ins = {"LearningRate": np.array([9.0], "float32"), "Step": np.array([1], "int64")}
    meta = op.structured.meta(attrs, ins, KernelContext())
    assert dict(meta.inplace) == {"LearningRateOut": "LearningRate", "StepOut": "Step"}
    outs = allocate(meta, ins, overwrite=True)
    assert outs["LearningRateOut"] is ins["LearningRate"] and outs["StepOut"] is ins["Step"]
    op.structured.cpu(ins, outs, attrs, meta)
    assert ins["Step"].tolist() == [2] and ins["LearningRate"].tolist() == [np.float32(0.5 * 2 / 4)]


def test_a_step_decides_its_meta_once_per_signature():
    step = _step(
        "check_finite_and_unscale", {"X": ["a", "b"], "Scale": ["s"]}, {}, {"Out": ["c", "d"], "FoundInfinite": ["f"]}
    )
    inner, calls = inspect.unwrap(step.kernel), []
    rule = inner.meta

    def counted(attrs, ins, facts):
        calls.append(tuple(x.shape for x in ins["X"]))
        return rule(attrs, ins, facts)

    inner.meta = counted
    for n in (3, 3, 5):
        a, b = np.full(n, 2.0, "float32"), np.ones((2, n), "float32")
        values = Values({"a": a, "b": b, "s": np.array([4.0], "float32")})
        run_step(step, values)
        assert values["c"].tolist() == [0.5] * n and values["f"].tolist() == [False]
    assert calls == [((3,), (2, 3)), ((5,), (2, 5))]
