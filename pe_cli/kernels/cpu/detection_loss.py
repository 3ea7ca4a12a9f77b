"""Out-kernels of ops/detection_loss.py (sigmoid_focal_loss and its gradient; meta rules:
shapes/detection_targets.py) on the CPU: numpy over whole arrays, the last difference written into the buffer
handed."""

import numpy as np

FLT_MIN = np.float32(np.finfo(np.float32).tiny)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _focal_terms(ins, attrs):
    x = ins["X"]
    label = np.asarray(ins["Label"]).reshape(-1, 1).astype(np.int64)
    fg = max(int(np.asarray(ins["FgNum"]).reshape(-1)[0]), 1)
    classes = np.arange(1, x.shape[1] + 1)[None, :]
    pos = (label == classes).astype(x.dtype)
    neg = ((label != -1) & (label != classes)).astype(x.dtype)
    p = _sigmoid(x)
    log_1mp = -x * (x >= 0) - np.log1p(np.exp(x - 2 * x * (x >= 0)))  # log(1 - p), stable
    return x, p, log_1mp, pos * attrs["alpha"] / fg, neg * (1 - attrs["alpha"]) / fg


def sigmoid_focal_loss_out(ins, outs, attrs, meta):
    x, p, log_1mp, pos, neg = _focal_terms(ins, attrs)
    gamma = attrs["gamma"]
    term_pos = np.power(1 - p, gamma) * np.log(np.maximum(p, FLT_MIN))
    term_neg = np.power(p, gamma) * log_1mp
    np.copyto(outs["Out"], -pos * term_pos - neg * term_neg, casting="unsafe")


def sigmoid_focal_loss_grad_out(ins, outs, attrs, meta):
    x, p, log_1mp, pos, neg = _focal_terms(ins, attrs)
    gamma = attrs["gamma"]
    term_pos = np.power(1 - p, gamma) * (1 - p - p * gamma * np.log(np.maximum(p, FLT_MIN)))
    term_neg = np.power(p, gamma) * (log_1mp * (1 - p) * gamma - p)
    np.multiply(-pos * term_pos - neg * term_neg, ins["Out@GRAD"], out=outs["X@GRAD"], casting="unsafe")
