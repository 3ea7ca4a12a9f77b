"""``paddle.nn``'s recurrent layers with 2.x's gate layouts and parameter names: the cells
(SimpleRNNCell, LSTMCell: gates i, f, g, o; GRUCell: gates r, z, c with the reset applied to
h @ W_hh^T + b_hh) hold weight_ih [gates * hidden, input], weight_hh [gates * hidden, hidden],
bias_ih and bias_hh, all Uniform(-1/sqrt(hidden), 1/sqrt(hidden)); RNN and BiRNN run a cell over the
time steps with pe's ``layers.rnn`` (one StaticRNN; states stop changing past ``sequence_length``);
SimpleRNN, LSTM and GRU stack them (``num_layers``, ``direction``, dropout between layers) and return
(outputs, final states [num_layers * directions, batch, hidden]). Outputs past a sequence's length
are zeros when the time dim is known when the program is built."""

import math

from .... import layers as L
from ....layers.rnn_api import rnn as _rnn  # the function (the name layers.rnn is also a submodule)
from ....layers.rnn_cells import RNNCell
from ....layers.utils import flatten
from .. import functional as F
from ..container import LayerList
from ..initializer import Uniform
from ..layer import Layer
from ... import tensor_manip as TM
from ... import tensor_math as TMa

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN", "SimpleRNN", "LSTM", "GRU"]


class RNNCellBase(Layer, RNNCell):
    """A cell: ``forward(inputs, states) -> (outputs, new_states)``; ``get_initial_states`` fills
    states of ``state_shape`` with zeros, the batch taken from ``batch_ref``."""

    def call(self, inputs, states, **kwargs):
        return self(inputs, states, **kwargs)

    @property
    def state_dtype(self):
        return self._dtype


class _GatedCell(RNNCellBase):
    _gates = 1

    def __init__(
        self,
        input_size,
        hidden_size,
        weight_ih_attr=None,
        weight_hh_attr=None,
        bias_ih_attr=None,
        bias_hh_attr=None,
        name=None,
    ):
        super().__init__()
        if hidden_size <= 0:
            raise ValueError(f"{type(self).__name__}: hidden_size={hidden_size} must be > 0")
        std = 1.0 / math.sqrt(hidden_size)
        init = Uniform(-std, std)
        rows = self._gates * hidden_size
        self.input_size, self.hidden_size = input_size, hidden_size
        self.weight_ih = self.create_parameter([rows, input_size], weight_ih_attr, default_initializer=init)
        self.weight_hh = self.create_parameter([rows, hidden_size], weight_hh_attr, default_initializer=init)
        self.bias_ih = self.create_parameter([rows], bias_ih_attr, is_bias=True, default_initializer=init)
        self.bias_hh = self.create_parameter([rows], bias_hh_attr, is_bias=True, default_initializer=init)

    def _project(self, x, weight, bias):
        out = TMa.matmul(x, weight, transpose_y=True)
        return out if bias is None else TMa.add(out, bias)

    @property
    def state_shape(self):
        return (self.hidden_size,)


class SimpleRNNCell(_GatedCell):
    """h' = activation(x @ W_ih^T + b_ih + h @ W_hh^T + b_hh), activation 'tanh' or 'relu'."""

    def __init__(
        self,
        input_size,
        hidden_size,
        activation="tanh",
        weight_ih_attr=None,
        weight_hh_attr=None,
        bias_ih_attr=None,
        bias_hh_attr=None,
        name=None,
    ):
        if activation not in ("tanh", "relu"):
            raise ValueError(f"SimpleRNNCell: activation={activation!r} must be 'tanh' or 'relu'")
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, name)
        self.activation = activation

    def forward(self, inputs, states=None):
        states = self.get_initial_states(inputs) if states is None else states
        pre = TMa.add(
            self._project(inputs, self.weight_ih, self.bias_ih), self._project(states, self.weight_hh, self.bias_hh)
        )
        h = getattr(F, self.activation)(pre)
        return h, h


class LSTMCell(_GatedCell):
    """i, f, g, o = split(x @ W_ih^T + b_ih + h @ W_hh^T + b_hh, 4); c' = sigmoid(f) * c +
    sigmoid(i) * tanh(g); h' = sigmoid(o) * tanh(c'). States (h, c)."""

    _gates = 4

    def forward(self, inputs, states=None):
        h, c = self.get_initial_states(inputs) if states is None else states
        gates = TMa.add(
            self._project(inputs, self.weight_ih, self.bias_ih), self._project(h, self.weight_hh, self.bias_hh)
        )
        i, f, g, o = TM.split(gates, 4, axis=-1)
        c = TMa.add(TMa.multiply(F.sigmoid(f), c), TMa.multiply(F.sigmoid(i), F.tanh(g)))
        h = TMa.multiply(F.sigmoid(o), F.tanh(c))
        return h, (h, c)

    @property
    def state_shape(self):
        return ((self.hidden_size,), (self.hidden_size,))


class GRUCell(_GatedCell):
    """r, z = sigmoid(x_r + h_r), sigmoid(x_z + h_z); c = tanh(x_c + r * h_c); h' = (h - c) * z + c,
    with x_* from x @ W_ih^T + b_ih and h_* from h @ W_hh^T + b_hh."""

    _gates = 3

    def forward(self, inputs, states=None):
        h = self.get_initial_states(inputs) if states is None else states
        x_r, x_z, x_c = TM.split(self._project(inputs, self.weight_ih, self.bias_ih), 3, axis=-1)
        h_r, h_z, h_c = TM.split(self._project(h, self.weight_hh, self.bias_hh), 3, axis=-1)
        r, z = F.sigmoid(TMa.add(x_r, h_r)), F.sigmoid(TMa.add(x_z, h_z))
        c = F.tanh(TMa.add(x_c, TMa.multiply(r, h_c)))
        h = TMa.add(TMa.multiply(TMa.subtract(h, c), z), c)
        return h, h


class RNN(Layer):
    """Runs ``cell`` over the time steps: forward(inputs, initial_states, sequence_length) ->
    (outputs, final_states)."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return _rnn(self.cell, inputs, initial_states, sequence_length, self.time_major, self.is_reverse, **kwargs)


class BiRNN(Layer):
    """A forward and a reversed RNN; outputs concatenated on the last axis, states (fw, bw)."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw, self.cell_bw, self.time_major = cell_fw, cell_bw, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return L.birnn(self.cell_fw, self.cell_bw, inputs, initial_states, sequence_length, self.time_major, **kwargs)


class _RNNBase(LayerList):
    _cell, _states = None, 1

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        direction="forward",
        time_major=False,
        dropout=0.0,
        weight_ih_attr=None,
        weight_hh_attr=None,
        bias_ih_attr=None,
        bias_hh_attr=None,
        name=None,
        **cell_kwargs,
    ):
        super().__init__()
        if direction not in ("forward", "bidirect", "bidirectional"):
            raise ValueError(f"{type(self).__name__}: direction={direction!r} must be 'forward' or 'bidirect'")
        self.num_directions = 1 if direction == "forward" else 2
        self.num_layers, self.hidden_size, self.time_major, self.dropout = num_layers, hidden_size, time_major, dropout
        attrs = dict(
            weight_ih_attr=weight_ih_attr,
            weight_hh_attr=weight_hh_attr,
            bias_ih_attr=bias_ih_attr,
            bias_hh_attr=bias_hh_attr,
            **cell_kwargs,
        )
        for i in range(num_layers):
            size = input_size if i == 0 else hidden_size * self.num_directions
            make = lambda: type(self)._cell(size, hidden_size, **attrs)  # noqa: E731
            self.append(
                RNN(make(), False, time_major) if self.num_directions == 1 else BiRNN(make(), make(), time_major)
            )
        # Paddle's names for the cells' parameters on the stack itself (weight_ih_l0, ..._reverse), the ones
        # named_parameters() gives first
        names = [
            f"{kind}_l{i}{'_reverse' if d else ''}"
            for i in range(num_layers)
            for d in range(self.num_directions)
            for kind, attr in (("weight_ih", 0), ("weight_hh", 0), ("bias_ih", bias_ih_attr), ("bias_hh", bias_hh_attr))
            if attr is not False
        ]
        for key, param in zip(names, self.parameters()):
            setattr(self, key, param)

    def _layer_states(self, initial_states, i):
        """Layer i's initial states from [num_layers * directions, batch, hidden] tensors (None: zeros)."""
        if initial_states is None:
            return None
        d = self.num_directions
        per = [TM.split(s, self.num_layers * d, axis=0)[i * d : (i + 1) * d] for s in flatten(initial_states)]
        per = [[TM.squeeze(t, 0) for t in group] for group in per]
        one = [tuple(group[k] for group in per) if self._states > 1 else per[0][k] for k in range(d)]
        return one[0] if d == 1 else tuple(one)

    def forward(self, inputs, initial_states=None, sequence_length=None):
        finals, out = [], inputs
        for i, layer in enumerate(self):
            if i > 0 and self.dropout:
                out = F.dropout(out, self.dropout, training=self.training)
            out, states = layer(out, self._layer_states(initial_states, i), sequence_length)
            finals.extend(states if self.num_directions == 2 else [states])
        if self._states == 1:
            final = TM.stack(finals, axis=0)
        else:
            final = tuple(TM.stack([s[k] for s in finals], axis=0) for k in range(self._states))
        return _zero_padding(out, sequence_length, self.time_major), final


def _zero_padding(out, sequence_length, time_major):
    steps = out.shape[0 if time_major else 1]
    if sequence_length is None or steps in (None, -1):
        return out
    mask = TM.cast(F.sequence_mask(sequence_length, steps), out.dtype)  # [batch, time]
    mask = TM.unsqueeze(TM.transpose(mask, [1, 0]) if time_major else mask, -1)
    return TMa.multiply(out, mask)


class SimpleRNN(_RNNBase):
    _cell = SimpleRNNCell

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        direction="forward",
        time_major=False,
        dropout=0.0,
        activation="tanh",
        weight_ih_attr=None,
        weight_hh_attr=None,
        bias_ih_attr=None,
        bias_hh_attr=None,
        name=None,
    ):
        super().__init__(
            input_size,
            hidden_size,
            num_layers,
            direction,
            time_major,
            dropout,
            weight_ih_attr,
            weight_hh_attr,
            bias_ih_attr,
            bias_hh_attr,
            name,
            activation=activation,
        )


class LSTM(_RNNBase):
    _cell, _states = LSTMCell, 2


class GRU(_RNNBase):
    _cell = GRUCell
