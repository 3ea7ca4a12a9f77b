"""The creation and filling ops' structured kernels (shapes/creation.py, shapes/filling.py, kernels/cpu/creation.py,
kernels/cpu/filling.py, issue 95): every out-kernel writes every element of the buffers it is handed (meshgrid's
lists of them too; range's, linspace's and logspace's, whose length their values give, and assign's: new arrays, a
fresh variant's), with the op's kernel's bits; a step decides its Meta once per shape signature, and again on every
run where a tensor gives its shape (empty's ShapeTensor)."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

rng = np.random.default_rng(29)


def _sentinels(spec, fill):
    if type(spec) is list:
        return [_sentinels(s, fill) for s in spec]
    shape, dtype = spec
    return np.full(shape, fill if np.dtype(dtype).kind in "fc" else 77 if np.isnan(fill) else -5, dtype)


def _run(op, ins, attrs, ctx):
    """The op's meta rule and out-kernel on ``ins`` into sentinel buffers of two patterns: its outputs, the buffers
    handed (each of a list slot's; a fresh variant's: new arrays), C-contiguous, of the Meta's shapes and dtypes, filled completely."""
    opdef = registry.get(op)
    meta = opdef.structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (np.nan, -7.25):
        outs = {} if meta.fresh else {slot: _sentinels(spec, fill) for slot, spec in meta.outputs.items()}
        given = {slot: list(v) if type(v) is list else v for slot, v in outs.items()}
        assert opdef.structured.cpu(ins, outs, dict(attrs), meta) is None, f"{op}: the out-kernel returned something"
        if meta.fresh:  # (a numpy form's own new arrays, never an input's memory)
            assert set(outs) == set(meta.outputs)
            assert not any(np.shares_memory(a, v) for a in outs.values() for v in ins.values())
        for slot, value in given.items():
            same = zip(outs[slot], value) if type(value) is list else [(outs[slot], value)]
            assert all(a is b for a, b in same), f"{op}: {slot} is not the buffer it was handed"
        answers.append(outs)
    for slot, spec in meta.outputs.items():
        pairs = (
            zip(answers[0][slot], answers[1][slot], spec)
            if type(spec) is list
            else [(*(a[slot] for a in answers), spec)]
        )
        for a, b, (shape, dtype) in pairs:
            known = len(a.shape) == len(shape) and all(d in (-1, n) for d, n in zip(shape, a.shape))
            assert known and a.dtype == dtype and a.flags.c_contiguous, (op, slot)  # (-1: the values' length)
            assert a.tobytes() == b.tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
    return answers[0]


def _flat(outs):
    return [a.tobytes() for v in outs.values() for a in (v if type(v) is list else [v])]


def _forms():
    """Op cases' inputs and attributes, and forms no op case has (the grad ops', lists, 0-D and empty values)."""
    forms = [(c.op, dict(c.inputs), _attrs_with_defaults(c), c.id) for c in CASES["creation"] + CASES["filling"]]
    x, ints = rng.standard_normal((3, 4)), rng.integers(-9, 9, (2, 0, 3)).astype(np.int32)
    for v in (x, np.asfortranarray(x), x[:, ::2], ints, np.full((), 2.5, np.float32)):
        forms += [
            ("fill_zeros_like", {"X": v}, {}, "zeros_like"),
            ("assign", {"X": v}, {}, "assign"),
            ("fill_any", {"X": v}, {"value": 0.1}, "fill_any"),
            ("fill_any_grad", {"Out@GRAD": v}, {"value": 0.1}, "fill_any_grad"),
            ("fill_any_like", {"X": v}, {"value": -3.0, "dtype": "int64"}, "fill_any_like"),
        ]
    tri = {"diagonal": 1, "lower": False}
    forms += [("tril_triu_grad", {"Out@GRAD": x}, tri, "tril_triu_grad"), ("tril_triu", {"X": x.T}, tri, "triu_f")]
    xs = [rng.standard_normal(3), np.ones((), np.float32), np.arange(4)]
    forms.append(("meshgrid", {"X": xs}, {}, "meshgrid"))
    douts = [rng.standard_normal((3, 1, 4)) for _ in xs]
    forms.append(("meshgrid_grad", {"X": xs, "Out@GRAD": douts}, {}, "meshgrid_grad_cast"))
    forms.append(("meshgrid_grad", {"X": xs[:1], "Out@GRAD": douts[:1]}, {}, "meshgrid_grad"))
    forms += [("fake_init", {}, {"shape": [2, 5]}, "fake_init"), ("assign", {}, {}, "assign_nothing")]
    forms += [
        (op, {}, {"rows": 4, "cols": 3, "row": 4, "col": 3, "offset": -1, "dtype": 2}, op)
        for op in ("tril_indices", "triu_indices")
    ]
    forms.append(("diag_embed", {"Input": x}, {"offset": -2, "dim1": 2, "dim2": 0}, "diag_embed_dims"))
    one = {"Start": np.array([0.5]), "Stop": np.array([4.0]), "Num": np.array([5]), "Base": np.array([2.0])}
    forms += [("linspace", one, {}, "fluid"), ("linspace", one, {"dtype": "float32"}, "paddle2")]
    forms += [("logspace", one, {"dtype": 5}, "logspace"), ("logspace", one, {"dtype": 3}, "logspace_int64")]
    forms.append(("range", {"Start": np.array([7]), "End": np.array([-2]), "Step": np.array([-2])}, {}, "range"))
    return [pytest.param(*f[:3], id=f"{f[0]}-{f[3]}-{i}") for i, f in enumerate(forms)]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (an int buffer filled with NaN, the sentinel)
@pytest.mark.parametrize("op, ins, attrs", _forms())
def test_creation_out_kernels_fill_what_they_are_handed(op, ins, attrs):
    """Every op case of the two families and further forms: the outputs are the buffers handed, every element
    written, C-contiguous, the op's kernel's bits (the executor's step's too)."""
    attrs = dict(registry.get(op).default_attrs(), **attrs)
    ctx = KernelContext()
    outs = _run(op, ins, attrs, ctx)
    want = registry.get(op).kernel("cpu")(dict(ins), dict(attrs), ctx)
    assert _flat(outs) == _flat(want)


def test_a_tensor_array_zeros_like_is_its_empty_slots():
    """fill_zeros_like of a tensor array (a While's gradient): as many empty slots (a fresh variant's value)."""
    array = [np.ones((2, 3), np.float32), np.arange(4)]
    assert registry.get("fill_zeros_like").kernel("cpu")({"X": array}, {})["Out"] == [None, None]


def test_a_meshgrid_step_decides_its_meta_once_per_shape_signature():
    step = _step("meshgrid", {"X": ["a", "b"]}, {}, {"Out": ["p", "q"]})
    inner = inspect.unwrap(step.kernel)
    a, b = np.arange(3, dtype=np.float32), np.arange(2, dtype=np.float32)
    for feed in ((a, b), (a + 1, b), (a[:2].copy(), b)):
        values = Values({"a": feed[0], "b": feed[1]})
        run_step(step, values)
        p, q = np.meshgrid(*feed, indexing="ij")
        assert values["p"].tobytes() == p.tobytes() and values["q"].tobytes() == q.tobytes()
    assert len(inner.metas) == 2


def test_an_empty_step_takes_its_shape_from_shape_tensor_on_every_run():
    """empty's step given ShapeTensor: each run's values give Out's shape (the rule runs after they replace the
    attribute, not once per signature)."""
    step = _step("empty", {"ShapeTensor": ["s"]}, {"dtype": 3})
    for shape in ([2, 3], [4, 1], [2, 3]):
        values = Values({"s": np.array(shape, np.int32)})
        run_step(step, values)
        assert values["y"].shape == tuple(shape) and values["y"].dtype == np.int64 and not values["y"].any()
