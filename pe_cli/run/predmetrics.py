"""What a model's predictions are worth against the labels of data.eval, written into eval.json by
``pe train`` (its last evaluation) and into eval-step-N.json by ``pe eval``:

- a classifier (its label feed is an integer): top-1 accuracy (top1_accuracy) and the confusion matrix
  (rows: the true class, columns: the predicted one); an integer output of one column is taken as the
  predicted class ids themselves (crf_decoding's tag path, an argmax); with a label (or category)
  preprocessing of the label, ``classes``: the class names, in id order;
- a regression: MAE, RMSE and R² (1 - residual sum of squares / total sum of squares), in the
  target's units (its numeric preprocessing and transforms undone).

The predictions are the output layer's values (run/inference.py: the last layer that needs no
label), read in the same test program as the eval fetches.
"""

import numpy as np

from ..base.errors import PeError
from ..data.unscaling import unscaled
from .build import layer_refs
from .inference import Head, head_unscaling, output_heads, output_layer, split_feeds, task_kind


def prediction_metrics(kind, outputs, labels):
    """``kind``: "classification" (``outputs``: [N, classes] scores, or [N, 1] integer class ids) or
    "regression" (values)."""
    outputs = np.asarray(outputs).reshape(len(outputs), -1)
    if kind == "classification":
        ids = outputs.dtype.kind in "iu" and outputs.shape[1] == 1
        predicted = outputs[:, 0].astype(np.int64) if ids else outputs.argmax(axis=1)
        truth = np.asarray(labels).reshape(len(labels)).astype(np.int64)
        classes = max(int(predicted.max(initial=0)) + 1 if ids else outputs.shape[1], int(truth.max()) + 1)
        confusion = np.zeros((classes, classes), dtype=np.int64)
        np.add.at(confusion, (truth, predicted), 1)
        return {
            "kind": kind,
            "samples": len(truth),
            "top1_accuracy": float(np.mean(predicted == truth)),
            "confusion_matrix": confusion.tolist(),
        }
    predicted = outputs.astype(np.float64)
    truth = np.asarray(labels, dtype=np.float64).reshape(predicted.shape)
    error = predicted - truth
    total = float(np.sum((truth - truth.mean(axis=0)) ** 2))
    return {
        "kind": kind,
        "samples": len(truth),
        "mae": float(np.mean(np.abs(error))),
        "rmse": float(np.sqrt(np.mean(error**2))),
        "r2": 1.0 - float(np.sum(error**2)) / total if total > 0 else None,
    }


def regression_line(prediction):
    """'temp_max: RMSE 2.92  MAE 2.31  R² 0.712 (in temp_max's units)' of a regression's eval.json
    prediction, or '' for another."""
    if (prediction or {}).get("kind") != "regression":
        return ""
    r2 = prediction.get("r2")
    target = prediction.get("target", "the target")
    return (
        f"{target}: RMSE {prediction['rmse']:.4g}  MAE {prediction['mae']:.4g}  R² "
        f"{'n/a' if r2 is None else f'{r2:.3f}'} (in {target}'s units)"
    )


def report_heads(spec):
    """The Heads whose predictions a report compares with their labels: one per label feed of a model
    with several, the output layer of a model with one; [] for a model without a label feed or without
    a layer that needs none (nothing to call a prediction)."""
    _, labels = split_feeds(spec)
    if not labels:
        return []
    try:
        return output_heads(spec) or [Head(output_layer(spec), labels[0], task_kind(spec))]
    except PeError:  # every layer needs the label, or heads pe cannot tell apart
        return []


class Predictions:
    """The heads' values and labels over one pass of data.eval, gathered batch by batch (run/evaluation.py's
    run_eval fetches ``names`` with the eval fetches), and their report (prediction_report's)."""

    def __init__(self, cfg, programs, preprocessing=None):
        self.cfg, self.preprocessing = cfg, preprocessing
        self.heads = report_heads(cfg.model)
        self.names = []
        for head in self.heads:
            var = programs.model.var(head.output)
            self.names.append((var[0] if isinstance(var, (tuple, list)) else var).name)
        self.outputs, self.truth = [[] for _ in self.heads], [[] for _ in self.heads]
        self.units = unit_metric_names(cfg)

    def add(self, batch, values):
        """One batch's fetched head values (in the order of ``names``) and its labels."""
        for i, value in enumerate(values):
            self.outputs[i].append(np.asarray(value))
            self.truth[i].append(np.asarray(batch[self.heads[i].label]))

    def report(self):
        """prediction_metrics of each head's values over the pass; {} for a model without heads. A
        regression's predictions and labels are compared in the target's units (``preprocessing``, the
        run's fitted data.preprocessing, and data.transforms undone: run/inference.py). A model with
        several outputs (run/inference.py's output_heads): {"outputs": {label feed: its report}}."""
        if not self.heads:
            return {}
        reports = {
            head.label: _head_report(self.cfg, self.preprocessing, head, np.concatenate(o), np.concatenate(t))
            for head, o, t in zip(self.heads, self.outputs, self.truth)
        }
        return reports[self.heads[0].label] if len(self.heads) == 1 else {"outputs": reports}

    def metrics(self, report):
        """The report's numbers by the names an evaluation reports them under (unit_metric_names)."""
        reports = report.get("outputs") or ({self.heads[0].label: report} if report else {})
        flat = {}
        for label, one in reports.items():
            for metric, key, _ in UNIT_METRICS[one["kind"]]:
                if f"{label}_{metric}" in self.units:
                    flat[f"{label}_{metric}"] = one.get(key)
        return flat


# The numbers each evaluation reports per output, in its units: (name suffix, report key, better when).
UNIT_METRICS = {
    "regression": (("rmse", "rmse", "min"), ("mae", "mae", "min"), ("r2", "r2", "max")),
    "classification": (("accuracy", "top1_accuracy", "max"),),
}


def unit_metric_names(cfg):
    """{name: "min" or "max"} of the numbers each evaluation reports beside the eval fetches: per output
    (label feed), a regression's ``<label>_rmse``, ``_mae`` (lower is better) and ``_r2``, a
    classifier's ``<label>_accuracy`` (higher is better) unless an eval fetch already is that number
    (``acc``: an accuracy layer, k 1, of the output and its label)."""
    names = {}
    for head in report_heads(cfg.model):
        for metric, _, mode in UNIT_METRICS[head.kind]:
            if metric != "accuracy" or not _accuracy_fetched(cfg, head):
                names[f"{head.label}_{metric}"] = mode
    return names


def _accuracy_fetched(cfg, head):
    for name in cfg.eval_fetches:
        layer_name, _, index = name.partition("[")
        layer = cfg.model.layer(layer_name)
        if layer is None or layer.type != "accuracy" or index not in ("", "0]") or not layer.kwargs:
            continue
        refs = dict(layer_refs(layer))
        if (refs.get("input"), refs.get("label"), layer.kwargs.get("k", 1)) == (head.output, head.label, 1):
            return True
    return False


def _head_report(cfg, preprocessing, head, outputs, truth):
    units = head_unscaling(cfg, preprocessing, head)
    if units:
        outputs, truth = unscaled(units, outputs), unscaled(units, truth.astype(np.float64))
    report = prediction_metrics(head.kind, outputs, truth)
    if report["kind"] == "regression":
        report["target"] = head.label
    names = preprocessing.class_names(head.label) if preprocessing is not None else None
    if report["kind"] == "classification" and names is not None:
        report["classes"] = names  # the confusion matrix's rows and columns, by name
    return {"output": head.output, **report}


def brief(prediction):
    """A report without its confusion matrices and class names: the numbers pe train's summary prints
    (kept with keep_best's best evaluation in every checkpoint)."""
    if "outputs" in (prediction or {}):
        return {"outputs": {name: brief(one) for name, one in prediction["outputs"].items()}}
    return {k: v for k, v in (prediction or {}).items() if k not in ("confusion_matrix", "classes")}


def held_out_lines(prediction):
    """One line per output of a model with several (eval.json's prediction["outputs"]): a
    classifier's accuracy, a regression's regression_line; [] for a model with one."""
    lines = []
    for name, report in ((prediction or {}).get("outputs") or {}).items():
        if report.get("kind") == "classification":
            lines.append(f"{name}: accuracy {100 * report['top1_accuracy']:.2f}%")
        else:
            lines.append(regression_line(report))
    return lines
