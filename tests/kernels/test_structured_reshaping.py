"""The reshaping ops' structured kernels (shapes/reshaping.py, issue 95): reshape, squeeze, unsqueeze, flatten,
flatten_contiguous_range, their ``*2`` twins and grad ops make Out a view of X where X is C-contiguous (Meta.views:
no buffer, no copy), a C-contiguous copy otherwise; transpose's out-kernel fills the buffer it is handed (numba's
loop or numpy's copy) or leaves a view. Their steps decide the Meta once per shape signature, and where a tensor
gives the shape (reshape's Shape and ShapeTensor) each run's values give it."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.places import CPUPlace
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.framework import Program
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES

rng = np.random.default_rng(7)


def _grad_inputs(op, ins, outs):
    grad = registry.get(op + "_grad")
    out = np.asarray(outs["Out"])
    given = {"X": ins["X"], "Out": out, "XShape": outs.get("XShape"), "Out@GRAD": rng.uniform(-1, 1, out.shape)}
    return grad, {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}


def _run(op, ins, attrs):
    """The op's meta rule and out-kernel on ``ins``: its outputs, each a view of an input where the Meta says so
    (sharing its memory where that input is C-contiguous), else the buffer handed to the out-kernel, filled."""
    opdef, ctx = registry.get(op), KernelContext()
    meta = opdef.structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (np.nan, -7.25):
        outs = {s: np.full(shape, fill, dtype) for s, (shape, dtype) in meta.outputs.items() if s not in meta.views}
        given = dict(outs)
        for slot, src in meta.views.items():
            outs[slot] = np.ascontiguousarray(ins[src]).reshape(meta.outputs[slot][0])
            assert np.shares_memory(outs[slot], ins[src]) == (ins[src].flags.c_contiguous and ins[src].size > 0)
        assert opdef.structured.cpu(ins, outs, dict(attrs), meta) is None
        assert all(outs[s] is b for s, b in given.items()), f"{op}: an output is not the buffer it was handed"
        answers.append(outs)
    for slot, (shape, dtype) in meta.outputs.items():
        a, b = answers[0][slot], answers[1][slot]
        assert a.shape == tuple(shape) and a.dtype == dtype and a.flags.c_contiguous
        assert a.tobytes() == b.tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
    return answers[0]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (an int64 buffer filled with NaN, the sentinel)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("case", CASES["reshaping"], ids=[c.id for c in CASES["reshaping"]])
def test_reshaping_out_kernels_view_or_fill_what_they_are_handed(case, dtype):
    """Every op case of the family, forward and gradient: the outputs a Meta makes views of an input share its
    memory, the others are the buffers handed, every element written, and all are the op's kernel's bits."""
    attrs = _attrs_with_defaults(case)
    ins = {
        s: v if isinstance(v, list) or v.dtype.kind in "iu" and s != "X" else v.astype(dtype)
        for s, v in case.inputs.items()
    }
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs))
    attrs = _given(case.op, ins, attrs)  # (an attribute a tensor gives: its value, as the op's kernel takes it)
    outs = _run(case.op, ins, attrs)
    assert set(outs) >= set(want) and all(outs[s].tobytes() == want[s].tobytes() for s in want)
    assert all(outs[s].shape == want[s].shape for s in want)
    if case.grad:
        grad, gins = _grad_inputs(case.op, ins, outs)
        douts = _run(grad.type, gins, attrs)
        assert douts["X@GRAD"].tobytes() == grad.kernel("cpu")(gins, dict(attrs))["X@GRAD"].tobytes()
        assert douts["X@GRAD"].shape == ins["X"].shape


def _given(op, ins, attrs):
    """The attributes with the values of the tensors that give them (the op's attr_tensors)."""
    from pe_cli.kernels.tensor_attrs import values_of

    return values_of(ins, attrs, registry.get(op).attr_tensors)


def _step(op_type, inputs, outputs, attrs, x_shape=(-1, 3, 4)):
    program = Program()
    block = program.global_block()
    for name in [n for names in {**inputs, **outputs}.values() for n in names]:
        shape = {"x": list(x_shape), "shape": [2], "a": [1], "b": [1]}.get(name)
        block.create_var(name=name, shape=shape, dtype="int64" if name == "shape" else "float32")
    block.append_op(op_type, inputs, outputs, attrs)
    return OpStep(block.ops[0], CPUPlace())


def _counted(step):
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins["X"].shape, decided.variant))
        return decided

    inner.meta = counted
    return calls


def test_a_reshape2_step_decides_its_meta_once_and_makes_out_a_view_of_x():
    """reshape2's step: its meta rule once per shape and dtype of X; Out a view of X's memory (C-contiguous X: no
    copy; an array with a base, a view, which donation never lets an update write over), a C-contiguous copy of a strided
    X; XShape X's shape behind a 0."""
    step = _step("reshape2", {"X": ["x"]}, {"Out": ["y"], "XShape": ["s"]}, {"shape": [0, -1]})
    calls = _counted(step)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    strided = rng.standard_normal((2, 3, 8)).astype(np.float32)[:, :, ::2]
    for value in (x, x, x.copy(), strided, rng.standard_normal((5, 3, 4)).astype(np.float32)):
        values = Values({"x": value})
        run_step(step, values)
        y = values["y"]
        assert y.shape == (value.shape[0], 12) and y.tobytes() == value.reshape(value.shape[0], 12).tobytes()
        assert np.shares_memory(y, value) == value.flags.c_contiguous and y.flags.c_contiguous
        assert y.base is not None and values["s"].shape == (0, *value.shape)
    assert calls == [((2, 3, 4), "view"), ((5, 3, 4), "view")]


@pytest.mark.parametrize("slot", ["ShapeTensor", "Shape"])
def test_a_reshape_step_takes_each_runs_shape_from_its_tensor(slot):
    """The Meta of one X's shape is never reused for another shape a tensor gives: two runs of one step on the same
    X, ShapeTensor (or Shape) holding other values, give Out of each run's shape; a shape that does not fit X is
    refused in the kernel's one line."""
    names = ["a", "b"] if slot == "ShapeTensor" else ["shape"]
    attrs = {"shape": [-1, -1] if slot == "ShapeTensor" else []}
    step = _step("reshape", {"X": ["x"], slot: names}, {"Out": ["y"]}, attrs)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    for dims in ([3, 8], [8, 3], [0, 12], [3, 8]):
        given = {n: np.array([d], np.int32) for n, d in zip(names, dims)} if slot == "ShapeTensor" else {}
        values = Values({"x": x, **given, **({"shape": np.array(dims, np.int64)} if not given else {})})
        run_step(step, values)
        want = [x.shape[0] if d == 0 else d for d in dims]
        assert values["y"].shape == tuple(want) and values["y"].tobytes() == x.tobytes()
        assert np.shares_memory(values["y"], x)
    bad = {n: np.array([5], np.int32) for n in names} if slot == "ShapeTensor" else {"shape": np.array([5, 5])}
    with pytest.raises(Exception, match=r"cannot reshape X of shape \[2, 3, 4\] to \[5, 5\]: X's elements number 24"):
        run_step(step, Values({"x": x, **bad}))


def test_a_transpose_step_decides_its_variant_once_per_shape_signature():
    """transpose2's step: a swap of two adjacent dims of a large float X the loop, of ints numpy's copy into Out, a
    permutation that moves only dims of one element a view of X; each the bits of numpy's transpose, C-contiguous."""
    step = _step("transpose2", {"X": ["x"]}, {"Out": ["y"], "XShape": ["s"]}, {"axis": [0, 2, 1, 3]}, (-1,) * 4)
    calls = _counted(step)
    big = rng.standard_normal((64, 28, 4, 16)).astype(np.float32)
    feeds = [big, big, big.astype(np.int64), rng.standard_normal((3, 1, 5, 2)), big[:, :, :, ::-1]]
    for x in feeds:
        values = Values({"x": x})
        run_step(step, values)
        y = values["y"]
        assert y.flags.c_contiguous and y.tobytes() == np.ascontiguousarray(x.transpose(0, 2, 1, 3)).tobytes()
        assert np.shares_memory(y, x) == (x.shape[1] == 1)
    assert calls == [((64, 28, 4, 16), "swap"), ((64, 28, 4, 16), "copy"), ((3, 1, 5, 2), "view")]


@pytest.mark.parametrize(
    "op, x, attrs, message",
    [
        ("reshape2", (2, 3), {"shape": [4, -1]}, r"cannot reshape X of shape \[2, 3\] to \[4, -1\]: X's elements, 6, "),
        ("squeeze2", (2, 3), {"axes": [1]}, r"cannot squeeze X of shape \[2, 3\] along axes \[1\]: dim 1 has size 3"),
        ("unsqueeze2", (2, 3), {"axes": [4]}, r"cannot unsqueeze X of shape \[2, 3\] along axes \[4\]: axis 4 is out "),
        ("transpose2", (2, 3), {"axis": [0, 0]}, "repeated axis in transpose"),
    ],
)
def test_reshaping_refusals_stay_one_line(op, x, attrs, message):
    with pytest.raises(Exception, match=message):
        registry.get(op).kernel("cpu")({"X": np.zeros(x)}, dict(registry.get(op).default_attrs(), **attrs))


@pytest.mark.parametrize("dtype", ["float16", "bool", "int32"])
def test_0d_and_empty_values_reshape_as_before(dtype):
    """A 0-D X reshaped to [] stays a view of it; flatten_contiguous_range makes it [1]; an empty X reshapes to
    the empty shape asked, transposes to an empty Out."""
    x = np.array(1).astype(dtype)
    out = registry.get("reshape2").kernel("cpu")({"X": x}, {"shape": []})["Out"]
    assert out.shape == () and np.shares_memory(out, x)
    attrs = {"start_axis": 0, "stop_axis": -1}
    assert registry.get("flatten_contiguous_range").kernel("cpu")({"X": x}, attrs)["Out"].shape == (1,)
    empty = np.zeros((0, 3, 4), dtype)
    assert registry.get("reshape").kernel("cpu")({"X": empty}, {"shape": [0, 12]})["Out"].shape == (0, 12)
    assert registry.get("transpose").kernel("cpu")({"X": empty}, {"axis": [2, 0, 1]})["Out"].shape == (4, 0, 3)
