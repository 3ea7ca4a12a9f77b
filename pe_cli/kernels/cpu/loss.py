import numpy as np


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_with_cross_entropy(ins, attrs):
    logits, label = ins["Logits"], ins["Label"]
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_sum = np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    log_p = shifted - log_sum
    if attrs["soft_label"]:
        loss = -(label * log_p).sum(axis=-1, keepdims=True)
    else:
        ids = label.reshape(label.shape[:-1] + (1,)).astype(np.int64)
        ignore = ids == attrs["ignore_index"]
        loss = -np.take_along_axis(log_p, np.where(ignore, 0, ids), axis=-1)
        loss[ignore] = 0
    return {"Softmax": np.exp(log_p).astype(logits.dtype, copy=False), "Loss": loss.astype(logits.dtype, copy=False)}


def softmax_with_cross_entropy_grad(ins, attrs):
    softmax, label, dloss = ins["Softmax"], ins["Label"], ins["Loss@GRAD"]
    if attrs["soft_label"]:
        grad = softmax - label
    else:
        ids = label.reshape(label.shape[:-1] + (1,)).astype(np.int64)
        grad = softmax.copy()
        ignore = ids == attrs["ignore_index"]
        np.put_along_axis(grad, np.where(ignore, 0, ids), np.take_along_axis(grad, np.where(ignore, 0, ids), -1) - 1, axis=-1)
        grad = np.where(ignore, 0, grad)
    return {"Logits@GRAD": (grad * dloss).astype(softmax.dtype, copy=False)}
