"""``paddle.fluid.metrics``: Fluid 1.8's Python metric accumulators, fed with fetched numpy values
(the in-graph ``fluid.layers.accuracy``, ``chunk_eval`` and friends compute per-batch values).
DetectionMAP builds the ``detection_map`` op into the program: its mAP per batch and accumulated."""

import numbers

import numpy as np

from .. import layers
from ..framework import Program, program_guard, unique_name
from ..layers.detection_metric import detection_map

__all__ = [
    "MetricBase",
    "CompositeMetric",
    "Precision",
    "Recall",
    "Accuracy",
    "ChunkEvaluator",
    "EditDistance",
    "DetectionMAP",
    "Auc",
]


def _numpy(owner, what, value):
    if not isinstance(value, (np.ndarray, np.generic)):
        raise ValueError(f"{owner}: {what} must be a numpy array, got {type(value).__name__}")
    return value


class MetricBase:
    """A metric accumulated over batches. Its state is every attribute not starting with '_';
    ``reset()`` sets ints and floats to 0 and arrays to zeros, as Fluid's does."""

    def __init__(self, name):
        self._name = str(name) if name is not None else type(self).__name__

    def __str__(self):
        return self._name

    def _states(self):
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def reset(self):
        for attr, value in self._states().items():
            if isinstance(value, (np.ndarray, np.generic)):
                setattr(self, attr, np.zeros_like(value))
            elif isinstance(value, bool) or not isinstance(value, numbers.Number):
                setattr(self, attr, None)
            else:
                setattr(self, attr, type(value)(0))

    def get_config(self):
        return {"name": self._name, "states": dict(self._states())}

    def update(self, preds, labels):
        raise NotImplementedError(f"{type(self).__name__} must implement update()")

    def eval(self):
        raise NotImplementedError(f"{type(self).__name__} must implement eval()")


class CompositeMetric(MetricBase):
    """Several metrics updated with the same (preds, labels); ``eval()`` lists their results."""

    def __init__(self, name=None):
        super().__init__(name)
        self._metrics = []

    def add_metric(self, metric):
        if not isinstance(metric, MetricBase):
            raise ValueError(f"CompositeMetric.add_metric: expected a MetricBase, got {type(metric).__name__}")
        self._metrics.append(metric)

    def update(self, preds, labels):
        for m in self._metrics:
            m.update(preds, labels)

    def eval(self):
        return [m.eval() for m in self._metrics]


class Precision(MetricBase):
    """Binary precision tp / (tp + fp); predictions are rounded to 0/1."""

    def __init__(self, name=None):
        super().__init__(name)
        self.tp, self.fp = 0, 0

    def update(self, preds, labels):
        preds = np.rint(_numpy("Precision", "preds", preds)).astype("int32").reshape(-1)
        labels = _numpy("Precision", "labels", labels).reshape(-1)
        hit = preds == 1
        self.tp += int(np.sum(hit & (labels == 1)))
        self.fp += int(np.sum(hit & (labels != 1)))

    def eval(self):
        predicted = self.tp + self.fp
        return float(self.tp) / predicted if predicted != 0 else 0.0


class Recall(MetricBase):
    """Binary recall tp / (tp + fn); predictions are rounded to 0/1."""

    def __init__(self, name=None):
        super().__init__(name)
        self.tp, self.fn = 0, 0

    def update(self, preds, labels):
        preds = np.rint(_numpy("Recall", "preds", preds)).astype("int32").reshape(-1)
        labels = _numpy("Recall", "labels", labels).reshape(-1)
        positive = labels == 1
        self.tp += int(np.sum(positive & (preds == 1)))
        self.fn += int(np.sum(positive & (preds != 1)))

    def eval(self):
        relevant = self.tp + self.fn
        return float(self.tp) / relevant if relevant != 0 else 0.0


class Accuracy(MetricBase):
    """The weighted mean of per-batch accuracies: update(value, weight) with weight the batch size."""

    def __init__(self, name=None):
        super().__init__(name)
        self.value, self.weight = 0.0, 0.0

    def update(self, value, weight):
        if not isinstance(value, (numbers.Number, np.ndarray, np.generic)):
            raise ValueError(f"Accuracy.update: value must be a number or a numpy array, got {type(value).__name__}")
        if not isinstance(weight, (numbers.Number, np.generic)):
            raise ValueError(f"Accuracy.update: weight must be a number, got {type(weight).__name__}")
        self.value += float(np.asarray(value).reshape(-1)[0]) * float(weight)
        self.weight += float(weight)

    def eval(self):
        if self.weight == 0:
            raise ValueError(
                "Accuracy.eval: no data yet; update() it with the fetched layers.accuracy value and the batch size"
            )
        return self.value / self.weight


class EditDistance(MetricBase):
    """From fetched edit distances and the sequence count: (mean distance, share of sequences with a
    nonzero distance)."""

    def __init__(self, name=None):
        super().__init__(name)
        self.total_distance, self.seq_num, self.instance_error = 0.0, 0, 0

    def update(self, distances, seq_num):
        distances = _numpy("EditDistance", "distances", distances)
        if isinstance(seq_num, bool) or not isinstance(seq_num, (numbers.Integral, np.integer)):
            raise ValueError(f"EditDistance.update: seq_num must be an integer, got {seq_num!r}")
        self.seq_num += int(seq_num)
        self.instance_error += int(seq_num) - int(np.sum(distances == 0))
        self.total_distance += float(np.sum(distances))

    def eval(self):
        if self.seq_num == 0:
            raise ValueError("EditDistance.eval: no data yet; update() it with the fetched edit distances")
        return self.total_distance / self.seq_num, self.instance_error / float(self.seq_num)


class Auc(MetricBase):
    """Area under the ROC curve from bucketed scores, as Fluid's: ``preds`` is [N, 2] (column 1 the
    positive score in [0, 1]), each score falls in bucket int(score * num_thresholds). The bucket counts
    ``_stat_pos`` / ``_stat_neg`` are Python lists of floats, as Fluid's (its op test extends them)."""

    def __init__(self, name=None, curve="ROC", num_thresholds=4095):
        super().__init__(name)
        if curve != "ROC":
            raise ValueError(f"Auc: only curve='ROC' is supported, got {curve!r}")
        self._curve, self._num_thresholds = curve, int(num_thresholds)
        self._stat_pos = [0] * (self._num_thresholds + 1)
        self._stat_neg = [0] * (self._num_thresholds + 1)

    def update(self, preds, labels):
        preds = _numpy("Auc", "preds", preds)
        labels = _numpy("Auc", "labels", labels).reshape(-1)
        if preds.ndim != 2 or preds.shape[1] < 2 or preds.shape[0] != labels.shape[0]:
            raise ValueError(
                f"Auc.update: preds must be [N, 2] for N={labels.shape[0]} labels, got shape {list(preds.shape)}"
            )
        bins = (preds[:, 1] * self._num_thresholds).astype(np.int64)
        if bins.min(initial=0) < 0 or bins.max(initial=0) > self._num_thresholds:
            raise ValueError("Auc.update: positive scores must lie in [0, 1]")
        size = self._num_thresholds + 1
        self._stat_pos = (
            np.asarray(self._stat_pos, np.float64) + np.bincount(bins[labels != 0], minlength=size)
        ).tolist()
        self._stat_neg = (
            np.asarray(self._stat_neg, np.float64) + np.bincount(bins[labels == 0], minlength=size)
        ).tolist()

    def eval(self):
        pos = np.cumsum(np.asarray(self._stat_pos, np.float64)[::-1])
        neg = np.cumsum(np.asarray(self._stat_neg, np.float64)[::-1])
        pos_prev, neg_prev = np.concatenate([[0.0], pos[:-1]]), np.concatenate([[0.0], neg[:-1]])
        area = float(np.sum(np.abs(neg - neg_prev) * (pos + pos_prev) / 2.0))
        return area / pos[-1] / neg[-1] if pos[-1] > 0 and neg[-1] > 0 else 0.0


class ChunkEvaluator(MetricBase):
    """Chunk precision, recall and F1 over batches, from the counts ``layers.chunk_eval`` fetches:
    update(num_infer_chunks, num_label_chunks, num_correct_chunks); eval() -> (precision, recall, f1)."""

    def __init__(self, name=None):
        super().__init__(name)
        self.num_infer_chunks, self.num_label_chunks, self.num_correct_chunks = 0, 0, 0

    def update(self, num_infer_chunks, num_label_chunks, num_correct_chunks):
        counts = []
        for what, v in (
            ("num_infer_chunks", num_infer_chunks),
            ("num_label_chunks", num_label_chunks),
            ("num_correct_chunks", num_correct_chunks),
        ):
            if isinstance(v, bool) or not isinstance(v, (numbers.Integral, np.ndarray, np.generic)):
                raise ValueError(
                    f"ChunkEvaluator.update: {what} must be an int or a fetched numpy value, got {type(v).__name__}"
                )
            counts.append(int(np.asarray(v).reshape(-1)[0]))
        self.num_infer_chunks += counts[0]
        self.num_label_chunks += counts[1]
        self.num_correct_chunks += counts[2]

    def eval(self):
        correct = float(self.num_correct_chunks)
        precision = correct / self.num_infer_chunks if self.num_infer_chunks else 0.0
        recall = correct / self.num_label_chunks if self.num_label_chunks else 0.0
        f1 = 2 * precision * recall / (precision + recall) if self.num_correct_chunks else 0.0
        return precision, recall, f1


class DetectionMAP:
    """Fluid's DetectionMAP: built into the program, it gives ``get_map_var()`` -> (this batch's mAP,
    the mAP accumulated since ``reset(executor)``), both float32 [1] variables to fetch."""

    def __init__(
        self,
        input,
        gt_label,
        gt_box,
        gt_difficult=None,
        class_num=None,
        background_label=0,
        overlap_threshold=0.5,
        evaluate_difficult=True,
        ap_version="integral",
    ):
        gt_label = layers.cast(gt_label, gt_box.dtype)
        parts = [gt_label] + ([layers.cast(gt_difficult, gt_box.dtype)] if gt_difficult is not None else []) + [gt_box]
        label = layers.concat(parts, axis=1)
        args = dict(
            class_num=class_num,
            background_label=background_label,
            overlap_threshold=overlap_threshold,
            evaluate_difficult=evaluate_difficult,
            ap_version=ap_version,
        )
        self.cur_map = detection_map(input, label, **args)
        states = [
            self._state("accum_pos_count", "int32", [class_num, 1]),
            self._state("accum_true_pos", "float32", [1, 2]),
            self._state("accum_false_pos", "float32", [1, 2]),
        ]
        self.has_state = self._state("has_state", "int32", [1])
        self.accum_map = detection_map(
            input, label, has_state=self.has_state, input_states=states, out_states=states, **args
        )
        layers.fill_constant(shape=[1], value=1, dtype="int32", out=self.has_state)

    @staticmethod
    def _state(suffix, dtype, shape):
        var = layers.create_global_var(
            shape, 0, dtype, persistable=True, name=unique_name.generate(f"map_eval_{suffix}")
        )
        var.stop_gradient = True
        return var

    def get_map_var(self):
        return self.cur_map, self.accum_map

    def reset(self, executor, reset_program=None):
        """Starts the accumulation afresh: the next batch's accumulated mAP is its own."""
        reset_program = reset_program if reset_program is not None else Program()
        with program_guard(reset_program):
            var = reset_program.global_block().create_var(
                name=self.has_state.name, shape=[1], dtype="int32", persistable=True
            )
            layers.fill_constant(shape=[1], value=0, dtype="int32", out=var)
        executor.run(reset_program)
