"""Op cases for warpctc (ops/ctc.py). The reference sums, by brute force, the probability of
every alignment (one class per step, softmax over the classes) that collapses to the label (merge
repeats, then drop blanks): -log of that sum is the CTC loss."""

import itertools

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(79)


def _brute_loss(z, labels, blank):
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(z.shape[1]), repeat=z.shape[0]):
        merged = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
        if [k for k in merged if k != blank] == list(labels):
            total += np.prod(p[np.arange(z.shape[0]), path])
    return -np.log(total) if total else 0.0  # no alignment: 0, as Fluid 1.8's warp-ctc


def _lod_ref(i, a):
    z, label = np.asarray(i["Logits"]), np.asarray(i["Label"]).reshape(-1)
    t, n = i["Logits"].lod()[0], i["Label"].lod()[0]
    return {
        "Loss": np.array(
            [[_brute_loss(z[t[k] : t[k + 1]], label[n[k] : n[k + 1]], a["blank"])] for k in range(len(t) - 1)]
        )
    }


def _padded_ref(i, a):
    z, label = i["Logits"], i["Label"]
    t_len, n_len = i["LogitsLength"], i["LabelLength"]
    return {
        "Loss": np.array([[_brute_loss(z[: t_len[b], b], label[b, : n_len[b]], a["blank"])] for b in range(z.shape[1])])
    }


_LOD_IN = {
    "Logits": LoDTensor(rng.normal(size=(9, 4)), [[0, 4, 9]]),
    "Label": LoDTensor(np.array([[1], [2], [3], [3]], dtype=np.int32), [[0, 2, 4]]),
}

CASES = [
    OpCase(
        "warpctc", dict(_LOD_IN), _lod_ref, outputs=("WarpCTCGrad", "Loss"), loss_outputs=("Loss",), grad=("Logits",)
    ),
    OpCase(
        "warpctc",
        {
            "Logits": LoDTensor(rng.normal(size=(5, 3)), [[0, 5]]),
            "Label": LoDTensor(np.array([[0], [1]], dtype=np.int32), [[0, 2]]),
        },
        _lod_ref,
        attrs={"blank": 2},
        outputs=("WarpCTCGrad", "Loss"),
        loss_outputs=("Loss",),
        grad=("Logits",),
        name="warpctc_last_class_blank",
    ),
    OpCase(
        "warpctc",
        {
            "Logits": rng.normal(size=(5, 2, 4)),
            "Label": np.array([[1, 2], [2, 0]], dtype=np.int32),
            "LogitsLength": np.array([5, 3], dtype=np.int64),
            "LabelLength": np.array([2, 1], dtype=np.int64),
        },
        _padded_ref,
        outputs=("WarpCTCGrad", "Loss"),
        loss_outputs=("Loss",),
        grad=("Logits",),
        name="warpctc_padded",
    ),
    OpCase(
        "warpctc",
        dict(_LOD_IN),
        _lod_ref,
        attrs={"norm_by_times": True},
        outputs=("WarpCTCGrad", "Loss"),
        loss_outputs=("Loss",),
        name="warpctc_norm_by_times",
    ),
    # a sequence with fewer steps than labels (test_warpctc_op.py's cases): loss 0 and no gradient
    OpCase(
        "warpctc",
        {
            "Logits": LoDTensor(rng.normal(size=(3, 4)), [[0, 1, 3]]),
            "Label": LoDTensor(np.array([[0], [1], [1], [2]], dtype=np.int32), [[0, 3, 4]]),
        },
        _lod_ref,
        attrs={"blank": 3},
        outputs=("WarpCTCGrad", "Loss"),
        loss_outputs=("Loss",),
        grad=("Logits",),
        name="warpctc_no_alignment",
    ),
]
