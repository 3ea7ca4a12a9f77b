"""ftrl of a row-sparse Grad (a SelectedRows gradient: an embedding's) updates only the rows Grad holds, their
duplicates summed, as Fluid's and Paddle's SparseFTRLFunctor; every other row of Param and the accumulators keeps
its values. pe densified the Grad (0 elsewhere) and so zeroed every untouched row of Param, without a word, before
2026-11-30 (Paddle 2.6's test_ftrl_op.py, TestSparseFTRLOp). On the CPU and, on the host, CUDA."""

import numpy as np
import pytest

from pe_cli.base.selected_rows import SelectedRows
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry

rng = np.random.default_rng(17)


def _sparse_ftrl(param, grad, rows, sq, lin, lr, l1, l2, lr_power):
    """Paddle's test_ftrl_op.py's ftrl_step: the hit rows updated, the others as they were."""
    l1, l2 = l1 + 1e-10, l2 + 1e-10
    p, s, li = param[rows], sq[rows], lin[rows]
    new = s + grad * grad
    c = -lr_power
    lin_u = li + grad - (new**c - s**c) / lr * p
    p_u = np.where(np.abs(lin_u) > l1, (l1 * np.sign(lin_u) - lin_u) / (new**c / lr + 2 * l2), 0.0)
    outs = param.copy(), sq.copy(), lin.copy()
    for out, value in zip(outs, (p_u, new, lin_u)):
        out[rows] = value
    return outs


@pytest.mark.parametrize("lr_power", [-0.5, -0.6])
def test_a_row_sparse_grad_updates_only_its_rows(lr_power):
    height, width = 10, 6
    param = rng.random((height, width)).astype("float32")
    sq = np.full((height, width), 0.1, "float32")
    lin = np.full((height, width), 0.1, "float32")
    values = rng.random((4, width)).astype("float32")
    grad = SelectedRows(np.array([0, 4, 7, 4]), values, height)  # (row 4 twice: summed)
    summed = np.stack([values[0], values[1] + values[3], values[2]])
    want = _sparse_ftrl(param, summed, [0, 4, 7], sq, lin, np.float32(0.01), 0.1, 0.2, lr_power)
    ftrl = registry.get("ftrl")
    attrs = dict(ftrl.default_attrs(), l1=0.1, l2=0.2, lr_power=lr_power)
    for leave in (KernelContext(update_in_place=True), KernelContext()):
        ins = {"Param": param.copy(), "Grad": grad, "SquaredAccumulator": sq.copy(), "LinearAccumulator": lin.copy()}
        outs = ftrl.kernel("cpu")(dict(ins, LearningRate=np.array([0.01], "float32")), attrs, leave)
        for slot, expected in zip(("ParamOut", "SquaredAccumOut", "LinearAccumOut"), want):
            np.testing.assert_allclose(outs[slot], expected, rtol=1e-5, atol=1e-6)
        untouched = [r for r in range(height) if r not in (0, 4, 7)]
        assert np.array_equal(outs["ParamOut"][untouched], param[untouched])
        assert (outs["ParamOut"] is ins["Param"]) == leave.update_in_place


def test_cuda_runs_a_row_sparse_ftrl_on_the_host():
    rt = pytest.importorskip("pe_cli.kernels.cuda.runtime")
    if not rt.available():
        pytest.skip("no CUDA device and no simulator")
    height, width = 6, 3
    param, sq, lin = rng.random((height, width)), np.full((height, width), 0.2), np.zeros((height, width))
    values = rng.random((2, width))
    grad = SelectedRows(np.array([1, 5]), values, height)
    ins = {"Param": param, "Grad": grad, "SquaredAccumulator": sq, "LinearAccumulator": lin}
    ins["LearningRate"] = np.array([0.05])
    ftrl = registry.get("ftrl")
    want = ftrl.kernel("cpu")(dict(ins), ftrl.default_attrs())
    on_device = {
        k: v.with_arrays(v.rows, rt.to_device(v.values)) if k == "Grad" else rt.to_device(v) for k, v in ins.items()
    }
    got = ftrl.kernel("cuda")(on_device, ftrl.default_attrs())
    for slot in want:
        np.testing.assert_array_equal(rt.to_host(got[slot]), want[slot])
