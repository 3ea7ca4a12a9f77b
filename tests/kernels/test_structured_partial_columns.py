"""partial_concat's, partial_sum's and their gradients' structured kernels (shapes/partial_columns.py,
kernels/cpu/partial_columns.py; issue 95): the "columns" variant, the window decided once by the rule (Meta.args),
written into the buffers handed. Checked here: every op case, forward and gradient, in float64 and float32, fills
every element of the sentinel buffers it is handed (a list output's too: two patterns, the same bits) with the
recorded values and the op's kernel's bits; the rule refuses inputs of different shapes with the kernel's line."""

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.errors import PeError
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES

_CASES = CASES["partial columns"]


def _listed(v):
    return v if isinstance(v, list) else [v]


def _filled(op, ins, attrs):
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, KernelContext())
    assert meta.variant == "columns" and not meta.fresh
    answers = []
    for fill in (np.nan, -7.25):
        outs = {
            s: [np.full(sh, fill, dt) for sh, dt in spec] if isinstance(spec, list) else np.full(spec[0], fill, spec[1])
            for s, spec in meta.outputs.items()
        }
        handed = {s: list(_listed(v)) for s, v in outs.items()}
        assert structured.cpu(ins, outs, dict(attrs), meta) is None
        for s in outs:
            assert all(a is b for a, b in zip(_listed(outs[s]), handed[s], strict=True)), f"{op}: {s} not handed"
        answers.append(outs)
    for s in answers[0]:
        for a, b in zip(_listed(answers[0][s]), _listed(answers[1][s])):
            assert a.tobytes() == b.tobytes(), f"{op}: {s} not filled completely"
    return answers[0]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_out_kernels_fill_the_buffers_they_are_handed(case, dtype):
    attrs = _attrs_with_defaults(case)
    xs = [np.asarray(x).astype(dtype) for x in case.inputs["X"]]
    outs = _filled(case.op, {"X": xs}, attrs)
    want = registry.get(case.op).kernel("cpu")({"X": xs}, dict(attrs))
    assert outs["Out"].tobytes() == want["Out"].tobytes()
    if dtype == "float64":
        np.testing.assert_allclose(outs["Out"], case.ref(case.inputs, attrs)["Out"], rtol=case.rtol, atol=case.atol)
    d = np.random.default_rng(3).uniform(-1, 1, size=outs["Out"].shape).astype(dtype)
    gins = {"X": xs, "Out@GRAD": d}
    grads = _filled(case.op + "_grad", gins, attrs)
    gwant = registry.get(case.op + "_grad").kernel("cpu")(gins, dict(attrs))
    assert [g.tobytes() for g in grads["X@GRAD"]] == [g.tobytes() for g in gwant["X@GRAD"]]


def test_meta_refuses_inputs_of_different_shapes():
    meta = registry.get("partial_sum").structured.meta
    with pytest.raises(PeError, match=r"every input must be \[batch, n\] of one shape, got \[\(2, 3\), \(2, 4\)\]"):
        meta({"start_index": 0, "length": -1}, {"X": [np.ones((2, 3)), np.ones((2, 4))]}, KernelContext())
