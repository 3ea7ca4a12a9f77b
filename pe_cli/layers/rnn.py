"""Recurrent layers over LoD input with Fluid's signatures (fluid.layers.dynamic_lstm)."""
from ..errors import PeError
from .helper import LayerHelper

__all__ = ["dynamic_lstm"]


def dynamic_lstm(input, size, h_0=None, c_0=None, param_attr=None, bias_attr=None, use_peepholes=True,
                 is_reverse=False, gate_activation="sigmoid", cell_activation="tanh",
                 candidate_activation="tanh", dtype="float32", name=None):
    """An LSTM over each sequence of ``input`` [T, size] (an fc of the steps to 4 x hidden, gates
    candidate/input/forget/output); ``size`` is 4 x the hidden size. Returns (hidden, cell), each
    [T, size / 4] with the input's LoD."""
    helper = LayerHelper("lstm", input=input, param_attr=param_attr, bias_attr=bias_attr, name=name)
    if size % 4:
        raise PeError(f"dynamic_lstm layer '{helper.name}': size {size} must be 4 x the hidden size")
    d = size // 4
    weight = helper.create_parameter(param_attr, [d, size], dtype)
    bias = helper.create_parameter(bias_attr, [1, 7 * d if use_peepholes else size], dtype, is_bias=True)
    hidden = helper.create_variable_for_type_inference(dtype)
    cell = helper.create_variable_for_type_inference(dtype)
    saved = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    inputs = {"Input": [input], "Weight": [weight], "Bias": [bias]}
    if h_0 is not None:
        inputs["H0"] = [h_0]
    if c_0 is not None:
        inputs["C0"] = [c_0]
    helper.append_op("dynamic_lstm", inputs, {"Hidden": [hidden], "Cell": [cell], "BatchGate": [saved]},
                     {"use_peepholes": use_peepholes, "is_reverse": is_reverse, "gate_activation": gate_activation,
                      "cell_activation": cell_activation, "candidate_activation": candidate_activation})
    return hidden, cell
