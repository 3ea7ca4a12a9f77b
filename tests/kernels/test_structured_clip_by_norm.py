"""clip_by_norm's and dgc_clip_by_norm's structured kernels (shapes/elementwise.py, kernels/cpu/elementwise.py;
issue 95): numpy's form, "numpy" (fresh: a new array, or for a row-sparse X the SelectedRows of its merged rows), and
dgc_clip_by_norm before any ramp-up X itself (Meta.aliases). Checked here: every op case of them, a fresh Out a new
C-contiguous array of the Meta's shape and dtype sharing no input's memory (also where the value is X's, before the
ramp-up step), with the recorded values and the op's kernel's bits; a row-sparse X's merged rows clipped."""

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.selected_rows import SelectedRows
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES

_CASES = CASES["clip_by_norm"]


def _out(op, ins, attrs):
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, KernelContext())
    outs = {slot: ins[src] for slot, src in meta.aliases.items()}
    assert structured.cpu(ins, outs, dict(attrs), meta) is None
    got = outs["Out"]
    if "Out" in meta.aliases:
        assert got is ins["X"]
    elif isinstance(got, np.ndarray):
        assert got.shape == tuple(meta.outputs["Out"][0]) and got.dtype == meta.outputs["Out"][1]
        assert got.flags.c_contiguous and not any(np.shares_memory(got, v) for v in ins.values())
    return got


@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_out_kernels_put_the_meta_output(case):
    attrs = _attrs_with_defaults(case)
    got = _out(case.op, dict(case.inputs), attrs)
    want = registry.get(case.op).kernel("cpu")(dict(case.inputs), dict(attrs))["Out"]
    dense = [a.to_dense() if isinstance(a, SelectedRows) else a for a in (got, want)]
    assert dense[0].tobytes() == dense[1].tobytes()
    if case.ref is not None:
        np.testing.assert_allclose(dense[0], case.ref(case.inputs, attrs)["Out"], rtol=case.rtol, atol=case.atol)


@pytest.mark.parametrize("begin, step", [(-1, 0), (5, 2), (5, 5)])
def test_dgc_clip_by_norm_clips_from_its_ramp_up_step_on(begin, step):
    x = np.full((2, 2), 3.0)
    out = _out(
        "dgc_clip_by_norm",
        {"X": x, "current_step": np.array([float(step)])},
        {"max_norm": 1.0, "rampup_begin_step": begin},
    )
    clipped = 0 <= begin <= step
    assert out.tolist() == ([[0.5, 0.5], [0.5, 0.5]] if clipped else x.tolist())


def test_a_row_sparse_x_has_its_merged_rows_clipped():
    x = SelectedRows(np.array([1, 0, 1]), np.full((3, 2), 2.0), 4)
    out = _out("clip_by_norm", {"X": x}, {"max_norm": 1.0})
    assert isinstance(out, SelectedRows) and sorted(out.rows.tolist()) == [0, 1]
    assert np.isclose(np.sqrt(np.sum(out.values**2)), 1.0)
