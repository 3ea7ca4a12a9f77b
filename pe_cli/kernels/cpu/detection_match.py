"""Kernels of ops/detection_match.py on the CPU: bipartite_match (a numba loop, the greedy matching of
cpu/_detection_loops.py), target_assign and mine_hard_examples (numpy), arranged as Fluid 1.8's
kernels do. ``target_assign_rows`` (shapes/detection.py: its source rows, checked) is shared with the CUDA
kernel."""

import numpy as np

from .runtime.loops import lazy
from ...shapes.detection import target_assign_rows

_loops = lazy("_detection_loops")


def bipartite_match(ins, attrs, ctx):
    dist = np.ascontiguousarray(ins["DistMat"])
    lod = ctx.lod.get("DistMat")
    offs = [int(v) for v in lod[-1]] if lod else [0, dist.shape[0]]
    n, cols = len(offs) - 1, dist.shape[1]
    idx, out = np.full((n, cols), -1, np.int32), np.zeros((n, cols), dist.dtype)
    loops = _loops()
    for i in range(n):
        if offs[i + 1] > offs[i]:
            loops.bipartite(dist, offs[i], offs[i + 1], idx[i], out[i])
            if attrs["match_type"] == "per_prediction":
                loops.argmax_match(dist, offs[i], offs[i + 1], dist.dtype.type(attrs["dist_threshold"]), idx[i], out[i])
    return {"ColToRowMatchIndices": idx, "ColToRowMatchDist": out}


def target_assign(ins, attrs, ctx):
    x = ins["X"]
    src, neg_img, neg_col = target_assign_rows(ins, attrs, ctx)
    n, m = src.shape
    p = x.shape[1]
    cols = np.arange(m) % p
    out = np.where((src > -1)[..., None], x[np.maximum(src, 0), cols[None, :]], x.dtype.type(attrs["mismatch_value"]))
    weight = (src > -1).astype(np.float32)[..., None]
    out[neg_img, neg_col] = attrs["mismatch_value"]
    weight[neg_img, neg_col] = 1.0
    return {"Out": out.astype(x.dtype, copy=False), "OutWeight": weight}


def mine_hard_examples(ins, attrs, ctx):
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
    return {"NegIndices": neg, "UpdatedMatchIndices": updated}
