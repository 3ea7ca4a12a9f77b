"""conv2d, depthwise_conv2d, their transposes and their gradients as structured kernels (pe_cli/shapes/conv2d.py
and conv2d_transpose.py, kernels/cpu/convolution.py and conv2d_transpose.py): the meta rule decides the outputs and the path (oneDNN, Winograd, the per-sample
loops, numpy's, zeros, a mapped geometry) once per shape signature; every out-kernel fills every element of the
buffers it is handed with what the op's kernel computes, each gradient alone and both together."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from pe_cli.shapes import conv2d as rules
from tests.kernels.test_structured_kernels import CASES, _filled_completely, _step

rng = np.random.default_rng(41)
_GRADS = (("Input@GRAD",), ("Filter@GRAD",), ("Input@GRAD", "Filter@GRAD"))


_BOTH = CASES["conv2d"] + CASES["conv2d_transpose"]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", _BOTH, ids=[c.id for c in _BOTH])
def test_conv2d_out_kernels_fill_the_buffers_they_are_handed(case, dtype):
    """Every op case of conv2d, depthwise_conv2d and their transposes (groups, groups leaving input channels
    over, dilations, SAME and VALID, output_size, relu first, the geometries Fluid runs unchecked), forward, the
    one grad op writing each gradient alone and both, and the two half ops, float64 and float32."""
    attrs = _attrs_with_defaults(case)
    ins = {slot: np.asarray(value).astype(dtype) for slot, value in case.inputs.items()}
    outs = _filled_completely(case.op, ins, attrs, KernelContext())
    assert outs["Output"].tobytes() == registry.get(case.op).kernel("cpu")(ins, dict(attrs))["Output"].tobytes()
    gins = dict(ins, **{"Output@GRAD": rng.uniform(-1, 1, outs["Output"].shape).astype(dtype)})
    for wanted in _GRADS:
        ctx = KernelContext(outputs=wanted)
        douts = _filled_completely(case.op + "_grad", gins, attrs, ctx)
        want = registry.get(case.op + "_grad").kernel("cpu")(gins, dict(attrs), ctx)
        assert set(douts) == set(wanted) == set(want)
        assert all(douts[s].tobytes() == want[s].tobytes() for s in wanted)
    for half, slot in (("_grad_input", "Input@GRAD"), ("_grad_filter", "Filter@GRAD")):
        douts = _filled_completely(case.op + half, gins, attrs, KernelContext())
        assert douts[slot].tobytes() == registry.get(case.op + half).kernel("cpu")(gins, dict(attrs))[slot].tobytes()


@pytest.mark.parametrize(
    "x_shape,w_shape,attrs,dtype,variant",
    [
        ((2, 8, 16, 16), (8, 8, 3, 3), {"paddings": [1, 1]}, "float64", rules.WINOGRAD),
        ((8, 1, 28, 28), (6, 1, 5, 5), {}, "float32", rules.PER_SAMPLE),  # LeNet's first layer
        ((2, 8, 10, 10), (16, 8, 3, 3), {"paddings": [1, 1]}, "float32", rules.ONEDNN),
        ((2, 3, 6, 6), (4, 3, 3, 3), {}, "int32", rules.NUMPY),
        ((2, 3, 6, 7), (4, 3, 3, 3), {"paddings": [-1, 2]}, "float64", rules.MAPPED),
        ((1, 2, 4, 4), (2, 2, 1, 1), {"paddings": [-4, 4, 0, 0]}, "float64", rules.ZEROS),
    ],
)
def test_the_meta_names_the_path(x_shape, w_shape, attrs, dtype, variant):
    """The variant is the path a geometry and its dtypes take (oneDNN's float32 from 8 channels a group,
    Winograd's 3x3 from 8 channels and 64 tiles, the per-sample loops, numpy's other dtypes), a geometry mapped
    onto a regular one, or zeros where no output reads Input."""
    full = dict(registry.get("conv2d").default_attrs(), **attrs)
    ins = {"Input": np.zeros(x_shape, dtype), "Filter": np.zeros(w_shape, dtype)}
    assert rules.conv2d_meta(full, ins, KernelContext()).variant == variant


def test_a_conv2d_grad_step_decides_its_meta_once_per_shape_signature():
    """conv2d_grad's step decides its path once per shapes and dtypes of its inputs; its gradients are the op's
    kernel's, bit for bit."""
    attrs = {"paddings": [1, 1], "strides": [1, 1]}
    names = {"Input": ["x"], "Filter": ["w"], "Output@GRAD": ["dy"]}
    step = _step("conv2d_grad", names, {"Input@GRAD": ["dx"], "Filter@GRAD": ["dw"]}, attrs)
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins["Input"].shape, decided.variant))
        return decided

    inner.meta = counted
    kernel = registry.get("conv2d_grad").kernel("cpu")
    full = dict(registry.get("conv2d_grad").default_attrs(), **attrs)
    for n, dtype in ((2, np.float32), (2, np.float32), (3, np.float64), (3, np.float64), (2, np.float32)):
        x, w = rng.standard_normal((n, 3, 8, 8)).astype(dtype), rng.standard_normal((4, 3, 3, 3)).astype(dtype)
        dy = rng.standard_normal((n, 4, 8, 8)).astype(dtype)
        values = Values({"x": x, "w": w, "dy": dy})
        run_step(step, values)
        want = kernel({"Input": x, "Filter": w, "Output@GRAD": dy}, dict(full))
        assert values["dx"].tobytes() == want["Input@GRAD"].tobytes()
        assert values["dw"].tobytes() == want["Filter@GRAD"].tobytes()
    assert calls == [((2, 3, 8, 8), rules.PER_SAMPLE), ((3, 3, 8, 8), rules.PER_SAMPLE)]
