"""Op cases for hierarchical_sigmoid (ops/loss_sampled.py): the default tree and a custom one, against
the loops of Fluid 1.8's test_hsigmoid_op.py (out-of-path steps add log 2, as Fluid's op)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(67)


def _default_path(label, num_classes):
    c = label + num_classes
    length = c.bit_length() - 1
    return [(c >> (j + 1)) - 1 for j in range(length)], [(c >> j) & 1 for j in range(length)]


def _custom_path(table, code):
    nodes, bits = [], []
    for t, b in zip(table, code):
        if t < 0:
            break
        nodes.append(t)
        bits.append(b)
    return nodes, bits


def _ref(i, a):
    x, w, label = i["X"], i["W"], i["Label"].reshape(-1)
    custom = "PathTable" in i
    length = i["PathTable"].shape[1] if custom else (a["num_classes"] - 1).bit_length()
    pre = np.zeros((len(x), length))
    out = np.zeros((len(x), 1))
    for n in range(len(x)):
        nodes, bits = (
            _custom_path(i["PathTable"][n], i["PathCode"][n])
            if custom
            else _default_path(int(label[n]), a["num_classes"])
        )
        for j, (node, bit) in enumerate(zip(nodes, bits)):
            pre[n, j] = np.clip(w[node] @ x[n] + (i["Bias"][node, 0] if "Bias" in i else 0), -40, 40)
            out[n] -= bit * pre[n, j]
    soft = np.log(1 + np.exp(pre))
    return {"Out": out + soft.sum(axis=1, keepdims=True), "PreOut": soft}


_TABLE = np.array([[0, 2, -1, -1], [0, 1, 3, -1], [0, 2, 4, 5]], dtype=np.int64)
_CODE = np.array([[1, 0, 0, 0], [0, 1, 1, 0], [1, 1, 0, 1]], dtype=np.int64)

CASES = [
    OpCase(
        "hierarchical_sigmoid",
        {
            "X": rng.normal(size=(4, 3)),
            "W": rng.normal(size=(5, 3)),
            "Label": np.array([[0], [5], [3], [1]], dtype=np.int64),
            "Bias": rng.normal(size=(5, 1)),
        },
        _ref,
        attrs={"num_classes": 6},
        outputs=("Out", "PreOut"),
        loss_outputs=("Out",),
        grad=("X", "W", "Bias"),
    ),
    OpCase(
        "hierarchical_sigmoid",
        {
            "X": rng.normal(size=(3, 2)),
            "W": rng.normal(size=(6, 2)),
            "Label": np.array([[1], [2], [0]], dtype=np.int64),
            "PathTable": _TABLE,
            "PathCode": _CODE,
        },
        _ref,
        attrs={"num_classes": 6},
        outputs=("Out", "PreOut"),
        loss_outputs=("Out",),
        grad=("X", "W"),
        name="hierarchical_sigmoid_custom_tree",
    ),
]


# -- nce: the negatives fixed (custom_neg_classes) against Fluid's formula; drawn ones checked for range --


def _nce_ref(i, a):
    x, w, label = i["X" if "X" in i else "Input"], i["Weight"], i["Label"]
    n = a["num_total_classes"]
    labels = np.concatenate([label, np.tile(a["custom_neg_classes"], (len(x), 1))], axis=1)
    o = 1 / (1 + np.exp(-(np.einsum("nd,nkd->nk", x, w[labels]) + i["Bias"][labels, 0])))
    b = (
        a["num_neg_samples"] / n
        if a["sampler"] == 0
        else np.log((labels + 2.0) / (labels + 1.0)) / np.log(n) * a["num_neg_samples"]
    )
    cost = np.where(np.arange(labels.shape[1]) < label.shape[1], -np.log(o / (o + b)), -np.log(b / (o + b)))
    weight = i.get("SampleWeight", np.ones((len(x), 1)))
    return {"Cost": (weight * cost).sum(axis=1, keepdims=True), "SampleLogits": o, "SampleLabels": labels}


def _nce_drawn(outs, inputs):
    labels, o = outs["SampleLabels"], outs["SampleLogits"]
    assert labels.shape == (6, 1 + 4) and o.shape == labels.shape and outs["Cost"].shape == (6, 1)
    np.testing.assert_array_equal(labels[:, :1], inputs["Label"])
    assert labels[:, 1:].min() >= 0 and labels[:, 1:].max() < 7 and np.all((o > 0) & (o < 1))


_NCE_IN = {
    "Input": rng.normal(size=(3, 4)),
    "Label": np.array([[1], [4], [0]], dtype=np.int64),
    "Weight": rng.normal(size=(6, 4)),
    "Bias": rng.normal(size=(6, 1)),
}
CASES += [
    OpCase(
        "nce",
        _NCE_IN,
        _nce_ref,
        attrs={"num_total_classes": 6, "num_neg_samples": 3, "custom_neg_classes": [2, 5, 1]},
        loss_outputs=("Cost",),
        grad=("Input", "Weight", "Bias"),
    ),
    OpCase(
        "nce",
        {
            **_NCE_IN,
            "Label": np.array([[1, 3], [4, 0], [0, 2]], dtype=np.int64),
            "SampleWeight": rng.uniform(0.5, 2, (3, 1)),
        },
        _nce_ref,
        attrs={"num_total_classes": 6, "num_neg_samples": 2, "custom_neg_classes": [5, 2], "sampler": 1},
        loss_outputs=("Cost",),
        grad=("Input", "Weight"),
        name="nce_log_uniform_two_true_weighted",
    ),
    OpCase(
        "nce",
        {
            "Input": rng.normal(size=(6, 3)),
            "Label": rng.integers(0, 7, (6, 1)).astype(np.int64),
            "Weight": rng.normal(size=(7, 3)),
        },
        check=_nce_drawn,
        attrs={"num_total_classes": 7, "num_neg_samples": 4, "sampler": 1, "seed": 5},
        outputs=("Cost", "SampleLogits", "SampleLabels"),
        name="nce_log_uniform_drawn",
    ),
]


def _nce_custom_ref(i, a):
    """The custom distribution's probabilities P(k) = CustomDistProbs[k] (the negatives fixed)."""
    x, w, label, probs = i["Input"], i["Weight"], i["Label"], i["CustomDistProbs"]
    labels = np.concatenate([label, np.tile(a["custom_neg_classes"], (len(x), 1))], axis=1)
    o = 1 / (1 + np.exp(-np.einsum("nd,nkd->nk", x, w[labels])))
    b = probs[labels] * a["num_neg_samples"]
    cost = np.where(np.arange(labels.shape[1]) < 1, -np.log(o / (o + b)), -np.log(b / (o + b)))
    return {"Cost": cost.sum(axis=1, keepdims=True), "SampleLogits": o, "SampleLabels": labels}


CASES += [
    OpCase(
        "nce",
        {
            "Input": rng.normal(size=(2, 3)),
            "Label": np.array([[0], [3]], dtype=np.int64),
            "Weight": rng.normal(size=(4, 3)),
            "CustomDistProbs": np.array([0.1, 0.2, 0.3, 0.4]),
            "CustomDistAlias": np.array([3, 3, 3, -1], dtype=np.int32),
            "CustomDistAliasProbs": np.array([0.4, 0.8, 1.0, 1.0]),
        },
        _nce_custom_ref,
        attrs={"num_total_classes": 4, "num_neg_samples": 2, "sampler": 2, "custom_neg_classes": [1, 2]},
        loss_outputs=("Cost",),
        grad=("Input", "Weight"),
        name="nce_custom_dist",
    ),
]
