"""Fluid 1.8's contrib decoder API: ``TrainingDecoder`` (a DynamicRNN over the target sequences,
the StateCell's states its memories) and ``BeamSearchDecoder`` (a While loop of beam_search steps,
each step's ids, scores and states kept in tensor arrays, then beam_search_decode), built from
pe's DynamicRNN, While, Switch, tensor-array and beam-search layers as Fluid builds them."""

import contextlib

from .... import layers
from ....framework.variable import Variable
from ....layers.helper import LayerHelper
from .state_cell import InitState, StateCell, _DecoderType, in_block

__all__ = ["InitState", "StateCell", "TrainingDecoder", "BeamSearchDecoder"]


class TrainingDecoder:
    """``with decoder.block():`` one step (step_input, state_cell.compute_state,
    state_cell.update_states, output); ``decoder()`` the outputs over the sequences."""

    BEFORE_DECODER, IN_DECODER, AFTER_DECODER = 0, 1, 2

    def __init__(self, state_cell, name=None):
        self._helper = LayerHelper("training_decoder", name=name)
        self._status = TrainingDecoder.BEFORE_DECODER
        self._dynamic_rnn = layers.DynamicRNN()
        self._type = _DecoderType.TRAINING
        self._state_cell = state_cell
        self._state_cell._enter_decoder(self)

    @contextlib.contextmanager
    def block(self):
        if self._status != TrainingDecoder.BEFORE_DECODER:
            raise ValueError("decoder.block() can only be invoked once")
        self._status = TrainingDecoder.IN_DECODER
        with self._dynamic_rnn.block():
            yield
        self._status = TrainingDecoder.AFTER_DECODER
        self._state_cell._leave_decoder(self)

    @property
    def state_cell(self):
        self._assert_in_decoder_block("state_cell")
        return self._state_cell

    @property
    def dynamic_rnn(self):
        return self._dynamic_rnn

    @property
    def type(self):
        return self._type

    def step_input(self, x):
        self._assert_in_decoder_block("step_input")
        return self._dynamic_rnn.step_input(x)

    def static_input(self, x):
        self._assert_in_decoder_block("static_input")
        return self._dynamic_rnn.static_input(x)

    def __call__(self, *args, **kwargs):
        if self._status != TrainingDecoder.AFTER_DECODER:
            raise ValueError("Output of training decoder can only be visited outside the block.")
        return self._dynamic_rnn(*args, **kwargs)

    def output(self, *outputs):
        self._assert_in_decoder_block("output")
        self._dynamic_rnn.output(*outputs)

    def _assert_in_decoder_block(self, method):
        if self._status != TrainingDecoder.IN_DECODER:
            raise ValueError(f"{method} should be invoked inside block of TrainingDecoder object.")


class BeamSearchDecoder:
    """Beam search over at most ``max_len`` steps from ``init_ids`` / ``init_scores`` (LoD [batch,
    1]); ``decode()`` builds Fluid's default step (embedding of the previous ids, the StateCell's
    update, an fc softmax over ``target_dict_dim`` words, topk, beam_search), ``decoder()`` gives
    (ids, scores) from beam_search_decode."""

    BEFORE_BEAM_SEARCH_DECODER, IN_BEAM_SEARCH_DECODER, AFTER_BEAM_SEARCH_DECODER = 0, 1, 2

    def __init__(
        self,
        state_cell,
        init_ids,
        init_scores,
        target_dict_dim,
        word_dim,
        input_var_dict={},  # noqa: B006
        topk_size=50,
        sparse_emb=True,
        max_len=100,
        beam_size=1,
        end_id=1,
        name=None,
    ):
        self._helper = LayerHelper("beam_search_decoder", name=name)
        self._counter = layers.zeros(shape=[1], dtype="int64")
        self._counter.stop_gradient = True
        self._type = _DecoderType.BEAM_SEARCH
        self._max_len = layers.fill_constant(shape=[1], dtype="int64", value=max_len)
        self._cond = layers.less_than(x=self._counter, y=layers.fill_constant(shape=[1], dtype="int64", value=max_len))
        self._while_op = layers.While(self._cond)
        self._state_cell = state_cell
        self._state_cell._enter_decoder(self)
        self._status = BeamSearchDecoder.BEFORE_BEAM_SEARCH_DECODER
        self._zero_idx = layers.fill_constant(shape=[1], value=0, dtype="int64", force_cpu=True)
        self._array_dict, self._array_link = {}, []
        self._ids_array = self._scores_array = None
        self._beam_size, self._end_id = beam_size, end_id
        self._init_ids, self._init_scores = init_ids, init_scores
        self._target_dict_dim, self._topk_size = target_dict_dim, topk_size
        self._sparse_emb, self._word_dim = sparse_emb, word_dim
        self._input_var_dict = input_var_dict

    @contextlib.contextmanager
    def block(self):
        if self._status != BeamSearchDecoder.BEFORE_BEAM_SEARCH_DECODER:
            raise ValueError("block() can only be invoke once.")
        self._status = BeamSearchDecoder.IN_BEAM_SEARCH_DECODER
        with self._while_op.block():
            yield
            with layers.Switch() as switch:
                with switch.case(self._cond):
                    layers.increment(x=self._counter, value=1.0, in_place=True)
                    for value, array in self._array_link:
                        layers.array_write(x=value, i=self._counter, array=array)
                    layers.less_than(x=self._counter, y=self._max_len, cond=self._cond)
        self._status = BeamSearchDecoder.AFTER_BEAM_SEARCH_DECODER
        self._state_cell._leave_decoder(self)

    @property
    def type(self):
        return self._type

    def early_stop(self):
        """Ends the loop after this step (a ``break``)."""
        layers.fill_constant(shape=[1], value=0, dtype="bool", force_cpu=True, out=self._cond)

    def _feeds(self, prev_scores, prev_ids_embedding):
        """(the StateCell's step inputs, the input_var_dict variables to carry to the next step)."""
        feed_dict, update_dict = {}, {}
        for init_var_name, init_var in self._input_var_dict.items():
            if init_var_name not in self.state_cell._inputs:
                raise ValueError("Variable " + init_var_name + " not found in StateCell!\n")
            read_var = self.read_array(init=init_var)
            update_dict[init_var_name] = read_var
            feed_dict[init_var_name] = layers.sequence_expand(read_var, prev_scores)
        for state_str in self._state_cell._state_names:
            self.state_cell.set_state(
                state_str, layers.sequence_expand(self.state_cell.get_state(state_str), prev_scores)
            )
        for input_name in self._state_cell._inputs:
            feed_dict.setdefault(input_name, prev_ids_embedding)
        return feed_dict, update_dict

    def decode(self):
        """Fluid's default step; override for another."""
        with self.block():
            prev_ids = self.read_array(init=self._init_ids, is_ids=True)
            prev_scores = self.read_array(init=self._init_scores, is_scores=True)
            prev_ids_embedding = layers.embedding(
                input=prev_ids,
                size=[self._target_dict_dim, self._word_dim],
                dtype="float32",
                is_sparse=self._sparse_emb,
            )
            feed_dict, update_dict = self._feeds(prev_scores, prev_ids_embedding)
            self.state_cell.compute_state(inputs=feed_dict)
            current_state = layers.lod_reset(x=self.state_cell.out_state(), y=prev_scores)
            scores = layers.fc(input=current_state, size=self._target_dict_dim, act="softmax")
            topk_scores, topk_indices = layers.topk(scores, k=self._topk_size)
            accu_scores = layers.elementwise_add(
                x=layers.log(x=topk_scores), y=layers.reshape(prev_scores, shape=[-1]), axis=0
            )
            selected_ids, selected_scores = layers.beam_search(
                prev_ids, prev_scores, topk_indices, accu_scores, self._beam_size, end_id=1, level=0
            )
            with layers.Switch() as switch:
                with switch.case(layers.is_empty(selected_ids)):
                    self.early_stop()
                with switch.default():
                    self.state_cell.update_states()
                    self.update_array(prev_ids, selected_ids)
                    self.update_array(prev_scores, selected_scores)
                    for update_name, var_to_update in update_dict.items():
                        self.update_array(var_to_update, feed_dict[update_name])

    def read_array(self, init, is_ids=False, is_scores=False):
        """A tensor array started with ``init`` (in the loop's parent block); returns its value at
        the current step."""
        self._assert_in_decoder_block("read_array")
        if is_ids and is_scores:
            raise ValueError("Shouldn't mark current array be ids array andscores array at the same time.")
        if not isinstance(init, Variable):
            raise TypeError("The input argument `init` must be a Variable.")
        with in_block(self._parent_block()):
            array = layers.array_write(init, self._zero_idx)
        if is_ids:
            self._ids_array = array
        elif is_scores:
            self._scores_array = array
        read_value = layers.array_read(array=array, i=self._counter)
        self._array_dict[read_value.name] = array
        return read_value

    def update_array(self, array, value):
        """Writes ``value`` as the next step's value of the array ``array`` was read from."""
        self._assert_in_decoder_block("update_array")
        if not isinstance(array, Variable):
            raise TypeError("The input argument `array` of  must be a Variable.")
        if not isinstance(value, Variable):
            raise TypeError("The input argument `value` of must be a Variable.")
        array = self._array_dict.get(array.name, None)
        if array is None:
            raise ValueError("Please invoke read_array before update_array.")
        self._array_link.append((value, array))

    def __call__(self):
        if self._status != BeamSearchDecoder.AFTER_BEAM_SEARCH_DECODER:
            raise ValueError("Output of BeamSearchDecoder object can only be visited outside the block.")
        return layers.beam_search_decode(
            ids=self._ids_array, scores=self._scores_array, beam_size=self._beam_size, end_id=self._end_id
        )

    @property
    def state_cell(self):
        self._assert_in_decoder_block("state_cell")
        return self._state_cell

    def _parent_block(self):
        program = self._helper.main_program
        parent_block_idx = program.current_block().parent_idx
        if parent_block_idx < 0:
            raise ValueError(f"Invalid block with index {parent_block_idx}.")
        return program.block(parent_block_idx)

    def _assert_in_decoder_block(self, method):
        if self._status != BeamSearchDecoder.IN_BEAM_SEARCH_DECODER:
            raise ValueError(f"{method} should be invoked inside block of BeamSearchDecoder object.")
