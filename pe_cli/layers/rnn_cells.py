"""Fluid 1.8's cell-based recurrent API, part 1: ``RNNCell`` and its ``GRUCell`` and ``LSTMCell``,
built from matmul, elementwise, split, concat and activation ops (no op of their own); states may
be nested (utils.py walks them).

A cell's parameters are created on its first call and named once, when the cell is built, as
Fluid names them (``GRUCell/BasicGRUUnit_0.w_0``, ``.w_1``, ``.b_0``, ``.b_1``; ``LSTMCell/
BasicLSTMUnit_0.w_0``, ``.b_0``): calling it again, inside a StaticRNN step or in another program (a
training and a decoding program), reuses the same parameters by name."""

import copy

from ..base.errors import ArgumentTypeError, PeError
from ..framework import default_main_program, unique_name
from ..framework.variable import Variable
from ..training.param_attr import ParamAttr
from . import activation as _act
from .creation import fill_constant, fill_constant_batch_size_like
from .helper import LayerHelper
from .elementwise import elementwise_add, elementwise_mul, scale
from .linalg import matmul
from .manipulation import concat, split
from .utils import _items, rebuild, flatten, is_sequence, pack_sequence_as

__all__ = ["RNNCell", "GRUCell", "LSTMCell"]


def _is_shape(x):
    return isinstance(x, (list, tuple)) and all(isinstance(d, int) for d in x)


class _Leaf:
    """A state's shape as one leaf of a structure (a shape is itself a list); -1 leads (the batch)."""

    def __init__(self, shape):
        self.shape = shape if shape and shape[0] == -1 else [-1] + list(shape)


def _shape_leaves(shapes):
    if _is_shape(shapes):
        return _Leaf(list(shapes))
    if not is_sequence(shapes):
        raise PeError(f"RNNCell.get_initial_states: a state shape must be a list of ints, got {shapes!r}")
    return rebuild(shapes, [_shape_leaves(s) for s in _items(shapes)])


# -- cells ----------------------------------------------------------------------------------------------


class ForgetBias:
    """Fluid's BasicLSTMUnit's forget bias: a [1] constant (``fill_constant``) of the global block made
    when the unit is (so it precedes its recurrence's ops and is among its inputs), whose gradient is
    kept, as Fluid's. ``of_program()``: the one of the program being built (a cell called in another
    program, a decoding one, gets its own there)."""

    def __init__(self, dtype, value):
        self.dtype, self.value, self.made = dtype, float(value), {}
        self.of_program()

    def of_program(self):
        program = default_main_program()
        if id(program) not in self.made:
            current, program.current_block_idx = program.current_block_idx, 0
            try:
                var = fill_constant([1], self.dtype, self.value)
            finally:
                program.current_block_idx = current
            var.stop_gradient = False
            self.made[id(program)] = (program, var)
        return self.made[id(program)][1]


def _activation(fn, default, cell):
    if fn is None:
        return getattr(_act, default)
    if isinstance(fn, str):
        if not hasattr(_act, fn):
            raise PeError(f"{cell}: unknown activation {fn!r}")
        return getattr(_act, fn)
    if not callable(fn):
        raise PeError(f"{cell}: an activation is a layer function such as layers.tanh, got {fn!r}")
    return fn


class RNNCell:
    """The base of cells: ``call(inputs, states, **kwargs) -> (outputs, new_states)``; ``states``
    may be a nested structure, and new_states keeps it. ``state_shape`` (without the batch dim) and
    ``state_dtype`` describe the states for ``get_initial_states``."""

    def call(self, inputs, states, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement call(inputs, states)")

    def __call__(self, inputs, states, **kwargs):
        return self.call(inputs, states, **kwargs)

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0, batch_dim_idx=0):
        """States filled with ``init_value``, their batch dim taken from ``batch_ref``'s dim
        ``batch_dim_idx`` (the first leaf of a nested batch_ref); ``shape`` and ``dtype`` default to
        the cell's state_shape and state_dtype (float32 where the cell has none)."""
        ref = flatten(batch_ref)[0]
        if not isinstance(ref, Variable):
            raise PeError(f"{type(self).__name__}.get_initial_states: batch_ref must be a Variable, got {ref!r}")
        shapes = _shape_leaves(self.state_shape if shape is None else shape)
        leaves = flatten(shapes)
        if dtype is None:
            try:
                dtype = self.state_dtype
            except NotImplementedError:
                dtype = "float32"
        dtypes = flatten(dtype)
        dtypes = dtypes * len(leaves) if len(dtypes) == 1 else dtypes
        if len(dtypes) != len(leaves):
            raise PeError(f"{type(self).__name__}.get_initial_states: {len(dtypes)} dtypes for {len(leaves)} states")
        states = [
            fill_constant_batch_size_like(ref, leaf.shape, d, init_value, batch_dim_idx, 0)
            for leaf, d in zip(leaves, dtypes)
        ]
        return pack_sequence_as(shapes, states)

    @property
    def state_shape(self):
        raise NotImplementedError(f"{type(self).__name__} has no state_shape; give get_initial_states shape=")

    @property
    def state_dtype(self):
        raise NotImplementedError(f"{type(self).__name__} has no state_dtype; give get_initial_states dtype=")


class Params:
    """Named-once parameters of a cell: ``get(k, shape, is_bias)`` creates or reuses ``<name>.w_k``;
    a named ParamAttr's k-th parameter is ``<its name><suffixes[k]>`` (Fluid's BasicGRUUnit:
    ``_gate``, ``_candidate``)."""

    def __init__(self, cell, name, param_attr, bias_attr, dtype, suffixes=("",)):
        self.cell, self.prefix = cell, unique_name.generate(name)
        self.param_attr, self.bias_attr, self.dtype, self.suffixes = param_attr, bias_attr, dtype, suffixes

    def get(self, k, shape, is_bias=False):
        attr = copy.copy(ParamAttr._to_attr(self.bias_attr if is_bias else self.param_attr))
        if attr is False or attr is None:
            attr = ParamAttr()
        attr.name = attr.name + self.suffixes[k] if attr.name else f"{self.prefix}.{'b' if is_bias else 'w'}_{k}"
        return LayerHelper(self.cell, name=self.prefix).create_parameter(attr, shape, self.dtype, is_bias=is_bias)


def _check_step(cell, x, states):
    """The step input's size; inputs and states must be float Variables, the input [batch, size]."""
    for what, var in [("inputs", x)] + [(f"states[{i}]", v) for i, v in enumerate(states)]:
        if not isinstance(var, Variable):
            raise ArgumentTypeError(f"{cell}: {what} must be a Variable, got {type(var).__name__}")
        if var.dtype not in ("float32", "float64"):
            raise ArgumentTypeError(f"{cell}: {what} '{var.name}' is {var.dtype}; it must be float32 or float64")
    if len(x.shape or []) != 2 or x.shape[-1] is None or x.shape[-1] < 1:
        raise PeError(
            f"{cell}: the step input must be [batch, input_size] with a known input_size, got '{x.name}' {x.shape}"
        )
    return x.shape[-1]


def _check_dtype(cell, dtype):
    if dtype not in ("float32", "float64"):
        raise ArgumentTypeError(f"{cell}: dtype must be float32 or float64, got {dtype!r}")
    return dtype


class GRUCell(RNNCell):
    """Fluid's GRUCell (BasicGRUUnit): gates r, u = gate_act(concat([x, h]) @ Wg + bg); candidate
    c = act(concat([x, r*h]) @ Wc + bc); h' = u*h + (1-u)*c. Output and new state are both h'."""

    def __init__(
        self,
        hidden_size,
        param_attr=None,
        bias_attr=None,
        gate_activation=None,
        activation=None,
        dtype="float32",
        name="GRUCell",
    ):
        self.hidden_size = int(hidden_size)
        self.gate_activation = _activation(gate_activation, "sigmoid", name)
        self.activation = _activation(activation, "tanh", name)
        self.dtype = _check_dtype("GRUCell", dtype)
        self._params = Params("GRUCell", f"{name}/BasicGRUUnit", param_attr, bias_attr, dtype, ("_gate", "_candidate"))

    def call(self, inputs, states):
        h, size = states, self.hidden_size
        if is_sequence(h):
            raise ArgumentTypeError("GRUCell: its state is one tensor [batch, hidden_size], got a structure")
        n = _check_step("GRUCell", inputs, [h]) + size
        gate_w, cand_w = self._params.get(0, [n, 2 * size]), self._params.get(1, [n, size])
        gate_b, cand_b = self._params.get(0, [2 * size], True), self._params.get(1, [size], True)
        gates = self.gate_activation(elementwise_add(matmul(concat([inputs, h], 1), gate_w), gate_b))
        r, u = split(gates, 2, dim=1)
        cand = matmul(concat([inputs, elementwise_mul(r, h)], 1), cand_w)
        c = self.activation(elementwise_add(cand, cand_b))
        new_h = elementwise_add(elementwise_mul(u, h), elementwise_mul(scale(u, -1.0, 1.0), c))
        return new_h, new_h

    @property
    def state_shape(self):
        return [self.hidden_size]

    @property
    def state_dtype(self):
        return self.dtype


class LSTMCell(RNNCell):
    """Fluid's LSTMCell (BasicLSTMUnit): i, j, f, o = split(concat([x, h]) @ W + b, 4);
    c' = c*gate_act(f + forget_bias) + sigmoid(i)*tanh(j); h' = act(c')*gate_act(o). Output h';
    states [h, c]."""

    def __init__(
        self,
        hidden_size,
        param_attr=None,
        bias_attr=None,
        gate_activation=None,
        activation=None,
        forget_bias=1.0,
        dtype="float32",
        name="LSTMCell",
    ):
        self.hidden_size = int(hidden_size)
        self.gate_activation = _activation(gate_activation, "sigmoid", name)
        self.activation = _activation(activation, "tanh", name)
        self.forget_bias, self.dtype = float(forget_bias), _check_dtype("LSTMCell", dtype)
        self._params = Params("LSTMCell", f"{name}/BasicLSTMUnit", param_attr, bias_attr, dtype)
        self._forget_bias = ForgetBias(self.dtype, self.forget_bias)

    def call(self, inputs, states):
        if not is_sequence(states) or len(states) != 2:
            raise ArgumentTypeError("LSTMCell: its states are [hidden, cell], two [batch, hidden_size] tensors")
        h, c = states
        size = self.hidden_size
        n = _check_step("LSTMCell", inputs, [h, c]) + size
        w, b = self._params.get(0, [n, 4 * size]), self._params.get(0, [4 * size], True)
        gates = elementwise_add(matmul(concat([inputs, h], 1), w), b)
        i, j, f, o = split(gates, 4, dim=-1)
        keep = elementwise_mul(c, self.gate_activation(elementwise_add(f, self._forget_bias.of_program())))
        new_c = elementwise_add(keep, elementwise_mul(_act.sigmoid(i), _act.tanh(j)))
        new_h = elementwise_mul(self.activation(new_c), self.gate_activation(o))
        return new_h, [new_h, new_c]

    @property
    def state_shape(self):
        return [[self.hidden_size], [self.hidden_size]]

    @property
    def state_dtype(self):
        return self.dtype
