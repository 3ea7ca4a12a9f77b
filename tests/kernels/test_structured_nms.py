"""The structured kernels of the NMS, region proposal and detection-metric ops (issue 95): multiclass_nms(2, 3),
matrix_nms, locality_aware_nms, retinanet_detection_output and nms (shapes/detection_nms.py), generate_proposals(_v2),
distribute_fpn_proposals and collect_fpn_proposals (shapes/detection_proposals.py), detection_map
(shapes/detection_metric.py). What they keep the values decide: fresh variants whose rows are -1 in the Meta. Their
out-kernels hand over new C-contiguous arrays of the Meta's dtypes and known dims, sharing no input's memory, with the
op's kernel's bits and LoD (set on the call's context); the rules refuse what the kernels refused; multiclass_nms2's
empty result is its paddle2 fact's; a step keeps a Meta per signature and LoD, whatever the values keep."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.errors import PeError
from pe_cli.executor.plan import Values, run_step
from pe_cli.framework.lod_tensor import LoDTensor
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

FAMILIES = ("NMS", "region proposals", "detection_map")
_CASES = [case for family in FAMILIES for case in CASES[family]]
rng = np.random.default_rng(95)


def _handed(op, ins, attrs, ctx):
    """The op's meta rule and out-kernel (handed the call's context): each output the Meta lists, a new
    C-contiguous array of its dtype and of its dims but the -1 ones, sharing no input's memory; returned."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    assert meta.fresh, op
    outs = {}
    args = (ins, outs, dict(attrs), meta) + ((ctx,) if getattr(structured.cpu, "takes_context", False) else ())
    assert structured.cpu(*args) is None, f"{op}: the out-kernel returned something"
    arrays = [a for v in ins.values() for a in (v if isinstance(v, list) else [v]) if isinstance(a, np.ndarray)]
    assert set(outs) == set(meta.outputs), op
    for slot, spec in meta.outputs.items():
        for got, (shape, dtype) in zip(*(o if isinstance(o, list) else [o] for o in (outs[slot], spec))):
            assert got.dtype == dtype and got.flags.c_contiguous, (op, slot)
            empty_fluid = meta.variant == "fluid" and got.shape == (0,)  # (multiclass_nms2 keeping nothing)
            assert empty_fluid or (len(got.shape) == len(shape) and all(n in (-1, m) for n, m in zip(shape, got.shape)))
            assert not any(np.shares_memory(got, a) for a in arrays), (op, slot)
    return outs


def _arrays(case, dtype):
    """(arrays, LoD per slot: a list of them for a list slot) of the case's inputs, float ones in ``dtype``."""
    ins, lods = {}, {}

    def one(value):
        a = np.asarray(value)
        return a.astype(dtype) if a.dtype.kind == "f" else a

    for slot, value in case.inputs.items():
        values = value if isinstance(value, list) else [value]
        found = [[list(level) for level in v.lod()] if isinstance(v, LoDTensor) and v.lod() else None for v in values]
        if any(found):
            lods[slot] = found if isinstance(value, list) else found[0]
        ins[slot] = [one(v) for v in values] if isinstance(value, list) else one(value)
    return ins, lods


def _same_bits(got, want):
    assert set(got) <= set(want)
    for slot in got:
        pairs = zip(got[slot], want[slot]) if isinstance(got[slot], list) else [(got[slot], want[slot])]
        for a, b in pairs:
            assert a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes(), slot


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_out_kernels_hand_over_new_arrays_of_the_meta(case, dtype):
    """Every op case of the three families with its float inputs in float64 and float32: the outputs are new arrays
    of the Meta's, the op's kernel's bits and LoD; (float64) the case's reference values."""
    attrs = _attrs_with_defaults(case)
    ins, lods = _arrays(case, dtype)
    ctx, ctx_kernel = (KernelContext(lod=dict(lods), paddle2=case.paddle2) for _ in range(2))
    outs = _handed(case.op, ins, attrs, ctx)
    want = registry.get(case.op).kernel("cpu")(dict(ins), dict(attrs), ctx_kernel)
    _same_bits(outs, want)
    assert (ctx.out_lod, ctx.out_lods) == (ctx_kernel.out_lod, ctx_kernel.out_lods)
    if dtype == "float64" and case.ref is not None:
        for slot, value in case.ref(case.inputs, attrs).items():
            for a, b in zip(*(v if isinstance(v, list) else [v] for v in (outs[slot], value))):
                np.testing.assert_allclose(a, b, rtol=max(case.rtol, 1e-5), atol=max(case.atol, 1e-6))


def _nothing_kept(rng=rng):
    boxes = rng.uniform(0, 0.5, (2, 5, 4))
    boxes[..., 2:] += 0.5
    return {"BBoxes": boxes, "Scores": rng.uniform(0, 0.1, (2, 3, 5))}


@pytest.mark.parametrize("paddle2, shapes", [(False, [(0,), (0,)]), (True, [(0, 6), (0, 1)])])
def test_multiclass_nms2_keeping_nothing_gives_its_paddle2_facts_shapes(paddle2, shapes):
    """multiclass_nms2 keeping no box: the rule's variant is the op's paddle2 fact, and the out-kernel hands over
    Fluid 1.8.5's Out and Index of shape [0], or Paddle 2.6's [0, 6] and [0, 1]; the LoD [0, 0, 0] either way."""
    opdef = registry.get("multiclass_nms2")
    attrs = dict(opdef.default_attrs(), score_threshold=0.5)
    ctx = KernelContext(paddle2=paddle2)
    outs = _handed("multiclass_nms2", _nothing_kept(), attrs, ctx)
    assert opdef.structured.meta(attrs, _nothing_kept(), ctx).variant == ("paddle2" if paddle2 else "fluid")
    assert [outs["Out"].shape, outs["Index"].shape] == shapes
    assert ctx.out_lod == {"Out": [[0, 0, 0]], "Index": [[0, 0, 0]]}


@pytest.mark.parametrize("op", ["multiclass_nms", "locality_aware_nms"])
def test_nms_keeping_nothing_gives_fluids_minus_one_row(op):
    """multiclass_nms and locality_aware_nms keeping no box: Fluid's one row [[-1]] with the LoD [0, 1]."""
    attrs = dict(registry.get(op).default_attrs(), score_threshold=0.5)
    ctx = KernelContext()
    outs = _handed(op, _nothing_kept(), attrs, ctx)
    assert outs["Out"].tolist() == [[-1.0]] and ctx.out_lod == {"Out": [[0, 1]]}


@pytest.mark.parametrize(
    "op, ins, lod, message",
    [
        ("multiclass_nms3", {"BBoxes": np.zeros((4, 2, 4)), "Scores": np.zeros((4, 2))}, {}, "need BBoxes [M, C, 4]"),
        ("multiclass_nms", {"BBoxes": np.zeros((4, 2, 4)), "Scores": np.zeros((4, 2))}, {}, "with a LoD"),
        (
            "generate_proposals",
            {
                "Scores": np.zeros((1, 2, 2, 2)),
                "BboxDeltas": np.zeros((1, 4, 2, 2)),
                "ImInfo": np.ones((1, 3)),
                "Anchors": np.zeros((2, 2, 2, 4)),
                "Variances": np.zeros((2, 2, 2, 4)),
            },
            {},
            "must be [N, 4 * A, H, W] = [1, 8, 2, 2]",
        ),
        (
            "collect_fpn_proposals",
            {"MultiLevelRois": [np.zeros((2, 4)), np.zeros((1, 4))], "MultiLevelScores": [np.zeros((2, 1))] * 2},
            {},
            "3 rois but 4 scores",
        ),
        (
            "detection_map",
            {"DetectRes": np.zeros((2, 6)), "Label": np.zeros((2, 6))},
            {"DetectRes": [[0, 1, 2]]},
            "DetectRes holds 2 images, Label 1",
        ),
    ],
)
def test_the_rules_refuse_what_the_kernels_refused(op, ins, lod, message):
    """The shapes (and LoDs) the kernels refused, the meta rule refuses in the same words, before any out-kernel."""
    opdef = registry.get(op)
    attrs = dict(opdef.default_attrs(), class_num=3) if op == "detection_map" else opdef.default_attrs()
    with pytest.raises(PeError, match=message.replace("[", r"\[").replace("*", r"\*")):
        opdef.structured.meta(attrs, ins, KernelContext(lod=lod))


def test_a_multiclass_nms3_step_hands_over_what_the_values_keep():
    """A multiclass_nms3 step on one shape, its scores keeping none, some and many boxes: each run hands over the
    op's kernel's rows, indices and LoD (its step runs Fluid's run-time infer checks, then the adapter: the rule
    on each call, ops/op_definition.steps_structured)."""
    given, local = {"score_threshold": 0.2}, np.random.default_rng(7)
    step = _step("multiclass_nms3", {"BBoxes": ["b"], "Scores": ["s"]}, given, {"Out": ["o"], "Index": ["i"]})
    opdef = registry.get("multiclass_nms3")
    attrs = dict(opdef.default_attrs(), **given)
    boxes = _nothing_kept(local)["BBoxes"]
    kept = []
    for top in (0.001, 0.3, 1.0):
        scores = local.uniform(0, top, (2, 3, 5))
        values = Values({"b": boxes, "s": scores})
        run_step(step, values)
        ctx = KernelContext()
        want = opdef.kernel("cpu")({"BBoxes": boxes, "Scores": scores}, dict(attrs), ctx)
        assert values["o"].tobytes() == want["Out"].tobytes() and values["i"].tobytes() == want["Index"].tobytes()
        assert values.lods.get("o") == ctx.out_lod["Out"]
        kept.append(values["o"].shape[0])
    assert kept[0] == 0 < kept[1] < kept[2]


def test_a_distribute_fpn_proposals_step_hands_over_a_level_list_per_lod():
    """distribute_fpn_proposals as a step over two LoDs of the same rois, each twice: a Meta per LoD, each level's
    rois in order with its LoD per image, RestoreIndex the rois' places in the levels concatenated."""
    attrs = {"min_level": 2, "max_level": 3, "refer_level": 2, "refer_scale": 4}
    step = _step(
        "distribute_fpn_proposals", {"FpnRois": ["r"]}, attrs, {"MultiFpnRois": ["a", "b"], "RestoreIndex": ["x"]}
    )
    inner = inspect.unwrap(step.kernel)
    rois = np.array([[0, 0, 1, 1], [0, 0, 9, 9], [0, 0, 2, 2], [0, 0, 19, 19]], np.float32)
    for offsets in ([0, 2, 4], [0, 1, 4], [0, 2, 4], [0, 1, 4]):
        values = Values({"r": rois}, {"r": [offsets]})
        run_step(step, values)
        assert values["a"].tolist() == rois[[0, 2]].tolist() and values["b"].tolist() == rois[[1, 3]].tolist()
        assert values["x"].reshape(-1).tolist() == [0, 2, 1, 3]
        per_image = [[0, 1, 2], [0, 1, 2]] if offsets == [0, 2, 4] else [[0, 1, 2], [0, 0, 2]]
        assert [values.lods.get("a"), values.lods.get("b")] == [[per_image[0]], [per_image[1]]]
    assert len(inner.metas) == 2
