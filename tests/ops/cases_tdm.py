"""Op cases for tdm_child and tdm_sampler (ops/tdm.py) on a 4-layer tree of 26 nodes (node 13 is
an item one layer up, so its path stops early): children and leaf masks by hand-written numpy,
positives-only sampling exactly, random negatives by what they must satisfy."""

import numpy as np

from op_test import OpCase

_TREE = [
    [0, 0, 0, 1, 2],
    [0, 1, 0, 3, 4],
    [0, 1, 0, 5, 6],
    [0, 2, 1, 7, 8],
    [0, 2, 1, 9, 10],
    [0, 2, 2, 11, 12],
    [0, 2, 2, 13, 0],
    [0, 3, 3, 14, 15],
    [0, 3, 3, 16, 17],
    [0, 3, 4, 18, 19],
    [0, 3, 4, 20, 21],
    [0, 3, 5, 22, 23],
    [0, 3, 5, 24, 25],
    [12, 3, 6, 0, 0],
] + [[i, 4, 7 + i // 2, 0, 0] for i in range(12)]
_TRAVEL = np.array(
    [
        [1, 3, 7, 14],
        [1, 3, 7, 15],
        [1, 3, 8, 16],
        [1, 3, 8, 17],
        [1, 4, 9, 18],
        [1, 4, 9, 19],
        [1, 4, 10, 20],
        [1, 4, 10, 21],
        [2, 5, 11, 22],
        [2, 5, 11, 23],
        [2, 5, 12, 24],
        [2, 5, 12, 25],
        [2, 6, 13, 0],
    ],
    dtype=np.int32,
)
_LAYERS = [[1, 2], [3, 4, 5, 6], list(range(7, 14)), list(range(14, 26))]
_LAYER = np.array(sum(_LAYERS, []), dtype=np.int32).reshape(-1, 1)
_OFFSETS = [0, 2, 6, 13, 25]
_X = np.array([[0, 3, 6, 13, 25], [2, 1, 12, 7, 5]], dtype=np.int64)
_ITEMS = np.array([[0], [5], [12], [7]], dtype=np.int64)


def _children(i, a):
    info = np.array(_TREE)
    child = np.array([[info[n, 3:5] if n != 0 else [0, 0] for n in row] for row in i["X"]])
    mask = np.array([[[int(info[c, 0] != 0) for c in pair] for pair in row] for row in child])
    return {"Child": child.astype(np.int32), "LeafMask": mask.astype(np.int32)}


def _positives(i, a):
    out = _TRAVEL[i["X"].ravel()]
    mask = (out != 0).astype(np.int32)
    return {"Out": out, "Labels": mask, "Mask": mask}


def _check_negatives(outs, inputs):
    out, labels, mask = outs["Out"], outs["Labels"], outs["Mask"]
    assert out.shape == (4, (0 + 1) + (1 + 1) + (2 + 1) + (3 + 1))
    start = 0
    for level, k in enumerate([0, 1, 2, 3]):
        block = out[:, start : start + k + 1]
        for r, item in enumerate(inputs["X"].ravel()):
            positive = _TRAVEL[item, level]
            if positive == 0:
                assert (block[r] == 0).all() and (mask[r, start : start + k + 1] == 0).all()
                continue
            assert (
                block[r, 0] == positive and labels[r, start] == 1 and (labels[r, start + 1 : start + k + 1] == 0).all()
            )
            negatives = block[r, 1:]
            assert len(set(negatives.tolist())) == k and positive not in negatives
            assert set(negatives.tolist()) <= set(_LAYERS[level])
        start += k + 1


CASES = [
    OpCase("tdm_child", {"X": _X, "TreeInfo": np.array(_TREE, dtype=np.int32)}, _children, attrs={"child_nums": 2}),
    OpCase(
        "tdm_sampler",
        {"X": _ITEMS, "Travel": _TRAVEL, "Layer": _LAYER},
        _positives,
        attrs={"neg_samples_num_list": [0, 0, 0, 0], "layer_offset_lod": _OFFSETS},
    ),
    OpCase(
        "tdm_sampler",
        {"X": _ITEMS, "Travel": _TRAVEL, "Layer": _LAYER},
        check=_check_negatives,
        outputs=("Out", "Labels", "Mask"),
        attrs={"neg_samples_num_list": [0, 1, 2, 3], "layer_offset_lod": _OFFSETS, "seed": 5},
        name="tdm_sampler_negatives",
    ),
]


def _first_children(i, a):
    """child_nums below TreeInfo's width: each node's first child_nums children (Fluid 1.8.5's kernel)."""
    info, k = np.array(_TREE), a["child_nums"]
    child = np.array([[info[n, 3 : 3 + k] if n != 0 and info[n, 3] != 0 else [0] * k for n in row] for row in i["X"]])
    return {"Child": child.astype(np.int32), "LeafMask": ((info[child, 0] != 0) & (child != 0)).astype(np.int32)}


CASES += [
    OpCase(
        "tdm_child",
        {"X": _X, "TreeInfo": np.array(_TREE, dtype=np.int32)},
        _first_children,
        attrs={"child_nums": 1},
        name="tdm_child_first_children",
    ),
]
