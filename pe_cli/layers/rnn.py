"""Recurrent layers over LoD input with Fluid's signatures (fluid.layers.dynamic_lstm)."""
import copy

from ..errors import PeError
from ..param_attr import ParamAttr
from .helper import LayerHelper
from .linalg import fc
from .manipulation import concat
# Fluid's layers/rnn.py module also holds the cell API and beam search: `from paddle.fluid.layers.rnn
# import GRUCell` works as in Fluid (the package's own `rnn` stays the function, pe_cli/layers/__init__.py)
from .beam_search import beam_search, beam_search_decode  # noqa: F401,E402
from .decode import BeamSearchDecoder, Decoder, dynamic_decode  # noqa: F401
from .decode_helpers import BasicDecoder, DecodeHelper, GreedyEmbeddingHelper, TrainingHelper  # noqa: F401
from .rnn_api import birnn, lstm, rnn  # noqa: F401
from .rnn_cells import GRUCell, LSTMCell, RNNCell  # noqa: F401

__all__ = ["dynamic_lstm", "dynamic_gru", "gru_unit", "lstm_unit", "dynamic_lstmp"]


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


def _bias(helper, bias_attr, size, dtype):
    """The [1, size] bias parameter, or None when ``bias_attr`` is False (no bias, as in Fluid)."""
    return None if bias_attr is False else helper.create_parameter(bias_attr, [1, size], dtype, is_bias=True)


def dynamic_gru(input, size, param_attr=None, bias_attr=None, is_reverse=False, gate_activation="sigmoid",
                candidate_activation="tanh", h_0=None, origin_mode=False, name=None):
    """A GRU over each sequence of ``input`` [T, 3 x size] (an fc of the steps to 3 x size: update,
    reset, candidate); ``size`` is the hidden size. ``h_0`` [N, size]: each sequence's initial
    hidden state (zeros when None). Returns the hidden states [T, size] with the input's LoD.
    ``name`` (not in Fluid's signature) names the layer and its parameters."""
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
    saved = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("gru", inputs, {"Hidden": [hidden], "BatchGate": [saved]},
                     {"is_reverse": is_reverse, "gate_activation": gate_activation,
                      "activation": candidate_activation, "origin_mode": origin_mode})
    return hidden


_UNIT_CODES = {"identity": 0, "sigmoid": 1, "tanh": 2, "relu": 3}


def gru_unit(input, hidden, size, param_attr=None, bias_attr=None, activation="tanh", gate_activation="sigmoid",
             origin_mode=False, name=None):
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
    helper.append_op("gru_unit", inputs, {"Gate": [gate], "ResetHiddenPrev": [reset_hidden_pre], "Hidden": [updated]},
                     {"activation": _UNIT_CODES[activation], "gate_activation": _UNIT_CODES[gate_activation],
                      "origin_mode": origin_mode})
    return updated, reset_hidden_pre, gate


def lstm_unit(x_t, hidden_t_prev, cell_t_prev, forget_bias=0.0, param_attr=None, bias_attr=None, name=None):
    """One LSTM step as Fluid builds it: an fc of [x_t, hidden_t_prev] to 4 x the cell size (gates
    i, f, o, candidate), then the lstm_unit op: c = sigmoid(f + forget_bias) cell_t_prev +
    sigmoid(i) tanh(candidate), h = sigmoid(o) tanh(c). Returns (h, c), each [N, D]."""
    helper = LayerHelper("lstm_unit", x_t=x_t, param_attr=param_attr, bias_attr=bias_attr, name=name)
    shapes = {"x_t": x_t.shape, "hidden_t_prev": hidden_t_prev.shape, "cell_t_prev": cell_t_prev.shape}
    for what, shape in shapes.items():
        if shape is None or len(shape) != 2:
            raise PeError(f"lstm_unit layer '{helper.name}': {what} has shape {list(shape or [])}; it must be 2-D "
                          f"[batch, features]")
    batches = {s[0] for s in shapes.values()} - {-1}
    if len(batches) > 1:
        raise PeError(f"lstm_unit layer '{helper.name}': x_t, hidden_t_prev and cell_t_prev have different batch "
                      f"sizes {[list(s) for s in shapes.values()]}")
    size = cell_t_prev.shape[1]
    if hidden_t_prev.shape[1] != size:
        raise PeError(f"lstm_unit layer '{helper.name}': hidden_t_prev {list(hidden_t_prev.shape)} and cell_t_prev "
                      f"{list(cell_t_prev.shape)} must have the same width")
    fc_out = fc(concat([x_t, hidden_t_prev], axis=1), 4 * size, param_attr=param_attr, bias_attr=bias_attr,
                name=name)
    c = helper.create_variable_for_type_inference(x_t.dtype)
    h = helper.create_variable_for_type_inference(x_t.dtype)
    helper.append_op("lstm_unit", {"X": [fc_out], "C_prev": [cell_t_prev]}, {"C": [c], "H": [h]},
                     {"forget_bias": float(forget_bias)})
    return h, c


def _proj_attr(param_attr):
    """The projection weight's attribute: param_attr's, with ``<name>.proj`` when it names the
    weight (Fluid gives both weights the one attribute, which cannot name two parameters)."""
    attr = ParamAttr._to_attr(param_attr)
    if attr and attr.name:
        attr = copy.copy(attr)
        attr.name = f"{attr.name}.proj"
    return attr


def dynamic_lstmp(input, size, proj_size, param_attr=None, bias_attr=None, use_peepholes=True, is_reverse=False,
                  gate_activation="sigmoid", cell_activation="tanh", candidate_activation="tanh",
                  proj_activation="tanh", dtype="float32", name=None, h_0=None, c_0=None, cell_clip=None,
                  proj_clip=None):
    """An LSTM with a recurrent projection over each sequence of ``input`` [T, size] (an fc to 4 x
    the hidden size D; gates candidate/input/forget/output): the state carried between steps is
    r = proj_activation(h ProjWeight) [proj_size], clipped to +-proj_clip, and the cell is clipped
    to +-cell_clip (None or 0: no clip). ``h_0`` [N, proj_size], ``c_0`` [N, D]. Returns
    (projection [T, proj_size], cell [T, D]) with the input's LoD."""
    helper = LayerHelper("lstmp", input=input, param_attr=param_attr, bias_attr=bias_attr, name=name)
    if size % 4:
        raise PeError(f"dynamic_lstmp layer '{helper.name}': size {size} must be 4 x the hidden size")
    if bias_attr is False:
        raise PeError(f"dynamic_lstmp layer '{helper.name}': bias_attr=False is not allowed (as in Fluid)")
    for what, clip in (("cell_clip", cell_clip), ("proj_clip", proj_clip)):
        if clip is not None and clip < 0:
            raise PeError(f"dynamic_lstmp layer '{helper.name}': {what} {clip} must be >= 0")
    d = size // 4
    weight = helper.create_parameter(param_attr, [proj_size, size], dtype)
    proj_weight = helper.create_parameter(_proj_attr(param_attr), [d, proj_size], dtype)
    bias = helper.create_parameter(bias_attr, [1, 7 * d if use_peepholes else size], dtype, is_bias=True)
    projection = helper.create_variable_for_type_inference(dtype)
    cell = helper.create_variable_for_type_inference(dtype)
    saved = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    inputs = {"Input": [input], "Weight": [weight], "ProjWeight": [proj_weight], "Bias": [bias]}
    if h_0 is not None:
        inputs["H0"] = [h_0]
    if c_0 is not None:
        inputs["C0"] = [c_0]
    helper.append_op("lstmp", inputs, {"Projection": [projection], "Cell": [cell], "BatchGate": [saved]},
                     {"use_peepholes": use_peepholes, "is_reverse": is_reverse, "cell_clip": float(cell_clip or 0.0),
                      "proj_clip": float(proj_clip or 0.0), "gate_activation": gate_activation,
                      "cell_activation": cell_activation, "candidate_activation": candidate_activation,
                      "proj_activation": proj_activation})
    return projection, cell
