"""The structured kernels of the detection families and their neighbours (issue 95): the box ops
(shapes/detection_boxes.py), the RoI pooling ops (shapes/detection_roi.py), yolo_box and yolov3_loss
(shapes/detection_yolo.py), prelu, maxout and Fluid's second-order activation ops (shapes/activation.py),
conv3d(_transpose) (shapes/convolution3d.py) and unpool(3d) (shapes/pooling_mask.py), with their grad ops. Their
out-kernels fill every element of the buffers they are handed (a ``fresh`` variant: new C-contiguous arrays sharing
no input's memory) with the op's kernel's bits and the op case's reference values; those that read the call's LoD
are handed its context; a step keeps a Meta per shape signature (and LoD)."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.framework.lod_tensor import LoDTensor
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

rng = np.random.default_rng(29)
FAMILIES = ("prelu, maxout and second-order activations", "box ops", "RoI pooling", "yolo", "conv3d", "unpool")
_CASES = [case for family in FAMILIES for case in CASES[family]]


def _run(op, ins, attrs, ctx):
    """The op's meta rule and out-kernel (handed ``ctx`` where it takes one) into buffers of two sentinel patterns:
    its outputs, each the buffer handed (a fresh variant's: a new array of the Meta's shape and dtype sharing no
    input's memory), every element written."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    told = getattr(structured.cpu, "takes_context", False)
    answers = []
    for fill in (np.nan, -7.25):
        outs = {}
        for slot, (shape, dtype) in {**({} if meta.fresh else meta.outputs), **meta.scratch}.items():
            outs[slot] = np.full(shape, fill if np.dtype(dtype).kind in "fc" else 77, dtype)
        given = dict(outs)
        args = (ins, outs, dict(attrs), meta) + ((ctx,) if told else ())
        assert structured.cpu(*args) is None, f"{op}: the out-kernel returned something"
        assert all(outs[s] is b for s, b in given.items()), f"{op}: an output is not the buffer it was handed"
        for slot in meta.outputs if meta.fresh else ():
            assert not any(np.shares_memory(outs[slot], v) for v in ins.values() if isinstance(v, np.ndarray))
        answers.append(outs)
    for slot, (shape, dtype) in meta.outputs.items():
        a, b = answers[0][slot], answers[1][slot]
        assert a.shape == tuple(shape) and a.dtype == dtype and a.flags.c_contiguous, (op, slot)
        assert a.tobytes() == b.tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
    return {slot: answers[0][slot] for slot in meta.outputs}


def _arrays(case, dtype):
    """(arrays, LoD per slot) of the case's inputs, float ones in ``dtype`` ("case": as the case gives them)."""
    ins, lods = {}, {}
    for slot, value in case.inputs.items():
        if isinstance(value, LoDTensor) and value.lod():
            lods[slot] = [list(level) for level in value.lod()]
        a = np.asarray(value)
        ins[slot] = a.astype(dtype) if dtype != "case" and a.dtype.kind == "f" else a
    return ins, lods


def _same_bits(got, want):
    assert got.keys() == want.keys()
    for slot in got:
        assert got[slot].shape == want[slot].shape and got[slot].tobytes() == want[slot].tobytes(), slot


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["case", "float64", "float32"])
@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_out_kernels_fill_what_they_are_handed(case, dtype):
    """Every op case of the families, forward and gradient, in the case's dtypes (then the reference values too)
    and with its float inputs in float64 and float32: the outputs are the buffers handed (or new arrays of the
    Meta's), every element written, C-contiguous, the op's kernel's bits."""
    attrs = _attrs_with_defaults(case)
    ins, lods = _arrays(case, dtype)
    ctx = KernelContext(lod=lods, paddle2=case.paddle2)
    outs = _run(case.op, ins, attrs, ctx)
    _same_bits(outs, registry.get(case.op).kernel("cpu")(dict(ins), dict(attrs), ctx))
    if dtype == "case" and case.ref is not None:
        for slot, want in case.ref(case.inputs, attrs).items():
            if slot in outs:
                np.testing.assert_allclose(outs[slot], want, rtol=max(case.rtol, 1e-5), atol=max(case.atol, 1e-6))
    grad = registry.get(case.op + "_grad") if case.op + "_grad" in registry.all_op_types() else None
    if not case.grad or grad is None:
        return
    given = dict(ins, **outs)
    for slot, value in outs.items():
        if value.dtype.kind == "f":
            given[slot + "@GRAD"] = rng.uniform(-1, 1, value.shape).astype(value.dtype)
    gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
    _same_bits(_run(grad.type, gins, attrs, ctx), grad.kernel("cpu")(dict(gins), dict(attrs), ctx))


@pytest.mark.parametrize("name, given", [("elu", "DOut"), ("sqrt", "DX"), ("square", "DOut"), ("relu", None)])
def test_second_order_ops_write_the_outputs_asked_for(name, given):
    """relu_grad_grad, elu_grad_grad, ...: each output alone and both, into the buffers handed; DDOut is the row's
    gradient of (u, DDX), the other the gradient of u (base/activations_second_order.py)."""
    op = registry.get(f"{name}_grad_grad")
    u = "Out" if name in ("relu", "sqrt") else "X"
    x = rng.uniform(0.2, 2.0, (3, 4)) * rng.choice([-1, 1], (3, 4)) if u == "X" else rng.uniform(0.2, 2.0, (3, 4))
    ins = {u: x, "DDX": rng.uniform(-1, 1, (3, 4))}
    if given:
        ins[given] = rng.uniform(-1, 1, (3, 4))
    slots = [s.name for s in op.outputs]
    grad_kernel = registry.get(f"{name}_grad").kernel("cpu")
    for wanted in [slots, *([s] for s in slots)]:
        ctx = KernelContext(outputs=frozenset(wanted))
        outs = _run(op.type, ins, op.default_attrs(), ctx)
        assert set(outs) == set(wanted)
        _same_bits(outs, op.kernel("cpu")(dict(ins), op.default_attrs(), ctx))
        if "DDOut" in outs:
            want = grad_kernel({u: x, "Out@GRAD": ins["DDX"]}, op.default_attrs())["X@GRAD"]
            assert outs["DDOut"].tobytes() == want.tobytes()


def test_a_roi_pool_step_keeps_a_meta_per_lod():
    """A roi_pool step on the same shapes with two LoDs of ROIs (which image each roi pools from), each twice: its
    meta rule runs once per (signature, LoD), and each run pools each roi from its own image."""
    step = _step(
        "roi_pool",
        {"X": ["x"], "ROIs": ["r"]},
        {"pooled_height": 1, "pooled_width": 1, "spatial_scale": 1.0},
        {"Out": ["y"], "Argmax": ["a"]},
    )
    inner = inspect.unwrap(step.kernel)
    x = np.stack([np.full((1, 4, 4), 1.0), np.full((1, 4, 4), 2.0)])
    rois = np.array([[0, 0, 3, 3], [0, 0, 3, 3], [0, 0, 3, 3]])
    for offsets in ([0, 1, 3], [0, 2, 3], [0, 1, 3], [0, 2, 3]):
        values = Values({"x": x, "r": rois}, {"r": [offsets]})
        run_step(step, values)
        images = np.repeat([0, 1], np.diff(offsets))
        assert values["y"].reshape(-1).tolist() == [x[i].max() for i in images]
    assert len(inner.metas) == 2


def test_a_conv3d_step_decides_its_meta_once_per_shape_signature():
    """conv3d's step: its plan and Output shape once per shape and dtype of Input and Filter; each run the op's
    kernel's bits."""
    step = _step("conv3d", {"Input": ["x"], "Filter": ["w"]}, {"strides": [1, 2, 1]}, {"Output": ["y"]})
    inner = inspect.unwrap(step.kernel)
    kernel, attrs = registry.get("conv3d").kernel("cpu"), registry.get("conv3d").default_attrs()
    w = rng.standard_normal((3, 2, 2, 2, 2))
    feeds = [rng.standard_normal((2, 2, 3, 4, 3)) for _ in range(3)] + [rng.standard_normal((1, 2, 4, 4, 4))]
    for x in feeds:
        values = Values({"x": x, "w": w})
        run_step(step, values)
        want = kernel({"Input": x, "Filter": w}, dict(attrs, strides=[1, 2, 1]))["Output"]
        assert values["y"].tobytes() == want.tobytes()
    assert len(inner.metas) == 2
