"""The sequence ops' structured kernels (shapes/sequence.py, kernels/cpu/sequence.py, issue 95): sequence_pool,
sequence_softmax and their gradients write every element of the buffers they are handed, the op's kernel's bits;
their meta rules read the call's LoD, so a step keeps a Meta per shape signature and LoD: the same shapes with
another LoD are never computed with a Meta decided on the first."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _run, _step
from tests.ops.cases_sequence import pool_ref, softmax_ref

rng = np.random.default_rng(23)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["sequence"], ids=[c.id for c in CASES["sequence"]])
def test_sequence_out_kernels_fill_what_they_are_handed(case, dtype):
    """Every op case of the family, forward and gradient (MAX's with and without MaxIndex), in two dtypes: the
    outputs are the buffers handed, every element written, C-contiguous, the op's kernel's bits."""
    attrs, lod = _attrs_with_defaults(case), case.inputs["X"].lod()
    ctx = KernelContext(lod={"X": lod})
    ins = {"X": np.asarray(case.inputs["X"]).astype(dtype)}
    outs = _run(case.op, ins, attrs, ctx)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    for slot in outs:
        assert outs[slot].tobytes() == want[slot].tobytes() and outs[slot].shape == want[slot].shape
    grad = registry.get(case.op + "_grad")
    dout = rng.uniform(-1, 1, outs["Out"].shape).astype(dtype)
    given = {**ins, **outs, "Out@GRAD": dout}
    forms = [{s.name: given[s.name] for s in grad.inputs if s.name in given}]
    if "MaxIndex" in forms[0]:
        forms.append({k: v for k, v in forms[0].items() if k != "MaxIndex"})
    for gins in forms:
        gctx = KernelContext(lod={"X": lod, "Out": lod})
        douts = _run(grad.type, gins, attrs, gctx)
        assert douts["X@GRAD"].tobytes() == grad.kernel("cpu")(gins, dict(attrs), gctx)["X@GRAD"].tobytes()


def _lod_values(name, x, lengths):
    return Values({name: x}, {name: [np.concatenate([[0], np.cumsum(lengths)]).tolist()]})


@pytest.mark.parametrize("kind", ["AVERAGE", "MAX", "LAST"])
def test_a_pool_step_keeps_a_meta_per_lod(kind):
    """A sequence_pool step run on rows of one shape with two LoDs, each twice: Out has one row per sequence of
    each LoD, its pooled values; the step keeps a Meta per (signature, LoD), never one LoD's for the other."""
    step = _step("sequence_pool", {"X": ["x"]}, {"pooltype": kind}, {"Out": ["y"], "MaxIndex": ["i"]})
    x = rng.standard_normal((6, 3))
    for lengths in ([2, 4], [1, 2, 3], [2, 4], [1, 2, 3]):
        values = _lod_values("x", x, lengths)
        run_step(step, values)
        offs = values.lods["x"][-1]
        want = pool_ref({"X": _Seq(x, offs)}, {"pooltype": kind, "pad_value": 0.0})["Out"]
        assert values["y"].shape == (len(lengths), 3) and np.allclose(values["y"], want, rtol=1e-12), lengths
    assert len(inspect.unwrap(step.kernel).metas) == 2


def test_a_softmax_step_keeps_a_meta_per_lod_and_refuses_no_lod():
    """sequence_softmax's step on one shape with two LoDs: each run's softmax over its own sequences; a run
    without LoD is refused in one line, as its run-time check refuses it."""
    step = _step("sequence_softmax", {"X": ["x"]}, {})
    x = rng.standard_normal((5, 1))
    for lengths in ([5], [2, 3], [5], [2, 3]):
        values = _lod_values("x", x, lengths)
        run_step(step, values)
        want = softmax_ref({"X": _Seq(x, values.lods["x"][-1])}, {})["Out"]
        assert np.allclose(values["y"], want, rtol=1e-12)
    assert len(inspect.unwrap(step.kernel).metas) == 2
    with pytest.raises(Exception, match="sequence_softmax: X has no LoD; it takes sequences"):
        run_step(step, Values({"x": x}))


class _Seq(np.ndarray):
    """An array with the ``lod()`` the op cases' references read."""

    def __new__(cls, x, offs):
        a = np.asarray(x).view(cls)
        a._offs = list(offs)
        return a

    def lod(self):
        return [self._offs]


@pytest.mark.parametrize("shape", [(5, 3), (5, 2, 1, 2)])
def test_sequence_softmax_refuses_more_than_one_value_per_step(shape):
    """An X of more than one value per time step is refused when the op runs (Fluid's kernel refuses it), never
    computed with values left unwritten; the gradient's Out too."""
    x, ctx = rng.standard_normal(shape), KernelContext(lod={"X": [[0, 2, 5]], "Out": [[0, 2, 5]]})
    with pytest.raises(Exception, match=r"sequence_softmax: X \[5, .*\] must be \[N, 1\] or \[N\]: one score per"):
        registry.get("sequence_softmax").kernel("cpu")({"X": x}, {}, ctx)
    with pytest.raises(Exception, match=r"sequence_softmax_grad: Out \[5, .*\] must be \[N, 1\] or \[N\]"):
        registry.get("sequence_softmax_grad").kernel("cpu")({"Out": x, "Out@GRAD": x}, {}, ctx)
