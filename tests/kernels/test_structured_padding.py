"""The padding ops' structured kernels (shapes/padding.py, kernels/cpu/padding.py, issue 95): pad, pad2d, pad3d,
pad_constant_like, crop and crop_tensor write their outputs into the buffers they are handed (a crop of all of X,
a gradient's window of all of Out@GRAD: a view of it), every element, with the op case's reference values; their
steps decide the Meta once per shape signature, and where a tensor gives the paddings, offsets or shape each
run's values give them; pad2d's and pad3d's gradients sum what each padded position copies back onto it."""

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

rng = np.random.default_rng(13)
_DATA = {"X", "Y", "Out@GRAD"}


def _run(op, ins, attrs, ctx):
    """The op's meta rule and out-kernel on ``ins`` into buffers (outputs and scratch) of two sentinel patterns:
    its outputs, each a view of an input where the Meta says so, else the buffer handed, filled completely."""
    opdef = registry.get(op)
    meta = opdef.structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (np.nan, -7.25):
        outs = {}
        for slot, (shape, dtype) in {**meta.outputs, **meta.scratch}.items():
            if slot not in meta.views:
                outs[slot] = np.full(shape, fill if np.dtype(dtype).kind in "fc" else 77, dtype)
        given = dict(outs)
        for slot, src in meta.views.items():
            outs[slot] = np.ascontiguousarray(ins[src]).reshape(meta.outputs[slot][0])
            assert np.shares_memory(outs[slot], ins[src]) == (ins[src].flags.c_contiguous and ins[src].size > 0)
        assert opdef.structured.cpu(ins, outs, dict(attrs), meta) is None, f"{op}: the out-kernel returned something"
        assert all(outs[s] is b for s, b in given.items()), f"{op}: an output is not the buffer it was handed"
        answers.append(outs)
    for slot, (shape, dtype) in meta.outputs.items():
        a, b = answers[0][slot], answers[1][slot]
        assert a.shape == tuple(shape) and a.dtype == dtype and a.flags.c_contiguous, (op, slot)
        assert a.tobytes() == b.tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
    return {slot: answers[0][slot] for slot in meta.outputs}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (an int64 buffer filled with NaN, the sentinel)
@pytest.mark.parametrize("layout", ["c", "fortran"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("case", CASES["padding"], ids=[c.id for c in CASES["padding"]])
def test_padding_out_kernels_view_or_fill_what_they_are_handed(case, dtype, layout):
    """Every op case of the family (paddings, offsets and shapes given by tensors too), forward and gradient, X of
    three dtypes, C- and Fortran-ordered: the outputs are the buffers handed (or views of an input), every element
    written, all C-contiguous, the op case's reference values (exact: padding and cropping only copy) and the
    op's kernel's bits."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext(paddle2=case.paddle2)
    ins = {s: v.astype(dtype) if s in _DATA else v for s, v in case.inputs.items()}
    if layout == "fortran":
        ins = {s: np.asfortranarray(v) if s in _DATA else v for s, v in ins.items()}
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    taken = values_of(ins, attrs, registry.get(case.op).attr_tensors)  # (as the op's kernel takes them)
    outs = _run(case.op, ins, taken, ctx)
    ref = case.ref(ins, attrs)
    for slot in want:
        assert outs[slot].tobytes() == want[slot].tobytes() and outs[slot].shape == want[slot].shape
        assert np.array_equal(outs[slot], np.asarray(ref[slot]).astype(outs[slot].dtype))
    grad_op = case.op + "_grad"
    if case.grad and grad_op in registry.all_op_types():
        grad = registry.get(grad_op)
        given = dict(ins, **{"Out@GRAD": rng.uniform(-1, 1, outs["Out"].shape).astype(outs["Out"].dtype)})
        gins = {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}
        douts = _run(grad_op, gins, taken, ctx)
        gwant = grad.kernel("cpu")(gins, dict(attrs), ctx)
        (slot,) = gwant
        assert douts[slot].tobytes() == gwant[slot].tobytes() and douts[slot].shape == gwant[slot].shape


def _step(op_type, inputs, attrs, outputs=None):
    program = Program()
    block = program.global_block()
    outputs = outputs or {"Out": ["y"]}
    for name in [n for names in (*inputs.values(), *outputs.values()) for n in names]:
        block.create_var(name=name)
    block.append_op(op_type, inputs, outputs, attrs)
    return OpStep(block.ops[0], CPUPlace())


def _counted(step):
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins["X"].shape, str(ins["X"].dtype), decided.variant))
        return decided

    inner.meta = counted
    return calls


_NUMPY_MODES = {"reflect": "reflect", "edge": "edge", "replicate": "edge", "circular": "wrap"}


@pytest.mark.parametrize(
    "op_type, attrs, widths",
    [
        ("pad2d", {"paddings": [1, 2, 0, 3], "mode": "reflect"}, [(0, 0), (0, 0), (1, 2), (0, 3)]),
        ("pad2d", {"paddings": [2, 0, 1, 1], "mode": "edge", "data_format": "NHWC"}, [(0, 0), (2, 0), (1, 1), (0, 0)]),
        ("pad2d", {"paddings": [1, 1, 2, 0], "pad_value": 0.5}, [(0, 0), (0, 0), (1, 1), (2, 0)]),
        ("pad3d", {"paddings": [1, 0, 2, 1, 0, 1], "mode": "circular"}, [(0, 0), (0, 0), (0, 1), (2, 1), (1, 0)]),
        (
            "pad3d",
            {"paddings": [0, 1, 1, 0, 1, 1], "mode": "replicate", "data_format": "NDHWC"},
            [(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)],
        ),
        ("pad", {"paddings": [0, 1, 2, 0, 1, 1], "pad_value": -1.0}, [(0, 1), (2, 0), (1, 1)]),
    ],
)
def test_a_padding_step_decides_its_meta_once_per_shape_signature(op_type, attrs, widths):
    """A pad op's step: its meta rule once per shape and dtype of X, Out numpy's pad of X in a new buffer each run
    (C-contiguous, from a Fortran-ordered X too)."""
    step = _step(op_type, {"X": ["x"]}, attrs)
    calls = _counted(step)
    rank = len(widths)
    x = rng.standard_normal((2, 3, 4, 5, 3)[:rank]).astype(np.float32)
    other = rng.standard_normal((3, 3, 5, 4, 4)[:rank]).astype(np.float32)
    mode = _NUMPY_MODES.get(attrs.get("mode"), "constant")
    value = attrs.get("pad_value", attrs.get("value", 0.0))
    seen = []
    for feed in (x, x, other, np.asfortranarray(other), x.astype(np.int64)):
        values = Values({"x": feed})
        run_step(step, values)
        y = values["y"]
        kw = {"constant_values": feed.dtype.type(value)} if mode == "constant" else {}
        assert y.tobytes() == np.ascontiguousarray(np.pad(feed, widths, mode=mode, **kw)).tobytes()
        assert y.flags.c_contiguous and all(y is not s for s in seen)
        seen.append(y)
    variant = calls[0][2]
    assert calls == [
        (x.shape, "float32", variant),
        (other.shape, "float32", variant),
        (x.shape, "int64", variant),
    ]


def test_a_pad3d_step_takes_each_runs_paddings_from_its_tensor():
    """The Meta of one X's shape is never reused for other paddings the Paddings tensor gives: runs of one step on
    the same X give each run's padding, forward and gradient; paddings that leave no output are refused in the
    kernel's line."""
    attrs = {"mode": "reflect", "data_format": "NCDHW"}
    step = _step("pad3d", {"X": ["x"], "Paddings": ["p"]}, attrs)
    grad = _step("pad3d_grad", {"X": ["x"], "Paddings": ["p"], "Out@GRAD": ["dy"]}, attrs, {"X@GRAD": ["dx"]})
    x = rng.integers(-9, 9, (1, 2, 3, 4, 3)).astype(np.float64)
    for pads in ([1, 1, 0, 2, 1, 0], [0, 2, 1, 1, 2, 0], [1, 1, 0, 2, 1, 0]):
        left, right, top, bottom, front, back = pads
        widths = [(0, 0), (0, 0), (front, back), (top, bottom), (left, right)]
        values = Values({"x": x, "p": np.array(pads, np.int32)})
        run_step(step, values)
        assert values["y"].tobytes() == np.pad(x, widths, mode="reflect").tobytes()
        dy = rng.integers(-9, 9, values["y"].shape).astype(np.float64)
        gvalues = Values({"x": x, "p": np.array(pads, np.int32), "dy": dy})
        run_step(grad, gvalues)
        assert np.array_equal(gvalues["dx"], _adjoint(x.shape, widths, "reflect", dy))  # (small ints: exact sums)
    with pytest.raises(Exception, match=r"pad3d: reflect padding \[3, 0, 0, 0, 0, 0\] must be smaller"):
        run_step(step, Values({"x": x, "p": np.array([3, 0, 0, 0, 0, 0], np.int32)}))


def _adjoint(shape, widths, mode, dy):
    """The sum of dy over the padded positions copying each of X's (numpy's pad of X's flat positions)."""
    source = np.pad(np.arange(np.prod(shape)).reshape(shape), widths, mode=mode)
    dx = np.zeros(int(np.prod(shape)))
    np.add.at(dx, source.reshape(-1), dy.reshape(-1))
    return dx.reshape(shape)


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
@pytest.mark.parametrize("mode", ["reflect", "edge"])
def test_pad2d_gradient_sums_what_each_padded_pixel_copies(mode, data_format):
    """pad2d_grad's step (its partial sums between dims the Meta's scratch) on small integer values: each pixel of X
    gets the sum of Out@GRAD over the pixels that copy it, in either layout."""
    attrs = {"paddings": [2, 1, 3, 2], "mode": mode, "data_format": data_format}
    grad = _step("pad2d_grad", {"X": ["x"], "Out@GRAD": ["dy"]}, attrs, {"X@GRAD": ["dx"]})
    shape = (2, 3, 4, 5) if data_format == "NCHW" else (2, 4, 5, 3)
    widths = [(0, 0), (0, 0), (2, 1), (3, 2)] if data_format == "NCHW" else [(0, 0), (2, 1), (3, 2), (0, 0)]
    x = np.zeros(shape, np.float32)
    for _ in range(2):
        dy = rng.integers(-9, 9, np.pad(x, widths).shape).astype(np.float32)
        values = Values({"x": x, "dy": dy})
        run_step(grad, values)
        assert values["dx"].dtype == np.float32 and np.array_equal(values["dx"], _adjoint(shape, widths, mode, dy))
    assert len(inspect.unwrap(grad.kernel).metas) == 1


def test_a_crop_of_all_of_x_is_a_view_and_its_gradient_places_out_grad_in_zeros():
    """crop's step: a window copied into a new Out, the whole of a C-contiguous X a view of it (no copy); its
    gradient Out@GRAD placed in zeros of X's shape."""
    step = _step("crop", {"X": ["x"]}, {"shape": [2, -1], "offsets": [1, 1]})
    x = rng.standard_normal((3, 4)).astype(np.float32)
    values = Values({"x": x})
    run_step(step, values)
    assert values["y"].tobytes() == np.ascontiguousarray(x[1:3, 1:]).tobytes()
    assert not np.shares_memory(values["y"], x)
    whole = _step("crop_tensor", {"X": ["x"]}, {"shape": [3, 4], "offsets": [0, 0]})
    values = Values({"x": x})
    run_step(whole, values)
    assert np.shares_memory(values["y"], x) and values["y"].tobytes() == x.tobytes()
    grad = _step(
        "crop_grad", {"X": ["x"], "Out@GRAD": ["dy"]}, {"shape": [2, 2], "offsets": [0, 2]}, {"X@GRAD": ["dx"]}
    )
    dy = rng.standard_normal((2, 2)).astype(np.float32)
    values = Values({"x": x, "dy": dy})
    run_step(grad, values)
    want = np.zeros_like(x)
    want[0:2, 2:4] = dy
    assert values["dx"].tobytes() == want.tobytes()
