"""The image family's structured kernels (shapes/image.py; kernels/cpu/image.py, image_resize.py and linear_resize.py;
issue 95): the resize ops (their sizes from attributes or, as -1 in the Meta, from OutSize, SizeTensor or Scale read
on each call), affine_grid, grid_sampler, fsp, the permutation ops, similarity_focus and unfold, each with its grad
op, fill the buffers they are handed, every element (a ``fresh`` variant: a new C-contiguous array of the Meta's
shape where it knows it, sharing no input's memory), with the op case's values; a step keeps one Meta per shape
signature while the sizes a tensor gives change from run to run."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.errors import PeError
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

rng = np.random.default_rng(29)
_CASES = CASES["image"] + CASES["linear resize"]
_VALUE_SLOTS = ("X", "Y", "Theta", "Grid")  # (the values; OutSize, SizeTensor, Scale, OutputShape keep theirs)


def _arrays(value):
    return value if isinstance(value, list) else [value]


def _filled(op, ins, attrs, ctx):
    """The op's meta rule and out-kernel into buffers of two sentinel patterns: each output the buffer handed (a
    fresh variant's: a new C-contiguous array sharing no input's memory, of the Meta's dims where known), every
    element written."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (np.nan, -7.25):
        outs = {}
        for slot, (shape, dtype) in ({} if meta.fresh else meta.outputs).items():
            outs[slot] = np.full(shape, fill if np.dtype(dtype).kind in "fc" else 77, dtype)
        given = dict(outs)
        assert structured.cpu(ins, outs, dict(attrs), meta) is None, f"{op}: the out-kernel returned something"
        assert all(outs[s] is b for s, b in given.items()), f"{op}: an output is not the buffer it was handed"
        for slot, (shape, dtype) in meta.outputs.items():
            a = outs[slot]
            assert a.dtype == dtype and a.flags.c_contiguous, (op, slot)
            assert len(a.shape) == len(shape) and all(m in (-1, n) for m, n in zip(shape, a.shape)), (op, slot)
            if meta.fresh:
                values = [v for value in ins.values() for v in _arrays(value) if isinstance(v, np.ndarray)]
                assert not any(np.shares_memory(a, v) for v in values), (op, slot)
        answers.append(outs)
    for slot in meta.outputs:
        a, b = answers[0][slot], answers[1][slot]
        assert a.tobytes() == b.tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
    return {slot: answers[0][slot] for slot in meta.outputs}


def _inputs(case, dtype, layout):
    ins = {}
    for slot, value in case.inputs.items():
        if slot not in _VALUE_SLOTS or np.asarray(value).dtype.kind != "f":  # (uint8 images stay uint8)
            ins[slot] = value
            continue
        a = np.asarray(value).astype(dtype)
        ins[slot] = np.asfortranarray(a) if layout == "fortran" else a
    return ins


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("layout", ["c", "fortran"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_image_out_kernels_fill_what_they_are_handed(case, dtype, layout):
    """Every op case of the family, forward and gradient, in two dtypes, C- and Fortran-ordered: the buffers handed
    filled (or new arrays of the Meta's shape), the op's kernel's bits, the case's reference values."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext(paddle2=case.paddle2)
    ins = _inputs(case, dtype, layout)
    opdef = registry.get(case.op)
    outs = _filled(case.op, ins, attrs, ctx)
    want = opdef.kernel("cpu")(dict(ins), dict(attrs), ctx)
    assert outs.keys() == want.keys() and all(outs[s].tobytes() == want[s].tobytes() for s in outs)
    if case.ref is not None and dtype == "float64":
        ref = case.ref({k: v if k not in _VALUE_SLOTS else np.asarray(v) for k, v in ins.items()}, attrs)
        for slot, value in ref.items():
            np.testing.assert_allclose(outs[slot], value, rtol=1e-4, atol=1e-4)
    if case.op + "_grad" not in registry.all_op_types():
        return
    grad, slot = registry.get(case.op + "_grad"), opdef.outputs[0].name
    given = dict(ins, **outs, **{f"{slot}@GRAD": rng.uniform(-1, 1, outs[slot].shape).astype(outs[slot].dtype)})
    gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
    douts = _filled(grad.type, gins, attrs, ctx)
    gwant = grad.kernel("cpu")(dict(gins), dict(attrs), ctx)
    assert douts.keys() == gwant.keys() and all(douts[s].tobytes() == gwant[s].tobytes() for s in douts)


def test_a_resize_step_keeps_one_meta_while_its_out_size_values_change():
    """bilinear_interp with OutSize: one signature, the output's size the tensor's values on every run (-1 in its
    Meta, read by the out-kernel), each run what the op's kernel computes for those values."""
    step = _step("bilinear_interp", {"X": ["x"], "OutSize": ["s"]}, {"out_h": 2, "out_w": 2, "align_corners": False})
    inner = inspect.unwrap(step.kernel)
    kernel = registry.get("bilinear_interp").kernel("cpu")
    attrs = dict(registry.get("bilinear_interp").default_attrs(), out_h=2, out_w=2, align_corners=False)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    for size in ((3, 7), (6, 2), (3, 7)):
        s = np.array(size, np.int32)
        values = Values({"x": x, "s": s})
        run_step(step, values)
        assert values["y"].shape == (2, 3, *size)
        assert values["y"].tobytes() == kernel({"X": x, "OutSize": s}, dict(attrs))["Out"].tobytes()
    assert len(inner.metas) == 1
    ((meta, *_),) = inner.metas.values()
    assert meta.fresh and meta.outputs["Out"][0] == (2, 3, -1, -1)


def test_a_linear_resize_step_reads_its_size_tensor_on_every_run():
    """linear_interp_v2 with SizeTensor: the width its value gives on each run, one Meta for the signature."""
    step = _step(
        "linear_interp_v2",
        {"X": ["x"], "SizeTensor": ["w"]},
        {"interp_method": "linear", "out_w": 3, "align_corners": False, "align_mode": 0},
    )
    inner = inspect.unwrap(step.kernel)
    x = rng.standard_normal((2, 3, 5)).astype(np.float32)
    for width in (8, 2, 5):
        values = Values({"x": x, "w": np.array([width], np.int32)})
        run_step(step, values)
        assert values["y"].shape == (2, 3, width)
    assert len(inner.metas) == 1


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_a_pixel_shuffle_step_decides_its_meta_once_per_shape_signature(data_format):
    """pixel_shuffle's step (NHWC: its NCHW out-kernel between transposes): one Meta per shape, each run the blocks of
    r * r channels moved into r x r pixels."""
    step = _step("pixel_shuffle", {"X": ["x"]}, {"upscale_factor": 2, "data_format": data_format})
    inner = inspect.unwrap(step.kernel)
    for shape in ((2, 8, 3, 2), (2, 8, 3, 2), (1, 4, 2, 2)):
        x = rng.standard_normal(shape).astype(np.float32)
        x = x.transpose(0, 2, 3, 1).copy() if data_format == "NHWC" else x
        values = Values({"x": x})
        run_step(step, values)
        nchw = x.transpose(0, 3, 1, 2) if data_format == "NHWC" else x
        n, c, h, w = nchw.shape
        want = nchw.reshape(n, c // 4, 2, 2, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c // 4, h * 2, w * 2)
        got = values["y"].transpose(0, 3, 1, 2) if data_format == "NHWC" else values["y"]
        assert np.array_equal(got, want)
    assert len(inner.metas) == 2


def test_a_resize_of_no_positive_size_is_refused_by_its_meta_rule():
    """A resize whose attributes give no positive size is refused by its meta rule, in the old kernel's words."""
    opdef = registry.get("nearest_interp")
    attrs = dict(opdef.default_attrs(), interp_method="nearest", out_h=0, out_w=0)
    x = np.zeros((1, 2, 3, 4), np.float32)
    with pytest.raises(PeError, match=r"nearest resize of X \[1, 2, 3, 4\]: output size 0x0 must be positive"):
        opdef.structured.meta(attrs, {"X": x}, KernelContext())


def test_grid_sampler_nearest_writes_its_output_buffer():
    """grid_sampler's nearest mode: the Output buffer handed, each point the nearest pixel's value (0 outside X)."""
    x = np.arange(12, dtype=np.float64).reshape(1, 1, 3, 4)
    grid = np.array([[[[-1.0, -1.0], [1.0, 1.0], [3.0, 0.0]]]])  # top-left, bottom-right, outside
    opdef = registry.get("grid_sampler")
    attrs = dict(opdef.default_attrs(), mode="nearest")
    outs = _filled("grid_sampler", {"X": x, "Grid": grid}, attrs, KernelContext())
    assert outs["Output"].tolist() == [[[[0.0, 11.0, 0.0]]]]
