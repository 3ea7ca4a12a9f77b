"""The state side of Fluid 1.8's contrib decoder API: ``InitState`` (a hidden state's initial
value) and ``StateCell`` (named step inputs and hidden states, and the user's updater that computes
the new states). Inside a TrainingDecoder a state is a DynamicRNN memory; inside a
BeamSearchDecoder it is a tensor array indexed by a step counter, written in the loop's parent block."""

import contextlib

from .... import layers
from ....framework import unique_name

__all__ = ["InitState", "StateCell"]


class _DecoderType:
    TRAINING = 1
    BEAM_SEARCH = 2


@contextlib.contextmanager
def in_block(block):
    """Appends ops to ``block`` (the loop's parent) while inside the loop's body."""
    program = block.program
    old, program.current_block_idx = program.current_block_idx, block.idx
    try:
        yield
    finally:
        program.current_block_idx = old


class InitState:
    """A hidden state's initial value: ``init``, or a ``shape`` filled with ``value`` whose batch
    size follows ``init_boot``. ``need_reorder``: sort it as the decoder sorts its sequences."""

    def __init__(self, init=None, shape=None, value=0.0, init_boot=None, need_reorder=False, dtype="float32"):
        if init is not None:
            self._init = init
        elif init_boot is None:
            raise ValueError("init_boot must be provided to infer the shape of InitState .\n")
        else:
            self._init = layers.fill_constant_batch_size_like(input=init_boot, value=value, shape=shape, dtype=dtype)
        self._shape, self._value, self._need_reorder, self._dtype = shape, value, need_reorder, dtype

    @property
    def value(self):
        return self._init

    @property
    def need_reorder(self):
        return self._need_reorder


class _MemoryState:
    def __init__(self, state_name, rnn_obj, init_state):
        self._state_name, self._rnn_obj = state_name, rnn_obj
        self._state_mem = rnn_obj.memory(init=init_state.value, need_reorder=init_state.need_reorder)

    def get_state(self):
        return self._state_mem

    def update_state(self, state):
        self._rnn_obj.update_memory(self._state_mem, state)


class _ArrayState:
    def __init__(self, state_name, block, init_state):
        self._state_name = state_name
        with in_block(block):
            self._counter = layers.fill_constant([1], "int64", 0, force_cpu=True)
            self._counter.stop_gradient = True
            self._state_array = layers.array_write(init_state.value, self._counter)

    def get_state(self):
        return layers.array_read(array=self._state_array, i=self._counter)

    def update_state(self, state):
        layers.increment(x=self._counter, value=1, in_place=True)
        layers.array_write(state, array=self._state_array, i=self._counter)


class StateCell:
    """``StateCell(inputs={'x': None}, states={'h': InitState(...)}, out_state='h')``; the
    function given to ``state_updater`` computes new states from ``get_input`` / ``get_state``
    and stores them with ``set_state``."""

    def __init__(self, inputs, states, out_state, name=None):
        self._name = unique_name.generate(name or "state_cell")
        self._cur_states, self._state_names = {}, []
        for state_name, state in states.items():
            if not isinstance(state, InitState):
                raise ValueError("state must be an InitState object.")
            self._cur_states[state_name] = state
            self._state_names.append(state_name)
        self._inputs = inputs
        self._cur_decoder_obj, self._in_decoder, self._switched_decoder = None, False, False
        self._states_holder, self._state_updater = {}, None
        self._out_state = out_state
        if out_state not in self._cur_states:
            raise ValueError("out_state must be one state in states")

    def _enter_decoder(self, decoder_obj):
        if self._in_decoder or self._cur_decoder_obj is not None:
            raise ValueError("StateCell has already entered a decoder.")
        self._in_decoder, self._cur_decoder_obj, self._switched_decoder = True, decoder_obj, False

    def _leave_decoder(self, decoder_obj):
        if not self._in_decoder:
            raise ValueError("StateCell not in decoder, invalid leaving operation.")
        if self._cur_decoder_obj != decoder_obj:
            raise ValueError("Inconsistent decoder object in StateCell.")
        self._in_decoder, self._cur_decoder_obj, self._switched_decoder = False, None, False

    def _holder(self, state_name, state):
        decoder = self._cur_decoder_obj
        if decoder.type == _DecoderType.TRAINING:
            return _MemoryState(state_name, decoder.dynamic_rnn, state)
        if decoder.type == _DecoderType.BEAM_SEARCH:
            return _ArrayState(state_name, decoder._parent_block(), state)
        raise ValueError("Unknown decoder type, only support [TRAINING, BEAM_SEARCH]")

    def _switch_decoder(self):
        if not self._in_decoder:
            raise ValueError("StateCell must be enter a decoder.")
        if self._switched_decoder:
            raise ValueError("StateCell already done switching.")
        key = id(self._cur_decoder_obj)
        for state_name in self._state_names:
            if state_name not in self._states_holder:
                state = self._cur_states[state_name]
                if not isinstance(state, InitState):
                    raise ValueError(f"Current type of state is {type(state)}, should be an InitState object.")
                self._states_holder[state_name] = {key: self._holder(state_name, state)}
            self._cur_states[state_name] = self._states_holder[state_name][key].get_state()
        self._switched_decoder = True

    def get_state(self, state_name):
        if self._in_decoder and not self._switched_decoder:
            self._switch_decoder()
        if state_name not in self._cur_states:
            raise ValueError(f"Unknown state {state_name}. Please make sure _switch_decoder() invoked.")
        return self._cur_states[state_name]

    def get_input(self, input_name):
        if input_name not in self._inputs or self._inputs[input_name] is None:
            raise ValueError(f"Invalid input {input_name}.")
        return self._inputs[input_name]

    def set_state(self, state_name, state_value):
        self._cur_states[state_name] = state_value

    def state_updater(self, updater):
        """Registers ``updater(state_cell)``, run by compute_state (usable as a decorator)."""
        self._state_updater = updater

        def _decorator(state_cell):
            if state_cell == self:
                raise TypeError("Updater should only accept a StateCell object as argument.")
            updater(state_cell)

        return _decorator

    def compute_state(self, inputs):
        """Sets the step inputs (name -> Variable) and runs the updater."""
        if self._in_decoder and not self._switched_decoder:
            self._switch_decoder()
        for input_name, input_value in inputs.items():
            if input_name not in self._inputs:
                raise ValueError(f"Unknown input {input_name}. Please make sure {input_name} in input place holder.")
            self._inputs[input_name] = input_value
        self._state_updater(self)

    def update_states(self):
        """Records the states the updater set as the next step's."""
        if self._in_decoder and not self._switched_decoder:
            self._switch_decoder()
        key = id(self._cur_decoder_obj)
        for state_name, decoder_state in self._states_holder.items():
            if key not in decoder_state:
                raise ValueError("Unknown decoder object, please make sure switch_decoder been invoked.")
            decoder_state[key].update_state(self._cur_states[state_name])

    def out_state(self):
        return self._cur_states[self._out_state]
