"""cvm's and cvm_grad's structured kernels (shapes/cvm.py, kernels/cpu/cvm.py; issue 95): the "rows" variant writing
into the buffers it is handed, cvm_grad's CVM rows decided by its rule per LoD (Meta.args). Checked here: every op case,
forward and gradient (with and without LoD), in float64 and float32, fills every element of the sentinel buffers it is
handed with the recorded values and the op's kernel's bits; the rule refuses a CVM of too few rows with the kernel's
line."""

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.errors import PeError
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES

_CASES = CASES["cvm"]


def _filled(op, ins, attrs, ctx):
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    assert meta.variant == "rows" and not meta.fresh
    answers = []
    for fill in (np.nan, -7.25):
        outs = {s: np.full(shape, fill, dt) for s, (shape, dt) in meta.outputs.items()}
        handed = dict(outs)
        assert structured.cpu(ins, outs, dict(attrs), meta) is None
        assert all(outs[s] is handed[s] for s in outs)
        answers.append(outs)
    for s in answers[0]:
        assert answers[0][s].tobytes() == answers[1][s].tobytes(), f"{op}: {s} not filled completely"
    return answers[0]


@pytest.mark.parametrize("lod", [None, [[0, 1, 4]]])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_out_kernels_fill_the_buffers_they_are_handed(case, dtype, lod):
    attrs = _attrs_with_defaults(case)
    ins = {s: np.asarray(v).astype(dtype) for s, v in case.inputs.items()}
    ctx = KernelContext(lod={} if lod is None else {"X": lod})
    outs = _filled(case.op, ins, attrs, ctx)
    assert outs["Y"].tobytes() == registry.get("cvm").kernel("cpu")(ins, dict(attrs), ctx)["Y"].tobytes()
    if dtype == "float64":
        np.testing.assert_allclose(outs["Y"], case.ref(case.inputs, attrs)["Y"], rtol=case.rtol, atol=case.atol)
    gins = dict(ins, **{"Y@GRAD": np.random.default_rng(4).uniform(size=outs["Y"].shape).astype(dtype)})
    douts = _filled("cvm_grad", gins, attrs, ctx)
    want = registry.get("cvm_grad").kernel("cpu")(gins, dict(attrs), ctx)["X@GRAD"]
    assert douts["X@GRAD"].tobytes() == want.tobytes()


def test_meta_refuses_a_cvm_of_too_few_rows():
    meta = registry.get("cvm_grad").structured.meta
    ins = {"X": np.ones((3, 4)), "CVM": np.ones((1, 2)), "Y@GRAD": np.ones((3, 4))}
    ctx = KernelContext(lod={"X": [[0, 1, 3]]})
    with pytest.raises(PeError, match=r"cvm: CVM has 1 rows, but X needs 2 \(one per sequence\)"):
        meta({"use_cvm": True}, ins, ctx)
