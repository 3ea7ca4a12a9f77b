"""The structured kernels of the detectors' training-target ops, SSD's matching ops, the focal and margin losses
and the TDM tree ops (issue 95; meta rules in shapes/detection_targets.py, shapes/loss_margin.py, shapes/tdm.py).
Out-kernels of fixed shapes fill every element of the buffers they are handed; ``fresh`` variants (lengths the values
give, -1 in the Meta) hand over new C-contiguous arrays of the Meta's dtype sharing no input's memory; each gives the
op case's reference values (or passes its check); those reading LoD or drawing are handed the call's context, set
their outputs' LoD on it, and a step keeps a Meta per signature and LoD."""

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

FAMILIES = ("detection targets", "focal and margin losses", "tdm")
_CASES = [case for family in FAMILIES for case in CASES[family]]
rng = np.random.default_rng(95)


def _split(inputs):
    """(arrays, LoD per slot) of a case's inputs."""
    ins, lods = {}, {}
    for slot, value in inputs.items():
        if isinstance(value, LoDTensor) and value.lod():
            lods[slot] = [list(level) for level in value.lod()]
        ins[slot] = np.asarray(value)
    return ins, lods


def _run(op, ins, attrs, lods=None):
    """The op's meta rule and out-kernel into buffers of two sentinel patterns, each call handed a context of the
    inputs' LoD and a Generator seeded alike: (outputs, the LoD they were given, the Meta)."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, KernelContext(lod=dict(lods or {})))
    told = getattr(structured.cpu, "takes_context", False)
    answers = []
    for fill in (np.nan, -7.25):
        outs = {}
        for slot, (shape, dtype) in ({} if meta.fresh else meta.outputs).items():
            outs[slot] = np.full(shape, fill if np.dtype(dtype).kind in "fc" else 77, dtype)
        given = dict(outs)
        ctx = KernelContext(rng=np.random.default_rng(7), lod=dict(lods or {}))
        args = (ins, outs, dict(attrs), meta) + ((ctx,) if told else ())
        assert structured.cpu(*args) is None, f"{op}: the out-kernel returned something"
        assert all(outs[s] is b for s, b in given.items()), f"{op}: an output is not the buffer it was handed"
        assert set(outs) == set(meta.outputs), f"{op}: outputs {sorted(outs)}, the Meta's {sorted(meta.outputs)}"
        for slot, (shape, dtype) in meta.outputs.items():
            got = outs[slot]
            assert got.dtype == dtype and got.flags.c_contiguous, (op, slot)
            assert len(got.shape) == len(shape) and all(d in (-1, g) for d, g in zip(shape, got.shape)), (op, slot)
            if meta.fresh:
                assert not any(np.shares_memory(got, v) for v in ins.values() if isinstance(v, np.ndarray))
        answers.append((outs, ctx.out_lod))
    (first, lod), (second, _) = answers
    for slot in first:  # (an element left unwritten keeps its sentinel, which differs between the runs)
        assert first[slot].tobytes() == second[slot].tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
    return first, lod, meta


@pytest.mark.parametrize("case", _CASES, ids=lambda c: c.id)
def test_out_kernels_fill_what_they_are_handed_with_the_cases_values(case):
    attrs = _attrs_with_defaults(case)
    ins, lods = _split(case.inputs)
    outs, _, _ = _run(case.op, ins, attrs, lods)
    kernel = registry.get(case.op).kernel("cpu")
    by_name = kernel(dict(ins), dict(attrs), KernelContext(rng=np.random.default_rng(7), lod=dict(lods)))
    for slot in outs:
        assert np.asarray(by_name[slot]).tobytes() == outs[slot].tobytes(), (case.op, slot)
    if case.ref is None:
        case.check({s: outs[s] for s in case.outputs}, case.inputs)
        return
    for slot, want in case.ref(case.inputs, attrs).items():
        np.testing.assert_allclose(outs[slot], np.asarray(want), rtol=case.rtol, atol=case.atol, err_msg=slot)


def _numeric_grad(f, x, eps=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        grad[i] = (f(hi) - f(lo)) / (2 * eps)
    return grad


def test_the_loss_gradients_fill_their_buffers_with_the_forwards_derivative():
    """sigmoid_focal_loss_grad and margin_cross_entropy_grad (a bending margin) into sentinel buffers: the derivative
    of sum(forward's loss * its gradient), by central differences of the forward's out-kernel."""
    x, label, fg = rng.normal(size=(5, 3)), np.array([[1], [0], [3], [-1], [2]], np.int32), np.array([2], np.int32)
    attrs = {"gamma": 1.5, "alpha": 0.3}
    dout = rng.normal(size=(5, 3))
    got = _run("sigmoid_focal_loss_grad", {"X": x, "Label": label, "FgNum": fg, "Out@GRAD": dout}, attrs)[0]

    def focal(v):
        return (_run("sigmoid_focal_loss", {"X": v, "Label": label, "FgNum": fg}, attrs)[0]["Out"] * dout).sum()

    np.testing.assert_allclose(got["X@GRAD"], _numeric_grad(focal, x), rtol=1e-5, atol=1e-8)
    logits, lab = rng.uniform(-0.8, 0.8, (4, 5)), np.array([[1], [0], [4], [1]])
    attrs = {"margin1": 1.2, "margin2": 0.3, "margin3": 0.1, "scale": 3.0}
    forward = _run("margin_cross_entropy", {"Logits": logits, "Label": lab}, attrs)[0]
    dloss = rng.normal(size=(4, 1))
    ins = {"Logits": logits, "Label": lab, "Softmax": forward["Softmax"], "Loss@GRAD": dloss}
    got = _run("margin_cross_entropy_grad", ins, attrs)[0]

    def margin(v):
        return (_run("margin_cross_entropy", {"Logits": v, "Label": lab}, attrs)[0]["Loss"] * dloss).sum()

    np.testing.assert_allclose(got["Logits@GRAD"], _numeric_grad(margin, logits), rtol=1e-5, atol=1e-8)


def test_mine_hard_examples_sets_the_lod_of_its_negatives():
    """mine_hard_examples (fresh: how many negatives, the values'): NegIndices' rows per image as its LoD."""
    match = np.array([[0, -1, -1, 1, -1, -1], [-1, -1, -1, -1, -1, -1], [-1, 2, -1, -1, -1, -1]], np.int32)
    loss = np.tile(np.arange(6.0)[::-1], (3, 1))
    ins = {"ClsLoss": loss, "MatchIndices": match, "MatchDist": np.zeros((3, 6))}
    attrs = dict(registry.get("mine_hard_examples").default_attrs(), neg_pos_ratio=1.0)
    outs, lod, meta = _run("mine_hard_examples", ins, attrs)
    assert meta.fresh and meta.outputs["NegIndices"][0] == (-1, 1)
    assert outs["NegIndices"].reshape(-1).tolist() == [1, 2, 0] and lod == {"NegIndices": [[0, 2, 2, 3]]}
    assert outs["UpdatedMatchIndices"].tobytes() == match.tobytes()


def _case(op):
    return next(c for c in _CASES if c.op == op)


def test_a_bipartite_match_step_keeps_a_meta_per_lod():
    """bipartite_match as a step on one DistMat with two LoDs, each twice: as many rows as that LoD's instances,
    each the kernel by name's over them."""
    step = _step("bipartite_match", {"DistMat": ["d"]}, {}, {"ColToRowMatchIndices": ["i"], "ColToRowMatchDist": ["m"]})
    dist = rng.uniform(0, 1, (6, 4))
    kernel = registry.get("bipartite_match").kernel("cpu")
    for offs in ([0, 2, 6], [0, 1, 3, 6], [0, 2, 6], [0, 1, 3, 6]):
        values = Values({"d": dist}, {"d": [offs]})
        run_step(step, values)
        want = kernel(
            {"DistMat": dist},
            {"match_type": "bipartite", "dist_threshold": 0.5},
            KernelContext(lod={"DistMat": [offs]}),
        )
        assert values["i"].shape == (len(offs) - 1, 4)
        assert values["i"].tobytes() == want["ColToRowMatchIndices"].tobytes()
        assert values["m"].tobytes() == want["ColToRowMatchDist"].tobytes()


def test_a_retinanet_target_assign_step_gives_each_calls_rows_and_lod():
    """retinanet_target_assign (fresh) as a step on gt boxes of one shape whose values and LoD differ: each run's rows
    and LoD the kernel by name's on that call."""
    anchors = np.array([[0, 0, 7, 7], [4, 4, 11, 11], [8, 8, 15, 15], [0, 8, 7, 15]], np.float32)
    names = ("LocationIndex", "ScoreIndex", "TargetBBox", "TargetLabel", "BBoxInsideWeight", "ForegroundNumber")
    slots = {"Anchor": ["a"], "GtBoxes": ["g"], "GtLabels": ["l"], "IsCrowd": ["c"], "ImInfo": ["im"]}
    step = _step("retinanet_target_assign", slots, {}, {n: [n.lower()] for n in names})
    kernel, seen = registry.get("retinanet_target_assign").kernel("cpu"), []
    for gt, offs in (([[0, 0, 7, 7], [8, 8, 15, 15]], [0, 1, 2]), ([[4, 4, 11, 11], [0, 8, 7, 14]], [0, 2, 2])):
        arrays = {
            "a": anchors,
            "g": np.array(gt, np.float32),
            "l": np.array([[1], [2]], np.int32),
            "c": np.zeros((2, 1), np.int32),
            "im": np.array([[16, 16, 1.0], [16, 16, 1.0]], np.float32),
        }
        lods = {"g": [offs], "l": [offs], "c": [offs]}
        values = Values(dict(arrays), lods)
        run_step(step, values)
        ins = {slot: arrays[var] for slot, (var,) in slots.items()}
        ctx = KernelContext(lod={"GtBoxes": [offs], "GtLabels": [offs], "IsCrowd": [offs]})
        want = kernel(ins, dict(registry.get("retinanet_target_assign").default_attrs()), ctx)
        for n in names:
            assert values[n.lower()].tobytes() == want[n].tobytes() and values[n.lower()].shape == want[n].shape, n
            assert values.lods[n.lower()] == ctx.out_lod[n], n
        seen.append((values["scoreindex"].tolist(), values.lods["scoreindex"]))
    assert seen[0] != seen[1]  # (each call's own rows and LoD, no Meta of the other's)


def test_refusals_stay():
    """target_assign without X's LoD, a tdm_sampler layer of too few nodes and a tdm_child TreeInfo narrower than
    3 + child_nums (whose rows Fluid's kernel would read past) are refused in a line naming them."""
    x = rng.normal(size=(4, 2, 3))
    with pytest.raises(PeError, match="target_assign: X needs a LoD"):
        registry.get("target_assign").kernel("cpu")(
            {"X": x, "MatchIndices": np.zeros((1, 2), np.int32)}, {"mismatch_value": 0}
        )
    tdm = _case("tdm_sampler")
    attrs = dict(_attrs_with_defaults(tdm), neg_samples_num_list=[2, 1, 1, 1])
    with pytest.raises(PeError, match="tdm_sampler: layer 0 has 2 nodes, fewer than 2 negatives"):
        _run("tdm_sampler", _split(tdm.inputs)[0], attrs)
    child = _case("tdm_child")
    info = np.asarray(child.inputs["TreeInfo"])
    with pytest.raises(PeError, match=r"tdm_child: TreeInfo \[26, 5\] must be \[node_nums, >= 3 \+ child_nums\]"):
        _run("tdm_child", {"X": np.asarray(child.inputs["X"]), "TreeInfo": info}, {"child_nums": 3, "dtype": "int32"})
