"""The slicing and tiling ops' structured kernels (shapes/indexing.py, shapes/broadcasting.py, issue 95): slice's and
strided_slice's Out is a view of Input where the window is all of it (Meta.views), else the window copied into the
buffer handed; their gradients place Out@GRAD in zeros of the buffer handed (or view it, a whole window); expand,
tile, expand_as, expand_v2 and expand_as_v2 copy X into the buffer handed, their gradients' sums are new arrays
(fresh). Their steps decide the Meta once per shape signature, and where a tensor gives the bounds each run's
values give them; Paddle 2.x's slices that drop every dim are 0-D, Fluid's [1]."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.places import CPUPlace
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.framework import Program
from pe_cli.kernels.context import KernelContext
from pe_cli.kernels.tensor_attrs import values_of
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES

rng = np.random.default_rng(11)
FAMILY_CASES = CASES["slicing"] + CASES["tiling"]


def _run(op, ins, attrs, ctx):
    """The op's meta rule and out-kernel on ``ins``, into buffers of two sentinel patterns: its outputs, each a view
    of an input where the Meta says so (sharing its memory where that input is C-contiguous), a new array where
    the variant is fresh (sharing no input's memory), else the buffer handed, filled."""
    opdef = registry.get(op)
    meta = opdef.structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (np.nan, -7.25):
        outs = {}
        if not meta.fresh:
            for slot, (shape, dtype) in meta.outputs.items():
                if slot not in meta.views:
                    outs[slot] = np.full(shape, fill if np.dtype(dtype).kind in "fc" else 77, dtype)
        given = dict(outs)
        for slot, src in meta.views.items():
            outs[slot] = np.ascontiguousarray(ins[src]).reshape(meta.outputs[slot][0])
            assert np.shares_memory(outs[slot], ins[src]) == (ins[src].flags.c_contiguous and ins[src].size > 0)
        assert opdef.structured.cpu(ins, outs, dict(attrs), meta) is None, f"{op}: the out-kernel returned something"
        assert all(outs[s] is b for s, b in given.items()), f"{op}: an output is not the buffer it was handed"
        if meta.fresh:
            assert not any(
                np.shares_memory(outs[s], v) for s in outs for v in ins.values() if isinstance(v, np.ndarray)
            )
        answers.append(outs)
    for slot, (shape, dtype) in meta.outputs.items():
        a, b = answers[0][slot], answers[1][slot]
        assert a.shape == tuple(shape) and a.dtype == dtype and a.flags.c_contiguous, (op, slot)
        assert a.tobytes() == b.tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
    return answers[0]


def _grad_inputs(op, ins, out):
    grad = registry.get(op + "_grad")
    given = dict(ins, **{"Out@GRAD": rng.uniform(-1, 1, np.shape(out)).astype(np.asarray(out).dtype)})
    return grad, {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (an int64 buffer filled with NaN, the sentinel)
@pytest.mark.parametrize("layout", ["c", "fortran"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("case", FAMILY_CASES, ids=[c.id for c in FAMILY_CASES])
def test_slicing_and_tiling_out_kernels_view_or_fill_what_they_are_handed(case, dtype, layout):
    """Every op case of the two families (bounds, times and shapes given by tensors too), forward and gradient, X of
    three dtypes, C- and Fortran-ordered: the outputs a Meta makes views share their input's memory, fresh sums are
    new arrays, the others are the buffers handed, every element written; all C-contiguous, the op's kernel's bits."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext(paddle2=case.paddle2)
    data = {"Input", "X", "Y", "target_tensor"}
    ins = {s: v.astype(dtype) if s in data else v for s, v in case.inputs.items()}
    if layout == "fortran":
        ins = {s: np.asfortranarray(v) if s in data else v for s, v in ins.items()}
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    attrs = values_of(ins, attrs, registry.get(case.op).attr_tensors)  # (as the op's kernel takes them)
    outs = _run(case.op, ins, attrs, ctx)
    assert all(outs[s].tobytes() == want[s].tobytes() and outs[s].shape == want[s].shape for s in want)
    if case.grad:
        grad, gins = _grad_inputs(case.op, ins, outs["Out"])
        douts = _run(grad.type, gins, attrs, ctx)
        gwant = grad.kernel("cpu")(gins, dict(attrs), ctx)
        (slot,) = gwant
        assert douts[slot].tobytes() == gwant[slot].tobytes() and douts[slot].shape == gwant[slot].shape


def _step(op_type, inputs, attrs, zero_dim=False):
    program = Program()
    block = program.global_block()
    for name in [n for names in inputs.values() for n in names] + ["y"]:
        block.create_var(name=name)
    block.append_op(op_type, inputs, {"Out": ["y"]}, attrs)
    op = block.ops[0]
    op.zero_dim = zero_dim
    return OpStep(op, CPUPlace())


def _counted(step, slot):
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins[slot].shape, str(ins[slot].dtype), decided.variant))
        return decided

    inner.meta = counted
    return calls


def test_a_slice_step_decides_its_meta_once_per_shape_signature():
    """slice's step: its meta rule once per shape and dtype of Input; a window copied into a new Out each run, all
    of Input a view of it (no copy) where Input is C-contiguous; the op's kernel's bits."""
    attrs = {"axes": [1], "starts": [0], "ends": [2]}
    step = _step("slice", {"Input": ["x"]}, attrs)
    calls = _counted(step, "Input")
    kernel, full = registry.get("slice").kernel("cpu"), dict(step.attrs)
    x = rng.standard_normal((2, 4, 3)).astype(np.float32)
    whole = np.ascontiguousarray(x[:, :2])
    feeds = [x, x, rng.standard_normal((5, 4, 3)).astype(np.float32), x.astype(np.int64), whole, whole]
    seen = []
    for value in feeds:
        values = Values({"x": value})
        run_step(step, values)
        y = values["y"]
        assert y.tobytes() == kernel({"Input": value}, dict(full))["Out"].tobytes() and y.flags.c_contiguous
        assert np.shares_memory(y, value) == (value is whole)
        assert all(y is not s for s in seen) or value is whole
        seen.append(y)
    assert calls == [((2, 4, 3), "float32", "window"), ((5, 4, 3), "float32", "window")] + [
        ((2, 4, 3), "int64", "window"),
        ((2, 2, 3), "float32", "view"),
    ]


def test_a_strided_slice_step_takes_each_runs_bounds_from_its_tensors():
    """The Meta of one Input's shape is never reused for other bounds a tensor gives: runs of one step on the same
    Input, StartsTensor holding other values, give each run's window; an empty one is refused in the kernel's line."""
    attrs = {"axes": [0, 1], "starts": [0, 0], "ends": [3, -5], "strides": [1, -1], "infer_flags": [-1, -1]}
    step = _step("strided_slice", {"Input": ["x"], "StartsTensor": ["s"]}, attrs)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    for starts in ([0, 3], [1, 1], [2, -1], [0, 3]):
        values = Values({"x": x, "s": np.array(starts, np.int64)})
        run_step(step, values)
        assert values["y"].tobytes() == np.ascontiguousarray(x[starts[0] : 3, starts[1] :: -1]).tobytes()
    with pytest.raises(Exception, match=r"strided_slice of Input \[3, 4\] with axes=\[0, 1\], starts=\[3, 0\]"):
        run_step(step, Values({"x": x, "s": np.array([3, 0], np.int64)}))
    opdef = registry.get("strided_slice")  # (the op's kernel: its meta rule, run on each call, and out-kernel)
    assert inspect.unwrap(step.kernel).structured == (opdef.structured.meta, opdef.structured.cpu)


@pytest.mark.parametrize("zero_dim, shape", [(False, (1,)), (True, ())])
@pytest.mark.parametrize("op_type", ["slice", "strided_slice"])
def test_a_slice_that_drops_every_dim_is_0d_where_the_op_says_so(op_type, zero_dim, shape):
    """x[1, 2] in a Paddle 2.x program (the op's zero_dim) is 0-D, in Fluid 1.8's [1], from the one Meta its step
    keeps."""
    attrs = {"axes": [0, 1], "starts": [1, 2], "ends": [2, 3], "decrease_axis": [0, 1]}
    attrs.update({"strides": [1, 1]} if op_type == "strided_slice" else {})
    step = _step(op_type, {"Input": ["x"]}, attrs, zero_dim=zero_dim)
    x = rng.standard_normal((3, 4))
    for _ in range(2):
        values = Values({"x": x})
        run_step(step, values)
        assert values["y"].shape == shape and values["y"].reshape(-1)[0] == x[1, 2]
    assert len(inspect.unwrap(step.kernel).metas) == 1


def test_an_expand_v2_step_decides_its_meta_once_and_its_gradient_sums_back():
    """expand_v2's step: its meta once per shape and dtype of X, Out np.tile's bits in a new buffer each run; its
    gradient's step sums Out@GRAD back to X's shape as the op's kernel does, bit for bit."""
    step = _step("expand_v2", {"X": ["x"]}, {"shape": [4, -1, 3]})
    calls = _counted(step, "X")
    x = rng.standard_normal((2, 1)).astype(np.float32)
    for value in (x, x, rng.standard_normal((5, 1)).astype(np.float32)):
        values = Values({"x": value})
        run_step(step, values)
        assert values["y"].tobytes() == np.tile(value.reshape(1, -1, 1), (4, 1, 3)).tobytes()
    assert calls == [((2, 1), "float32", "tile"), ((5, 1), "float32", "tile")]
    program = Program()
    block = program.global_block()
    for name in ("x", "dy", "dx"):
        block.create_var(name=name)
    block.append_op("expand_v2_grad", {"X": ["x"], "Out@GRAD": ["dy"]}, {"X@GRAD": ["dx"]}, {"shape": [4, -1, 3]})
    grad = OpStep(block.ops[0], CPUPlace())
    dy = rng.standard_normal((4, 2, 3)).astype(np.float32)
    values = Values({"x": x, "dy": dy})
    run_step(grad, values)
    assert values["dx"].shape == (2, 1) and values["dx"].tobytes() == dy.sum(axis=(0, 2)).reshape(2, 1).tobytes()
