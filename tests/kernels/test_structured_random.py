"""The random, sampling and complex families' structured kernels (shapes/random.py, shapes/sampling.py,
shapes/complex.py; kernels/cpu/random.py, sampling.py, complex.py; issue 95): the ops and their gradients write
every element of the buffers they are handed, with the op's kernel's bits for a context seeded alike (numpy's
Generator, and Paddle's engine where the op knows it: the draws are the call's, never the Meta's), the case's
checks of the draws or its reference values; a step decides its Meta once per shape signature and draws anew
on every run; a shape given by ShapeTensor is the tensor's on every run."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.kernels.cpu.mersenne_twister import Mt19937_64
from pe_cli.kernels.tensor_attrs import values_of
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

rng = np.random.default_rng(29)
_ENGINES = {
    "numpy": lambda: KernelContext(rng=np.random.default_rng(5)),
    "paddle": lambda: KernelContext(rng=Mt19937_64.from_int(5)),
}
_DRAWN = CASES["random"] + CASES["sampling"]


def _filled(op, ins, attrs, context):
    """The op's meta rule and out-kernel (handed a context from ``context()`` made anew for each fill, where it takes
    one) into buffers of two sentinel patterns: its outputs, each the buffer handed (an alias: the input it names),
    every element written."""
    opdef = registry.get(op)
    structured = opdef.structured
    attrs = values_of(ins, attrs, opdef.attr_tensors) if opdef.attr_tensors else attrs
    meta = structured.meta(attrs, ins, context())
    answers = []
    for fill in (np.nan, -7.25):
        outs = {
            slot: np.full(shape, fill if np.dtype(dtype).kind in "fc" else 77, dtype)
            for slot, (shape, dtype) in meta.outputs.items()
            if slot not in meta.aliases
        }
        given = dict(outs)
        outs.update({slot: ins[src] for slot, src in meta.aliases.items()})
        told = (context(),) if getattr(structured.cpu, "takes_context", False) else ()
        assert structured.cpu(ins, outs, dict(attrs), meta, *told) is None, f"{op}: the out-kernel returned something"
        assert all(outs[s] is b for s, b in given.items()), f"{op}: an output is not the buffer it was handed"
        answers.append(outs)
    for slot, (shape, dtype) in meta.outputs.items():
        a, b = answers[0][slot], answers[1][slot]
        assert a.shape == tuple(shape) and a.dtype == dtype, (op, slot)
        assert a.tobytes() == b.tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
    return answers[0]


def _same(outs, want):
    assert outs.keys() == want.keys()
    for slot in want:
        assert outs[slot].dtype == want[slot].dtype and outs[slot].shape == want[slot].shape, slot
        assert outs[slot].tobytes() == want[slot].tobytes(), slot


def _engines(op):
    return ("numpy", "paddle") if registry.get(op).has("paddle_engine") else ("numpy",)


@pytest.mark.parametrize("case", _DRAWN, ids=[c.id for c in _DRAWN])
def test_drawing_out_kernels_fill_what_they_are_handed(case):
    """Every op case of the random and sampling families, drawn by numpy's Generator (and Paddle's engine where the
    op knows it), and the grad ops over its outputs: the buffers handed filled, the op's kernel's bits with a context
    seeded alike, and the case's checks of the draws (or its reference values)."""
    attrs = _attrs_with_defaults(case)
    for engine in _engines(case.op):
        outs = _filled(case.op, dict(case.inputs), attrs, _ENGINES[engine])
        want = registry.get(case.op).kernel("cpu")(dict(case.inputs), dict(attrs), _ENGINES[engine]())
        _same(outs, want)
        if engine != "numpy":
            continue
        if case.check is not None:
            case.check(outs, case.inputs)
        elif case.ref is not None:
            for slot, value in case.ref(case.inputs, attrs).items():
                np.testing.assert_allclose(outs[slot], value, rtol=case.rtol, atol=case.atol)
        grad = registry.get(case.op + "_grad") if case.op + "_grad" in registry.all_op_types() else None
        if grad is None:
            continue
        given = dict(
            case.inputs, **outs, **{"Out@GRAD": rng.uniform(-1, 1, outs["Out"].shape).astype(outs["Out"].dtype)}
        )
        gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
        douts = _filled(grad.type, gins, attrs, KernelContext)
        _same(douts, grad.kernel("cpu")(gins, dict(attrs)))


@pytest.mark.parametrize("op, slot", [("dropout_nd", "Out"), ("rrelu", "Out"), ("gumbel_softmax", "Out")])
@pytest.mark.parametrize("test", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_sampling_ops_and_gradients_in_each_dtype_and_mode(op, slot, test, dtype):
    """dropout_nd (over a shared axis, both implementations), rrelu and gumbel_softmax, training and inference (or
    hard), X Fortran-ordered, and their gradients: the buffers handed filled with the op's kernel's bits; dropout_nd's
    upscaled inference Out is X itself."""
    x = np.asfortranarray(rng.uniform(-2, 2, (6, 5, 4)).astype(dtype))
    for extra in ({"dropout_implementation": "upscale_in_train"}, {"dropout_implementation": "downgrade_in_infer"}):
        attrs = dict(registry.get(op).default_attrs())
        attrs.update({"axis": [0, 2], "dropout_prob": 0.3, **extra} if op == "dropout_nd" else {})
        attrs.update({"hard": test} if op == "gumbel_softmax" else {"is_test": test})
        outs = _filled(op, {"X": x}, attrs, _ENGINES["numpy"])
        _same(outs, registry.get(op).kernel("cpu")({"X": x}, dict(attrs), _ENGINES["numpy"]()))
        if op == "dropout_nd" and test and extra["dropout_implementation"] == "upscale_in_train":
            assert outs["Out"] is x and outs["Mask"].all()
        grad = registry.get(op + "_grad")
        given = {"X": x, **outs, "Out@GRAD": rng.uniform(-1, 1, x.shape).astype(dtype)}
        gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
        _same(_filled(grad.type, gins, attrs, KernelContext), grad.kernel("cpu")(gins, dict(attrs)))


_COMPLEX = CASES["complex"]


@pytest.mark.parametrize("layout", ["c", "fortran"])
@pytest.mark.parametrize("case", _COMPLEX, ids=[c.id for c in _COMPLEX])
def test_complex_out_kernels_fill_what_they_are_handed(case, layout):
    """Every op case of the complex family, C- and Fortran-ordered, and its grad op: the buffers handed filled,
    the case's reference values and the op's kernel's bits."""
    attrs = _attrs_with_defaults(case)
    ins = {s: np.asfortranarray(v) if layout == "fortran" else np.asarray(v) for s, v in case.inputs.items()}
    outs = _filled(case.op, ins, attrs, KernelContext)
    _same(outs, registry.get(case.op).kernel("cpu")(ins, dict(attrs)))
    for slot, value in case.ref(case.inputs, attrs).items():
        np.testing.assert_allclose(outs[slot], value, rtol=1e-6, atol=1e-7)
    grad = registry.get(case.op + "_grad") if case.op + "_grad" in registry.all_op_types() else None
    if grad is not None:
        d = rng.uniform(-1, 1, outs["Out"].shape)
        d = (d + 1j * rng.uniform(-1, 1, d.shape) if outs["Out"].dtype.kind == "c" else d).astype(outs["Out"].dtype)
        given = dict(ins, **{"Out@GRAD": d})
        gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
        _same(_filled(grad.type, gins, attrs, KernelContext), grad.kernel("cpu")(gins, dict(attrs)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_0d_complex_value_keeps_its_parts_0d(dtype):
    """real, imag and as_real of a 0-D complex X: 0-D parts, [2] for as_real, as their shape rules say (the kernels
    made them [1] and [1, 2])."""
    z = np.array(1.5 - 2.0j, dtype={"float32": np.complex64, "float64": np.complex128}[dtype])
    for op, want in (
        ("real", np.array(1.5, dtype)),
        ("imag", np.array(-2.0, dtype)),
        ("as_real", np.array([1.5, -2.0], dtype)),
    ):
        out = registry.get(op).kernel("cpu")({"X": z}, {})["Out"]
        assert out.shape == want.shape and out.tobytes() == want.tobytes(), op


def test_a_uniform_random_step_decides_its_meta_once_and_draws_anew_on_every_run():
    """uniform_random's step: its meta rule runs once, and each run draws new values in [min, max) from the step's
    stream, the values its kernel draws from that stream."""
    step = _step("uniform_random", {}, {"shape": [40, 30], "min": -2.0, "max": 3.0})
    inner = inspect.unwrap(step.kernel)
    assert inner.metas == {}
    seen = set()
    for _ in range(3):
        values = Values({})
        run_step(step, values)
        y = values["y"]
        assert y.shape == (40, 30) and y.dtype == np.float32 and y.min() >= -2.0 and y.max() < 3.0
        seen.add(y.tobytes())
    assert len(seen) == 3 and len(inner.metas) == 1


def test_a_dropout_nd_step_decides_its_meta_once_per_shape_signature():
    """dropout_nd's step: its meta rule once per shape and dtype of X; each run Out = X * Mask / (1 - p) (p the
    float32 Paddle holds)."""
    attrs = {"axis": [1], "dropout_prob": 0.25, "dropout_implementation": "upscale_in_train"}
    step = _step("dropout_nd", {"X": ["x"]}, attrs, {"Out": ["y"], "Mask": ["m"]})
    inner = inspect.unwrap(step.kernel)
    feeds = [rng.standard_normal((3, 8, 2)).astype(np.float32)] * 2 + [rng.standard_normal((2, 5, 2))]
    for x in feeds:
        values = Values({"x": x})
        run_step(step, values)
        mask = values["m"]
        assert mask.shape == (1, x.shape[1], 1) and mask.dtype == np.uint8
        scale = x.dtype.type(1 / (1 - np.float32(0.25)))
        assert values["y"].tobytes() == (x * mask * scale).astype(x.dtype).tobytes()
    assert len(inner.metas) == 2


def test_a_shape_tensor_gives_the_drawn_shape_on_every_run():
    """gaussian_random and randint with ShapeTensor: each run's Out of the tensor's values (they replace the shape
    attribute before the meta rule runs), whatever the attribute says."""
    for op, attrs in (("gaussian_random", {"shape": [9]}), ("randint", {"shape": [9], "low": 0, "high": 4})):
        step = _step(op, {"ShapeTensor": ["s"]}, attrs)
        for shape in ([2, 3], [4, 1], [2, 3]):
            values = Values({"s": np.array(shape, np.int32)})
            run_step(step, values)
            assert values["y"].shape == tuple(shape), op
