"""The pointwise_math ops, the special functions and Paddle 2.6's primitive ops as structured kernels
(pe_cli/shapes/pointwise_math.py, special.py and primitive.py, kernels/cpu/ of the same names): each out-kernel, forward and gradient, fills every
element of the buffers it is handed (a fresh variant: new arrays of no input's memory) with the op's values; the
rule picks the ufunc written through ``out=`` where one keeps the values' dtype (a special function's compiled
float64 ufunc, its values cast into Out of X's dtype), trunc's zero gradient written into its buffer, atan2's float32 angles of
integers, expm1's float32 of integers and numpy's own refusal of shapes that do not broadcast (nextafter's one
line for shapes that differ); a step decides its Meta once per shape signature."""

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.places import CPUPlace
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.framework import Program
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.ops import cases_pointwise_math, cases_primitive, cases_special

rng = np.random.default_rng(43)
CASES = cases_pointwise_math.CASES + cases_special.CASES + cases_primitive.CASES


def _filled(op, ins, attrs):
    """The op's out-kernel run into buffers of two sentinel patterns (NaN and -7.25; ints 77 and -5): the outputs
    are the buffers handed (a fresh variant's: new arrays of no input's memory), of the Meta's shapes and dtypes,
    every element written; the first's outputs."""
    structured, ctx = registry.get(op).structured, KernelContext()
    meta = structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (0, 1):
        outs = {
            s: np.full(shape, (np.nan, -7.25)[fill] if np.dtype(d).kind in "fc" else (77, -5)[fill], d)
            for s, (shape, d) in meta.outputs.items()
        }
        given = dict(outs)
        assert structured.cpu(ins, outs, dict(attrs), meta) is None
        for slot, buffer in given.items():
            got = outs[slot]
            if meta.fresh:
                assert got is not buffer and not any(np.shares_memory(got, v) for v in ins.values()), (op, slot)
            else:
                assert got is buffer, (op, slot)
            assert got.shape == tuple(meta.outputs[slot][0]) and got.dtype == meta.outputs[slot][1], (op, slot)
        answers.append(outs)
    for slot in answers[0]:
        assert answers[0][slot].tobytes() == answers[1][slot].tobytes(), f"{op} ({meta.variant}): {slot}"
    return answers[0]


def _cast(value, dtype):
    return value.astype(dtype) if value.dtype.kind == "f" else value


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (values outside an op's domain)
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_out_kernels_fill_the_buffers_they_are_handed(case, dtype):
    """Every op case, forward and gradient (every forward input read), in float64, float32 and float16: the
    out-kernels fill the buffers they are handed with what the op's kernel computes, bit for bit."""
    if case.op.endswith("_p") and dtype == "float16":
        pytest.skip("a primitive op takes float32 and float64 (its run-time dtype check)")
    attrs = _attrs_with_defaults(case)
    ins = {slot: _cast(np.asarray(v), dtype) for slot, v in case.inputs.items()}
    outs = _filled(case.op, ins, attrs)
    want = registry.get(case.op).kernel("cpu")(dict(ins), dict(attrs))
    assert all(outs[s].tobytes() == want[s].tobytes() for s in want)
    grad = case.op + "_grad"
    if grad not in registry.all_op_types():  # (nextafter's)
        return
    out = "Out" if "Out" in outs else "out"
    given = {**ins, **outs, f"{out}@GRAD": rng.uniform(-1, 1, size=outs[out].shape).astype(outs[out].dtype)}
    gins = {s.name: given[s.name] for s in registry.get(grad).inputs}
    douts = _filled(grad, gins, attrs)
    gwant = registry.get(grad).kernel("cpu")(dict(gins), dict(attrs))
    assert set(douts) == set(gwant) and all(douts[s].tobytes() == gwant[s].tobytes() for s in gwant)


F32, F64 = np.float32, np.float64
VARIANTS = [  # (op, inputs, the variant its rule chooses, Out's dtype)
    ("tan", {"X": np.ones(3, F32)}, "ufunc", F32),
    ("conj", {"X": np.ones(3, np.complex64)}, "ufunc", np.complex64),
    ("conj", {"X": np.ones(3, np.int32)}, "ufunc", np.int32),
    ("silu", {"X": np.ones(3, F32)}, "array", F32),
    ("atan2", {"X1": np.ones((2, 3), F32), "X2": np.ones(3, F64)}, "ufunc", F64),
    ("atan2", {"X1": np.ones(3, np.int32), "X2": np.ones(3, np.int32)}, "ints", F64),
    ("elementwise_fmax", {"X": np.ones((2, 3), np.float16), "Y": np.ones(3, np.float16)}, "ufunc", np.float16),
    ("elementwise_heaviside", {"X": np.ones(3, F32), "Y": np.ones((2, 1), F64)}, "array", F64),
    ("lerp", {"X": np.ones(3, F32), "Y": np.ones((2, 3), F32), "Weight": np.ones((4, 1, 1), F32)}, "array", F32),
    ("digamma", {"X": np.ones(3, F64)}, "ufunc", F64),
    ("digamma", {"X": np.ones(3, F32)}, "ufunc", F32),
    ("expm1", {"X": np.ones(3, np.int64)}, "ints", F32),
    ("expm1", {"X": np.ones(3, np.float16)}, "ufunc", np.float16),
    ("nextafter", {"x": np.ones(3, F32), "y": np.ones(3, F64)}, "ufunc", F32),
    ("exp_p", {"X": np.ones(3, F32)}, "ufunc", F32),
    ("erf_p", {"X": np.ones(3, F32)}, "array", F32),
    ("add_p", {"X": np.ones(3, F32), "Y": np.ones(3, F64)}, "array", F32),
    ("div_p", {"X": np.ones(3, F64), "Y": np.ones(3, F64)}, "ufunc", F64),
    ("gt_p", {"X": np.ones(3, F32), "Y": np.ones(3, F64)}, "ufunc", np.bool_),
]


@pytest.mark.parametrize("op, ins, variant, dtype", VARIANTS)
def test_each_rule_picks_the_variant_of_its_values(op, ins, variant, dtype):
    meta = registry.get(op).structured.meta(registry.get(op).default_attrs(), ins, KernelContext())
    (slot,) = meta.outputs
    assert (meta.variant, np.dtype(meta.outputs[slot][1])) == (variant, np.dtype(dtype))
    out = _filled(op, ins, registry.get(op).default_attrs())[slot]
    assert out.shape == np.broadcast_shapes(*(v.shape for v in ins.values()))


def test_trunc_gradient_is_zeros_written_into_its_buffer_nan_too():
    x, dout = np.array([1.5, np.nan, -np.inf], F32), np.array([np.nan, 2.0, 3.0], F32)
    meta = registry.get("trunc_grad").structured.meta({}, {"X": x, "Out@GRAD": dout}, KernelContext())
    assert meta.variant == "zeros" and not meta.fresh
    got = _filled("trunc_grad", {"X": x, "Out@GRAD": dout}, {})["X@GRAD"]
    assert got.tobytes() == np.zeros(3, F32).tobytes()


@pytest.mark.parametrize("op", ["atan2", "elementwise_fmin", "elementwise_heaviside", "lerp"])
def test_shapes_that_do_not_broadcast_are_refused_in_numpys_words(op):
    slots = [s.name for s in registry.get(op).inputs]
    ins = {s: np.ones((2, 3) if i == 0 else (4,)) for i, s in enumerate(slots)}
    with pytest.raises(ValueError, match="could not be broadcast"):
        registry.get(op).kernel("cpu")(ins, registry.get(op).default_attrs())


def test_nextafter_refuses_shapes_that_differ_in_one_line():
    ins = {"x": np.ones((2, 3), F32), "y": np.ones((3,), F32)}
    with pytest.raises(Exception, match=r"nextafter: x \[2, 3\] and y \[3\] must have the same shape"):
        registry.get("nextafter").kernel("cpu")(ins, {})


def _step(op_type, inputs, outputs):
    block = Program().global_block()
    for name in [n for names in {**inputs, **outputs}.values() for n in names]:
        block.create_var(name=name)
    block.append_op(op_type, inputs, outputs, {})
    return OpStep(block.ops[0], CPUPlace())


@pytest.mark.parametrize("op_type, slots", [("tan", ("X",)), ("elementwise_fmax", ("X", "Y"))])
def test_a_step_decides_its_meta_once_per_shape_signature(op_type, slots):
    """Repeated runs of one op's step: its rule runs once per shape and dtype of its inputs, the outputs are new
    arrays each run, the op's kernel's bit for bit."""
    step = _step(op_type, {s: [s.lower()] for s in slots}, {"Out": ["out"]})
    rule, calls = step.kernel.meta, []

    def counted(attrs, ins, facts):
        calls.append(ins["X"].shape)
        return rule(attrs, ins, facts)

    step.kernel.meta = counted
    kernel = registry.get(op_type).kernel("cpu")
    feeds = [rng.uniform(-1, 1, 16).astype(F32) for _ in range(3)] + [rng.uniform(-1, 1, (2, 3)) for _ in range(2)]
    seen = []
    for x in feeds:
        ins = {s: x for s in slots}
        values = Values({s.lower(): v for s, v in ins.items()})
        run_step(step, values)
        assert values["out"].tobytes() == kernel(ins, registry.get(op_type).default_attrs())["Out"].tobytes()
        assert all(values["out"] is not y for y in seen)
        seen.append(values["out"])
    assert calls == [(16,), (2, 3)]
