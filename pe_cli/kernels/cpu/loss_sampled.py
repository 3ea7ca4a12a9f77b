"""CPU out-kernels of the sampled losses (ops/loss_sampled.py; meta rules: shapes/loss_sampled.py, fresh), numpy: hierarchical_sigmoid over the [N, L]
path matrix (shapes/loss_sampled.py ``hsigmoid_paths``, shared with the CUDA kernels) and sample_logits
(``sample`` works on host arrays and serves CUDA too)."""

import numpy as np

from ...base.errors import PeError
from ...shapes import loss_sampled as rules
from ...shapes.loss_sampled import hsigmoid_paths
from ..structured import adapter, fresh_outputs


def _paths(ins, attrs):
    return hsigmoid_paths(ins["Label"], attrs, ins.get("PathTable"), ins.get("PathCode"), ins["W"].shape[0])


def hierarchical_sigmoid(ins, outs, attrs, meta):
    x, w = ins["X"], ins["W"]
    idx, bits = _paths(ins, attrs)
    valid = idx >= 0
    node = np.maximum(idx, 0)
    pre = np.einsum("nld,nd->nl", w[node], x)
    if "Bias" in ins:
        pre = pre + ins["Bias"].reshape(-1)[node]
    pre = np.clip(np.where(valid, pre, 0), -40, 40)
    soft = np.logaddexp(0, pre)
    out = soft.sum(axis=1) - (bits * pre).sum(axis=1)
    results = {"Out": out.reshape(-1, 1).astype(x.dtype), "PreOut": soft.astype(x.dtype), "W_Out": w}
    fresh_outputs(results, ins, outs, meta)


def hierarchical_sigmoid_grad(ins, outs, attrs, meta):
    x, w, pre_out, dout = ins["X"], ins["W"], ins["PreOut"], ins["Out@GRAD"]
    idx, bits = _paths(ins, attrs)
    valid = idx >= 0
    node = np.maximum(idx, 0)
    g = ((1 - np.exp(-pre_out.astype(np.float64))) - bits) * valid * dout.reshape(-1, 1)  # sigmoid(p) - bit
    dx = np.einsum("nl,nld->nd", g, w[node]).astype(x.dtype)
    dw = np.zeros(w.shape, dtype=np.float64)
    np.add.at(dw, idx[valid], g[valid][:, None] * np.repeat(x, valid.sum(axis=1), axis=0))
    db = np.bincount(idx[valid], weights=g[valid], minlength=w.shape[0]).reshape(-1, 1)
    fresh_outputs({"X@GRAD": dx, "W@GRAD": dw.astype(w.dtype), "Bias@GRAD": db.astype(w.dtype)}, ins, outs, meta)


# -- sample_logits ----------------------------------------------------------------------------------


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


def sample(ins, attrs, ctx):
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
        negatives, tries = _draw_unique(ctx.rng, classes, attrs["num_samples"])
        p = log_uniform(classes)
        samples = np.concatenate([labels, np.broadcast_to(negatives, (n, negatives.size))], axis=1)
        q = p[samples]
        probs = (q * attrs["num_samples"] if tries == attrs["num_samples"] else -np.expm1(tries * np.log1p(-q))).astype(
            logits.dtype
        )
    if ((samples < 0) | (samples >= classes)).any():
        raise PeError(f"sample_logits: Samples hold ids outside the {classes} classes of Logits")
    sampled = np.take_along_axis(logits, samples, axis=1) - np.log(probs)
    if attrs["remove_accidental_hits"]:
        hits = (samples[:, num_true:, None] == labels[:, None, :]).any(axis=2)
        sampled[:, num_true:] -= np.where(hits, 1e20, 0.0).astype(sampled.dtype)
    return {
        "Samples": samples,
        "Probabilities": probs,
        "SampledLogits": sampled.astype(logits.dtype),
        "SampledLabels": np.tile(np.arange(num_true, dtype=np.int64), (n, 1)),
        "LogitsDim": np.array([list(logits.shape)], dtype=np.int64),
        "LabelsDim": np.array([list(labels.shape)], dtype=np.int64),
    }


def sample_logits_out(ins, outs, attrs, meta, ctx):
    fresh_outputs(sample(ins, attrs, ctx), ins, outs, meta)


def sample_logits_grad(ins, outs, attrs, meta):
    logits, samples, d = ins["Logits"], ins["Samples"], ins["SampledLogits@GRAD"]
    dx = np.zeros(logits.shape, dtype=np.float64)
    rows = np.repeat(np.arange(logits.shape[0]), samples.shape[1])
    np.add.at(dx, (rows, samples.reshape(-1)), d.reshape(-1))
    fresh_outputs({"Logits@GRAD": dx.astype(logits.dtype)}, ins, outs, meta)


# -- nce ------------------------------------------------------------------------------------------------


def nce_probability(ins, attrs, ids):
    """P(k) of Fluid's samplers for class ids ``ids`` (any shape), as float64."""
    n, sampler = attrs["num_total_classes"], attrs["sampler"]
    if sampler == 0:
        return np.full(np.shape(ids), 1.0 / n)
    if sampler == 1:
        return np.log((ids + 2.0) / (ids + 1.0)) / np.log(n)
    return np.asarray(ins["CustomDistProbs"], dtype=np.float64).reshape(-1)[ids]


def _nce_negatives(ins, attrs, ctx, rows):
    """[rows, num_neg_samples] class ids drawn as Fluid's samplers draw them (over num_total_classes)."""
    n, k, rng = attrs["num_total_classes"], attrs["num_neg_samples"], ctx.rng
    if attrs["custom_neg_classes"]:
        return np.tile(np.asarray(attrs["custom_neg_classes"], dtype=np.int64), (rows, 1))
    if attrs["sampler"] == 0:
        return rng.integers(0, n, size=(rows, k), dtype=np.int64)
    if attrs["sampler"] == 1:  # inverse transform of the log-uniform density, then mod (n - 1), as Fluid's
        value = np.exp(rng.random((rows, k)) * np.log(n)).astype(np.int64) - 1
        return value % (n - 1)
    index = rng.integers(0, n, size=(rows, k), dtype=np.int64)  # the alias method
    alias = np.asarray(ins["CustomDistAlias"]).reshape(-1)[index]
    take_alias = (rng.random((rows, k)) > np.asarray(ins["CustomDistAliasProbs"]).reshape(-1)[index]) & (alias >= 0)
    return np.where(take_alias, alias, index).astype(np.int64)


def nce_out(ins, outs, attrs, meta, ctx):
    x, label, w = ins["Input"], ins["Label"].astype(np.int64), ins["Weight"]
    num_true = label.shape[1]
    labels = np.concatenate([label, _nce_negatives(ins, attrs, ctx, len(x))], axis=1)
    if labels.size and (labels.min() < 0 or labels.max() >= w.shape[0]):
        raise PeError(f"nce: a class id in Label or the samples lies outside [0, {w.shape[0]}) (num_total_classes)")
    logits = np.einsum("nd,nkd->nk", x, w[labels])
    if ins.get("Bias") is not None:
        logits = logits + ins["Bias"].reshape(-1)[labels]
    o = 1.0 / (1.0 + np.exp(-logits))
    # in X's dtype, as Fluid's kernel (op_test's float32 finite differences of test_nce.py depend on it)
    b = (nce_probability(ins, attrs, labels) * attrs["num_neg_samples"]).astype(x.dtype)
    with np.errstate(divide="ignore"):  # np.where computes both sides; a true class may have P = 0
        cost = np.where(np.arange(labels.shape[1]) < num_true, -np.log(o / (o + b)), -np.log(b / (o + b)))
    weight = ins["SampleWeight"].reshape(-1, 1) if ins.get("SampleWeight") is not None else 1.0
    cost = (weight * cost).sum(axis=1, keepdims=True)
    fresh_outputs(
        {"Cost": cost.astype(x.dtype), "SampleLogits": o.astype(x.dtype), "SampleLabels": labels}, ins, outs, meta
    )


def nce_grad_out(ins, outs, attrs, meta):
    x, w, labels, o = ins["Input"], ins["Weight"], ins["SampleLabels"], ins["SampleLogits"]
    num_true = ins["Label"].shape[1]
    b = nce_probability(ins, attrs, labels) * attrs["num_neg_samples"]
    weight = ins["SampleWeight"].reshape(-1, 1) if ins.get("SampleWeight") is not None else 1.0
    g = np.where(np.arange(labels.shape[1]) < num_true, (b / (o + b)) * (o - 1), o * (1 - o) / (o + b))
    g = weight * g * ins["Cost@GRAD"].reshape(-1, 1)
    dw = np.zeros_like(w)
    np.add.at(dw, labels.reshape(-1), (g[:, :, None] * x[:, None, :]).reshape(-1, x.shape[1]))
    results = {"Input@GRAD": np.einsum("nk,nkd->nd", g, w[labels]).astype(x.dtype), "Weight@GRAD": dw}
    if ins.get("Bias") is not None:
        db = np.zeros(ins["Bias"].size, dtype=ins["Bias"].dtype)
        np.add.at(db, labels.reshape(-1), g.reshape(-1))
        results["Bias@GRAD"] = db.reshape(ins["Bias"].shape)
    fresh_outputs(results, ins, outs, meta)


sample_logits_out.takes_context = nce_out.takes_context = True  # (the call's Generator draws the samples)

# the kernels by name that CUDA's host fallbacks run (kernels/cuda/loss_sampled.py's HOST_OPS): the adapters
nce = adapter(rules.nce_meta, nce_out, "nce")
nce_grad = adapter(rules.nce_grad_meta, nce_grad_out, "nce_grad")
sample_logits = adapter(rules.sample_logits_meta, sample_logits_out, "sample_logits")
