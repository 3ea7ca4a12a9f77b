"""Metric layers: top-k, argmax/argmin and accuracy. Their outputs carry no gradient."""
__all__ = ["accuracy", "argmax", "argmin", "topk"]
from .helper import LayerHelper


def topk(input, k, name=None):
    """(values, int64 indices) of the k largest entries along the last dim."""
    helper = LayerHelper("top_k", input=input, name=name)
    values = helper.create_variable_for_type_inference(input.dtype)
    indices = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("top_k", {"X": [input]}, {"Out": [values], "Indices": [indices]}, {"k": k})
    values.stop_gradient = True
    return values, indices


def _arg(op_type, x, axis):
    helper = LayerHelper(op_type, x=x)
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op(op_type, {"X": [x]}, {"Out": [out]}, {"axis": axis})
    return out


def argmax(x, axis=0):
    """int64 index of the largest value along ``axis`` (which is removed)."""
    return _arg("arg_max", x, axis)


def argmin(x, axis=0):
    """int64 index of the smallest value along ``axis`` (which is removed)."""
    return _arg("arg_min", x, axis)


def accuracy(input, label, k=1, correct=None, total=None):
    """Fraction of rows whose label is among the k highest scores of ``input`` (float32 [1]);
    ``correct`` and ``total`` (int32 [1]) receive the counts when given."""
    helper = LayerHelper("accuracy", input=input)
    values, indices = topk(input, k=k)
    acc = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    if correct is None:
        correct = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    if total is None:
        total = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op("accuracy", {"Out": [values], "Indices": [indices], "Label": [label]},
                     {"Accuracy": [acc], "Correct": [correct], "Total": [total]})
    return acc
