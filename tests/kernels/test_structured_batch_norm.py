"""batch_norm, batch_norm_grad and batch_norm_grad_param as structured kernels (pe_cli/shapes/normalization.py,
kernels/cpu/batch_norm.py): their meta rules decide the outputs' shapes and dtypes (MeanOut/VarianceOut of Mean's
and Variance's, SavedMean/SavedVariance [C] in X's dtype, Scale@GRAD/Bias@GRAD of Scale's) and the variant
("running": MeanOut and VarianceOut are Mean and Variance themselves, SavedMean too where it is of X's dtype;
"loops": training on float NCHW values; "numpy": the rest of float32/float64 values; "fresh": float16 X in
training, a gradient of mixed dtypes) once per signature; each out-kernel fills every buffer it is handed."""

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
    they are): its outputs are the buffers handed, every element written (a fresh variant's: new arrays of the
    Meta's shapes and dtypes, sharing no input's memory); returns (meta, outputs)."""
    structured, ctx = registry.get(op).structured, KernelContext()
    meta = structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (np.nan, -7.25):
        handed = {s: np.full(shape, fill, dtype) for s, (shape, dtype) in meta.outputs.items() if s not in meta.aliases}
        given = {} if meta.fresh else handed
        outs = {**given, **{s: ins[src] for s, src in meta.aliases.items()}}
        outs.update({name: np.full(shape, fill, dtype) for name, (shape, dtype) in meta.scratch.items()})
        assert structured.cpu(ins, outs, dict(attrs), meta) is None
        for slot in handed:
            got = outs[slot]
            assert got.shape == meta.outputs[slot][0] and got.dtype == meta.outputs[slot][1] and got.flags.c_contiguous
            if meta.fresh:
                assert not any(np.shares_memory(got, v) for v in ins.values()), slot
            else:
                assert got is given[slot], slot
        assert all(outs[slot] is ins[src] for slot, src in meta.aliases.items())
        answers.append({slot: outs[slot] for slot in handed})
    for slot in answers[0]:
        assert answers[0][slot].tobytes() == answers[1][slot].tobytes(), f"{op} ({meta.variant}): {slot}"
    want = registry.get(op).kernel("cpu")(ins, dict(attrs), ctx)
    assert sorted(want) == sorted(meta.outputs)
    assert all(want[slot].tobytes() == answers[0][slot].tobytes() for slot in answers[0])
    assert all(want[slot] is ins[src] for slot, src in meta.aliases.items())
    return meta, {**answers[0], **{slot: ins[src] for slot, src in meta.aliases.items()}}


def _variants(shape, layout, dtype, pdtype, mode):
    """The variants batch_norm's and its gradient's meta rules choose (pe_cli/shapes/normalization.py)."""
    if mode in ("is_test", "global"):
        return "running", "running" if dtype == pdtype else "fresh"
    if layout == "NCHW" and dtype == pdtype != "float16" and np.prod(shape) > 0:
        return "loops", "loops"
    return "fresh" if dtype == "float16" else "numpy", "numpy" if dtype == pdtype else "fresh"


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
    forward, backward = _variants(shape, layout, dtype, pdtype, mode)
    assert meta.variant == forward
    assert ("SavedMean" in meta.aliases) == (forward == "running" and dtype == pdtype)
    assert meta.outputs["SavedMean"] == ((c,), np.dtype(dtype)) and meta.outputs["MeanOut"] == ((c,), np.dtype(pdtype))
    gins = {**ins, "SavedMean": outs["SavedMean"], "SavedVariance": outs["SavedVariance"]}
    gins["Y@GRAD"] = rng.uniform(-1, 1, shape).astype(dtype)
    gmeta, douts = _filled("batch_norm_grad", gins, attrs)
    assert set(douts) == {"X@GRAD", "Scale@GRAD", "Bias@GRAD"} and gmeta.variant == backward
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


@pytest.mark.parametrize("momentum", [0.9, 0.3, 1, 0])
@pytest.mark.parametrize(
    "dtype, sdtype", [("float32", "float32"), ("float32", "float64"), ("float64", "float64"), ("float64", "float32")]
)
def test_the_loop_that_moves_the_running_statistics_computes_what_numpy_does(dtype, sdtype, momentum):
    """Training by the numba loops: MeanOut, VarianceOut, SavedMean and SavedVariance by a loop too
    (_norm_loops.bn_train_outputs), bit for bit numpy's Mean * momentum + m * (1 - momentum) cast to Mean's
    dtype ("loops_mixed", which Mean and Variance of float16 take)."""
    attrs = {**_attrs("NCHW", "train"), "momentum": momentum}
    ins = {p: rng.uniform(0.5, 1.5, 5).astype(dtype) for p in ("Scale", "Bias")}
    ins.update({p: rng.uniform(0.5, 1.5, 5).astype(sdtype) for p in ("Mean", "Variance")})
    ins["X"] = rng.uniform(-3, 3, (4, 5, 3, 3)).astype(dtype)
    structured = registry.get("batch_norm").structured
    meta = structured.meta(attrs, ins, KernelContext())
    assert meta.variant == "loops"
    got = {}
    for variant in ("loops", "loops_mixed"):
        outs = {
            slot: np.full(shape, np.nan, dtype) for slot, (shape, dtype) in {**meta.outputs, **meta.scratch}.items()
        }
        structured.cpu.variants[variant](ins, outs, dict(attrs), meta)
        got[variant] = {slot: outs[slot].tobytes() for slot in meta.outputs}
    assert got["loops"] == got["loops_mixed"]
    half = {**ins, "Mean": ins["Mean"].astype(np.float16), "Variance": ins["Variance"].astype(np.float16)}
    assert structured.meta(attrs, half, KernelContext()).variant == "loops_mixed"
