"""batch_norm, batch_norm_grad and batch_norm_grad_param as structured kernels (pe_cli/shapes/normalization.py,
kernels/cpu/batch_norm.py): their meta rules decide the outputs' shapes and dtypes (MeanOut/VarianceOut of Mean's
and Variance's, SavedMean/SavedVariance [C] in X's dtype, Scale@GRAD/Bias@GRAD of Scale's) and the variant
("running": MeanOut and VarianceOut are Mean and Variance themselves; "loops": training on float NCHW values;
"numpy": the rest) once per signature; each out-kernel fills every buffer it is handed."""

import numpy as np
import pytest

from pe_cli.base.places import CPUPlace
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.framework import Program
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry

rng = np.random.default_rng(5)
FORMS = [((6, 4), "NCHW"), ((4, 3, 2, 2), "NCHW"), ((3, 2, 2, 4), "NHWC"), ((2, 3, 5), "NCHW"), ((0, 3), "NCHW")]
MODES = {
    "train": {},
    "is_test": {"is_test": True},
    "global": {"use_global_stats": True},
    "trainable": {"is_test": True, "trainable_statistics": True},
}


def _attrs(layout, mode):
    base = {"momentum": 0.9, "epsilon": 1e-5, "is_test": False, "use_global_stats": False}
    return {**base, "trainable_statistics": False, "data_layout": layout, **MODES[mode]}


def _filled(op, ins, attrs):
    """The op's out-kernel run into buffers of two sentinel patterns (scratch as the Meta says, aliases the inputs
    they are): its outputs are the buffers handed, every element written; returns (meta, outputs)."""
    structured, ctx = registry.get(op).structured, KernelContext()
    meta = structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (np.nan, -7.25):
        given = {s: np.full(shape, fill, dtype) for s, (shape, dtype) in meta.outputs.items() if s not in meta.aliases}
        outs = {**given, **{s: ins[src] for s, src in meta.aliases.items()}}
        outs.update({name: np.full(shape, fill, dtype) for name, (shape, dtype) in meta.scratch.items()})
        assert structured.cpu(ins, outs, dict(attrs), meta) is None
        assert all(outs[slot] is buffer for slot, buffer in given.items())
        answers.append(given)
    for slot in answers[0]:
        assert answers[0][slot].tobytes() == answers[1][slot].tobytes(), f"{op} ({meta.variant}): {slot}"
    want = registry.get(op).kernel("cpu")(ins, dict(attrs), ctx)
    assert sorted(want) == sorted(meta.outputs)
    assert all(want[slot].tobytes() == answers[0][slot].tobytes() for slot in answers[0])
    assert all(want[slot] is ins[src] for slot, src in meta.aliases.items())
    return meta, answers[0]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (the statistics of an empty batch)
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize(
    "dtype, pdtype", [("float16", "float16"), ("float16", "float32"), ("float32", "float32"), ("float64", "float64")]
)
@pytest.mark.parametrize("shape, layout", FORMS, ids=[f"{s}-{lay}" for s, lay in FORMS])
def test_batch_norm_out_kernels_fill_the_buffers_they_are_handed(shape, layout, dtype, pdtype, mode):
    attrs, c = _attrs(layout, mode), shape[-1] if layout == "NHWC" else shape[1]
    ins = {"X": rng.uniform(-3, 3, shape).astype(dtype)}
    ins.update({p: rng.uniform(0.5, 1.5, c).astype(pdtype) for p in ("Scale", "Bias", "Mean", "Variance")})
    meta, outs = _filled("batch_norm", ins, attrs)
    loops = layout == "NCHW" and dtype == pdtype != "float16" and np.prod(shape) > 0
    running = mode in ("is_test", "global")
    assert meta.variant == ("running" if running else "loops" if loops else "numpy")
    assert meta.outputs["SavedMean"] == ((c,), np.dtype(dtype)) and meta.outputs["MeanOut"] == ((c,), np.dtype(pdtype))
    gins = {**ins, "SavedMean": outs["SavedMean"], "SavedVariance": outs["SavedVariance"]}
    gins["Y@GRAD"] = rng.uniform(-1, 1, shape).astype(dtype)
    _, douts = _filled("batch_norm_grad", gins, attrs)
    assert set(douts) == {"X@GRAD", "Scale@GRAD", "Bias@GRAD"}
    _, pouts = _filled("batch_norm_grad_param", gins, attrs)
    assert set(pouts) == {"Scale@GRAD", "Bias@GRAD"}


def test_a_batch_norm_step_decides_its_meta_once_per_shape_signature():
    block = Program().global_block()
    names = ("x", "s", "b", "m", "v", "y", "mo", "vo", "sm", "sv")
    for name in names:
        block.create_var(name=name)
    ins = {"X": ["x"], "Scale": ["s"], "Bias": ["b"], "Mean": ["m"], "Variance": ["v"]}
    outs = {"Y": ["y"], "MeanOut": ["mo"], "VarianceOut": ["vo"], "SavedMean": ["sm"], "SavedVariance": ["sv"]}
    block.append_op("batch_norm", ins, outs, {})
    step = OpStep(block.ops[0], CPUPlace())
    rule, calls = step.kernel.meta, []

    def counted(attrs, ins, facts):
        calls.append(ins["X"].shape)
        return rule(attrs, ins, facts)

    step.kernel.meta = counted
    kernel, attrs = registry.get("batch_norm").kernel("cpu"), registry.get("batch_norm").default_attrs()
    for shape in [(4, 3, 2)] * 3 + [(2, 3, 2)] * 2:
        given = {"X": rng.uniform(-1, 1, shape).astype(np.float32)}
        given.update({p: rng.uniform(0.5, 1.5, 3).astype(np.float32) for p in ("Scale", "Bias", "Mean", "Variance")})
        values = Values(dict(zip(names, given.values())))
        run_step(step, values)
        want = kernel(given, dict(attrs))
        for slot, name in zip(outs, ("y", "mo", "vo", "sm", "sv")):
            assert values[name].tobytes() == want[slot].tobytes(), slot
    assert calls == [(4, 3, 2), (2, 3, 2)]
