"""Regression loss layers of Fluid 1.8's ``fluid.layers``, with its signatures: square_error_cost,
mse_loss, huber_loss, smooth_l1, center_loss."""

__all__ = ["square_error_cost", "huber_loss", "mse_loss", "smooth_l1", "center_loss"]
import warnings

from ..framework import unique_name
from ..framework.source import current_source
from ..framework.variable import Variable
from ..training.initializer import ConstantInitializer
from ..ops.registry import fmt_shape
from .checks import FLOATS, check_variable_and_dtype, fluid_checks
from .helper import LayerHelper
from .loss_classification import _outputs
from .reduction import reduce_mean


def square_error_cost(input, label):
    """(input - label)^2 elementwise (ops elementwise_sub and square, as Fluid's). Shapes that differ
    broadcast as Fluid's elementwise_sub does (an input [N, 1] and a label [N] give [N, N]), with a
    warning naming them."""
    check_variable_and_dtype(input, "input", FLOATS, "square_error_cost")
    check_variable_and_dtype(label, "label", FLOATS, "square_error_cost")
    helper = LayerHelper("square_error_cost", input=input)
    a, b = input.shape, label.shape
    known = a and b  # a create_tensor's shape is not known until it is fed
    if known and (len(a) != len(b) or any(p != q and p >= 0 and q >= 0 for p, q in zip(a, b))):
        warnings.warn(
            f"square_error_cost layer '{helper.name}' built at {current_source()}: label '{label.name}' "
            f"{fmt_shape(b)} and input '{input.name}' {fmt_shape(a)} differ in shape, so they broadcast "
            f"(as in Fluid); give them one shape for an elementwise loss",
            stacklevel=2,
        )
    minus = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("elementwise_sub", {"X": [input], "Y": [label]}, {"Out": [minus]}, {"axis": -1})
    square = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("square", {"X": [minus]}, {"Out": [square]})
    return square


@fluid_checks("huber_loss", input=("float32", "float64"), label=("float32", "float64"))
def huber_loss(input, label, delta):
    helper = LayerHelper("huber_loss", input=input)
    residual = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(
        "huber_loss", {"X": [input], "Y": [label]}, {"Out": [out], "Residual": [residual]}, {"delta": float(delta)}
    )
    return out


def mse_loss(input, label):
    """The mean of (input - label)^2 over every element: ``reduce_mean`` of ``square_error_cost``, as
    Fluid 1.8 builds it (shape [1])."""
    return reduce_mean(square_error_cost(input, label))


def smooth_l1(x, y, inside_weight=None, outside_weight=None, sigma=None):
    """Per sample (first dim), the sum of the smooth L1 loss of (x - y) * inside_weight, weighted by
    outside_weight: shape [N, 1]. sigma (default 1) sets where it turns from quadratic to linear."""
    check_variable_and_dtype(x, "X", FLOATS[1:], "smooth_l1_loss")
    check_variable_and_dtype(y, "Y", FLOATS[1:], "smooth_l1_loss")
    helper = LayerHelper("smooth_l1_loss", x=x)
    diff, loss = _outputs(helper, x.dtype, 2)
    inputs = {"X": [x], "Y": [y]}
    if inside_weight is not None:
        inputs["InsideWeight"] = [inside_weight]
    if outside_weight is not None:
        inputs["OutsideWeight"] = [outside_weight]
    helper.append_op(
        "smooth_l1_loss", inputs, {"Diff": [diff], "Out": [loss]}, {"sigma": 1.0 if sigma is None else float(sigma)}
    )
    return loss


def center_loss(input, label, num_classes, alpha, param_attr, update_center=True):
    """Half the squared distance of each row of ``input`` [N, D] from its class's center ([N, 1]);
    the centers ([num_classes, D], a parameter made with ``param_attr``) move towards their rows by
    ``alpha`` (a number or a float32 [1] Variable) on each run when ``update_center``; no gradient
    reaches them."""
    check_variable_and_dtype(input, "input", FLOATS[1:], "center_loss")
    check_variable_and_dtype(label, "label", ("int32", "int64"), "center_loss")
    if isinstance(alpha, Variable):
        check_variable_and_dtype(alpha, "alpha", FLOATS[1:], "center_loss")
    helper = LayerHelper("center_loss", input=input)
    dim = (input.shape or (0, 0))[-1]
    centers = helper.create_parameter(param_attr, [num_classes, dim], input.dtype)
    centers.stop_gradient = True
    if isinstance(alpha, Variable):
        rate = alpha
    else:
        block = helper.main_program.global_block()
        name = "centerloss_alpha" if not block.has_var("centerloss_alpha") else unique_name.generate("centerloss_alpha")
        rate = helper.create_global_variable(
            name=name, shape=[1], dtype=input.dtype, persistable=True, stop_gradient=True
        )
        helper.set_variable_initializer(rate, ConstantInitializer(float(alpha)))
        # as Fluid's (its create_variable(initializer=...) puts the initializer in the main program)
        helper.append_op(
            "fill_constant", {}, {"Out": [rate]}, {"shape": [1], "dtype": input.dtype, "value": float(alpha)}
        )
    diff = helper.create_variable_for_type_inference(input.dtype)
    loss = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(
        "center_loss",
        {"X": [input], "Label": [label], "Centers": [centers], "CenterUpdateRate": [rate]},
        {"SampleCenterDiff": [diff], "Loss": [loss], "CentersOut": [centers]},
        {"cluster_num": num_classes, "need_update": bool(update_center)},
    )
    return loss
