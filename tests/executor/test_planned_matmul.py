"""Planned CPU steps (PE_PLANNED_STEP=1) launch matmul's and matmul_v2's products and their gradients from their
out-kernels (kernels/cpu/matmul.py ``launches``: the GEMM loops of the form their Meta chose) and compute the bits
of op-by-op steps; a product through a scratch buffer (a transposed operand's gradient swapped back) runs as a
Python launch between segments."""

import numpy as np

from pe_cli import fluid
from pe_cli.paddle.tensor_products import matmul as matmul_v2
from tests.executor.test_planned_step import compiled_segments, planned_runs, small_run  # noqa: F401 (a fixture)


def _products(x):
    """x [16, 13] @ W [13, 13] (matmul), then as [4, 4, 13] @ V [13, 13] (matmul_v2: one GEMM of the rows), and
    x @ U^T (matmul with transpose_Y): U's gradient is swapped back from a scratch buffer."""
    w, v, u = (fluid.layers.create_parameter([13, 13], "float32", name=n) for n in ("w", "v", "u"))
    h = fluid.layers.matmul(x, w)
    h = fluid.layers.reshape(matmul_v2(fluid.layers.reshape(h, [4, 4, 13]), v), [16, 13])
    return fluid.layers.matmul(h, u, transpose_y=True)


def test_matmul_products_and_gradients_are_launched(monkeypatch):
    planned, exe = small_run(monkeypatch, True, _products)
    unplanned, _ = small_run(monkeypatch, False, _products)
    assert all(a.dtype == b.dtype and a.tobytes() == b.tobytes() for a, b in zip(planned, unplanned))
    (run,) = planned_runs(exe, 1)
    launched = [(s.op.type, s.op.attrs.get("transpose_Y")) for s, ls in zip(run.plan.steps, run.plan.launches) if ls]
    python = [(s.op.type, s.op.attrs.get("transpose_Y")) for s, ls in zip(run.plan.steps, run.plan.launches) if not ls]
    assert launched.count(("matmul", False)) == 1 and ("matmul", True) in launched
    assert any(t == "matmul_v2" for t, _ in launched)
    assert launched.count(("matmul_grad", False)) == 2  # (matmul_v2's gradient is a matmul_grad, as Paddle's)
    assert ("matmul_grad", True) in python  # U@GRAD swapped back through a scratch buffer
    assert np.isfinite(planned[0]).all()
