"""The fused ops' structured kernels (shapes/fused.py, shapes/linalg_fused.py, shapes/attention.py,
shapes/normalization_activated.py, shapes/position.py; their out-kernels in kernels/cpu/): each op and grad op
writes every element of the buffers it is handed (a list output's too; a ``fresh`` variant: new C-contiguous arrays
of its own), with the op kernel's bits and the op case's reference values; a step decides its Meta once per shape
signature."""

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.kernels.context import KernelContext, takes_context
from pe_cli.kernels.structured import step_kernel
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES

rng = np.random.default_rng(31)


def _fill(spec, fill):
    if type(spec) is list:
        return [_fill(s, fill) for s in spec]
    shape, dtype = spec
    return np.full(shape, fill if np.dtype(dtype).kind in "fc" else 77, dtype)


def _run(op, ins, attrs, ctx):
    """The op's meta rule and out-kernel into output and scratch buffers of two sentinel patterns: its outputs, each
    the buffer handed (a fresh variant's: a new array sharing no input's memory), every element written."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    arrays = [v for vs in ins.values() for v in (vs if isinstance(vs, list) else [vs]) if isinstance(v, np.ndarray)]
    answers = []
    for fill in (np.nan, -7.25):
        outs = {
            slot: _fill(spec, fill) for slot, spec in {**({} if meta.fresh else meta.outputs), **meta.scratch}.items()
        }
        for slot, src in meta.aliases.items():
            outs[slot] = ins[src]
        given = dict(outs)
        args = (ins, outs, dict(attrs), meta) + ((ctx,) if getattr(structured.cpu, "takes_context", False) else ())
        assert structured.cpu(*args) is None, f"{op}: the out-kernel returned something"
        assert all(outs[s] is b for s, b in given.items()), f"{op}: an output is not the buffer it was handed"
        for slot in meta.outputs if meta.fresh else ():
            for value in outs[slot] if type(outs[slot]) is list else [outs[slot]]:
                assert not any(np.shares_memory(value, v) for v in arrays if slot not in meta.aliases)
        answers.append(outs)
    result = {}
    for slot, spec in meta.outputs.items():
        a, b = answers[0][slot], answers[1][slot]
        for x, y, (shape, dtype) in zip(*(v if type(v) is list else [v] for v in (a, b, spec))):
            assert x.shape == tuple(shape) and x.dtype == dtype, (op, slot)
            assert x.tobytes() == y.tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
        result[slot] = a
    return result


def test_fc_of_no_rows_is_empty():
    """fc of an Input with no rows gives Out [0, N] (as mul would; the kernel before refused to reshape it)."""
    w, b = rng.uniform(-1, 1, (6, 5)), rng.uniform(-1, 1, (5,))
    for x in (np.zeros((0, 6)), np.zeros((0, 2, 3))):
        out = registry.get("fc").kernel("cpu")({"Input": x, "W": w, "Bias": b}, _attrs_with_defaults_of("fc"))["Out"]
        assert out.shape == (0, 5) and out.dtype == x.dtype
        assert _run("fc", {"Input": x, "W": w}, _attrs_with_defaults_of("fc"), KernelContext())["Out"].shape == (0, 5)


def _attrs_with_defaults_of(op, **attrs):
    return dict(registry.get(op).default_attrs(), **attrs)


_FUSED = CASES["fused ops"]


def _inputs(case, dtype):
    """The case's inputs in ``dtype`` (float values; a list slot's each), and the LoD of those that carry one."""
    ins, lods = {}, {}
    for slot, value in case.inputs.items():
        values = value if isinstance(value, list) else [value]
        arrays = []
        for v in values:
            if hasattr(v, "lod") and callable(v.lod) and v.lod():
                lods[slot] = v.lod()
            a = np.asarray(v)
            arrays.append(a.astype(dtype) if a.dtype.kind == "f" else a)
        ins[slot] = arrays if isinstance(value, list) else arrays[0]
    return ins, lods


def _same(outs, want):
    assert outs.keys() == want.keys()
    for slot, value in outs.items():
        for a, b in zip(*(v if isinstance(v, list) else [v] for v in (value, want[slot]))):
            assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), slot


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", _FUSED, ids=[c.id for c in _FUSED])
def test_fused_out_kernels_fill_what_they_are_handed(case, dtype):
    """Every op case of the fused ops, forward and gradient, in float64 and float32: the outputs are the buffers
    handed (a list output's each), every element written, the op's kernel's bits, and in float64 the case's
    reference values."""
    ins, lods = _inputs(case, dtype)
    attrs, ctx = _attrs_with_defaults(case), KernelContext(lod=lods)
    outs = _run(case.op, ins, attrs, ctx)
    kernel = registry.get(case.op).kernel("cpu")
    want = kernel(ins, dict(attrs), ctx) if takes_context(kernel) else kernel(ins, dict(attrs))
    _same(outs, {slot: want[slot] for slot in outs})
    if dtype == "float64":
        ref = case.ref(dict(case.inputs), attrs)
        for slot, value in ref.items():
            if slot in outs and not isinstance(value, list):
                np.testing.assert_allclose(outs[slot], value, rtol=1e-5, atol=1e-6, err_msg=slot)
    grad = registry.get(case.op + "_grad") if case.op + "_grad" in registry.all_op_types() else None
    if grad is None or grad.structured is None:
        return
    given = dict(ins, **outs)
    for slot in ("Out", "Y"):
        if slot in outs:
            given[slot + "@GRAD"] = rng.uniform(-1, 1, outs[slot].shape).astype(outs[slot].dtype)
    gins = {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}
    douts = _run(grad.type, gins, attrs, ctx)
    gkernel = grad.kernel("cpu")
    gwant = gkernel(gins, dict(attrs), ctx) if takes_context(gkernel) else gkernel(gins, dict(attrs))
    _same(douts, {slot: gwant[slot] for slot in douts})


@pytest.mark.parametrize("op", ["fused_elemwise_activation", "fused_batch_norm_act", "fc"])
def test_a_step_decides_the_meta_once_per_shape_signature(op):
    """An executor step of a fused op runs its meta rule once per shape signature, and gives its kernel's bits."""
    case = next(c for c in _FUSED if c.op == op)
    ins, _ = _inputs(case, "float32")
    attrs = _attrs_with_defaults(case)
    opdef = registry.get(op)
    step = step_kernel(opdef.structured.meta, opdef.structured.cpu, op)
    first, second = step(dict(ins), dict(attrs)), step(dict(ins), dict(attrs))
    assert len(step.metas) == 1
    want = opdef.kernel("cpu")(dict(ins), dict(attrs))
    _same(first, {slot: want[slot] for slot in first})
    _same(second, {slot: want[slot] for slot in second})
