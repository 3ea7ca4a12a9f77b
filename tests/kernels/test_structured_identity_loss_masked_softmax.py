"""The structured kernels of identity_loss and fused_softmax_mask and their grad ops (shapes/loss_identity.py,
shapes/softmax.py; kernels/cpu/loss_identity.py, masked_softmax.py; issue 95). Checked here: every op case of them,
in float64 and float32, forward and gradient: a fresh output a new C-contiguous array of its Meta's shape and dtype
sharing no input's memory, a handed buffer filled completely (two sentinel patterns, the same bits), an alias the
input itself (identity_loss's reduction 2), with the recorded values and the op's kernel's bits."""

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES

_CASES = CASES["identity_loss and fused_softmax_mask"]


def _outputs(op, ins, attrs):
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, KernelContext())
    filled = not meta.fresh and not meta.aliases
    answers = []
    for fill in (np.nan, -7.25) if filled else (None,):
        outs = {slot: ins[src] for slot, src in meta.aliases.items()}
        if filled:
            outs = {s: np.full(shape, fill, dt) for s, (shape, dt) in meta.outputs.items()}
        handed = dict(outs)
        assert structured.cpu(ins, outs, dict(attrs), meta) is None, f"{op}: the out-kernel returned something"
        assert outs.keys() == meta.outputs.keys() and all(outs[s] is handed[s] for s in handed), op
        answers.append(outs)
    for slot, (shape, dtype) in meta.outputs.items():
        got = answers[0][slot]
        assert got.shape == tuple(shape) and got.dtype == dtype, (op, slot, got.shape, shape)
        if slot in meta.aliases:
            assert got is ins[meta.aliases[slot]], (op, slot)
        elif meta.fresh:
            assert got.flags.c_contiguous and not any(np.shares_memory(got, v) for v in ins.values()), (op, slot)
        else:
            assert got.tobytes() == answers[1][slot].tobytes(), f"{op}: {slot} not filled completely"
    return answers[0]


def _grad_inputs(case, ins, outs, dtype):
    d = np.random.default_rng(5).uniform(-1, 1, size=outs["Out"].shape).astype(dtype)
    given = dict(ins, Out=outs["Out"], **{"Out@GRAD": d})
    return {s.name: given[s.name] for s in registry.get(case.op + "_grad").inputs}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_out_kernels_put_or_fill_the_meta_outputs(case, dtype):
    attrs = _attrs_with_defaults(case)
    ins = {s: np.asarray(v).astype(dtype) for s, v in case.inputs.items()}
    outs = _outputs(case.op, ins, attrs)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs))
    assert outs["Out"].tobytes() == np.asarray(want["Out"]).tobytes()
    if dtype == "float64" and case.ref is not None:
        for slot, value in case.ref(case.inputs, attrs).items():
            np.testing.assert_allclose(outs[slot], value, rtol=case.rtol, atol=case.atol)
    gins = _grad_inputs(case, ins, outs, dtype)
    douts = _outputs(case.op + "_grad", gins, attrs)
    gwant = registry.get(case.op + "_grad").kernel("cpu")(gins, dict(attrs))
    assert douts["X@GRAD"].tobytes() == np.asarray(gwant["X@GRAD"]).tobytes()


def test_identity_loss_without_reduction_passes_x_and_its_gradient_through():
    x, d = np.arange(6.0).reshape(2, 3)[:, ::2], np.ones((2, 2))
    assert _outputs("identity_loss", {"X": x}, {"reduction": 2})["Out"] is x
    assert _outputs("identity_loss_grad", {"X": x, "Out@GRAD": d}, {"reduction": 2})["X@GRAD"] is d
    mean = _outputs("identity_loss_grad", {"X": x, "Out@GRAD": np.array(3.0)}, {"reduction": 1})["X@GRAD"]
    assert mean.tolist() == [[0.75, 0.75], [0.75, 0.75]]
