"""The GRU layers over the gru family's ops, with Fluid 1.8's signatures: dynamic_gru (the gru op, over
LoD input) and gru_unit (one step)."""

from ..base.errors import PeError
from .checks import check_recurrent_inputs
from .helper import LayerHelper
from .checks import fluid_checks, optional

__all__ = ["dynamic_gru", "gru_unit"]


def _bias(helper, bias_attr, size, dtype):
    """The [1, size] bias parameter, or None when ``bias_attr`` is False (no bias, as in Fluid)."""
    return None if bias_attr is False else helper.create_parameter(bias_attr, [1, size], dtype, is_bias=True)


@fluid_checks("dynamic_gru", input=("float32", "float64"), h_0=optional(("float32", "float64")))
def dynamic_gru(
    input,
    size,
    param_attr=None,
    bias_attr=None,
    is_reverse=False,
    gate_activation="sigmoid",
    candidate_activation="tanh",
    h_0=None,
    origin_mode=False,
    *,
    name=None,
):
    """A GRU over each sequence of ``input`` [T, 3 x size] (an fc of the steps to 3 x size: update,
    reset, candidate); ``size`` is the hidden size. ``h_0`` [N, size]: each sequence's initial
    hidden state (zeros when None). Returns the hidden states [T, size] with the input's LoD.
    ``name`` (not in Fluid's signature) names the layer and its parameters."""
    check_recurrent_inputs("dynamic_gru", input, h_0=h_0)
    helper = LayerHelper("gru", input=input, param_attr=param_attr, bias_attr=bias_attr, name=name)
    dtype = helper.input_dtype()
    weight = helper.create_parameter(param_attr, [size, 3 * size], dtype)
    bias = _bias(helper, bias_attr, 3 * size, dtype)
    inputs = {"Input": [input], "Weight": [weight]}
    if bias is not None:
        inputs["Bias"] = [bias]
    if h_0 is not None:
        inputs["H0"] = [h_0]
    hidden = helper.create_variable_for_type_inference(dtype)
    batch_gate, batch_reset_hidden_prev, batch_hidden = (
        helper.create_variable_for_type_inference(dtype, stop_gradient=True) for _ in range(3)
    )
    helper.append_op(
        "gru",
        inputs,
        {
            "Hidden": [hidden],
            "BatchGate": [batch_gate],
            "BatchResetHiddenPrev": [batch_reset_hidden_prev],
            "BatchHidden": [batch_hidden],
        },
        {
            "is_reverse": is_reverse,
            "gate_activation": gate_activation,
            "activation": candidate_activation,
            "origin_mode": origin_mode,
        },
    )
    return hidden


_UNIT_CODES = {"identity": 0, "sigmoid": 1, "tanh": 2, "relu": 3}


@fluid_checks("gru_unit", input=("float32", "float64"), hidden=("float32", "float64"), size=int)
def gru_unit(
    input,
    hidden,
    size,
    param_attr=None,
    bias_attr=None,
    activation="tanh",
    gate_activation="sigmoid",
    origin_mode=False,
    *,
    name=None,
):
    """One GRU step: ``input`` [N, size] (an fc to 3 x the hidden size; ``size`` is 3 x the hidden
    size, as in Fluid), ``hidden`` [N, size / 3] the previous hidden state. Returns (the new hidden
    state, reset gate x previous hidden, the gates (u, r, c) [N, size]). ``name`` (not in Fluid's
    signature) names the layer and its parameters."""
    helper = LayerHelper("gru_unit", input=input, param_attr=param_attr, bias_attr=bias_attr, name=name)
    for what, act in (("activation", activation), ("gate_activation", gate_activation)):
        if act not in _UNIT_CODES:
            raise PeError(f"gru_unit layer '{helper.name}': {what} {act!r} is not one of {sorted(_UNIT_CODES)}")
    if size % 3:
        raise PeError(f"gru_unit layer '{helper.name}': size {size} must be 3 x the hidden size")
    dtype = helper.input_dtype()
    d = size // 3
    weight = helper.create_parameter(param_attr, [d, size], dtype)
    bias = _bias(helper, bias_attr, size, dtype)
    inputs = {"Input": [input], "HiddenPrev": [hidden], "Weight": [weight]}
    if bias is not None:
        inputs["Bias"] = [bias]
    gate, reset_hidden_pre, updated = (helper.create_variable_for_type_inference(dtype) for _ in range(3))
    helper.append_op(
        "gru_unit",
        inputs,
        {"Gate": [gate], "ResetHiddenPrev": [reset_hidden_pre], "Hidden": [updated]},
        {
            "activation": _UNIT_CODES[activation],
            "gate_activation": _UNIT_CODES[gate_activation],
            "origin_mode": origin_mode,
        },
    )
    return updated, reset_hidden_pre, gate
