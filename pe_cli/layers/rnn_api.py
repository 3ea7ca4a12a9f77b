"""Fluid 1.8's cell-based recurrent API, part 2: ``rnn(cell, inputs, ...)`` and ``birnn``, which run a
cell (rnn_cells.py) over the time steps as one StaticRNN (a ``recurrent`` op), and ``unrolled_lstm``:
layers.lstm's network built from the same machinery, for what its cudnn_lstm op cannot reproduce
(cuDNN's dropout between layers while training; lstm_cudnn.py).

Fluid's ``layers.rnn`` is this function; pe's submodule ``pe_cli.layers.rnn`` (the face of Fluid's
``layers.rnn`` submodule) is shadowed by it in the package namespace, as in Fluid."""

import math

from ..base.errors import ArgumentTypeError, PeError
from ..framework.variable import Variable
from ..training.initializer import UniformInitializer
from ..training.param_attr import ParamAttr
from .activation import sigmoid, tanh
from .logic import less_than
from .dropout import dropout
from .rnn_cells import RNNCell, Params
from .sequence_rows import sequence_mask
from .static_rnn import StaticRNN
from .creation import zeros_like
from .elementwise import elementwise_add, elementwise_mul, elementwise_sub, scale
from .linalg import matmul
from .manipulation import cast, concat, reshape, slice, split, squeeze, stack, transpose, unsqueeze
from .utils import assert_same_structure, flatten, is_sequence, map_structure, pack_sequence_as
from .checks import fluid_checks, optional

__all__ = ["rnn", "birnn"]


def _transpose_batch_time(x):
    return transpose(x, [1, 0] + list(range(2, len(x.shape))))


def _maybe_copy(state, new_state, step_mask):
    """new_state where the step is inside the sequence (mask 1), else the old state."""
    return elementwise_sub(state, elementwise_mul(elementwise_sub(state, new_state), step_mask, axis=0))


def _check_inputs(where, inputs, initial_states, sequence_length):
    for i, x in enumerate(flatten(inputs)):
        if not isinstance(x, Variable):
            raise ArgumentTypeError(f"{where}: inputs[{i}] must be a Variable, got {type(x).__name__}")
        if x.dtype not in ("float32", "float64"):
            raise ArgumentTypeError(
                f"{where}: inputs[{i}] '{x.name}' is {x.dtype}; the inputs must be float32 or float64"
            )
        if len(x.shape or []) < 3:
            raise PeError(
                f"{where}: inputs[{i}] '{x.name}' has shape {x.shape}; it must be [batch, time, size] "
                f"([time, batch, size] with time_major=True)"
            )
    if initial_states is not None and not all(isinstance(s, Variable) for s in flatten(initial_states)):
        raise ArgumentTypeError(f"{where}: initial_states must be a Variable or a (nested) list/tuple of Variables")
    if sequence_length is not None and not isinstance(sequence_length, Variable):
        raise ArgumentTypeError(
            f"{where}: sequence_length must be an int64/int32 Variable [batch], got {type(sequence_length).__name__}"
        )


def _time_index(x, dtype):
    """[time, batch, 1]: each step's index t, from a time-major ``x`` whose time dim is unknown
    when the program is built (a StaticRNN counting its steps)."""
    first = slice(x, list(range(2, len(x.shape))), [0] * (len(x.shape) - 2), [1] * (len(x.shape) - 2))
    ones = scale(zeros_like(first), 1.0, 1.0)  # zeros_like: whatever the padding holds (inf, nan)
    ones = ones if len(x.shape) == 3 else reshape(ones, [0, 0, 1])
    ones = ones if ones.dtype == dtype else cast(ones, dtype)
    counter = StaticRNN()
    with counter.step():
        one = counter.step_input(ones)
        count = counter.memory(shape=[-1, 1], batch_ref=one, init_value=-1.0)
        new = elementwise_add(count, one)
        counter.update_memory(count, new)
        counter.step_output(new)
    return counter()


def _step_mask(inputs, sequence_length, dtype):
    """[time, batch]: 1 where the step is inside its sequence, else 0."""
    x = flatten(inputs)[0]
    steps = x.shape[0]
    if steps is not None and steps >= 0:
        return transpose(sequence_mask(sequence_length, maxlen=steps, dtype=dtype), [1, 0])
    lengths = cast(unsqueeze(sequence_length, [1]), dtype)  # [batch, 1]
    return squeeze(cast(less_than(_time_index(x, dtype), lengths), dtype), [2])


@fluid_checks(
    "rnn",
    inputs=(Variable, list, tuple),
    initial_states=optional((Variable, list, tuple)),
    sequence_length=optional(Variable),
)
def rnn(cell, inputs, initial_states=None, sequence_length=None, time_major=False, is_reverse=False, **kwargs):
    """Runs ``cell`` over the time steps of ``inputs`` ([batch, time, ...], or [time, batch, ...]
    with ``time_major``; a nested structure of such). Returns (outputs, final_states): outputs stack
    the cell's outputs over time in the inputs' layout; final_states has the structure of
    ``initial_states`` (the cell's get_initial_states() when None). With ``sequence_length``
    ([batch] ints) the states stop changing past each sequence's length (the outputs there are the
    cell's outputs for the padding, as in Fluid); ``is_reverse`` runs from the last step to the first."""
    if not isinstance(cell, RNNCell) and not callable(getattr(cell, "call", None)):
        raise PeError(f"rnn: cell must be an RNNCell (GRUCell, LSTMCell, ...), got {type(cell).__name__}")
    _check_inputs("rnn", inputs, initial_states, sequence_length)
    if initial_states is None:
        initial_states = cell.get_initial_states(batch_ref=inputs, batch_dim_idx=1 if time_major else 0)
    if not time_major:
        inputs = map_structure(_transpose_batch_time, inputs)
    mask = None
    if sequence_length is not None:
        mask = _step_mask(inputs, sequence_length, flatten(initial_states)[0].dtype)
    srnn = StaticRNN()
    srnn._reverse = bool(is_reverse)
    with srnn.step():
        step_inputs = map_structure(srnn.step_input, inputs)
        states = map_structure(lambda s: srnn.memory(init=s), initial_states)
        outputs, new_states = cell(step_inputs, states, **kwargs)
        assert_same_structure(states, new_states, "cell's states and its new states")
        if mask is not None:
            step_mask = srnn.step_input(mask)
            new_states = map_structure(lambda s, n: _maybe_copy(s, n, step_mask), states, new_states)
        map_structure(srnn.update_memory, states, new_states)
        flat_outputs = flatten(outputs)
        for var in flat_outputs + flatten(new_states):
            srnn.step_output(var)
    stacked = srnn.outputs
    final_outputs = pack_sequence_as(outputs, stacked[: len(flat_outputs)])
    last = 0 if is_reverse else -1  # the state after the last step run: a slice dropping the time dim, as Fluid's
    final_states = pack_sequence_as(new_states, [s[last] for s in stacked[len(flat_outputs) :]])
    if not time_major:
        final_outputs = map_structure(_transpose_batch_time, final_outputs)
    return final_outputs, final_states


def birnn(cell_fw, cell_bw, inputs, initial_states=None, sequence_length=None, time_major=False, **kwargs):
    """A forward ``rnn`` with ``cell_fw`` and a reversed one with ``cell_bw``; returns (outputs
    concatenated along the last axis, (final states forward, final states backward))."""
    if initial_states is None:
        states_fw = cell_fw.get_initial_states(batch_ref=inputs, batch_dim_idx=1 if time_major else 0)
        states_bw = cell_bw.get_initial_states(batch_ref=inputs, batch_dim_idx=1 if time_major else 0)
    else:
        if not is_sequence(initial_states) or len(initial_states) != 2:
            raise PeError("birnn: initial_states must be (states of cell_fw, states of cell_bw)")
        states_fw, states_bw = initial_states
    outputs_fw, states_fw = rnn(cell_fw, inputs, states_fw, sequence_length, time_major=time_major, **kwargs)
    outputs_bw, states_bw = rnn(
        cell_bw, inputs, states_bw, sequence_length, time_major=time_major, is_reverse=True, **kwargs
    )
    outputs = map_structure(lambda x, y: concat([x, y], -1), outputs_fw, outputs_bw)
    return outputs, (states_fw, states_bw)


class _CudnnLSTMCell(RNNCell):
    """One layer and direction of ``lstm``: gates i, f, g, o = split(concat([x, h]) @ W + b, 4);
    c' = sigmoid(f)*c + sigmoid(i)*tanh(g); h' = sigmoid(o)*tanh(c') (cudnn's LSTM, no forget bias)."""

    def __init__(self, hidden_size, name, initializer, dtype):
        self.hidden_size = hidden_size
        self._params = Params(name, name, ParamAttr(initializer=initializer), ParamAttr(initializer=initializer), dtype)

    def call(self, inputs, states):
        h, c = states
        size = self.hidden_size
        w = self._params.get(0, [inputs.shape[-1] + size, 4 * size])
        b = self._params.get(0, [4 * size], True)
        i, f, g, o = split(elementwise_add(matmul(concat([inputs, h], 1), w), b), 4, dim=-1)
        new_c = elementwise_add(elementwise_mul(sigmoid(f), c), elementwise_mul(sigmoid(i), tanh(g)))
        new_h = elementwise_mul(sigmoid(o), tanh(new_c))
        return new_h, [new_h, new_c]


def check_lstm(input, init_h, init_c, max_len, hidden_size, num_layers):
    for what, var in (("input", input), ("init_h", init_h), ("init_c", init_c)):
        if not isinstance(var, Variable) or len(var.shape or []) != 3:
            raise PeError(
                f"lstm: {what} must be a 3-D Variable ([seq_len, batch, input_size] for input, "
                f"[num_layers * directions, batch, hidden_size] for the states), got {var!r}"
            )
    for what, value in (("max_len", max_len), ("hidden_size", hidden_size), ("num_layers", num_layers)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise PeError(f"lstm: {what} must be an int >= 1, got {value!r}")
    if input.shape[-1] is None or input.shape[-1] < 1:
        raise PeError(f"lstm: the input's last dimension (input_size) must be known, got {input.shape}")


def unrolled_lstm(
    input,
    init_h,
    init_c,
    max_len,
    hidden_size,
    num_layers,
    dropout_prob=0.0,
    is_bidirec=False,
    is_test=False,
    name=None,
    default_initializer=None,
    seed=-1,
):
    """layers.lstm's LSTM as cells stepped by StaticRNNs, ``input`` [seq_len, batch, input_size],
    ``init_h``/``init_c`` [num_layers * (2 if is_bidirec else 1), batch, hidden_size] (layer l,
    direction d at l * directions + d). Returns (rnn_out [seq_len, batch, hidden_size * directions],
    last_h, last_c) with init_h's shape. Layers after the first read the previous layer's output
    (directions concatenated), through dropout(dropout_prob) while training. Each layer and
    direction has its weight ``<name>_l<l>_d<d>.w_0`` [in + hidden_size, 4 * hidden_size] (gates
    i, f, g, o along the columns; rows: the input, then h) and bias ``.b_0`` [4 * hidden_size]."""
    check_lstm(input, init_h, init_c, max_len, hidden_size, num_layers)
    directions = 2 if is_bidirec else 1
    if init_h.shape[0] not in (-1, None, num_layers * directions):
        raise PeError(f"lstm: init_h has {init_h.shape[0]} states, num_layers * directions = {num_layers * directions}")
    name = name or "lstm"
    init = default_initializer or UniformInitializer(
        -1.0 / math.sqrt(hidden_size), 1.0 / math.sqrt(hidden_size), seed=max(seed, 0)
    )
    x, last_h, last_c = input, [], []
    for layer in range(num_layers):
        if layer > 0 and dropout_prob > 0.0:
            x = dropout(
                x,
                dropout_prob,
                is_test=is_test,
                seed=None if seed in (-1, None) else seed,
                dropout_implementation="upscale_in_train",
            )
        outs = []
        for d in range(directions):
            k = layer * directions + d
            h0, c0 = (squeeze(slice(s, [0], [k], [k + 1]), [0]) for s in (init_h, init_c))
            cell = _CudnnLSTMCell(hidden_size, f"{name}_l{layer}_d{d}", init, input.dtype)
            out, (h, c) = rnn(cell, x, [h0, c0], time_major=True, is_reverse=d == 1)
            outs.append(out)
            last_h.append(h)
            last_c.append(c)
        x = outs[0] if directions == 1 else concat(outs, -1)
    return x, stack(last_h, 0), stack(last_c, 0)
