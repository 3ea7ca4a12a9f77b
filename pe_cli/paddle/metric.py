"""``paddle.metric`` (Paddle 2.x): ``Metric`` and ``Accuracy``, ``Precision``, ``Recall``, ``Auc``,
accumulated in numpy from fetched values as Paddle 2.6's, and ``accuracy`` (Fluid's accuracy
layer). In a static graph ``Accuracy.compute(pred, label)`` on Variables builds the ops whose
fetched result ``update`` takes; on arrays it computes in numpy."""

import abc

import numpy as np

from ..framework.variable import Variable
from ..layers import accuracy as _accuracy_layer
from . import tensor_create, tensor_manip, tensor_math

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]


def _numpy(value):
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


class Metric(abc.ABC):
    """The base: ``reset``, ``update``, ``accumulate``, ``name``; ``compute`` (optional) turns a
    model's outputs into what ``update`` takes."""

    @abc.abstractmethod
    def reset(self):
        """Clears the accumulated state."""

    @abc.abstractmethod
    def update(self, *args):
        """Adds one batch."""

    @abc.abstractmethod
    def accumulate(self):
        """The metric over every batch since the last reset."""

    @abc.abstractmethod
    def name(self):
        """The metric's name(s)."""

    def compute(self, *args):
        return args


class Accuracy(Metric):
    """Top-k accuracy for each k of ``topk``."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        self.topk, self.maxk = topk, max(topk)
        self._init_name(name)
        self.reset()

    def compute(self, pred, label, *args):
        """[N, maxk] float32: 1 where the i-th best class of the sample is its label."""
        if isinstance(pred, Variable):
            return self._compute_ops(pred, label)
        pred, label = _numpy(pred), _numpy(label)
        order = np.argsort(-pred, axis=-1, kind="stable")[..., : self.maxk]
        if label.ndim == 1 or (label.ndim == 2 and label.shape[-1] == 1):
            label = label.reshape(-1, 1)
        elif label.shape[-1] != 1:
            label = np.argmax(label, axis=-1)[..., None]
        return (order == label).astype("float32")

    def _compute_ops(self, pred, label):
        order = tensor_create.argsort(pred, axis=-1, descending=True)
        order = tensor_manip.slice(order, axes=[len(pred.shape) - 1], starts=[0], ends=[self.maxk])
        if len(label.shape) == 1 or (len(label.shape) == 2 and label.shape[-1] == 1):
            label = tensor_manip.reshape(label, (-1, 1))
        else:
            label = tensor_create.argmax(label, axis=-1, keepdim=True)
        return tensor_manip.cast(tensor_math.equal(order, tensor_manip.cast(label, order.dtype)), "float32")

    def update(self, correct, *args):
        correct = _numpy(correct)
        num_samples = int(np.prod(np.array(correct.shape[:-1])))
        accs = []
        for i, k in enumerate(self.topk):
            num_corrects = correct[..., :k].sum()
            accs.append(float(num_corrects) / num_samples)
            self.total[i] += num_corrects
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        self.total, self.count = [0.0] * len(self.topk), [0] * len(self.topk)

    def accumulate(self):
        res = [float(t) / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def _init_name(self, name):
        name = name or "acc"
        self._name = [f"{name}_top{k}" for k in self.topk] if self.maxk != 1 else [name]

    def name(self):
        return self._name


class Precision(Metric):
    """tp / (tp + fp) of binary predictions (probabilities rounded at 0.5)."""

    def __init__(self, name="precision", *args, **kwargs):
        self.tp, self.fp, self._name = 0, 0, name

    def update(self, preds, labels):
        preds = np.floor(_numpy(preds).reshape(-1) + 0.5).astype("int32")
        labels = _numpy(labels).reshape(-1)
        self.tp += int(((preds == 1) & (preds == labels)).sum())
        self.fp += int(((preds == 1) & (preds != labels)).sum())

    def reset(self):
        self.tp = self.fp = 0

    def accumulate(self):
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else 0.0

    def name(self):
        return self._name


class Recall(Metric):
    """tp / (tp + fn) of binary predictions (probabilities rounded at 0.5)."""

    def __init__(self, name="recall", *args, **kwargs):
        self.tp, self.fn, self._name = 0, 0, name

    def update(self, preds, labels):
        preds = np.rint(_numpy(preds).reshape(-1)).astype("int32")
        labels = _numpy(labels).reshape(-1)
        self.tp += int(((preds == 1) & (labels == 1)).sum())
        self.fn += int(((preds != 1) & (labels == 1)).sum())

    def reset(self):
        self.tp = self.fn = 0

    def accumulate(self):
        recall = self.tp + self.fn
        return float(self.tp) / recall if recall != 0 else 0.0

    def name(self):
        return self._name


class Auc(Metric):
    """Area under the ROC curve from histograms of ``num_thresholds`` + 1 bins of the positive
    class's probability (``preds[:, 1]``)."""

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        self._curve, self._num_thresholds, self._name = curve, num_thresholds, name
        self.reset()

    def update(self, preds, labels):
        preds, labels = _numpy(preds), _numpy(labels).reshape(-1)
        bins = (preds[:, 1] * self._num_thresholds).astype("int64")
        if (bins > self._num_thresholds).any() or (bins < 0).any():
            raise AssertionError("Auc: every prediction must be a probability in [0, 1]")
        np.add.at(self._stat_pos, bins[labels != 0], 1)
        np.add.at(self._stat_neg, bins[labels == 0], 1)

    def reset(self):
        self._stat_pos = np.zeros(self._num_thresholds + 1, dtype="int64")
        self._stat_neg = np.zeros(self._num_thresholds + 1, dtype="int64")

    def accumulate(self):
        tot_pos = tot_neg = 0.0
        auc = 0.0
        for idx in range(self._num_thresholds, -1, -1):
            prev_pos, prev_neg = tot_pos, tot_neg
            tot_pos += self._stat_pos[idx]
            tot_neg += self._stat_neg[idx]
            auc += abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0
        return auc / tot_pos / tot_neg if tot_pos > 0.0 and tot_neg > 0.0 else 0.0

    def name(self):
        return self._name


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Top-k accuracy of a batch, as ops (Fluid's accuracy layer)."""
    return _accuracy_layer(input, label, k, correct, total)
