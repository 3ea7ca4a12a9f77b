"""The structured-prediction ops' and sampled losses' structured kernels (shapes/structured_prediction.py, kernels/cpu/crf.py and ctc.py,
issue 95): linear_chain_crf, crf_decoding, ctc_align, warpctc and their gradients are fresh variants handing over new
arrays of the Meta's shapes and dtypes (hierarchical_sigmoid, nce, sample_logits and their gradients too) (a LoD's count of sequences, ctc_align's kept ids: the arrays' own lengths),
the op's kernel's bits, with Output's LoD where ctc_align sets one."""

import numpy as np
import pytest

from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_recurrent import test_recurrent_out_kernels_hand_over_every_output as _handed


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["structured prediction"], ids=[c.id for c in CASES["structured prediction"]])
def test_crf_and_ctc_out_kernels_hand_over_every_output(case, dtype):
    """Every op case of the family in two dtypes, forward and gradient: the Meta's outputs, the op's kernel's bits
    and (float64) the case's reference values."""
    _handed(case, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["sampled losses"], ids=[c.id for c in CASES["sampled losses"]])
def test_sampled_loss_out_kernels_hand_over_every_output(case, dtype):
    """hierarchical_sigmoid, nce, sample_logits (draws seeded alike) and their gradients: the same checks."""
    _handed(case, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["beam search"], ids=[c.id for c in CASES["beam search"]])
def test_beam_search_family_out_kernels_hand_over_every_output(case, dtype):
    """gather_tree, beam_log_probs (float32's rows into the buffer handed, others numpy's) and sampling_id (draws
    seeded alike): the same checks."""
    _handed(case, dtype)


def test_beam_search_sets_its_outputs_lod_and_keeps_the_best_of_each_source():
    """beam_search over two sources of two prefixes: each source's beam_size best (id, score), their parents, and
    the two-level LoD of what it kept, from the out-kernel on the call's context."""
    scores = np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.9, 0.05, 0.05], [0.2, 0.7, 0.1]])
    ins = {"pre_ids": np.array([[1], [2], [3], [4]]), "pre_scores": np.zeros((4, 1)), "scores": scores}
    ctx = KernelContext(lod={"scores": [[0, 2, 4], [0, 1, 2, 3, 4]]})
    opdef = registry.get("beam_search")
    attrs = dict(opdef.default_attrs(), beam_size=2, end_id=9)
    meta = opdef.structured.meta(attrs, ins, ctx)
    assert meta.fresh and meta.outputs["selected_ids"] == ((-1, 1), np.dtype(np.int64))
    outs = {}
    opdef.structured.cpu(ins, outs, attrs, meta, ctx)
    assert outs["selected_ids"].reshape(-1).tolist() == [1, 0, 0, 1]
    assert outs["parent_idx"].tolist() == [0, 1, 2, 3]
    assert ctx.out_lod["selected_ids"] == [[0, 2, 4], [0, 1, 2, 3, 4]]


@pytest.mark.parametrize("merge", [True, False])
def test_ctc_align_of_a_lod_sets_outputs_lod_and_keeps_what_the_values_decide(merge):
    """ctc_align over sequences: Output [-1, 1] in the Meta, the kept ids' count in the array; its LoD the kept
    ids per sequence, set on the call's context by the out-kernel."""
    x = np.array([[0], [1], [1], [0], [2], [2], [3]], np.int64)
    ctx = KernelContext(lod={"Input": [[0, 3, 7]]})
    opdef = registry.get("ctc_align")
    attrs = dict(opdef.default_attrs(), merge_repeated=merge, blank=0)
    meta = opdef.structured.meta(attrs, {"Input": x}, ctx)
    assert meta.outputs["Output"] == ((-1, 1), np.dtype(np.int64))
    outs = {}
    opdef.structured.cpu({"Input": x}, outs, attrs, meta, ctx)
    want = [1, 2, 3] if merge else [1, 1, 2, 2, 3]
    assert outs["Output"].reshape(-1).tolist() == want
    assert ctx.out_lod == {"Output": [[0, 1 if merge else 2, len(want)]]}
