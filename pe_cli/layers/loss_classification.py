"""Loss layers."""
__all__ = ["softmax_with_cross_entropy"]
from ..errors import ShapeError
from ..framework.source import current_source
from ..ops.registry import fmt_shape
from .helper import LayerHelper
from .tensor import reduce_mean


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    helper = LayerHelper("softmax_with_cross_entropy", logits=logits)
    softmax = helper.create_variable_for_type_inference(logits.dtype)
    loss = helper.create_variable_for_type_inference(logits.dtype)
    helper.append_op("softmax_with_cross_entropy", {"Logits": [logits], "Label": [label]},
                     {"Softmax": [softmax], "Loss": [loss]},
                     {"soft_label": soft_label, "ignore_index": ignore_index,
                      "numeric_stable_mode": numeric_stable_mode, "axis": axis})
    return (loss, softmax) if return_softmax else loss


__all__ += ["cross_entropy", "sigmoid_cross_entropy_with_logits", "square_error_cost", "huber_loss"]


def cross_entropy(input, label, soft_label=False, ignore_index=-100):
    """Y = -log(input[label]) per row; ``input`` holds probabilities (e.g. a softmax output). Hard
    labels build the op ``cross_entropy2`` and soft ones ``cross_entropy``, as Fluid 1.x does."""
    helper = LayerHelper("cross_entropy", input=input)
    out = helper.create_variable_for_type_inference(input.dtype)
    if soft_label:
        helper.append_op("cross_entropy", {"X": [input], "Label": [label]}, {"Y": [out]},
                         {"soft_label": True, "ignore_index": ignore_index})
    else:
        helper.append_op("cross_entropy2", {"X": [input], "Label": [label]}, {"Y": [out]},
                         {"ignore_index": ignore_index})
    return out


def sigmoid_cross_entropy_with_logits(x, label, ignore_index=-100, name=None, normalize=False):
    helper = LayerHelper("sigmoid_cross_entropy_with_logits", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("sigmoid_cross_entropy_with_logits", {"X": [x], "Label": [label]}, {"Out": [out]},
                     {"ignore_index": ignore_index, "normalize": normalize})
    return out


def square_error_cost(input, label):
    """(input - label)^2 elementwise (ops elementwise_sub and square, as Fluid's); both must have one shape."""
    helper = LayerHelper("square_error_cost", input=input)
    a, b = input.shape, label.shape
    if a is None or b is None or len(a) != len(b) or any(p != q and p >= 0 and q >= 0 for p, q in zip(a, b)):
        raise ShapeError(f"square_error_cost layer '{helper.name}' built at {current_source()}: label "
                         f"'{label.name}' {fmt_shape(b)} must have the shape of input '{input.name}' {fmt_shape(a)}")
    minus = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("elementwise_sub", {"X": [input], "Y": [label]}, {"Out": [minus]}, {"axis": -1})
    square = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("square", {"X": [minus]}, {"Out": [square]})
    return square


def huber_loss(input, label, delta):
    helper = LayerHelper("huber_loss", input=input)
    residual = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("huber_loss", {"X": [input], "Y": [label]}, {"Out": [out], "Residual": [residual]},
                     {"delta": float(delta)})
    return out


__all__ += ["mse_loss"]


def mse_loss(input, label):
    """The mean of (input - label)^2 over every element: ``reduce_mean`` of ``square_error_cost``, as
    Fluid 1.8 builds it (shape [1])."""
    return reduce_mean(square_error_cost(input, label))
