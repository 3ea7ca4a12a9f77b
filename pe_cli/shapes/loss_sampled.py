"""The sampled losses' plans, shared by the kernels of both devices: hsigmoid's path of each label through its
tree (the default complete binary tree, or PathTable / PathCode); and the meta rules of hierarchical_sigmoid, nce,
sample_logits and their gradients (ops/loss_sampled.py), whose out-kernels are numpy forms that make their own arrays
(``fresh`` variants, kernels/structured.fresh_outputs): a width that the code table, the draws or the customized
samples give is -1 (the array's own)."""

import numpy as np

from ..base.errors import PeError
from .structured import Meta


def hsigmoid_paths(label, attrs, table=None, code=None, nodes=None):
    """(node index [N, L] with -1 past each path's end, bit [N, L]) of each row's label."""
    label = np.asarray(label).reshape(-1).astype(np.int64)
    if table is not None:
        table = np.asarray(table).astype(np.int64).reshape(label.size, -1)
        code = np.asarray(code).astype(np.int64).reshape(table.shape)
        ends = np.where((table < 0).any(axis=1), (table < 0).argmax(axis=1), table.shape[1])
        valid = np.arange(table.shape[1])[None, :] < ends[:, None]
        idx, bits = np.where(valid, table, -1), np.where(valid, code, 0)
    else:
        n = attrs["num_classes"]
        if ((label < 0) | (label >= n)).any():
            raise PeError(f"hsigmoid: Label holds {int(label[(label < 0) | (label >= n)][0])}, outside the {n} classes")
        c = label + n
        length = np.array([int(v).bit_length() - 1 for v in c], dtype=np.int64)
        j = np.arange((n - 1).bit_length(), dtype=np.int64)[None, :]
        valid = j < length[:, None]
        idx = np.where(valid, (c[:, None] >> (j + 1)) - 1, -1)
        bits = np.where(valid, (c[:, None] >> j) & 1, 0)
    if nodes is not None and (idx >= nodes).any():
        raise PeError(f"hsigmoid: a path reaches node {int(idx.max())}, but W has {nodes} rows")
    return idx, bits


_INT64 = np.dtype(np.int64)


def _fresh(outputs):
    return Meta(outputs, "fresh", fresh=True)


def _spec(value):
    return tuple(value.shape), np.dtype(value.dtype)


def hsigmoid_meta(attrs, ins, facts):
    """hierarchical_sigmoid: Out [N, 1] and PreOut [N, path length] in X's dtype, W_Out W as it is (a copy)."""
    x = ins["X"]
    dtype = np.dtype(x.dtype)
    return _fresh({"Out": ((x.shape[0], 1), dtype), "PreOut": ((x.shape[0], -1), dtype), "W_Out": _spec(ins["W"])})


def hsigmoid_grad_meta(attrs, ins, facts):
    """hierarchical_sigmoid_grad: X@GRAD of X's shape and dtype, W@GRAD W's, Bias@GRAD [W's rows, 1] in W's dtype."""
    w = ins["W"]
    return _fresh({"X@GRAD": _spec(ins["X"]), "W@GRAD": _spec(w), "Bias@GRAD": ((w.shape[0], 1), np.dtype(w.dtype))})


def sample_logits_meta(attrs, ins, facts):
    """sample_logits: Samples (int64) [N, samples], Probabilities and SampledLogits in Logits' dtype of its
    shape, SampledLabels (int64) [N, Labels' width], LogitsDim and LabelsDim (int64) [1, 2]."""
    logits, labels = ins["Logits"], ins["Labels"]
    n, dtype = logits.shape[0], np.dtype(logits.dtype)
    outputs = {"Samples": ((n, -1), _INT64), "Probabilities": ((n, -1), dtype), "SampledLogits": ((n, -1), dtype)}
    outputs["SampledLabels"] = ((n, labels.shape[1]), _INT64)
    outputs.update({"LogitsDim": ((1, 2), _INT64), "LabelsDim": ((1, 2), _INT64)})
    return _fresh(outputs)


def sample_logits_grad_meta(attrs, ins, facts):
    """sample_logits_grad: Logits@GRAD of Logits' shape and dtype."""
    return _fresh({"Logits@GRAD": _spec(ins["Logits"])})


def nce_meta(attrs, ins, facts):
    """nce: Cost [N, 1] and SampleLogits [N, true + negative classes] in Input's dtype, SampleLabels (int64) of
    SampleLogits' shape."""
    x = ins["Input"]
    n, dtype = x.shape[0], np.dtype(x.dtype)
    return _fresh({"Cost": ((n, 1), dtype), "SampleLogits": ((n, -1), dtype), "SampleLabels": ((n, -1), _INT64)})


def nce_grad_meta(attrs, ins, facts):
    """nce_grad: Input@GRAD of Input's shape and dtype, Weight@GRAD Weight's, Bias@GRAD Bias's where given."""
    outputs = {"Input@GRAD": _spec(ins["Input"]), "Weight@GRAD": _spec(ins["Weight"])}
    if ins.get("Bias") is not None:
        outputs["Bias@GRAD"] = _spec(ins["Bias"])
    return _fresh(outputs)
