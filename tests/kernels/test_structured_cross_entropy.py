"""cross_entropy, cross_entropy2, sigmoid_cross_entropy_with_logits and their gradients as structured kernels
(pe_cli/shapes/loss_classification.py, kernels/cpu/loss_cross_entropy.py): numpy forms (``fresh`` variants)
whose meta rules decide the outputs' shapes and dtypes and the variant (soft or hard labels, MatchX or X for
cross_entropy2's gradient, normalize) once per signature; each out-kernel puts new arrays of the Meta's shapes
and dtypes, never an input's memory, equal to the op's kernel's; a label out of range is refused on every run."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES, _step

rng = np.random.default_rng(29)


def _fresh(op, ins, attrs):
    """The op's out-kernel's outputs: new C-contiguous arrays of the Meta's shapes and dtypes sharing no input's
    memory, the same bits as the op's kernel by name."""
    structured, ctx = registry.get(op).structured, KernelContext()
    meta = structured.meta(attrs, ins, ctx)
    assert meta.fresh
    outs = {}
    assert structured.cpu(ins, outs, dict(attrs), meta) is None
    assert set(outs) == set(meta.outputs), op
    want = registry.get(op).kernel("cpu")(ins, dict(attrs), ctx)
    for slot, got in outs.items():
        assert got.shape == tuple(meta.outputs[slot][0]) and got.dtype == meta.outputs[slot][1], (op, slot)
        assert got.flags.c_contiguous and not any(np.shares_memory(got, v) for v in ins.values() if v is not None)
        assert got.tobytes() == want[slot].tobytes(), (op, slot)
    return outs


def _floats(case, dtype):
    return {k: (v.astype(dtype) if np.asarray(v).dtype.kind == "f" else v) for k, v in case.inputs.items()}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["cross entropy"], ids=[c.id for c in CASES["cross entropy"]])
def test_cross_entropy_out_kernels_give_new_arrays_of_their_meta(case, dtype):
    """Every op case of the three ops (hard and soft labels, ids without the trailing 1, ignore_index, MatchX,
    normalize), forward and gradient (cross_entropy2's from MatchX and XShape and from X), float64 and float32."""
    attrs, ins = _attrs_with_defaults(case), _floats(case, dtype)
    outs = _fresh(case.op, ins, attrs)
    out_slot = "Out" if "Out" in outs else "Y"
    dy = rng.uniform(-1, 1, size=outs[out_slot].shape).astype(dtype)
    gins = {"X": ins["X"], "Label": ins["Label"], f"{out_slot}@GRAD": dy}
    grad = "cross_entropy_grad2" if case.op == "cross_entropy2" else case.op + "_grad"
    _fresh(grad, gins, attrs)
    if case.op == "cross_entropy2":
        matched = {"Label": ins["Label"], "MatchX": outs["MatchX"], "XShape": outs["XShape"], "Y@GRAD": dy}
        assert registry.get(grad).structured.meta(attrs, matched, KernelContext()).variant == "match"
        _fresh(grad, matched, attrs)


def test_a_cross_entropy2_step_decides_its_meta_once_per_shape_signature():
    """cross_entropy2's step decides its outputs (Y, MatchX, XShape) once per shape and dtype of X and Label,
    gives the op's kernel's bits, and refuses a label out of range on every run with numpy's one line."""
    step = _step("cross_entropy2", {"X": ["x"], "Label": ["label"]}, {"Y": ["y"], "MatchX": ["m"], "XShape": ["s"]})
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins["X"].shape, str(ins["Label"].dtype), decided.variant, decided.outputs["Y"][0]))
        return decided

    inner.meta = counted
    kernel = registry.get("cross_entropy2").kernel("cpu")
    x = rng.uniform(0.1, 1, (4, 5)).astype(np.float32)
    feeds = [(x, rng.integers(0, 5, (4, 1))) for _ in range(3)] + [(x, rng.integers(0, 5, (4,)).astype(np.int32))]
    for x_value, label in feeds:
        values = Values({"x": x_value, "label": label})
        run_step(step, values)
        want = kernel({"X": x_value, "Label": label}, dict(step.attrs))
        assert values["y"].tobytes() == want["Y"].tobytes() and values["m"].tobytes() == want["MatchX"].tobytes()
    assert calls == [((4, 5), "int64", "hard", (4, 1)), ((4, 5), "int32", "hard", (4,))]
    for bad, value in ((np.array([[1], [7], [0], [2]]), 7), (np.array([[1], [0], [-1], [2]]), -1)) * 2:
        # (-1 too, which numpy's indexing would take for the last class: Paddle 2.6.2 refuses it)
        with pytest.raises(Exception, match=rf"Label holds {value} at row \d, outside the 5 classes of X \[4, 5\]"):
            run_step(step, Values({"x": x, "label": bad}))
