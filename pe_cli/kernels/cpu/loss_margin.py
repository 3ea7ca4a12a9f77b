"""The loss_margin family's CPU kernels, over numpy: margin_cross_entropy as Paddle 2.6.2's CUDA kernels
compute it (the margin on the label's cosine, the scale, a max-shifted softmax), and class_center_sample's
positive classes and random negatives: out-kernels (meta rules: shapes/loss_margin.py), margin_cross_entropy's
writing into the buffers handed, class_center_sample's a ``fresh`` variant told the call's context (its Generator).
The kernels by name CUDA's host fallbacks run (kernels/cuda/loss_margin.py) are their adapters."""

import numpy as np

from ...base.errors import PeError
from ...shapes import loss_margin as rules
from ..structured import adapter, fresh_outputs


def _labels(label, d, op_type):
    label = label.reshape(-1).astype(np.int64)
    if label.size and (label.min() < 0 or label.max() >= d):
        raise PeError(
            f"{op_type}: Label holds {int(label.min() if label.min() < 0 else label.max())}, outside [0, {d})"
        )
    return label


def _bends(attrs):
    return abs(attrs["margin1"] - 1.0) > 1e-8 or abs(attrs["margin2"]) > 1e-8


def margin_cross_entropy_out(ins, outs, attrs, meta):
    logits = ins["Logits"]
    n, d = logits.shape
    label = _labels(ins["Label"], d, "margin_cross_entropy")
    rows = np.arange(n)
    z = logits.astype(np.float64)
    with np.errstate(invalid="ignore"):
        theta = np.arccos(z[rows, label])
        z[rows, label] = np.cos(attrs["margin1"] * theta + attrs["margin2"]) - attrs["margin3"]
    z *= attrs["scale"]
    z -= z.max(axis=1, keepdims=True)
    log_total = np.log(np.exp(z).sum(axis=1, keepdims=True))
    loss = log_total[:, 0] - z[rows, label]
    np.copyto(outs["Softmax"], np.exp(z - log_total), casting="unsafe")
    np.copyto(outs["Loss"], loss.reshape(n, 1), casting="unsafe")


def margin_cross_entropy_grad_out(ins, outs, attrs, meta):
    logits, softmax, dloss = ins["Logits"], ins["Softmax"], ins["Loss@GRAD"]
    n, d = logits.shape
    label, rows = _labels(ins["Label"], d, "margin_cross_entropy_grad"), np.arange(n)
    grad = softmax.astype(np.float64) * dloss.reshape(n, 1)
    grad[rows, label] -= dloss.reshape(-1)
    if _bends(attrs):
        x = logits[rows, label].astype(np.float64)
        m1, m2 = attrs["margin1"], attrs["margin2"]
        with np.errstate(invalid="ignore", divide="ignore"):
            grad[rows, label] *= m1 * np.sin(m1 * np.arccos(x) + m2) / np.sqrt(1.0 - x * x)
    np.multiply(grad, attrs["scale"], out=outs["Logits@GRAD"], casting="unsafe")


def class_center_sample_out(ins, outs, attrs, meta, ctx):
    label = ins["Label"]
    flat = _labels(label, attrs["num_classes"], "class_center_sample")
    positive, remapped = np.unique(flat, return_inverse=True)
    extra = attrs["num_samples"] - positive.size
    centers = positive
    if extra > 0:
        rng = np.random.default_rng(attrs["seed"]) if attrs["fix_seed"] else ctx.rng
        negative = np.setdiff1d(np.arange(attrs["num_classes"]), positive)
        centers = np.concatenate([positive, rng.permutation(negative)[:extra]])
    results = {
        "RemappedLabel": remapped.reshape(label.shape).astype(label.dtype),
        "SampledLocalClassCenter": centers.astype(label.dtype),
    }
    fresh_outputs(results, ins, outs, meta)


class_center_sample_out.takes_context = True  # (the call's Generator draws the negatives)

margin_cross_entropy = adapter(rules.margin_meta, margin_cross_entropy_out, "margin_cross_entropy")
margin_cross_entropy_grad = adapter(rules.margin_grad_meta, margin_cross_entropy_grad_out, "margin_cross_entropy_grad")
class_center_sample = adapter(rules.class_center_sample_meta, class_center_sample_out, "class_center_sample")
