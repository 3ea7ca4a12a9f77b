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


def prediction_report(cfg, programs, exe, batcher, preprocessing=None):
    """prediction_metrics of the model's output layer over ``batcher`` (data.eval), run in the
    test program; {} for a model without a label feed or without a layer that needs none. A
    regression's predictions and labels are compared in the target's units (``preprocessing``, the
    run's fitted data.preprocessing, and data.transforms undone: run/inference.py). A model with
    several outputs (run/inference.py's output_heads): {"outputs": {label feed: its report}}."""
    spec = cfg.model
    _, labels = split_feeds(spec)
    if not labels:
        return {}
    try:
        heads = output_heads(spec) or [Head(output_layer(spec), labels[0], task_kind(spec))]
    except PeError:  # every layer needs the label, or heads pe cannot tell apart: nothing to call a prediction
        return {}
    targets = []
    for head in heads:
        var = programs.model.var(head.output)
        targets.append((var[0] if isinstance(var, (tuple, list)) else var).name)
    outputs, truth = [[] for _ in heads], [[] for _ in heads]
    for _, batch in batcher.epoch(0):
        for i, value in enumerate(exe.run(programs.test, feed=batch, fetch_list=targets)):
            outputs[i].append(np.asarray(value))
            truth[i].append(np.asarray(batch[heads[i].label]))
    reports = {
        head.label: _head_report(cfg, preprocessing, head, np.concatenate(o), np.concatenate(t))
        for head, o, t in zip(heads, outputs, truth)
    }
    return reports[heads[0].label] if len(heads) == 1 else {"outputs": reports}


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
