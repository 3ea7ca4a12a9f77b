"""affine_channel's, lrn's, norm's, instance_norm's and group_norm's structured kernels (shapes/normalization.py, kernels/cpu/normalization.py,
kernels/cpu/normalization_groups.py, issue 95): the ops and their gradients write every element of the buffers they are handed (a ``fresh`` variant: a
new C-contiguous array of its own), with the op case's reference values and the op's kernel's bits, in both
layouts; a step decides its Meta once per shape signature."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_matrix import _run
from tests.kernels.test_structured_padding import _step

rng = np.random.default_rng(23)
_NORMS = CASES["affine_channel, lrn and norm"]
_GROUPS = CASES["instance_norm and group_norm"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("layout", ["c", "fortran"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("case", _NORMS, ids=[c.id for c in _NORMS])
def test_norm_out_kernels_fill_what_they_are_handed(case, dtype, layout):
    """Every op case of the three, forward and gradient, in three dtypes, C- and Fortran-ordered: the outputs are the
    buffers handed, every element written, the case's reference values and the op's kernel's bits."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext(paddle2=case.paddle2)
    ins = {}
    for slot, value in case.inputs.items():
        a = np.asarray(value).astype(dtype)
        ins[slot] = np.asfortranarray(a) if layout == "fortran" else a
    outs = _run(case.op, ins, attrs, ctx)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    assert outs.keys() == want.keys() and all(outs[s].tobytes() == want[s].tobytes() for s in outs)
    ref = case.ref({k: np.asarray(v, np.float64) for k, v in ins.items()}, attrs)["Out"]
    tol = {"float64": 1e-6, "float32": 1e-4, "float16": 2e-2}[dtype]
    np.testing.assert_allclose(outs["Out"].astype(np.float64), ref, rtol=tol, atol=tol)
    grad = registry.get(case.op + "_grad")
    given = dict(ins, **outs, **{"Out@GRAD": rng.uniform(-1, 1, outs["Out"].shape).astype(outs["Out"].dtype)})
    gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
    douts = _run(grad.type, gins, attrs, ctx)
    gwant = grad.kernel("cpu")(gins, dict(attrs), ctx)
    assert douts.keys() == gwant.keys()
    assert all(douts[s].tobytes() == gwant[s].tobytes() for s in douts)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("layout", ["c", "fortran"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("case", _GROUPS, ids=[c.id for c in _GROUPS])
def test_group_norm_out_kernels_fill_what_they_are_handed(case, dtype, layout):
    """instance_norm's and group_norm's op cases, forward and gradient, in three dtypes, C- and Fortran-ordered: the
    buffers handed filled, the case's reference Y and the op's kernel's bits, the statistics too."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext()
    ins = {}
    for slot, value in case.inputs.items():
        a = np.asarray(value).astype(dtype)
        ins[slot] = np.asfortranarray(a) if layout == "fortran" else a
    outs = _run(case.op, ins, attrs, ctx)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    assert outs.keys() == want.keys() and all(outs[s].tobytes() == want[s].tobytes() for s in outs)
    ref = case.ref({k: np.asarray(v, np.float64) for k, v in ins.items()}, attrs)["Y"]
    tol = {"float64": 1e-6, "float32": 1e-4, "float16": 2e-2}[dtype]
    np.testing.assert_allclose(outs["Y"].astype(np.float64), ref, rtol=tol, atol=tol)
    grad = registry.get(case.op + "_grad")
    given = dict(ins, **outs, **{"Y@GRAD": rng.uniform(-1, 1, outs["Y"].shape).astype(outs["Y"].dtype)})
    gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
    douts = _run(grad.type, gins, attrs, ctx)
    gwant = grad.kernel("cpu")(gins, dict(attrs), ctx)
    assert douts.keys() == gwant.keys()
    assert all(douts[s].tobytes() == gwant[s].tobytes() for s in douts)


def test_a_norm_step_decides_its_meta_once_per_shape_signature():
    """norm's step: its meta rule once per shape and dtype of X; each run X over its L2 norm along axis 1."""
    step = _step("norm", {"X": ["x"]}, {"axis": 1, "epsilon": 1e-10}, {"Out": ["y"], "Norm": ["n"]})
    inner = inspect.unwrap(step.kernel)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    for feed in (x, x + 1, x[:2].copy()):
        values = Values({"x": feed})
        run_step(step, values)
        n = np.sqrt(np.sum(feed * feed, axis=1, keepdims=True) + np.float32(1e-10))
        assert values["y"].tobytes() == (feed / n).tobytes() and values["n"].tobytes() == n.tobytes()
    assert len(inner.metas) == 2
