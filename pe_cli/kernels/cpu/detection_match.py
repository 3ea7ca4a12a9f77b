"""Kernels of ops/detection_match.py on the CPU, out-kernels (meta rules: shapes/detection_targets.py):
bipartite_match (a numba loop per instance, the greedy matching of cpu/_detection_loops.py, the instances' offsets
the rule's), target_assign (numpy, into the buffers handed) and mine_hard_examples (numpy, a ``fresh`` variant: how
many negatives, the values'), arranged as Fluid 1.8's kernels do. ``target_assign_rows`` (shapes/detection.py: its
source rows, checked) is shared with the CUDA kernel; bipartite_match's and mine_hard_examples' kernels by name, which
CUDA's host fallbacks run, are their adapters."""

import numpy as np

from ...shapes import detection_targets as rules
from ...shapes.detection import target_assign_rows
from ..structured import adapter, fresh_outputs
from .runtime.loops import lazy

_loops = lazy("_detection_loops")


def bipartite_match_out(ins, outs, attrs, meta):
    dist, offs = np.ascontiguousarray(ins["DistMat"]), meta.args[0]
    n = len(offs) - 1
    idx, out = outs["ColToRowMatchIndices"], outs["ColToRowMatchDist"]
    idx.fill(-1)
    out.fill(0)
    loops = _loops()
    for i in range(n):
        if offs[i + 1] > offs[i]:
            loops.bipartite(dist, offs[i], offs[i + 1], idx[i], out[i])
            if attrs["match_type"] == "per_prediction":
                loops.argmax_match(dist, offs[i], offs[i + 1], dist.dtype.type(attrs["dist_threshold"]), idx[i], out[i])


def target_assign_out(ins, outs, attrs, meta, ctx):
    x = ins["X"]
    src, neg_img, neg_col = target_assign_rows(ins, attrs, ctx)
    cols = np.arange(src.shape[1]) % x.shape[1]
    matched = (src > -1)[..., None]
    taken = x[np.maximum(src, 0), cols[None, :]]
    out, weight = outs["Out"], outs["OutWeight"]
    out.fill(x.dtype.type(attrs["mismatch_value"]))
    np.copyto(out, taken, where=matched)
    np.copyto(weight, matched)
    out[neg_img, neg_col] = attrs["mismatch_value"]
    weight[neg_img, neg_col] = 1.0


def mine_hard_examples_out(ins, outs, attrs, meta, ctx):
    cls = np.asarray(ins["ClsLoss"])
    loss = cls + np.asarray(ins["LocLoss"]) if "LocLoss" in ins and attrs["mining_type"] == "hard_example" else cls
    match = np.asarray(ins["MatchIndices"]).astype(np.int32)
    dist = np.asarray(ins["MatchDist"])
    updated = match.copy()
    negs, starts = [], [0]
    hard = attrs["mining_type"] == "hard_example"
    for n in range(match.shape[0]):
        if hard:
            eligible = np.arange(match.shape[1])
            count = min(int(attrs["sample_size"]), eligible.size)
        else:
            eligible = np.flatnonzero((match[n] == -1) & (dist[n] < dist.dtype.type(attrs["neg_dist_threshold"])))
            count = min(int((match[n] != -1).sum() * attrs["neg_pos_ratio"]), eligible.size)
        order = np.argsort(-loss[n, eligible], kind="stable")[:count]
        chosen = np.sort(eligible[order])
        if hard:
            picked = np.zeros(match.shape[1], bool)
            picked[chosen] = True
            updated[n, (match[n] > -1) & ~picked] = -1
            chosen = chosen[match[n, chosen] == -1]
        negs.append(chosen)
        starts.append(starts[-1] + chosen.size)
    neg = np.concatenate(negs).astype(np.int32).reshape(-1, 1) if negs else np.zeros((0, 1), np.int32)
    ctx.set_lod_map({"NegIndices": [starts]})
    fresh_outputs({"NegIndices": neg, "UpdatedMatchIndices": updated}, ins, outs, meta)


target_assign_out.takes_context = True  # (X's and NegIndices' LoD)
mine_hard_examples_out.takes_context = True  # (NegIndices' LoD, set on the call's context)

# the kernels by name CUDA's host fallbacks run (kernels/cuda/detection_match.py's HOST_OPS): the adapters
bipartite_match = adapter(rules.bipartite_match_meta, bipartite_match_out, "bipartite_match")
mine_hard_examples = adapter(rules.mine_hard_examples_meta, mine_hard_examples_out, "mine_hard_examples")
