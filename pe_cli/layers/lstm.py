"""The LSTM layers over the lstm family's ops, with Fluid 1.8's signatures: dynamic_lstm (the lstm op,
over LoD input) and lstm_unit (one step: an fc of [x_t, hidden_t_prev], then the lstm_unit op).
Fluid's cudnn-style ``layers.lstm`` is built from the cell API (rnn_api.py)."""

from ..base.errors import PeError
from .checks import check_recurrent_inputs
from .helper import LayerHelper
from .linalg import fc
from .manipulation import concat
from .checks import fluid_checks, optional

__all__ = ["dynamic_lstm", "lstm_unit"]


@fluid_checks(
    "dynamic_lstm",
    input=("float32", "float64"),
    h_0=optional(("float32", "float64")),
    c_0=optional(("float32", "float64")),
)
def dynamic_lstm(
    input,
    size,
    h_0=None,
    c_0=None,
    param_attr=None,
    bias_attr=None,
    use_peepholes=True,
    is_reverse=False,
    gate_activation="sigmoid",
    cell_activation="tanh",
    candidate_activation="tanh",
    dtype="float32",
    name=None,
):
    """An LSTM over each sequence of ``input`` [T, size] (an fc of the steps to 4 x hidden, gates
    candidate/input/forget/output); ``size`` is 4 x the hidden size. Returns (hidden, cell), each
    [T, size / 4] with the input's LoD."""
    check_recurrent_inputs("dynamic_lstm", input, h_0=h_0, c_0=c_0)
    helper = LayerHelper("lstm", input=input, param_attr=param_attr, bias_attr=bias_attr, name=name)
    if size % 4:
        raise PeError(f"dynamic_lstm layer '{helper.name}': size {size} must be 4 x the hidden size")
    d = size // 4
    weight = helper.create_parameter(param_attr, [d, size], dtype)
    bias = helper.create_parameter(bias_attr, [1, 7 * d if use_peepholes else size], dtype, is_bias=True)
    hidden, cell = (helper.create_variable_for_type_inference(dtype) for _ in range(2))
    batch_gate, batch_cell_pre_act = (
        helper.create_variable_for_type_inference(dtype, stop_gradient=True) for _ in range(2)
    )
    inputs = {"Input": [input], "Weight": [weight], "Bias": [bias]}
    if h_0 is not None:
        inputs["H0"] = [h_0]
    if c_0 is not None:
        inputs["C0"] = [c_0]
    helper.append_op(
        "lstm",
        inputs,
        {"Hidden": [hidden], "Cell": [cell], "BatchGate": [batch_gate], "BatchCellPreAct": [batch_cell_pre_act]},
        {
            "use_peepholes": use_peepholes,
            "is_reverse": is_reverse,
            "gate_activation": gate_activation,
            "cell_activation": cell_activation,
            "candidate_activation": candidate_activation,
        },
    )
    return hidden, cell


@fluid_checks(
    "lstm_unit", x_t=("float32", "float64"), hidden_t_prev=("float32", "float64"), cell_t_prev=("float32", "float64")
)
def lstm_unit(x_t, hidden_t_prev, cell_t_prev, forget_bias=0.0, param_attr=None, bias_attr=None, name=None):
    """One LSTM step as Fluid builds it: an fc of [x_t, hidden_t_prev] to 4 x the cell size (gates
    i, f, o, candidate), then the lstm_unit op: c = sigmoid(f + forget_bias) cell_t_prev +
    sigmoid(i) tanh(candidate), h = sigmoid(o) tanh(c). Returns (h, c), each [N, D]."""
    helper = LayerHelper("lstm_unit", x_t=x_t, param_attr=param_attr, bias_attr=bias_attr, name=name)
    shapes = {"x_t": x_t.shape, "hidden_t_prev": hidden_t_prev.shape, "cell_t_prev": cell_t_prev.shape}
    for what, shape in shapes.items():
        if shape is None or len(shape) != 2:
            raise PeError(
                f"lstm_unit layer '{helper.name}': {what} has shape {list(shape or [])}; it must be 2-D "
                f"[batch, features]"
            )
    batches = {s[0] for s in shapes.values()} - {-1}
    if len(batches) > 1:
        raise PeError(
            f"lstm_unit layer '{helper.name}': x_t, hidden_t_prev and cell_t_prev have different batch "
            f"sizes {[list(s) for s in shapes.values()]}"
        )
    size = cell_t_prev.shape[1]
    if hidden_t_prev.shape[1] != size:
        raise PeError(
            f"lstm_unit layer '{helper.name}': hidden_t_prev {list(hidden_t_prev.shape)} and cell_t_prev "
            f"{list(cell_t_prev.shape)} must have the same width"
        )
    fc_out = fc(concat([x_t, hidden_t_prev], axis=1), 4 * size, param_attr=param_attr, bias_attr=bias_attr, name=name)
    c = helper.create_variable_for_type_inference(x_t.dtype)
    h = helper.create_variable_for_type_inference(x_t.dtype)
    helper.append_op(
        "lstm_unit", {"X": [fc_out], "C_prev": [cell_t_prev]}, {"C": [c], "H": [h]}, {"forget_bias": float(forget_bias)}
    )
    return h, c
