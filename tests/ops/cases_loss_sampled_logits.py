"""Op cases for sample_logits (ops/loss_sampled.py): customized samples against Fluid 1.8's formula
(test_sample_logits_op.py), and drawn samples checked for the sampler's properties."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(83)
_LOGITS = rng.normal(size=(3, 6))
_LABELS = np.array([[1], [4], [0]], dtype=np.int64)
_SAMPLES = np.array([[1, 2, 4, 0], [4, 2, 4, 0], [0, 2, 4, 0]], dtype=np.int64)
_PROBS = rng.uniform(0.1, 0.9, (3, 4))


def _custom_ref(i, a):
    sampled = np.take_along_axis(i["Logits"], i["CustomizedSamples"], axis=1) - np.log(i["CustomizedProbabilities"])
    if a["remove_accidental_hits"]:
        hits = i["CustomizedSamples"][:, 1:] == i["Labels"]
        sampled[:, 1:] -= np.where(hits, 1e20, 0.0)
    return {
        "SampledLogits": sampled,
        "Samples": i["CustomizedSamples"],
        "SampledLabels": np.zeros((3, 1), dtype=np.int64),
    }


def _check_drawn(outs, inputs):
    samples, probs, logits = outs["Samples"], outs["Probabilities"], inputs["Logits"]
    labels = inputs["Labels"]
    assert samples.shape == (4, 2 + 5) and (samples[:, :2] == labels).all()
    neg = samples[:, 2:]
    assert (neg == neg[0]).all() and len(set(neg[0].tolist())) == 5 and neg.max() < 50
    k = samples.astype(np.float64)
    p = (np.log(k + 2) - np.log(k + 1)) / np.log(51)
    assert (probs >= p - 1e-12).all() and (probs <= 1).all()  # 1 - (1 - p)^tries >= p
    want = np.take_along_axis(logits, samples, axis=1) - np.log(probs)
    hits = (neg[:, :, None] == labels[:, None, :]).any(axis=2)
    want[:, 2:] -= np.where(hits, 1e20, 0)
    np.testing.assert_allclose(outs["SampledLogits"], want, rtol=1e-12)
    assert (outs["SampledLabels"] == [0, 1]).all()


CASES = [
    OpCase(
        "sample_logits",
        {"Logits": _LOGITS, "Labels": _LABELS, "CustomizedSamples": _SAMPLES, "CustomizedProbabilities": _PROBS},
        _custom_ref,
        attrs={"use_customized_samples": True, "num_samples": 3},
        name="sample_logits_accidental_hits",
    ),
    # the gradient (finite differences cannot see past a 1e20 shift: no accidental hits removed here)
    OpCase(
        "sample_logits",
        {"Logits": _LOGITS, "Labels": _LABELS, "CustomizedSamples": _SAMPLES, "CustomizedProbabilities": _PROBS},
        _custom_ref,
        attrs={"use_customized_samples": True, "num_samples": 3, "remove_accidental_hits": False},
        loss_outputs=("SampledLogits",),
        grad=("Logits",),
    ),
    OpCase(
        "sample_logits",
        {"Logits": rng.normal(size=(4, 50)), "Labels": rng.integers(0, 50, (4, 2))},
        attrs={"num_samples": 5, "seed": 9},
        outputs=("Samples", "Probabilities", "SampledLogits", "SampledLabels"),
        check=_check_drawn,
        name="sample_logits_drawn",
    ),
]
