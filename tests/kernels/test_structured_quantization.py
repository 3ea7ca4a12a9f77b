"""The quantization ops' structured kernels (shapes/quantization.py; kernels/cpu/quantization.py and
quantization_linear.py; issue 95): numpy forms with no ``out=``, "numpy" variants (``fresh``), and values passed
through as they are (fake_quantize_grad's X@GRAD, moving_average_abs_max_scale's Out) aliases of their inputs.
Checked here: every op case of the family, in float64 and float32, puts a new C-contiguous array of its Meta's shape
and dtype sharing no input's memory for every output its Meta names but the aliases, which stay the input itself,
with the op case's values and the op's kernel's bits; training adds the scale's state outputs, test leaves them out;
the meta rules refuse Scales that do not meet X with the line the kernel gave; a step decides its Meta once per shape
signature."""

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

_QUANT = CASES["quantization"]
# (the scales' state and the oneDNN ops' ints keep their dtype: only X's float values are cast)
_CAST = {"X", "Input", "InScale", "InScales", "InState", "InAccum", "Scale", "Scales", "Out@GRAD"}


def _inputs(case, dtype):
    def cast(slot, v):
        if isinstance(v, list):
            return [cast(slot, a) for a in v]
        a = np.asarray(v)
        return a.astype(dtype) if slot in _CAST and a.dtype.kind == "f" else a

    return {slot: cast(slot, v) for slot, v in case.inputs.items()}


def _outputs(op, ins, attrs):
    """The op's meta rule and out-kernel: a fresh array for every output the Meta names but its aliases, which are
    their input as it is."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, KernelContext())
    assert meta.fresh and meta.variant in ("numpy", "through") or meta.aliases, op
    outs = {slot: ins[src] for slot, src in meta.aliases.items()}
    assert structured.cpu(ins, outs, dict(attrs), meta) is None, f"{op}: the out-kernel returned something"
    assert outs.keys() == meta.outputs.keys(), op
    given = [a for v in ins.values() for a in (v if isinstance(v, list) else [v]) if isinstance(a, np.ndarray)]
    for slot, (shape, dtype) in meta.outputs.items():
        got = outs[slot]
        if slot in meta.aliases:
            assert got is ins[meta.aliases[slot]], (op, slot)
            continue
        assert isinstance(got, np.ndarray) and got.flags.c_contiguous, (op, slot)
        assert got.shape == tuple(shape) and got.dtype == dtype, (op, slot, got.shape, got.dtype, meta.outputs[slot])
        assert not any(np.shares_memory(got, a) for a in given), f"{op}: {slot} shares an input's memory"
    return outs


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", _QUANT, ids=[c.id for c in _QUANT])
def test_out_kernels_put_new_arrays_of_the_meta(case, dtype):
    """Every op case: the outputs of the Meta's shapes and dtypes, the case's values (float64), the kernel's bits."""
    attrs = _attrs_with_defaults(case)
    ins = _inputs(case, dtype)
    outs = _outputs(case.op, ins, attrs)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs))
    assert outs.keys() == want.keys()
    for slot in outs:
        assert outs[slot].tobytes() == np.asarray(want[slot]).tobytes(), (case.id, slot)
    if dtype == "float64" and case.ref is not None:
        for slot, value in case.ref(case.inputs, attrs).items():
            np.testing.assert_allclose(outs[slot], value, rtol=case.rtol, atol=case.atol, err_msg=f"{case.id} {slot}")


@pytest.mark.parametrize("op", ["fake_quantize_moving_average_abs_max", "fake_quantize_range_abs_max"])
def test_training_adds_the_scale_state_and_test_leaves_it_out(op):
    x = np.linspace(-2, 3, 12).reshape(3, 4)
    one = np.array([1.5])
    ins = {"X": x, "InScale": one, "InAccum": one, "InState": one, "Iter": np.array([2]), "InScales": np.ones(4)}
    attrs = dict(registry.get(op).default_attrs(), window_size=4)
    state = {"OutState", "OutAccum"} if "moving" in op else {"OutScales"}
    assert set(_outputs(op, ins, dict(attrs, is_test=False))) == {"Out", "OutScale"} | state
    test = _outputs(op, ins, dict(attrs, is_test=True))
    assert set(test) == {"Out", "OutScale"} and test["OutScale"].tolist() == [1.5]


def test_passed_through_values_are_their_input():
    g = np.arange(6.0).reshape(2, 3)[:, ::2]  # (strided: left as it is, no copy)
    assert _outputs("fake_quantize_grad", {"Out@GRAD": g}, {})["X@GRAD"] is g
    op = registry.get("moving_average_abs_max_scale")
    ins = {"X": g, "InAccum": np.array([2.0]), "InState": np.array([1.0])}
    outs = _outputs(op.type, ins, dict(op.default_attrs()))
    assert outs["Out"] is g and outs["OutScale"].tolist() == [(0.9 * 2.0 + 5.0) / (0.9 * 1.0 + 1.0)]


def test_meta_refuses_scales_that_do_not_meet_x():
    op = registry.get("fake_channel_wise_dequantize_max_abs")
    x, meta = np.ones((3, 4)), op.structured.meta
    with pytest.raises(PeError, match=r"Scales\[0\] has 7 values for the 3 slices of X's dim 0"):
        meta({"quant_bits": [8]}, {"X": x, "Scales": [np.ones(7)]}, KernelContext())
    with pytest.raises(PeError, match=r"Scales \[3, 1\]: two Scales take one value per channel of X's dim 1"):
        meta({"quant_bits": [8, 8]}, {"X": x, "Scales": [np.ones(3), np.ones(1)]}, KernelContext())
    with pytest.raises(PeError, match="Scales\\[0\\] has 7 values"):  # (the kernel by name: the same line)
        op.kernel("cpu")({"X": x, "Scales": [np.ones(7)]}, {"quant_bits": [8]})


def test_a_step_decides_its_meta_once_per_signature():
    step = _step("quantize_linear", {"X": ["x"], "Scale": ["s"], "ZeroPoint": ["z"]}, {"quant_axis": -1}, {"Y": ["y"]})
    inner, calls = inspect.unwrap(step.kernel), []
    rule = inner.meta

    def counted(attrs, ins, facts):
        calls.append(ins["X"].shape)
        return rule(attrs, ins, facts)

    inner.meta = counted
    s, z = np.array([0.5], "float32"), np.zeros(1, "int32")
    for x in (np.ones((2, 3), "float32"), np.full((2, 3), -0.25, "float32"), np.ones((4,), "float32")):
        values = Values({"x": x, "s": s, "z": z})
        run_step(step, values)
        want = registry.get("quantize_linear").kernel("cpu")({"X": x, "Scale": s, "ZeroPoint": z}, step.attrs)["Y"]
        assert values["y"].tobytes() == want.tobytes()
    assert calls == [(2, 3), (4,)]
