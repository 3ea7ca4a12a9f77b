"""The diagonal ops' structured kernels (shapes/diagonals.py, kernels/cpu/diagonals.py, issue 95): diag_v2, diagonal
and fill_diagonal and their gradients write every element of the buffers they are handed, with the op case's
Paddle 2.6.2 values and the op's kernel's bits; a step decides its Meta once per shape signature."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _run, _step

rng = np.random.default_rng(17)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (an int64 buffer filled with NaN, the sentinel)
@pytest.mark.parametrize("layout", ["c", "fortran"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("case", CASES["diagonals"], ids=[c.id for c in CASES["diagonals"]])
def test_diagonal_out_kernels_fill_what_they_are_handed(case, dtype, layout):
    """Every op case of the family, forward and gradient, of three dtypes, C- and Fortran-ordered: the outputs are
    the buffers handed, every element written, C-contiguous, the op's kernel's bits."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext(paddle2=case.paddle2)
    (slot,) = case.inputs
    x = np.asarray(case.inputs[slot]).astype(dtype)
    ins = {slot: np.asfortranarray(x) if layout == "fortran" else x}
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    outs = _run(case.op, ins, attrs, ctx)
    assert outs["Out"].tobytes() == want["Out"].tobytes() and outs["Out"].shape == want["Out"].shape
    grad = registry.get(case.op + "_grad")
    gins = {slot: ins[slot], "Out@GRAD": rng.uniform(-1, 1, outs["Out"].shape).astype(outs["Out"].dtype)}
    douts = _run(grad.type, gins, attrs, ctx)
    gwant = grad.kernel("cpu")(gins, dict(attrs), ctx)
    assert douts[f"{slot}@GRAD"].tobytes() == gwant[f"{slot}@GRAD"].tobytes()


def test_a_fill_diagonal_step_decides_its_meta_once_per_shape_signature():
    """fill_diagonal's step: its meta rule once per shape and dtype of X; each run X with value on the diagonal."""
    step = _step("fill_diagonal", {"X": ["x"]}, {"value": 2.5, "wrap": True})
    inner = inspect.unwrap(step.kernel)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    for feed in (x, x, x[:3].copy()):
        values = Values({"x": feed})
        run_step(step, values)
        want = feed.copy()
        want.reshape(-1)[::4] = 2.5  # (stride 3 + 1; a tall matrix with wrap starts again below)
        assert values["y"].tobytes() == want.tobytes()
    assert len(inner.metas) == 2
