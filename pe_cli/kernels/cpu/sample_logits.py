"""Kernels of ops/sample_logits.py (numpy); ``sample`` works on host arrays and serves CUDA too."""
import numpy as np

from ...errors import PeError


def log_uniform(classes):
    """P(k) of the log-uniform sampler over ``classes`` ids."""
    k = np.arange(classes, dtype=np.float64)
    return (np.log(k + 2) - np.log(k + 1)) / np.log(classes + 1)


def _draw_unique(rng, classes, count):
    """``count`` distinct log-uniform ids, in draw order, and the number of draws it took."""
    seen, order, tries = set(), [], 0
    while len(order) < count:
        v = int(np.exp(rng.random() * np.log(classes + 1))) - 1
        v %= classes
        tries += 1
        if v not in seen:
            seen.add(v)
            order.append(v)
    return np.array(order, dtype=np.int64), tries


def sample(ins, attrs):
    """The op's outputs on host arrays."""
    logits, labels = np.asarray(ins["Logits"]), np.asarray(ins["Labels"]).astype(np.int64)
    n, classes = logits.shape
    num_true = labels.shape[1]
    if ((labels < 0) | (labels >= classes)).any():
        raise PeError(f"sample_logits: Labels hold ids outside the {classes} classes of Logits")
    if attrs["use_customized_samples"]:
        samples = np.asarray(ins["CustomizedSamples"]).astype(np.int64)
        probs = np.asarray(ins["CustomizedProbabilities"]).astype(logits.dtype)
    else:
        negatives, tries = _draw_unique(attrs["_rng"], classes, attrs["num_samples"])
        p = log_uniform(classes)
        samples = np.concatenate([labels, np.broadcast_to(negatives, (n, negatives.size))], axis=1)
        q = p[samples]
        probs = (q * attrs["num_samples"] if tries == attrs["num_samples"]
                 else -np.expm1(tries * np.log1p(-q))).astype(logits.dtype)
    if ((samples < 0) | (samples >= classes)).any():
        raise PeError(f"sample_logits: Samples hold ids outside the {classes} classes of Logits")
    sampled = np.take_along_axis(logits, samples, axis=1) - np.log(probs)
    if attrs["remove_accidental_hits"]:
        hits = (samples[:, num_true:, None] == labels[:, None, :]).any(axis=2)
        sampled[:, num_true:] -= np.where(hits, 1e20, 0.0).astype(sampled.dtype)
    return {"Samples": samples, "Probabilities": probs, "SampledLogits": sampled.astype(logits.dtype),
            "SampledLabels": np.tile(np.arange(num_true, dtype=np.int64), (n, 1)),
            "LogitsDim": np.array([list(logits.shape)], dtype=np.int64),
            "LabelsDim": np.array([list(labels.shape)], dtype=np.int64)}


def sample_logits(ins, attrs):
    return sample(ins, attrs)


def sample_logits_grad(ins, attrs):
    logits, samples, d = ins["Logits"], ins["Samples"], ins["SampledLogits@GRAD"]
    dx = np.zeros(logits.shape, dtype=np.float64)
    rows = np.repeat(np.arange(logits.shape[0]), samples.shape[1])
    np.add.at(dx, (rows, samples.reshape(-1)), d.reshape(-1))
    return {"Logits@GRAD": dx.astype(logits.dtype)}
