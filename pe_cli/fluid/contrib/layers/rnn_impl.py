"""Fluid 1.8's ``contrib.layers.rnn_impl``: ``BasicLSTMUnit`` / ``BasicGRUUnit`` (one step, made of
matmul, elementwise, split and activation ops, as Fluid builds them) and ``basic_lstm`` /
``basic_gru`` (multi-layer, optionally bidirectional recurrences of those units over a padded
batch, each direction one StaticRNN; ``sequence_length`` masks the padded steps so a sequence's
state stops at its last real step).

Parameters are named as Fluid names them: a unit built with name scope ``s`` owns
``s/BasicLSTMUnit_0.w_0`` and ``.b_0`` (GRU: ``.w_0`` gates, ``.w_1`` candidate, ``.b_0``, ``.b_1``);
a named ParamAttr is used as it is (GRU: ``<name>_gate`` and ``<name>_candidate``); basic_lstm's
layers are ``<name>_layers_<i>`` and ``<name>_reverse_layers_<i>``."""

import copy

from .... import layers
from ....base.errors import ArgumentTypeError
from ....framework import unique_name
from ....layers.helper import LayerHelper
from ....layers.rnn_cells import ForgetBias
from ....training.param_attr import ParamAttr

__all__ = ["BasicGRUUnit", "basic_gru", "BasicLSTMUnit", "basic_lstm"]


def _suffixed(attr, suffix):
    """A copy of a named ParamAttr with ``suffix`` added to its name; else the attribute as given."""
    attr = ParamAttr._to_attr(attr) if attr is not None else None
    if attr is None or attr is False or attr.name is None:
        return attr
    attr = copy.deepcopy(attr)
    attr.name += suffix
    return attr


class _Unit:
    """What Fluid's dygraph ``Layer`` gives these units in a static program: a full name
    (``<name_scope>/<Class>_<n>``), parameters created on the first call, ``forward``."""

    def __init__(self, name_scope, hidden_size, param_attr, bias_attr, gate_activation, activation, dtype):
        if not isinstance(hidden_size, int) or hidden_size < 1:
            raise ArgumentTypeError(f"{type(self).__name__}: hidden_size must be an int >= 1, got {hidden_size!r}")
        self._full_name = unique_name.generate(f"{name_scope}/{type(self).__name__}")
        self._name = name_scope
        self._hiden_size = hidden_size
        self._param_attr, self._bias_attr = param_attr, bias_attr
        self._gate_activation = gate_activation or layers.sigmoid
        self._activation = activation or layers.tanh
        self._dtype = dtype
        self._built = False
        self._parameters = []

    def full_name(self):
        return self._full_name

    def parameters(self, include_sublayers=True):
        return list(self._parameters)

    def create_parameter(self, attr, shape, dtype, is_bias=False):
        param = LayerHelper(type(self).__name__, name=self._full_name).create_parameter(
            attr, shape, dtype, is_bias=is_bias
        )
        self._parameters.append(param)
        return param

    def __call__(self, *inputs):
        if not self._built:
            self._input_size = inputs[0].shape[-1]
            if self._input_size is None or self._input_size < 1:
                raise ArgumentTypeError(
                    f"{type(self).__name__}: the input's last dimension must be known, got {inputs[0].shape}"
                )
            self._build_once(*inputs)
            self._built = True
        return self.forward(*inputs)


class BasicGRUUnit(_Unit):
    """One GRU step: r, u = gate_act([x, h] @ Wg + bg); c = act([x, r*h] @ Wc + bc);
    h' = u*h + (1-u)*c."""

    def __init__(
        self,
        name_scope,
        hidden_size,
        param_attr=None,
        bias_attr=None,
        gate_activation=None,
        activation=None,
        dtype="float32",
    ):
        super().__init__(name_scope, hidden_size, param_attr, bias_attr, gate_activation, activation, dtype)

    def _build_once(self, input, pre_hidden):
        n, size = self._input_size + self._hiden_size, self._hiden_size
        self._gate_weight = self.create_parameter(_suffixed(self._param_attr, "_gate"), [n, 2 * size], self._dtype)
        self._candidate_weight = self.create_parameter(
            _suffixed(self._param_attr, "_candidate"), [n, size], self._dtype
        )
        self._gate_bias = self.create_parameter(_suffixed(self._bias_attr, "_gate"), [2 * size], self._dtype, True)
        self._candidate_bias = self.create_parameter(
            _suffixed(self._bias_attr, "_candidate"), [size], self._dtype, True
        )

    def forward(self, input, pre_hidden):
        gate_input = layers.matmul(layers.concat([input, pre_hidden], 1), self._gate_weight)
        gate_input = self._gate_activation(layers.elementwise_add(gate_input, self._gate_bias))
        r, u = layers.split(gate_input, num_or_sections=2, dim=1)
        candidate = layers.matmul(
            layers.concat([input, layers.elementwise_mul(r, pre_hidden)], 1), self._candidate_weight
        )
        c = self._activation(layers.elementwise_add(candidate, self._candidate_bias))
        return layers.elementwise_add(
            layers.elementwise_mul(u, pre_hidden), layers.elementwise_mul(layers.scale(u, -1.0, 1.0), c)
        )


class BasicLSTMUnit(_Unit):
    """One LSTM step: i, j, f, o = split([x, h] @ W + b, 4); c' = c*gate_act(f + forget_bias) +
    sigmoid(i)*tanh(j); h' = act(c')*gate_act(o). Returns (h', c')."""

    def __init__(
        self,
        name_scope,
        hidden_size,
        param_attr=None,
        bias_attr=None,
        gate_activation=None,
        activation=None,
        forget_bias=1.0,
        dtype="float32",
    ):
        super().__init__(name_scope, hidden_size, param_attr, bias_attr, gate_activation, activation, dtype)
        self._forget_bias = ForgetBias(dtype, forget_bias)

    def _build_once(self, input, pre_hidden, pre_cell):
        size = self._hiden_size
        self._weight = self.create_parameter(self._param_attr, [self._input_size + size, 4 * size], self._dtype)
        self._bias = self.create_parameter(self._bias_attr, [4 * size], self._dtype, True)

    def forward(self, input, pre_hidden, pre_cell):
        gate_input = layers.matmul(layers.concat([input, pre_hidden], 1), self._weight)
        gate_input = layers.elementwise_add(gate_input, self._bias)
        i, j, f, o = layers.split(gate_input, num_or_sections=4, dim=-1)
        forget = self._gate_activation(layers.elementwise_add(f, self._forget_bias.of_program()))
        new_cell = layers.elementwise_add(
            layers.elementwise_mul(pre_cell, forget), layers.elementwise_mul(layers.sigmoid(i), layers.tanh(j))
        )
        new_hidden = layers.elementwise_mul(self._activation(new_cell), self._gate_activation(o))
        return new_hidden, new_cell


def _unit_lists(cls, name, num_layers, bidirectional, param_attr, bias_attr, **kwargs):
    """Per direction, one unit per layer, named and attributed as Fluid's basic_lstm / basic_gru."""
    directions = [("_layers_", "_fw_")] + ([("_reverse_layers_", "_bw_")] if bidirectional else [])
    return [
        [
            cls(
                f"{name}{infix}{i}",
                param_attr=_suffixed(param_attr, f"{tag}w_{i}"),
                bias_attr=_suffixed(bias_attr, f"{tag}b_{i}"),
                **kwargs,
            )
            for i in range(num_layers)
        ]
        for infix, tag in directions
    ]


def _step_mask(time_major, sequence_length):
    """[T, batch] with 1.0 where step t < sequence_length[b], else 0.0 (T: the input's own length)."""
    ones = layers.fill_constant_batch_size_like(time_major, [-1, 1], time_major.dtype, 1.0, 0, 0)
    position = layers.cumsum(ones, axis=0)  # [T, 1]: 1 .. T
    lengths = layers.reshape(layers.cast(sequence_length, time_major.dtype), [1, -1])
    return layers.cast(layers.less_equal(position, lengths), time_major.dtype)


def _initial(state, layer, direction, hidden_size):
    """state[layer, direction] of a [num_layers, directions, batch, hidden] tensor, as [batch, hidden]."""
    one = layers.slice(state, axes=[0, 1], starts=[layer, direction], ends=[layer + 1, direction + 1])
    return layers.reshape(one, [-1, hidden_size])


def _last_step(sequence):
    return layers.slice(sequence, axes=[0], starts=[-1], ends=[2**31 - 1])


def _direction(rnn_input, units, mask, inits, direction, hidden_size, dropout):
    """One direction of the stacked recurrence: (top layer's outputs [T, B, H], per state
    [num_layers, B, H] at the last step)."""
    rnn = layers.StaticRNN()
    n_states = len(inits)
    boots = [
        [_initial(init, i, direction, hidden_size) if init is not None else None for init in inits]
        for i in range(len(units))
    ]  # built before the step: memories start from them
    with rnn.step():
        step_input = rnn.step_input(rnn_input)
        step_mask = rnn.step_input(mask) if mask is not None else None
        for i, unit in enumerate(units):
            pre = [
                rnn.memory(init=boot)
                if boot is not None
                else rnn.memory(batch_ref=rnn_input, shape=[-1, hidden_size], ref_batch_dim_idx=1)
                for boot in boots[i]
            ]
            new = unit(step_input, *pre)
            new = list(new) if isinstance(new, (list, tuple)) else [new]
            if step_mask is not None:
                new = [
                    layers.elementwise_sub(
                        layers.elementwise_mul(n, step_mask, axis=0),
                        layers.elementwise_mul(p, layers.scale(step_mask, 1.0, -1.0), axis=0),
                    )
                    for n, p in zip(new, pre)
                ]
            for p, n in zip(pre, new):
                rnn.update_memory(p, n)
                rnn.step_output(n)
            step_input = new[0]
            if dropout is not None:
                step_input = dropout(step_input)
        rnn.step_output(step_input)
    outs = rnn()
    steps = [[_last_step(outs[i * n_states + k]) for k in range(n_states)] for i in range(len(units))]  # Fluid's order
    lasts = [
        layers.reshape(layers.concat([steps[i][k] for i in range(len(units))], axis=0), [len(units), -1, hidden_size])
        for k in range(n_states)
    ]
    return outs[-1], lasts


def _stacked(input, inits, unit_lists, hidden_size, sequence_length, batch_first, dropout):
    """basic_lstm / basic_gru after their units are made: (rnn_out, [last state per kind])."""
    num_layers, directions = len(unit_lists[0]), len(unit_lists)
    if batch_first:
        input = layers.transpose(input, [1, 0, 2])
    mask = _step_mask(input, sequence_length) if sequence_length is not None else None
    inits = [layers.reshape(s, [num_layers, directions, -1, hidden_size]) if s is not None else None for s in inits]
    out, lasts = _direction(input, unit_lists[0], mask, inits, 0, hidden_size, dropout)
    if directions == 2:
        bw_mask = layers.reverse(mask, axis=[0]) if mask is not None else None
        bw_out, bw_lasts = _direction(
            layers.reverse(input, axis=[0]), unit_lists[1], bw_mask, inits, 1, hidden_size, dropout
        )
        out = layers.concat([out, layers.reverse(bw_out, axis=[0])], axis=2)
        lasts = [
            layers.reshape(layers.concat([f, b], axis=1), [num_layers * 2, -1, hidden_size])
            for f, b in zip(lasts, bw_lasts)
        ]
    if batch_first:
        out = layers.transpose(out, [1, 0, 2])
    return out, lasts


def _dropout(dropout_prob, implementation):
    if dropout_prob is None or dropout_prob <= 0.0:
        return None
    return lambda x: layers.dropout(x, dropout_prob=dropout_prob, dropout_implementation=implementation)


def basic_gru(
    input,
    init_hidden,
    hidden_size,
    num_layers=1,
    sequence_length=None,
    dropout_prob=0.0,
    bidirectional=False,
    batch_first=True,
    param_attr=None,
    bias_attr=None,
    gate_activation=None,
    activation=None,
    dtype="float32",
    name="basic_gru",
):
    """A stacked (optionally bidirectional) GRU of BasicGRUUnits over a padded batch. Returns
    (rnn_out [batch, T, H * directions] (time-major when batch_first=False), last_hidden
    [num_layers * directions, batch, H]); init_hidden None starts from zeros."""
    units = _unit_lists(
        BasicGRUUnit,
        name,
        num_layers,
        bidirectional,
        param_attr,
        bias_attr,
        hidden_size=hidden_size,
        gate_activation=gate_activation,
        activation=activation,
        dtype=dtype,
    )
    out, (last_hidden,) = _stacked(
        input,
        [init_hidden],
        units,
        hidden_size,
        sequence_length,
        batch_first,
        _dropout(dropout_prob, "downgrade_in_infer"),
    )
    return out, last_hidden


def basic_lstm(
    input,
    init_hidden,
    init_cell,
    hidden_size,
    num_layers=1,
    sequence_length=None,
    dropout_prob=0.0,
    bidirectional=False,
    batch_first=True,
    param_attr=None,
    bias_attr=None,
    gate_activation=None,
    activation=None,
    forget_bias=1.0,
    dtype="float32",
    name="basic_lstm",
):
    """A stacked (optionally bidirectional) LSTM of BasicLSTMUnits over a padded batch. Returns
    (rnn_out, last_hidden, last_cell) shaped as basic_gru's; init_hidden / init_cell None start from
    zeros."""
    units = _unit_lists(
        BasicLSTMUnit,
        name,
        num_layers,
        bidirectional,
        param_attr,
        bias_attr,
        hidden_size=hidden_size,
        gate_activation=gate_activation,
        activation=activation,
        forget_bias=forget_bias,
        dtype=dtype,
    )
    out, (last_hidden, last_cell) = _stacked(
        input,
        [init_hidden, init_cell],
        units,
        hidden_size,
        sequence_length,
        batch_first,
        _dropout(dropout_prob, "upscale_in_train"),
    )
    return out, last_hidden, last_cell
