"""Metric layers: accuracy, auc and mean_iou (chunk_eval and edit_distance: sequence_metric.py; top-k: indexing.py).
Their outputs carry no gradient."""

__all__ = ["accuracy", "auc", "mean_iou"]
from ..base.errors import PeError
from ..training.initializer import ConstantInitializer
from .checks import FLOATS, check_variable_and_dtype, fluid_checks
from .helper import LayerHelper
from .indexing import topk


def accuracy(input, label, k=1, correct=None, total=None):
    """Fraction of rows whose label is among the k highest scores of ``input`` (float32 [1]);
    ``correct`` and ``total`` (int32 [1]) receive the counts when given."""
    helper = LayerHelper("accuracy", input=input)
    check_variable_and_dtype(input, "input", FLOATS, "accuracy")
    values, indices = topk(input, k=k)
    acc = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    if correct is None:
        correct = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    if total is None:
        total = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(
        "accuracy",
        {"Out": [values], "Indices": [indices], "Label": [label]},
        {"Accuracy": [acc], "Correct": [correct], "Total": [total]},
    )
    return acc


@fluid_checks("auc", input=("float32", "float64"), label=("int32", "int64"))
def auc(input, label, curve="ROC", num_thresholds=2**12 - 1, topk=1, slide_steps=1):
    """Fluid 1.8's auc: the area under the ROC curve of ``input``'s positive-class probabilities
    (its last column) against the int64 ``label``. Returns (auc over every batch so far, auc over
    the last ``slide_steps`` batches, [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg]): the
    persistable int64 counters (zeroed by the startup program) that the two auc ops update."""
    if curve != "ROC":
        raise PeError(f"auc: curve={curve!r}: pe computes the ROC curve's area only (as Fluid 1.8's kernel)")
    helper = LayerHelper("auc", input=input)
    auc_out = helper.create_variable_for_type_inference("float64", stop_gradient=True)
    batch_auc_out = helper.create_variable_for_type_inference("float64", stop_gradient=True)
    buckets = num_thresholds + 1
    batch_shape, global_shape = [(1 + slide_steps) * buckets + 1], [1, buckets]
    stats = [
        helper.create_global_variable(persistable=True, dtype="int64", shape=shape, stop_gradient=True)
        for shape in (batch_shape, batch_shape, global_shape, global_shape)
    ]
    for var in stats:
        helper.set_variable_initializer(var, ConstantInitializer(0.0))
    batch_pos, batch_neg, stat_pos, stat_neg = stats
    for out, pos, neg, steps in ((batch_auc_out, batch_pos, batch_neg, slide_steps), (auc_out, stat_pos, stat_neg, 0)):
        helper.append_op(
            "auc",
            {"Predict": [input], "Label": [label], "StatPos": [pos], "StatNeg": [neg]},
            {"AUC": [out], "StatPosOut": [pos], "StatNegOut": [neg]},
            {"curve": curve, "num_thresholds": num_thresholds, "slide_steps": steps},
        )
    return auc_out, batch_auc_out, stats


def mean_iou(input, label, num_classes):
    """The mean intersection-over-union of int class maps ``input`` and ``label`` over the classes
    seen: (mean_iou float32 [1], out_wrong int32 [num_classes], out_correct int32 [num_classes])."""
    check_variable_and_dtype(input, "Predictions", ("int32", "int64"), "mean_iou")
    check_variable_and_dtype(label, "Labels", ("int32", "int64"), "mean_iou")
    helper = LayerHelper("mean_iou")
    outs = [helper.create_variable_for_type_inference(d, stop_gradient=True) for d in ("float32", "int32", "int32")]
    helper.append_op(
        "mean_iou",
        {"Predictions": [input], "Labels": [label]},
        dict(zip(("OutMeanIou", "OutWrong", "OutCorrect"), ([v] for v in outs))),
        {"num_classes": num_classes},
    )
    return tuple(outs)
