"""``paddle.static.amp.amp_nn``: the loss-scaling ops' layers, check_finite_and_unscale and update_loss_scaling
(the registry's ops of those names, pe_cli/ops/adamw.py), with Paddle 2.6's argument checks. Each writes its
results over its inputs, as Paddle's: ``x`` is Out, ``prev_loss_scaling`` LossScaling."""

from ....framework.variable import Variable
from ....layers.checks import check_type, check_variable_and_dtype
from ....layers.helper import LayerHelper

__all__ = ["check_finite_and_unscale", "update_loss_scaling"]

_X_DTYPES = ("float16", "float32", "float64")


def check_finite_and_unscale(x, scale, name=None, float_status=None):
    """(x, found_inf): each tensor of ``x`` divided by ``scale`` in place where every value of them is finite;
    found_inf a bool [1] that says whether one was not (``float_status``: Paddle's NPU status, unused)."""
    fn = "check_finite_and_unscale"
    check_type(x, "x", (tuple, list), fn)
    for e in x:
        check_variable_and_dtype(e, "x", _X_DTYPES, fn)
    helper = LayerHelper(fn, name=name)
    found_inf = helper.create_variable_for_type_inference("bool")
    helper.append_op(fn, {"X": list(x), "Scale": [scale]}, {"Out": list(x), "FoundInfinite": [found_inf]}, {})
    return x, found_inf


def update_loss_scaling(
    x,
    found_inf,
    prev_loss_scaling,
    num_good_steps,
    num_bad_steps,
    incr_every_n_steps,
    decr_every_n_nan_or_inf,
    incr_ratio,
    decr_ratio,
    stop_update=False,
    name=None,
):
    """``x`` (zeroed where ``found_inf``), with the loss scaling and the good / bad step counts updated in place:
    the scaling times ``incr_ratio`` after ``incr_every_n_steps`` finite steps, times ``decr_ratio`` after
    ``decr_every_n_nan_or_inf`` steps with infinities. ``stop_update`` a bool or a bool Tensor."""
    fn = "update_loss_scaling"
    check_variable_and_dtype(prev_loss_scaling, "prev_loss_scaling", ("float32", "float64"), fn)
    check_type(x, "x", (tuple, list), fn)
    for e in x:
        check_variable_and_dtype(e, "x", _X_DTYPES, fn)
        if e.dtype == "float16":
            assert prev_loss_scaling.dtype == "float32", (
                "The dtype of prev_loss_scaling should be float32 when the dtype of x is float16 or bfloat16."
            )
        else:
            assert prev_loss_scaling.dtype == e.dtype, (
                "The dtype of prev_loss_scaling should be equal to the dtype of x."
            )
    helper = LayerHelper(fn, name=name)
    inputs = {
        "X": list(x),
        "FoundInfinite": [found_inf],
        "PrevLossScaling": [prev_loss_scaling],
        "InGoodSteps": [num_good_steps],
        "InBadSteps": [num_bad_steps],
    }
    outputs = {
        "Out": list(x),
        "LossScaling": [prev_loss_scaling],
        "OutGoodSteps": [num_good_steps],
        "OutBadSteps": [num_bad_steps],
    }
    attrs = {
        "incr_every_n_steps": incr_every_n_steps,
        "decr_every_n_nan_or_inf": decr_every_n_nan_or_inf,
        "incr_ratio": incr_ratio,
        "decr_ratio": decr_ratio,
    }
    if isinstance(stop_update, Variable):
        inputs["StopUpdate"] = [stop_update]
    else:
        attrs["stop_update"] = stop_update
    helper.append_op(fn, inputs, outputs, attrs)
    return x
