"""Op cases for family loss_margin: margin_cross_entropy (ArcFace, CosFace and combined margins; the
reference is the formula of Paddle 2.6.2's docs, -log of the softmax of the scaled, margined cosines) and
class_center_sample (random negatives: checked by their properties)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(766)
_LOGITS = rng.uniform(-0.9, 0.9, (4, 5))
_LABEL = np.array([[1], [0], [4], [1]])


def _margin_ref(m1, m2, m3, s):
    def ref(i, a):
        z = np.array(i["Logits"])
        for row, c in enumerate(i["Label"][:, 0]):
            z[row, c] = np.cos(m1 * np.arccos(z[row, c]) + m2) - m3
        e = np.exp(s * z)
        p = e / e.sum(axis=1, keepdims=True)
        return {"Softmax": p, "Loss": -np.log(p[np.arange(len(z)), i["Label"][:, 0]]).reshape(-1, 1)}

    return ref


def _margin(m1, m2, m3, s, name):
    return OpCase(
        "margin_cross_entropy",
        {"Logits": _LOGITS, "Label": _LABEL},
        _margin_ref(m1, m2, m3, s),
        attrs={"margin1": m1, "margin2": m2, "margin3": m3, "scale": s},
        grad=("Logits",),
        loss_outputs=("Loss",),
        rtol=1e-9,
        name=name,
    )


def _check_sample(outs, inputs):
    label, centers, remapped = inputs["Label"], outs["SampledLocalClassCenter"], outs["RemappedLabel"]
    positive = np.unique(label)
    assert centers.dtype == label.dtype and remapped.dtype == label.dtype
    assert len(centers) == 8 and len(set(centers.tolist())) == 8 and centers.min() >= 0 and centers.max() < 30
    np.testing.assert_array_equal(centers[: len(positive)], positive)
    np.testing.assert_array_equal(centers[remapped], label)


CASES = [
    _margin(1.0, 0.5, 0.0, 8.0, "margin_cross_entropy_arcface"),
    _margin(1.0, 0.0, 0.35, 4.0, "margin_cross_entropy_cosface"),
    _margin(1.35, 0.25, 0.1, 6.0, "margin_cross_entropy"),
    OpCase(
        "class_center_sample",
        {"Label": np.array([20, 5, 5, 13, 2, 20])},
        check=_check_sample,
        attrs={"num_classes": 30, "num_samples": 8},
        outputs=("RemappedLabel", "SampledLocalClassCenter"),
    ),
    OpCase(
        "class_center_sample",
        {"Label": np.array([20, 5, 5, 13, 2, 20], np.int32)},
        lambda i, a: {
            "RemappedLabel": np.array([3, 1, 1, 2, 0, 3], np.int32),
            "SampledLocalClassCenter": np.array([2, 5, 13, 20], np.int32),
        },
        attrs={"num_classes": 30, "num_samples": 3},
        name="class_center_sample_all_positive",
    ),
]
