"""The matrix family's structured kernels (shapes/matrix.py, shapes/matmul.py's addmm, kernels/cpu/matrix.py,
issue 95): addmm, dot, cross, kron, trace, bilinear_tensor_product and their gradients write every element of the
buffers they are handed (a ``fresh`` variant: a new C-contiguous array of its own), with the op case's reference
values and the op's kernel's bits; a step decides its Meta once per shape signature; dot and trace keep 0-D
results in a Paddle 2.x program."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.errors import PeError
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

rng = np.random.default_rng(19)


def _run(op, ins, attrs, ctx):
    """The op's meta rule and out-kernel into output and scratch buffers of two sentinel patterns: its outputs, each
    the buffer handed (a fresh variant's: a new array sharing no input's memory), every element written."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (np.nan, -7.25):
        outs = {}
        for slot, (shape, dtype) in {**({} if meta.fresh else meta.outputs), **meta.scratch}.items():
            outs[slot] = np.full(shape, fill if np.dtype(dtype).kind in "fc" else 77, dtype)
        given = dict(outs)
        assert structured.cpu(ins, outs, dict(attrs), meta) is None, f"{op}: the out-kernel returned something"
        assert all(outs[s] is b for s, b in given.items()), f"{op}: an output is not the buffer it was handed"
        for slot in meta.outputs if meta.fresh else ():
            assert not any(np.shares_memory(outs[slot], v) for v in ins.values() if isinstance(v, np.ndarray))
        answers.append(outs)
    for slot, (shape, dtype) in meta.outputs.items():
        a, b = answers[0][slot], answers[1][slot]
        assert a.shape == tuple(shape) and a.dtype == dtype and a.flags.c_contiguous, (op, slot)
        assert a.tobytes() == b.tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
    return {slot: answers[0][slot] for slot in meta.outputs}


_MATRIX = CASES["matrix"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("layout", ["c", "fortran"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", _MATRIX, ids=[c.id for c in _MATRIX])
def test_matrix_out_kernels_fill_what_they_are_handed(case, dtype, layout):
    """Every op case of the family, forward and gradient, in two dtypes, C- and Fortran-ordered: the outputs are the
    buffers handed, every element written, the case's reference values and the op's kernel's bits."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext(paddle2=case.paddle2)
    ins = {}
    for slot, value in case.inputs.items():
        a = np.asarray(value).astype(dtype) if np.asarray(value).dtype.kind == "f" else np.asarray(value)
        ins[slot] = np.asfortranarray(a) if layout == "fortran" else a
    outs = _run(case.op, ins, attrs, ctx)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    assert outs["Out"].tobytes() == want["Out"].tobytes() and outs["Out"].shape == want["Out"].shape
    ref = case.ref({k: np.asarray(v, np.float64) for k, v in ins.items()}, attrs)["Out"]
    np.testing.assert_allclose(outs["Out"].reshape(np.shape(ref)), ref, rtol=1e-4 if dtype == "float32" else 1e-6)
    grad = registry.get(case.op + "_grad")
    given = dict(ins, **{"Out@GRAD": rng.uniform(-1, 1, outs["Out"].shape).astype(outs["Out"].dtype)})
    gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
    douts = _run(grad.type, gins, attrs, ctx)
    gwant = grad.kernel("cpu")(gins, dict(attrs), ctx)
    assert douts.keys() == gwant.keys()
    assert all(douts[s].tobytes() == gwant[s].tobytes() for s in douts)


@pytest.mark.parametrize("op, slot", [("dot", "X"), ("trace", "Input")])
def test_dot_and_trace_give_0d_in_a_paddle2_program_and_1_in_fluid(op, slot):
    """dot of two vectors and trace of one matrix: 0-D where the op computes Paddle 2.x's meaning, [1] in Fluid."""
    x = rng.standard_normal((4, 4) if op == "trace" else (4,))
    ins = {slot: x, "Y": x} if op == "dot" else {slot: x}
    attrs = registry.get(op).default_attrs()
    want = np.dot(x, x) if op == "dot" else np.trace(x)
    for paddle2, shape in ((True, ()), (False, (1,))):
        out = _run(op, ins, attrs, KernelContext(paddle2=paddle2))["Out"]
        assert out.shape == shape
        np.testing.assert_allclose(out.reshape(()), want)


def test_a_kron_step_decides_its_meta_once_per_shape_signature():
    """kron's step: its meta rule once per shape and dtype of X and Y; each run numpy's Kronecker product."""
    step = _step("kron", {"X": ["x"], "Y": ["w"]}, {})
    inner = inspect.unwrap(step.kernel)
    y = rng.standard_normal((2, 3)).astype(np.float32)
    x = rng.standard_normal((3, 2)).astype(np.float32)
    for feed in (x, x + 1, x[:2].copy()):
        values = Values({"x": feed, "w": y})
        run_step(step, values)
        assert values["y"].tobytes() == np.kron(feed, y).tobytes()
    assert len(inner.metas) == 2


@pytest.mark.parametrize(
    "op, ins, attrs, message",
    [
        ("cross", {"X": np.ones((2, 3)), "Y": np.ones((3, 3))}, {}, "cross: X [2, 3] and Y [3, 3] must have the same"),
        ("cross", {"X": np.ones((2, 4)), "Y": np.ones((2, 4))}, {}, "cross: X [2, 4] has no dim of size 3"),
        ("addmm", {"Input": np.ones((2, 3)), "X": np.ones((3, 2)), "Y": np.ones((2, 4))}, {}, "addmm: Input [2, 3]"),
    ],
)
def test_the_meta_rules_refuse_what_the_kernels_refused(op, ins, attrs, message):
    """Values that do not meet: the one-line refusal the op's kernel gave, from its meta rule."""
    attrs = dict(registry.get(op).default_attrs(), **attrs)
    with pytest.raises(PeError, match=message.replace("[", r"\[").replace("]", r"\]")):
        registry.get(op).kernel("cpu")(ins, attrs)
