"""The numpy/LAPACK linear algebra's structured kernels (shapes/linalg_solve.py, shapes/linalg_decompositions.py;
kernels/cpu/linalg_solve.py, linalg_decomposing.py, linalg_decomposition.py, linalg.py's inverse, cholesky and
spectral_norm; issue 95): "numpy" variants, ``fresh`` (numpy's linalg has no ``out=``), and mv's and multi_dot's
"out" (numpy's matmul through its ``out=``). Checked here: every op case of the family, forward and gradient, puts
new C-contiguous arrays of its Meta's shapes and dtypes (lstsq's Residuals: of the length the values give) sharing no
input's memory, or fills every element of the buffers it is handed, with the case's recorded values and the op's
kernel's bits; mv and multi_dot write through ``out=`` only values of one dtype whose shapes meet; a step decides its Meta once per shape signature; the meta rules refuse what the kernels refused, with the same line;
a singular or non-positive-definite matrix is still the out-kernel's refusal, shapes that do not meet numpy's."""

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

rng = np.random.default_rng(29)
_LINALG = CASES["linalg"]


def _arrays(value):
    return value if isinstance(value, list) else [value]


def _sentinels(meta, fill):
    """slot -> a buffer of the Meta's shape and dtype (a list slot's: one per variable) holding ``fill`` alone."""
    outs = {}
    for slot, spec in meta.outputs.items():
        made = [np.full(shape, fill if np.dtype(dtype).kind in "fc" else 77, dtype) for shape, dtype in _arrays(spec)]
        outs[slot] = made if isinstance(spec, list) else made[0]
    return outs


def _outputs(op, ins, attrs, ctx):
    """The op's meta rule and out-kernel. A "numpy" variant (``fresh``) puts, for every output its Meta names, a new
    C-contiguous array (a list slot's: one per variable) of the Meta's shape (-1: any length; all -1: any shape) and
    dtype that shares no input's memory; an "out" variant fills every element of the buffers it is handed (two
    sentinel patterns, the same bits)."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    assert (meta.variant, meta.fresh) in (("numpy", True), ("out", False)), op
    answers = []
    for fill in (np.nan, -7.25) if not meta.fresh else (None,):
        outs = {} if meta.fresh else _sentinels(meta, fill)
        handed = {slot: list(_arrays(v)) for slot, v in outs.items()}
        assert structured.cpu(ins, outs, dict(attrs), meta) is None, f"{op}: the out-kernel returned something"
        assert outs.keys() == meta.outputs.keys(), op
        for slot, buffers in handed.items():
            assert all(a is b for a, b in zip(_arrays(outs[slot]), buffers, strict=True)), f"{op}: {slot} not handed"
        answers.append(outs)
    given = [a for v in ins.values() if v is not None for a in _arrays(v) if isinstance(a, np.ndarray)]
    for slot, spec in meta.outputs.items():
        for got, (shape, dtype) in zip(_arrays(answers[0][slot]), _arrays(spec), strict=True):
            assert isinstance(got, np.ndarray) and got.flags.c_contiguous, (op, slot)
            assert got.dtype == dtype, (op, slot, got.dtype, spec)
            if set(shape) != {-1}:  # (all -1: the values give the shape, lstsq's Residuals [.., k] or [0])
                assert len(got.shape) == len(shape), (op, slot, got.shape, shape)
                assert all(n == want for n, want in zip(got.shape, shape) if want != -1), (op, slot, got.shape, shape)
            assert not any(np.shares_memory(got, a) for a in given), f"{op}: {slot} shares an input's memory"
        if not meta.fresh:  # (an element left unwritten keeps its sentinel, which differs between the runs)
            for a, b in zip(_arrays(answers[0][slot]), _arrays(answers[1][slot])):
                assert a.tobytes() == b.tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
    return answers[0]


def _same_bits(got, want):
    assert got.keys() == want.keys()
    for slot in got:
        for a, b in zip(_arrays(got[slot]), _arrays(want[slot]), strict=True):
            assert a.shape == np.shape(b) and a.tobytes() == np.asarray(b).tobytes(), slot


def _inputs(case, dtype, layout):
    """The case's inputs, float values in ``dtype``, each matrix C- or Fortran-ordered."""

    def one(value):
        a = np.asarray(value)
        a = a.astype(dtype) if a.dtype.kind == "f" else a
        return np.asfortranarray(a) if layout == "fortran" else a

    return {s: [one(v) for v in value] if isinstance(value, list) else one(value) for s, value in case.inputs.items()}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("layout", ["c", "fortran"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", _LINALG, ids=[c.id for c in _LINALG])
def test_linalg_out_kernels_fill_or_put_what_their_meta_says(case, dtype, layout):
    """Every op case of the family, forward and gradient (each dOut its output's shape and dtype), in two dtypes, C-
    and Fortran-ordered: new arrays of the Meta's shapes and dtypes (the "out" variants: the buffers handed, every
    element written), the op's kernel's bits, and in float64 the case's reference values."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext(paddle2=case.paddle2)
    ins = _inputs(case, dtype, layout)
    outs = _outputs(case.op, ins, attrs, ctx)
    _same_bits(outs, registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx))
    if dtype == "float64" and case.ref is not None:
        ref = case.ref({k: v for k, v in case.inputs.items()}, attrs)
        for slot in ref:
            np.testing.assert_allclose(np.asarray(outs[slot]), ref[slot], rtol=1e-5, atol=1e-6, err_msg=slot)
    if not case.grad or case.op + "_grad" not in registry.all_op_types():  # (inverse's: two matmuls)
        return
    grad = registry.get(case.op + "_grad")
    given = dict(ins, **outs)
    for slot in grad.inputs:
        if slot.name.endswith("@GRAD"):
            out = outs[slot.name[: -len("@GRAD")]]
            given[slot.name] = rng.uniform(-1, 1, out.shape).astype(out.dtype)
    gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
    douts = _outputs(grad.type, gins, attrs, ctx)
    _same_bits(douts, grad.kernel("cpu")(gins, dict(attrs), ctx))


def test_a_solve_step_decides_its_meta_once_per_shape_signature():
    """solve's step: its meta rule once per shape and dtype of X and Y; each run numpy's solution."""
    step = _step("solve", {"X": ["x"], "Y": ["b"]}, {})
    inner = inspect.unwrap(step.kernel)
    x = rng.standard_normal((2, 3, 3)) + 4 * np.eye(3)
    b = rng.standard_normal((3, 2))
    for feed in (x, x + 1, x[:1].copy()):
        values = Values({"x": feed, "b": b})
        run_step(step, values)
        assert values["y"].tobytes() == np.linalg.solve(feed, np.broadcast_to(b, feed.shape[:1] + b.shape)).tobytes()
    assert len(inner.metas) == 2


@pytest.mark.parametrize(
    "op, ins, variant, dtype",
    [
        ("mv", {"X": np.ones((4, 3), np.float32), "Vec": np.ones(3, np.float32)}, "out", np.float32),
        ("mv", {"X": np.ones((4, 3), np.float32), "Vec": np.ones(3)}, "numpy", np.float64),
        ("mv", {"X": np.ones((4, 3)), "Vec": np.ones(2)}, "numpy", np.float64),
        ("multi_dot", {"X": [np.ones(3), np.ones((3, 4)), np.ones((4, 2))]}, "out", np.float64),
        ("multi_dot", {"X": [np.ones((2, 3)), np.ones((3, 4), np.float32)]}, "numpy", np.float64),
        ("multi_dot", {"X": [np.ones((2, 3)), np.ones((4, 4))]}, "numpy", np.float64),
    ],
)
def test_mv_and_multi_dot_write_through_out_only_one_dtype_that_meets(op, ins, variant, dtype):
    """mv and multi_dot: numpy's matmul through ``out=`` where their values are of one dtype and meet; numpy's own
    array (of the dtype numpy gives mv; X[0]'s, multi_dot's) where they are mixed, and numpy's refusal where they do
    not meet, as the op's kernel gave it."""
    attrs = registry.get(op).default_attrs()
    meta = registry.get(op).structured.meta(attrs, ins, KernelContext())
    assert meta.variant == variant and meta.outputs["Out"][1] == dtype
    if op == "mv" and ins["Vec"].shape == (2,) or op == "multi_dot" and ins["X"][1].shape == (4, 4):
        with pytest.raises(ValueError, match="matmul: Input operand 1 has a mismatch in its core dimension 0"):
            registry.get(op).kernel("cpu")(ins, attrs)
        return
    assert _outputs(op, ins, attrs, KernelContext())["Out"].dtype == dtype


def test_lstsq_residuals_have_the_length_the_values_give():
    """lstsq's Residuals: [k] where X has full rank and more rows than columns, else empty (its Meta: -1)."""
    op = registry.get("lstsq")
    attrs = dict(op.default_attrs(), driver="gelsd")
    x, y = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    assert registry.get("lstsq").structured.meta(attrs, {"X": x, "Y": y}, KernelContext()).outputs["Residuals"][0] == (
        -1,
    )
    full = _outputs("lstsq", {"X": x, "Y": y}, attrs, KernelContext())
    x[:, 1] = x[:, 0]
    deficient = _outputs("lstsq", {"X": x, "Y": y}, attrs, KernelContext())
    assert full["Residuals"].shape == (2,) and deficient["Residuals"].shape == (0,)
    assert full["Rank"].tolist() == [3] and deficient["Rank"].tolist() == [2]


_REFUSED = [
    ("qr_grad", {"X": np.ones((4, 3)), "Q": np.ones((4, 3)), "R": np.ones((3, 3))}, {"mode": "r"}, "qr_grad: mode 'r'"),
    (
        "qr_grad",
        {"X": np.ones((4, 3)), "Q": np.ones((4, 4)), "R": np.ones((4, 3))},
        {"mode": "complete"},
        "qr_grad: mode 'complete' of a 4x3 matrix has no gradient",
    ),
    (
        "svd_grad",
        {"U": np.ones((3, 3)), "S": np.ones(3), "VH": np.ones((3, 3))},
        {"full_matrices": True},
        "svd_grad: the gradient of svd with full_matrices=True is not defined",
    ),
    ("lstsq", {"X": np.ones((5, 3)), "Y": np.ones((4, 2))}, {}, r"lstsq: X \[5, 3\] and Y \[4, 2\] must have the same"),
    (
        "eigh_grad",
        {
            "Eigenvalues": np.ones(2),
            "Eigenvectors": np.eye(2, dtype=complex),
            "Eigenvectors@GRAD": np.eye(2, dtype=complex),
        },
        {},
        "eigh_grad: pe computes the eigenvectors' gradient of real matrices only, not of complex128 ones",
    ),
]


@pytest.mark.parametrize("op, ins, attrs, message", _REFUSED, ids=[r[0] + str(i) for i, r in enumerate(_REFUSED)])
def test_the_meta_rules_refuse_what_the_kernels_refused(op, ins, attrs, message):
    """A gradient Paddle 2.6 does not define, lstsq's operands that do not meet, a complex eigenvectors' gradient:
    the one-line refusal the op's kernel gave, from its meta rule (before any LAPACK call)."""
    attrs = dict(registry.get(op).default_attrs(), **attrs)
    with pytest.raises(PeError, match=message):
        registry.get(op).structured.meta(attrs, ins, KernelContext())
    with pytest.raises(PeError, match=message):
        registry.get(op).kernel("cpu")(ins, attrs)


@pytest.mark.parametrize(
    "op, ins, error, message",
    [
        ("inverse", {"Input": np.ones((2, 3, 3))}, PeError, r"inverse: a matrix of Input \[2, 3, 3\] is singular"),
        ("cholesky", {"X": -np.eye(3)}, PeError, r"cholesky: a matrix of X \[3, 3\] is not positive definite"),
        ("solve", {"X": np.ones((3, 3)), "Y": np.ones(3)}, np.linalg.LinAlgError, "Singular matrix"),
        ("determinant", {"Input": np.ones((3, 2))}, np.linalg.LinAlgError, "Last 2 dimensions of the array must be"),
    ],
)
def test_values_and_shapes_numpy_refuses_are_refused_as_before(op, ins, error, message):
    """A singular or non-positive-definite matrix (the values: the out-kernel's refusal), a matrix that is not square
    (numpy's own): refused, with the line the op's kernel gave."""
    with pytest.raises(error, match=message):
        registry.get(op).kernel("cpu")(ins, registry.get(op).default_attrs())


def test_solve_takes_a_batch_of_vectors_as_paddle_does():
    """Y of X's shape without its last dim is a batch of vectors (Paddle 2.6's is_vector_rhs; Paddle's
    test_solve_op.py TestSolveOpBatched_case1): Out of Y's shape and the gradients Paddle 2.6.2 gave (a static
    program, loss sum(Out * W)); pe took Y as one matrix and failed with numpy's gufunc error."""
    x = np.array([[[2.0, 1.0], [1.0, 3.0]], [[4.0, 1.0], [0.0, 2.0]]])
    y = np.array([[1.0, 2.0], [3.0, -1.0]])
    attrs = registry.get("solve").default_attrs()
    meta = registry.get("solve").structured.meta(attrs, {"X": x, "Y": y}, KernelContext())
    assert meta.outputs["Out"][0] == (2, 2)
    out = registry.get("solve").kernel("cpu")({"X": x, "Y": y}, attrs)["Out"]
    np.testing.assert_allclose(out, [[0.2, 0.6], [0.875, -0.5]], rtol=1e-12)
    d = np.array([[1.0, -1.0], [0.5, 2.0]])
    grads = registry.get("solve_grad").kernel("cpu")({"X": x, "Y": y, "Out": out, "Out@GRAD": d}, attrs)
    paddle_dx = [[[-0.16, -0.48], [0.12, 0.36]], [[-0.109375, 0.0625], [-0.8203125, 0.46875]]]
    np.testing.assert_allclose(grads["X@GRAD"], paddle_dx, rtol=1e-12)
    np.testing.assert_allclose(grads["Y@GRAD"], [[0.8, -0.6], [0.125, 0.9375]], rtol=1e-12)
