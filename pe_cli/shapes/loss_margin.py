"""Meta rules of the combined-margin softmax loss and its class-center sampling (ops/loss_margin.py):
margin_cross_entropy and its gradient (outputs of Logits' dtype, written into the buffers handed by numpy forms) and
class_center_sample (a ``fresh`` variant: how many sampled centers, the labels' and the draws')."""

import numpy as np

from .structured import Meta


def margin_meta(attrs, ins, facts):
    """margin_cross_entropy: Softmax of Logits' shape and dtype, Loss [N, 1] of its dtype."""
    logits = ins["Logits"]
    dtype = np.dtype(logits.dtype)
    return Meta({"Softmax": (tuple(logits.shape), dtype), "Loss": ((logits.shape[0], 1), dtype)}, "numpy")


def margin_grad_meta(attrs, ins, facts):
    """margin_cross_entropy_grad: Logits@GRAD of Logits' shape and dtype."""
    logits = ins["Logits"]
    return Meta({"Logits@GRAD": (tuple(logits.shape), np.dtype(logits.dtype))}, "numpy")


def class_center_sample_meta(attrs, ins, facts):
    """class_center_sample: RemappedLabel of Label's shape and dtype, SampledLocalClassCenter [centers] of its dtype
    (how many, the values')."""
    label = ins["Label"]
    dtype = np.dtype(label.dtype)
    outputs = {"RemappedLabel": (tuple(label.shape), dtype), "SampledLocalClassCenter": ((-1,), dtype)}
    return Meta(outputs, "fresh", fresh=True)
