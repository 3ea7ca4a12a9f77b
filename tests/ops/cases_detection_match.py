"""Op cases for SSD's matching ops: bipartite_match, target_assign and mine_hard_examples, against
loop-by-loop numpy references written from Fluid 1.8's kernels and unit tests
(test_bipartite_match_op.py, test_target_assign_op.py, test_mine_hard_examples_op.py)."""

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(43)


def match_ref(i, a):
    dist = np.asarray(i["DistMat"])
    offs = i["DistMat"].lod()[-1] if isinstance(i["DistMat"], LoDTensor) else [0, len(dist)]
    idx = np.full((len(offs) - 1, dist.shape[1]), -1, np.int32)
    out = np.zeros(idx.shape, dist.dtype)
    for n, (s, e) in enumerate(zip(offs[:-1], offs[1:])):
        d = dist[s:e].astype(np.float64)
        free_rows, free_cols = set(range(e - s)), set(range(dist.shape[1]))
        while True:  # the largest remaining pair (values are distinct here)
            pairs = [(d[r, c], r, c) for r in free_rows for c in free_cols if d[r, c] >= 1e-6]
            if not pairs:
                break
            v, r, c = max(pairs)
            idx[n, c], out[n, c] = r, dist[s + r, c]
            free_rows.discard(r)
            free_cols.discard(c)
        if a["match_type"] == "per_prediction":
            for c in range(dist.shape[1]):
                if idx[n, c] == -1 and len(d) and d[:, c].max() >= max(a["dist_threshold"], 1e-6):
                    idx[n, c] = int(np.argmax(d[:, c]))
                    out[n, c] = dist[s + idx[n, c], c]
    return {"ColToRowMatchIndices": idx, "ColToRowMatchDist": out}


def assign_ref(i, a):
    x, match = np.asarray(i["X"]), i["MatchIndices"]
    offs = i["X"].lod()[-1]
    n, m = match.shape
    out = np.full((n, m, x.shape[2]), a["mismatch_value"], x.dtype)
    weight = np.zeros((n, m, 1), np.float32)
    for r in range(n):
        for c in range(m):
            if match[r, c] > -1:
                out[r, c] = x[offs[r] + match[r, c], c % x.shape[1]]
                weight[r, c] = 1
    if "NegIndices" in i:
        noffs = i["NegIndices"].lod()[-1]
        neg = np.asarray(i["NegIndices"]).reshape(-1)
        for r in range(n):
            for c in neg[noffs[r] : noffs[r + 1]]:
                out[r, c] = a["mismatch_value"]
                weight[r, c] = 1
    return {"Out": out, "OutWeight": weight}


_DIST = rng.uniform(0, 1, (7, 5)) * (rng.uniform(0, 1, (7, 5)) > 0.3)

CASES = [
    OpCase("bipartite_match", {"DistMat": _DIST}, match_ref),
    OpCase(
        "bipartite_match",
        {"DistMat": LoDTensor(_DIST, [[0, 3, 3, 7]])},
        match_ref,
        attrs={"match_type": "per_prediction", "dist_threshold": 0.3},
        name="bipartite_match_lod_per_prediction",
    ),
    OpCase(
        "target_assign",
        {
            "X": LoDTensor(rng.normal(size=(5, 4, 3)), [[0, 2, 5]]),
            "MatchIndices": np.array([[0, -1, 1, 1, -1, 0], [2, 0, -1, 1, -1, -1]], np.int32),
        },
        assign_ref,
        attrs={"mismatch_value": 7},
    ),
    OpCase(
        "target_assign",
        {
            "X": LoDTensor(rng.normal(size=(5, 1, 4)).astype("float32"), [[0, 2, 5]]),
            "MatchIndices": np.array([[0, -1, 1, -1], [2, -1, -1, 1]], np.int32),
            "NegIndices": LoDTensor(np.array([[1], [3], [2]], np.int32), [[0, 1, 3]]),
        },
        assign_ref,
        name="target_assign_negatives",
    ),
]


def mine_ref(i, a):
    loss, match, dist = i["ClsLoss"], i["MatchIndices"], i["MatchDist"]
    hard = a["mining_type"] == "hard_example"
    if hard and "LocLoss" in i:
        loss = loss + i["LocLoss"]
    updated, negs = match.copy(), []
    for n in range(len(match)):
        if hard:
            cand = list(range(match.shape[1]))
            k = a["sample_size"]
        else:
            cand = [m for m in range(match.shape[1]) if match[n, m] == -1 and dist[n, m] < a["neg_dist_threshold"]]
            k = int(sum(match[n] != -1) * a["neg_pos_ratio"])
        picked = sorted(sorted(cand, key=lambda m: -loss[n, m])[:k])
        if hard:
            updated[n] = [v if (v == -1 or m in picked) else -1 for m, v in enumerate(match[n])]
            picked = [m for m in picked if match[n, m] == -1]
        negs += picked
    return {"NegIndices": np.array(negs, np.int32).reshape(-1, 1), "UpdatedMatchIndices": updated}


_MATCH = np.array([[0, -1, -1, 1, -1, -1, -1, -1], [-1, -1, 0, -1, -1, -1, -1, -1]], np.int32)
CASES += [
    OpCase(
        "mine_hard_examples",
        {"ClsLoss": rng.uniform(0, 2, (2, 8)), "MatchIndices": _MATCH, "MatchDist": rng.uniform(0, 1, (2, 8))},
        mine_ref,
        attrs={"neg_pos_ratio": 2.0, "neg_dist_threshold": 0.6},
    ),
    OpCase(
        "mine_hard_examples",
        {
            "ClsLoss": rng.uniform(0, 2, (2, 8)),
            "LocLoss": rng.uniform(0, 1, (2, 8)),
            "MatchIndices": _MATCH,
            "MatchDist": rng.uniform(0, 1, (2, 8)),
        },
        mine_ref,
        attrs={"mining_type": "hard_example", "sample_size": 3},
        name="mine_hard_examples_hard_example",
    ),
]
