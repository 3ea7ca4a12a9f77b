"""Op cases for tree_conv (ops/tree_conv.py): each node's patch (its descendants fewer than
max_depth levels down) enumerated recursively, the TBCNN weights (eta_t = (d_max - depth) / d_max,
eta_l = (1 - eta_t) * (index - 1) / (siblings - 1) (0.5 for an only child), eta_r = (1 - eta_t) *
(1 - eta_l)) summed in plain loops; gradients by finite differences."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(59)
# tree 0: 1 -> 2, 3, 4; 2 -> 5; 3 -> 6   (6 nodes);   tree 1: 1 -> 2; 2 -> 3 (3 nodes), padded edges
_EDGES = np.array([[[1, 2], [1, 3], [1, 4], [2, 5], [3, 6]], [[1, 2], [2, 3], [0, 0], [0, 0], [0, 0]]], dtype=np.int32)
_X = rng.normal(size=(2, 6, 3))
_FILTER = rng.normal(size=(3, 3, 2, 2))


def _ref(i, a):
    depth_max, x, filt = a["max_depth"], i["NodesVector"], i["Filter"]
    out = np.zeros((2, 6, 2, 2))
    for b in range(2):
        children = {}
        for u, v in i["EdgeSet"][b]:
            if u == 0 or v == 0:
                break
            children.setdefault(int(u), []).append(int(v))

        def walk(node, index, siblings, depth):
            yield node, index, siblings, depth
            kids = children.get(node, [])
            if depth + 1 < depth_max:
                for k, child in enumerate(kids):
                    yield from walk(child, k + 1, len(kids), depth + 1)

        count = 1 + sum(len(c) for c in children.values())
        for u in range(1, count + 1):
            for v, index, siblings, depth in walk(u, 1, 1, 0):
                eta_t = (depth_max - depth) / depth_max
                eta_l = (1 - eta_t) * (0.5 if siblings == 1 else (index - 1) / (siblings - 1))
                eta_r = (1 - eta_t) * (1 - eta_l)
                for k, eta in enumerate((eta_l, eta_r, eta_t)):
                    out[b, u - 1] += eta * np.einsum("f,fon->on", x[b, v - 1], filt[:, k])
    return {"Out": out}


CASES = [
    OpCase(
        "tree_conv",
        {"NodesVector": _X, "EdgeSet": _EDGES, "Filter": _FILTER},
        _ref,
        attrs={"max_depth": 2},
        grad=("NodesVector", "Filter"),
    ),
    OpCase(
        "tree_conv",
        {"NodesVector": _X, "EdgeSet": _EDGES, "Filter": _FILTER},
        _ref,
        attrs={"max_depth": 3},
        grad=("NodesVector", "Filter"),
        name="tree_conv_depth_3",
    ),
]
