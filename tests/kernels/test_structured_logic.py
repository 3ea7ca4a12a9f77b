"""The comparisons, logical and bitwise ops and the finiteness checks as structured kernels (pe_cli/shapes/logic.py,
kernels/cpu/logic.py): each out-kernel fills every element of the buffer it is handed (bool and integer
sentinels), with numpy's values; the comparisons place Y in X under Fluid's ``axis`` rule (in the middle of X's
dims too) once per shape signature of a step; shapes that do not broadcast are refused in numpy's words;
allclose's one bool is [1] or 0-D as the op says, and isclose hands over numpy's new array."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.places import CPUPlace
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.framework import Program
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from pe_cli.shapes import logic as meta_rules
from tests.ops import cases_elementwise, cases_logic

rng = np.random.default_rng(41)
CASES = [c for c in cases_logic.CASES + cases_elementwise.CASES if c.op in meta_rules.META]
_NUMPY = {
    "less_than": np.less,
    "less_equal": np.less_equal,
    "greater_than": np.greater,
    "greater_equal": np.greater_equal,
    "equal": np.equal,
    "not_equal": np.not_equal,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
    "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
}
_F = np.array([[1.0, np.nan, 3.0], [np.inf, -2.0, -np.inf]])
FORMS = [  # (op, X, Y or None, axis, what numpy gives)
    ("less_than", np.arange(24.0).reshape(2, 3, 4) % 5, np.array([1.0, 2.0, 3.0]), 1, None),
    (
        "greater_equal",
        np.arange(24).reshape(2, 3, 4) % 7,
        np.array([[1, 2, 3, 4], [5, 6, 0, 1], [2, 2, 2, 2]]),
        1,
        None,
    ),
    ("equal", np.arange(6).reshape(2, 3), np.array(3), 1, None),
    ("not_equal", np.arange(6.0).reshape(3, 2).T, np.array([0.0, 3.0, 5.0]), -1, None),
    ("less_equal", np.arange(4, dtype=np.int32), np.arange(12, dtype=np.int64).reshape(3, 4) % 4, -1, None),
    ("logical_and", np.arange(6).reshape(2, 3) % 2, np.array([True, False, True]), -1, None),
    ("logical_xor", np.array(True), np.array([[True], [False]]), -1, None),
    ("bitwise_and", np.arange(-6, 6, dtype=np.int8).reshape(3, 4), np.array([3, -1, 0, 7], np.int8), -1, None),
    ("bitwise_or", np.arange(12, dtype=np.int32).reshape(3, 4), np.arange(4, dtype=np.int64), -1, None),
    ("bitwise_xor", np.zeros((0, 3), np.uint8), np.array([1, 2, 3], np.uint8), -1, None),
    ("bitwise_xor", np.arange(6, dtype=np.uint8).reshape(2, 3), np.array([1, 2, 3], np.uint8), -1, None),
    ("bitwise_not", np.array([[0, 1, -128]], np.int8), None, -1, np.array([[-1, -2, 127]], np.int8)),
    ("logical_not", np.array([0.0, 2.0, np.nan]), None, -1, np.array([True, False, False])),
    ("isfinite_v2", _F, None, -1, np.isfinite(_F)),
    ("isinf_v2", _F.astype(np.float16), None, -1, np.isinf(_F)),
    ("isnan_v2", _F.astype(np.float32), None, -1, np.isnan(_F)),
    ("isfinite", np.ones((0, 3)), None, -1, np.array([True])),
    ("isinf", _F, None, -1, np.array([True])),
    ("isnan", np.array([1.0, -np.inf]), None, -1, np.array([False])),
    ("equal_all", np.arange(6).reshape(2, 3), np.arange(6).reshape(2, 3), -1, np.array(True)),
    ("equal_all", np.arange(3), np.arange(3).reshape(1, 3), -1, np.array(False)),
    ("equal_all", np.array([1.0, np.nan]), np.array([1.0, np.nan]), -1, np.array(False)),
]


def _filled(op, ins, attrs, ctx=None):
    """The op's out-kernel run into buffers of two sentinel patterns (bool False and True, ints 5 and 77): the
    outputs are the buffers handed (a fresh variant's: new arrays of no input's memory), of the Meta's shapes and
    dtypes, every element written; the first's."""
    structured, ctx = registry.get(op).structured, ctx or KernelContext()
    meta = structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (0, 1):
        outs = {
            s: np.full(shape, bool(fill) if np.dtype(d) == bool else (5, 77)[fill], d)
            for s, (shape, d) in meta.outputs.items()
        }
        outs = {} if meta.fresh else outs
        given = dict(outs)
        assert structured.cpu(ins, outs, dict(attrs), meta) is None
        for slot, (shape, dtype) in meta.outputs.items():
            if meta.fresh:
                assert not any(np.shares_memory(outs[slot], v) for v in ins.values()), f"{op}: {slot}"
            else:
                assert outs[slot] is given[slot], f"{op}: {slot} is not the buffer it was handed"
            assert outs[slot].shape == tuple(shape) and outs[slot].dtype == dtype
        answers.append(outs)
    for slot in answers[0]:
        assert answers[0][slot].tobytes() == answers[1][slot].tobytes(), f"{op} ({meta.variant}): {slot} not filled"
    return answers[0]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_out_kernels_fill_the_buffers_they_are_handed(case):
    """Every op case of the family, in its own dtypes: the buffers filled completely with what the op's kernel
    gives, which is the case's answer."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext(zero_dim=case.zero_dim, paddle2=case.paddle2)
    ins = {s: np.asarray(v) for s, v in case.inputs.items()}
    outs = _filled(case.op, ins, attrs, ctx)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    assert all(outs[s].tobytes() == want[s].tobytes() for s in want)
    expected = case.ref(ins, attrs)
    assert all(np.array_equal(outs[s], np.asarray(v)) and outs[s].shape == np.shape(v) for s, v in expected.items())


@pytest.mark.parametrize("form", FORMS, ids=[f"{f[0]}-{i}" for i, f in enumerate(FORMS)])
def test_each_form_fills_its_buffer_with_numpys_values(form):
    """A comparison's Y placed in the middle of X's dims (``axis``), a 0-D Y, a transposed X, X of fewer dims;
    logical ops of non-bool values; bitwise ops of int8, mixed int widths (numpy's dtype), empty; the flags of
    float16/32/64 with NaN and infinities; Fluid's isfinite/isinf/isnan of the whole X; equal_all of shapes that
    differ and of NaN: each fills its buffer with numpy's values, in numpy's dtype."""
    op, x, y, axis, want = form
    ins = {"X": x} if y is None else {"X": x, "Y": y}
    attrs = dict(registry.get(op).default_attrs(), **({"axis": axis} if "axis" in registry.get(op).attrs else {}))
    out = _filled(op, ins, attrs)["Out"]
    if want is None:
        ya = y.reshape(y.shape + (1,) * (x.ndim - axis - y.ndim)) if y.ndim and axis not in (-1, x.ndim - y.ndim) else y
        want = _NUMPY[op](x, ya)
    assert out.dtype == want.dtype and out.shape == want.shape and out.tobytes() == want.tobytes()


def test_a_comparison_step_decides_its_meta_once_per_shape_signature():
    """less_than's step with Y along the middle of X's dims runs its rule once per shape and dtype of X and Y
    (the aligned variant: Y's shape with 1s around it), each run numpy's values in a new bool array."""
    program = Program()
    block = program.global_block()
    for name in ("x", "y", "out"):
        block.create_var(name=name)
    block.append_op("less_than", {"X": ["x"], "Y": ["y"]}, {"Out": ["out"]}, {"axis": 1})
    step = OpStep(block.ops[0], CPUPlace())
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins["X"].shape, decided.variant, decided.args))
        return decided

    inner.meta = counted
    y, seen = np.array([0.5, 0.0, -0.5], np.float32), []
    for rows in (2, 2, 4, 2):
        x = rng.uniform(-1, 1, (rows, 3, 5)).astype(np.float32)
        values = Values({"x": x, "y": y})
        run_step(step, values)
        assert values["out"].dtype == bool and values["out"].tobytes() == (x < y[None, :, None]).tobytes()
        assert all(values["out"] is not s for s in seen)
        seen.append(values["out"])
    assert calls == [((2, 3, 5), "aligned", ((1, 3, 1),)), ((4, 3, 5), "aligned", ((1, 3, 1),))]


@pytest.mark.parametrize("zero_dim", [False, True])
def test_allclose_is_one_bool_of_1_or_0_dims_as_the_op_says(zero_dim):
    """allclose's Out: [1] in Fluid's programs, 0-D where the op says so (a paddle.allclose of a Paddle 2.x
    program: ``zero_dim``), its value written into the buffer handed; Input and Other of different shapes refused
    in one line."""
    x = np.array([[1.0, np.nan], [3.0, 4.0]])
    for y, equal_nan, want in ((x + 1e-9, True, True), (x + 1e-9, False, False), (x + 1e-3, True, False)):
        attrs = dict(registry.get("allclose").default_attrs(), equal_nan=equal_nan)
        out = _filled("allclose", {"Input": x, "Other": y}, attrs, KernelContext(zero_dim=zero_dim))["Out"]
        assert out.shape == (() if zero_dim else (1,)) and out.dtype == bool and bool(out) == want
    for op in ("allclose", "isclose"):
        with pytest.raises(Exception, match=rf"^{op}: Input \[2, 2\] and Other \[2\] must have the same shape$"):
            registry.get(op).kernel("cpu")({"Input": x, "Other": x[0]}, registry.get(op).default_attrs())


@pytest.mark.parametrize("op", ["less_than", "logical_or", "bitwise_and"])
def test_shapes_that_do_not_broadcast_are_refused_in_numpys_words(op):
    x, y = np.ones((2, 3, 4), np.int32), np.ones(5, np.int32)
    with pytest.raises(ValueError, match=r"operands could not be broadcast together with shapes \(2,3,4\) \(5,\) $"):
        registry.get(op).kernel("cpu")({"X": x, "Y": y}, dict(registry.get(op).default_attrs()))
