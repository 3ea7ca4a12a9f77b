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
from tests.ops import cases_sequence_rows
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


def _filled(op, ins, attrs, ctx):
    """The op's meta rule and out-kernel (handed the call's context where it takes one) into buffers of two sentinel
    patterns: its outputs, the buffers handed, filled completely."""
    opdef = registry.get(op)
    meta, told = opdef.structured.meta(attrs, ins, ctx), getattr(opdef.structured.cpu, "takes_context", False)
    answers = []
    for fill in (np.nan, -7.25):
        outs = {
            s: np.full(shape, fill if np.dtype(d).kind in "fc" else 77, d) for s, (shape, d) in meta.outputs.items()
        }
        given = dict(outs)
        extra = (ctx,) if told else ()
        assert opdef.structured.cpu(ins, outs, dict(attrs), meta, *extra) is None
        assert all(outs[s] is b for s, b in given.items()), f"{op}: an output is not the buffer it was handed"
        answers.append(outs)
    for slot in meta.outputs:
        assert answers[0][slot].tobytes() == answers[1][slot].tobytes(), f"{op}: {slot} not filled completely"
    return answers[0]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["sequence rows"], ids=[c.id for c in CASES["sequence rows"]])
def test_sequence_rows_out_kernels_fill_what_they_are_handed(case, dtype):
    """sequence_reverse, sequence_expand, sequence_pad and their grad ops on each op case's values and LoDs: the
    outputs are the buffers handed, every element written, the op's kernel's bits (and expand's Out LoD)."""
    attrs = _attrs_with_defaults(case)
    lods = {s: v.lod() for s, v in case.inputs.items() if hasattr(v, "lod") and v.lod()}
    ins = {s: np.asarray(v).astype(dtype) for s, v in case.inputs.items()}
    ctx, want_ctx = KernelContext(lod=lods), KernelContext(lod=lods)
    outs = _filled(case.op, ins, attrs, ctx)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), want_ctx)
    assert all(outs[s].tobytes() == want[s].tobytes() and outs[s].shape == want[s].shape for s in outs)
    assert ctx.out_lod == want_ctx.out_lod
    first = "Y" if case.op == "sequence_reverse" else "Out"
    grad = registry.get(case.op + "_grad")
    given = {**ins, f"{first}@GRAD": rng.uniform(-1, 1, outs[first].shape).astype(dtype)}
    gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
    douts = _filled(grad.type, gins, attrs, KernelContext(lod=lods))
    gwant = grad.kernel("cpu")(gins, dict(attrs), KernelContext(lod=lods))
    assert douts["X@GRAD"].tobytes() == gwant["X@GRAD"].tobytes()


def test_row_steps_keep_a_meta_per_lod():
    """sequence_reverse, sequence_pad and sequence_expand as steps on one shape with two LoDs, each twice: each run
    its own LoD's rows (expand's Out LoD its own too), a Meta per LoD."""
    x = rng.standard_normal((6, 2))
    rev = _step("sequence_reverse", {"X": ["x"]}, {}, {"Y": ["y"]})
    pad = _step("sequence_pad", {"X": ["x"], "PadValue": ["p"]}, {}, {"Out": ["y"], "Length": ["n"]})
    exp = _step("sequence_expand", {"X": ["x"], "Y": ["r"]}, {}, {"Out": ["y"]})
    for lengths in ([2, 4], [1, 2, 3], [2, 4], [1, 2, 3]):
        offs = np.concatenate([[0], np.cumsum(lengths)]).tolist()
        values = _lod_values("x", x, lengths)
        run_step(rev, values)
        assert values["y"].tobytes() == np.concatenate([x[a:b][::-1] for a, b in zip(offs, offs[1:])]).tobytes()
        values = Values({"x": x, "p": np.zeros(1)}, {"x": [offs]})
        run_step(pad, values)
        assert values["y"].shape == (len(lengths), max(lengths), 2) and values["n"].tolist() == lengths
        assert values["y"][-1, : lengths[-1]].tobytes() == x[offs[-2] :].tobytes()
        r = np.zeros((len(lengths), 1))  # (Y: one row per sequence of X, each X row repeated once)
        values = Values({"x": x, "r": r}, {"r": [list(range(len(lengths) + 1))], "x": [offs]})
        run_step(exp, values)
        assert values["y"].tobytes() == x.tobytes() and values.lods["y"] == [offs]
    for step in (rev, pad, exp):
        assert len(inspect.unwrap(step.kernel).metas) == 2


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", [c for c in cases_sequence_rows.CASES if c.op == "sequence_unpad"])
def test_unpad_grad_out_kernel_fills_what_it_is_handed(case, dtype):
    """sequence_unpad_grad on each unpad case: X@GRAD the buffer handed, every element written, the kernel's bits;
    a Length past the padded length refused as the forward refuses it."""
    x, length = np.asarray(case.inputs["X"]).astype(dtype), np.asarray(case.inputs["Length"])
    out = registry.get("sequence_unpad").kernel("cpu")({"X": x, "Length": length}, {}, KernelContext())["Out"]
    gins = {"X": x, "Length": length, "Out@GRAD": rng.uniform(-1, 1, out.shape).astype(dtype)}
    douts = _filled("sequence_unpad_grad", gins, {}, KernelContext())
    assert douts["X@GRAD"].tobytes() == registry.get("sequence_unpad_grad").kernel("cpu")(gins, {})["X@GRAD"].tobytes()
    with pytest.raises(Exception, match="sequence_unpad: Length .* must be between 0 and the padded length"):
        registry.get("sequence_unpad_grad").kernel("cpu")(dict(gins, Length=length + x.shape[1]), {})


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["sequence shape"], ids=[c.id for c in CASES["sequence shape"]])
def test_sequence_shape_out_kernels(case, dtype):
    """sequence_expand_as (and its gradient) fills the buffers it is handed; sequence_reshape's Out is a view of a
    C-contiguous X with the rule's LoD, its gradient a view of Out@GRAD: each the op's kernel's bits."""
    attrs = _attrs_with_defaults(case)
    lods = {s: v.lod() for s, v in case.inputs.items() if hasattr(v, "lod") and v.lod()}
    ins = {s: np.asarray(v).astype(dtype) for s, v in case.inputs.items()}
    opdef, grad = registry.get(case.op), registry.get(case.op + "_grad")
    if case.op == "sequence_expand_as":
        outs = _filled(case.op, ins, attrs, KernelContext(lod=lods))
    else:
        ctx = KernelContext(lod=lods)
        outs = opdef.kernel("cpu")(ins, dict(attrs), ctx)
        assert np.shares_memory(outs["Out"], ins["X"]) and outs["Out"].shape[1] == attrs["new_dim"]
        offs = np.asarray(lods["X"][-1]) * ins["X"].shape[1] // attrs["new_dim"]
        assert ctx.out_lod == {"Out": lods["X"][:-1] + [offs.tolist()]}
    assert outs["Out"].tobytes() == np.asarray(case.ref(case.inputs, attrs)["Out"]).astype(dtype).tobytes()
    given = {**ins, "Out@GRAD": rng.uniform(-1, 1, outs["Out"].shape).astype(dtype)}
    gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
    if case.op == "sequence_expand_as":
        douts = _filled(grad.type, gins, attrs, KernelContext(lod=lods))
    else:
        douts = grad.kernel("cpu")(gins, dict(attrs), KernelContext(lod=lods))
        assert np.shares_memory(douts["X@GRAD"], gins["Out@GRAD"]) and douts["X@GRAD"].shape == ins["X"].shape
    want = {"X@GRAD": np.zeros_like(ins["X"])}
    if case.op == "sequence_expand_as":
        offs = lods["Y"][-1]
        np.add.at(want["X@GRAD"], np.repeat(np.arange(len(offs) - 1), np.diff(offs)), given["Out@GRAD"])
    else:
        want["X@GRAD"] = given["Out@GRAD"].reshape(ins["X"].shape)
    assert douts["X@GRAD"].tobytes() == want["X@GRAD"].tobytes()


def test_shape_steps_keep_a_meta_per_lod():
    """sequence_expand_as and sequence_reshape as steps on one shape with two LoDs, each twice: each run its own
    LoD's rows and Out LoD, a Meta per LoD."""
    x = rng.standard_normal((4, 2))
    expand_as = _step("sequence_expand_as", {"X": ["x"], "Y": ["r"]}, {}, {"Out": ["y"]})
    reshape = _step("sequence_reshape", {"X": ["x"]}, {"new_dim": 4}, {"Out": ["y"]})
    for offs in ([0, 1, 3, 3, 6], [0, 2, 3, 5, 6], [0, 1, 3, 3, 6], [0, 2, 3, 5, 6]):
        values = Values({"x": x, "r": np.zeros((6, 1))}, {"r": [offs]})
        run_step(expand_as, values)
        assert values["y"].tobytes() == np.repeat(x, np.diff(offs), axis=0).tobytes() and values.lods["y"] == [offs]
        x_offs = [0, 2, 4] if offs[1] == 1 else [0, 4]
        values = Values({"x": x}, {"x": [x_offs]})
        run_step(reshape, values)
        assert values["y"].tobytes() == x.tobytes() and values.lods["y"] == [[v // 2 for v in x_offs]]
    for step in (expand_as, reshape):
        assert len(inspect.unwrap(step.kernel).metas) == 2
