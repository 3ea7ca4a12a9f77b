"""Fluid 1.8's decoding API: ``Decoder``, ``BeamSearchDecoder`` (a cell, start and end tokens, a
beam width) and ``dynamic_decode``, which runs ``decoder.step`` in a ``While`` loop until every
entry is finished (or ``max_step_num``), stacking each step's outputs through tensor arrays, then
``decoder.finalize`` (the beams back-traced by ``gather_tree``).

Beams live as [batch, beam, ...] tensors; BeamSearchDecoder picks a beam's rows with a one-hot
[batch, beam, beam] matrix product (Fluid uses gather_nd), and splits top-k's flat indices into
beam and token with float64 division (exact for these sizes; Fluid uses floor_divide and
remainder)."""

import collections

import numpy as np

from ..base.errors import PeError
from ..framework.program_release import user_code
from ..framework.variable import Variable
from .activation import floor
from .control_flow import While, array_read, array_write, create_array, increment, tensor_array_to_tensor
from .creation import fill_constant_batch_size_like
from .logic import equal, greater_than, less_equal, logical_and, logical_not, logical_or
from .helper import LayerHelper
from .indexing import topk
from .utils import flatten, map_structure
from .creation import assign, fill_constant, zeros_like
from .elementwise import elementwise_add, elementwise_div, elementwise_mul, elementwise_sub
from .indexing import one_hot
from .linalg import matmul
from .manipulation import cast, reshape, tiled, transpose, unsqueeze
from .reduction import reduce_sum
from .checks import fluid_checks

__all__ = ["Decoder", "BeamSearchDecoder", "dynamic_decode", "gather_tree"]  # decode_loop: paddle.nn's too


@fluid_checks("gather_tree", ids=("int32", "int64"), parents=("int32", "int64"))
def gather_tree(ids, parents):
    """The full beam-search sequences [max_time, batch, beam] from each step's selected ``ids``
    and their ``parents`` (beam indices), back-traced from the last step."""
    for what, var in (("ids", ids), ("parents", parents)):
        if not isinstance(var, Variable):
            raise PeError(f"gather_tree: {what} must be a Variable [max_time, batch, beam], got {type(var).__name__}")
    helper = LayerHelper("gather_tree")
    out = helper.create_variable_for_type_inference(ids.dtype, stop_gradient=True)
    helper.append_op("gather_tree", {"Ids": [ids], "Parents": [parents]}, {"Out": [out]})
    return out


class Decoder:
    """The base of decoders for ``dynamic_decode``: ``initialize(inits) -> (inputs, states,
    finished)``, ``step(time, inputs, states, **kwargs) -> (outputs, next_states, next_inputs,
    finished)``, and optionally ``finalize(outputs, final_states, sequence_lengths)``."""

    def initialize(self, inits):
        raise NotImplementedError(f"{type(self).__name__} must implement initialize()")

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement step()")

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError(f"{type(self).__name__} must implement finalize()")

    @property
    def tracks_own_finished(self):
        return False


def _as_float(x):
    return x if x.dtype in ("float32", "float64") else cast(x, "float64" if x.dtype == "int64" else "float32")


class BeamSearchDecoder(Decoder):
    """Beam search over a cell: each step scores every (beam, token) by its accumulated log
    probability, keeps the ``beam_size`` best per batch entry, and feeds the chosen tokens (through
    ``embedding_fn``) to the next step; a beam that chose ``end_token`` keeps choosing it at no cost.
    Tensors the cell reads besides its inputs and states (an encoder's outputs) must be tiled to
    [batch * beam, ...] first: ``BeamSearchDecoder.tile_beam_merge_with_batch``."""

    OutputWrapper = collections.namedtuple("OutputWrapper", ("scores", "predicted_ids", "parent_ids"))
    StateWrapper = collections.namedtuple("StateWrapper", ("cell_states", "log_probs", "finished", "lengths"))

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None, output_fn=None):
        if not isinstance(beam_size, int) or isinstance(beam_size, bool) or beam_size < 1:
            raise PeError(f"BeamSearchDecoder: beam_size must be an int >= 1, got {beam_size!r}")
        self.cell, self.embedding_fn, self.output_fn = cell, embedding_fn, output_fn
        self.start_token, self.end_token, self.beam_size = int(start_token), int(end_token), beam_size
        self.kinf = 1e9

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """[batch, ...] -> [batch * beam_size, ...], each entry repeated beam_size times in a row."""
        if not isinstance(x, Variable):
            raise PeError(f"BeamSearchDecoder.tile_beam_merge_with_batch: x must be a Variable, got {x!r}")
        beams = tiled(unsqueeze(x, [1]), [1, beam_size] + [1] * (len(x.shape) - 1))  # [batch, beam, ...]
        rank = len(beams.shape)
        beams = transpose(beams, list(range(2, rank)) + [0, 1])  # [..., batch, beam]: the rest first,
        beams = reshape(beams, [0] * (rank - 2) + [-1])  # so that 0 keeps an unknown dim
        return transpose(beams, [rank - 2] + list(range(rank - 2)))

    def _split_batch_beams(self, x):
        return reshape(x, [-1, self.beam_size] + list(x.shape[1:]))

    def _merge_batch_beams(self, x):
        return reshape(x, [-1] + list(x.shape[2:]))

    def _expand_to_beam_size(self, x):
        return tiled(unsqueeze(x, [1]), [1, self.beam_size] + [1] * (len(x.shape) - 1))

    def _scores(self, logits, beam_state):
        """Every (beam, word)'s score, [batch, beam, vocab]: the beam's score plus the word's
        log-probability; a finished beam puts all its mass on end_token. Fluid's log(softmax),
        mask (a tile, two products and a difference) and add, as one ``beam_log_probs`` op with
        the same values: one pass over the vocabulary on float32 (the bench's beam row, [64, 4,
        10,000]: 6.7 ms a step as log_softmax, where and add; 3.4 as one)."""
        noend = np.full(logits.shape[-1], -self.kinf, "float32")
        noend[self.end_token] = 0.0
        noend = assign(noend)
        noend = noend if logits.dtype == "float32" else cast(noend, logits.dtype)
        pre = (
            beam_state.log_probs
            if beam_state.log_probs.dtype == logits.dtype
            else cast(beam_state.log_probs, logits.dtype)
        )
        helper = LayerHelper("beam_log_probs")
        out = helper.create_variable_for_type_inference(logits.dtype, stop_gradient=True)
        helper.append_op(
            "beam_log_probs",
            {"Logits": [logits], "Finished": [beam_state.finished], "NoEnd": [noend], "PreScores": [pre]},
            {"Out": [out]},
            {},
        )
        return out

    def _gather(self, x, indices):
        """x[b, indices[b, k], ...] for x [batch, beam, ...]: a one-hot [batch, beam, beam] product."""
        value = _as_float(x)
        pick = one_hot(unsqueeze(indices, [2]), self.beam_size)
        pick = pick if value.dtype == "float32" else cast(pick, value.dtype)
        rows = value if len(x.shape) == 3 else reshape(value, [0, self.beam_size, -1])
        out = matmul(pick, rows)
        out = out if len(x.shape) == 3 else reshape(out, [-1, self.beam_size] + list(x.shape[2:]))
        out = out if out.dtype == x.dtype else cast(out, x.dtype)
        out.stop_gradient = x.stop_gradient
        return out

    def initialize(self, initial_cell_states):
        state = flatten(initial_cell_states)[0]
        init_cell_states = map_structure(self._expand_to_beam_size, initial_cell_states)
        init_inputs = fill_constant_batch_size_like(state, [-1, self.beam_size], "int64", self.start_token)
        start = np.array([0.0] + [-self.kinf] * (self.beam_size - 1), "float32")
        log_probs = elementwise_add(
            fill_constant_batch_size_like(state, [-1, self.beam_size], "float32", 0.0), assign(start)
        )
        finished = fill_constant_batch_size_like(state, [-1, self.beam_size], "bool", 0)
        lengths = zeros_like(init_inputs)
        if self.embedding_fn is not None:
            init_inputs = self.embedding_fn(init_inputs)
        return init_inputs, self.StateWrapper(init_cell_states, log_probs, finished, lengths), finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        vocab, k = logits.shape[-1], self.beam_size
        if vocab is None or vocab < 1:
            raise PeError(
                f"BeamSearchDecoder: the logits' last dimension (the vocabulary) must be known, got {logits.shape}"
            )
        log_probs = self._scores(logits, beam_state)
        scores, flat_idx = topk(reshape(log_probs, [-1, k * vocab]), k)
        flat = cast(flat_idx, "float64")
        vocab_t = fill_constant([1], "float64", float(vocab))
        beam = floor(elementwise_div(flat, vocab_t))
        token = cast(elementwise_sub(flat, elementwise_mul(beam, vocab_t)), "int64")
        beam = cast(beam, "int64")
        next_cell_states = map_structure(lambda x: self._gather(x, beam), next_cell_states)
        next_finished = self._gather(beam_state.finished, beam)
        next_lengths = elementwise_add(
            self._gather(beam_state.lengths, beam), cast(logical_not(next_finished), beam_state.lengths.dtype)
        )
        end = fill_constant([1], "int64", self.end_token)
        next_finished = logical_or(next_finished, equal(token, end))
        output = self.OutputWrapper(scores, token, beam)
        return output, self.StateWrapper(next_cell_states, scores, next_finished, next_lengths)

    def step(self, time, inputs, states, **kwargs):
        inputs = map_structure(self._merge_batch_beams, inputs)
        cell_states = map_structure(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = map_structure(self._split_batch_beams, cell_outputs)
        next_cell_states = map_structure(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        sample_ids = output.predicted_ids
        sample_ids.stop_gradient = True
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn is not None else sample_ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """(the back-traced token ids [time, batch, beam], final_states)."""
        return gather_tree(outputs.predicted_ids, outputs.parent_ids), final_states

    @property
    def tracks_own_finished(self):
        return True


def _not_all(finished, out=None):
    """A bool [1] (``out`` when given): whether some entry of ``finished`` is False."""
    unfinished = reduce_sum(cast(logical_not(finished), "float32"))
    return greater_than(unfinished, fill_constant([1], "float32", 0.0), cond=out)


def _maybe_copy(state, new_state, finished):
    """The old state where the entry is finished, else the new one (bool states through float)."""
    dtype = state.dtype
    old, new = _as_float(state), _as_float(new_state)
    mask = cast(finished, old.dtype)
    out = elementwise_add(new, elementwise_mul(elementwise_sub(old, new), mask, axis=0))
    return out if dtype == out.dtype else cast(out, dtype)


def _array_in(program, dtype):
    """A tensor array created in the enclosing block of the one being built."""
    block = program.current_block_idx
    program.current_block_idx = program.current_block().parent_idx
    try:
        return create_array(dtype)
    finally:
        program.current_block_idx = block


def _check_decode(decoder, max_step_num):
    if not isinstance(decoder, Decoder) and not callable(getattr(decoder, "step", None)):
        raise PeError(
            f"dynamic_decode: decoder must be a Decoder (BeamSearchDecoder, ...), got {type(decoder).__name__}"
        )
    if max_step_num is not None and (not isinstance(max_step_num, int) or max_step_num < 0):
        raise PeError(f"dynamic_decode: max_step_num must be an int >= 0 or None, got {max_step_num!r}")


def _users(method, *args, **kwargs):
    """A decoder's method (the user's code): the faces its calls enter say which reductions they build,
    not paddle.nn.dynamic_decode's (framework/program_release.user_code)."""
    with user_code():
        return method(*args, **kwargs)


def _step(decoder, step_idx, inputs, states, finished, lengths, impute_finished, own_finished, kwargs):
    """One decoding step, with dynamic_decode's own tracking of finished entries and their lengths
    (per slot: Fluid 1.8.5's for every decoder; Paddle 2.x's for those that do not track them)."""
    outputs, next_states, next_inputs, next_finished = _users(decoder.step, step_idx, inputs, states, **kwargs)
    if own_finished and decoder.tracks_own_finished:
        return outputs, next_states, next_inputs, next_finished, getattr(next_states, "lengths", lengths)
    next_finished = logical_or(next_finished, finished)
    next_lengths = elementwise_add(lengths, cast(logical_not(finished), "int64"))
    if impute_finished:
        next_states = map_structure(lambda x, y: _maybe_copy(x, y, finished), states, next_states)
    return outputs, next_states, next_inputs, next_finished, next_lengths


def _time_major(x):
    return transpose(x, [1, 0] + list(range(2, len(x.shape))))


def dynamic_decode(
    decoder,
    inits=None,
    max_step_num=None,
    output_time_major=False,
    impute_finished=False,
    is_test=False,
    return_length=False,
    **kwargs,
):
    """Runs ``decoder.step`` in a While loop from ``decoder.initialize(inits)`` until every entry
    is finished, or after step ``max_step_num`` (from 0). Returns (final_outputs, final_states[,
    sequence_lengths]): the steps' outputs stacked ([batch, time, ...]; [time, batch, ...] with
    ``output_time_major``), through ``decoder.finalize``. ``impute_finished``: finished entries keep
    their states; ``is_test``: no tensor arrays of every step's inputs and states (training needs them).
    As Fluid 1.8.5's: a step's finished flags are ORed with the last step's per slot, and the lengths
    counted per slot, for a BeamSearchDecoder too (whose beams change slots: docs/COMPAT.md);
    paddle.nn.dynamic_decode leaves both to a decoder that tracks its own (Paddle 2.x's)."""
    return decode_loop(
        decoder, inits, max_step_num, output_time_major, impute_finished, is_test, return_length, False, kwargs
    )


def decode_loop(
    decoder, inits, max_step_num, output_time_major, impute_finished, is_test, return_length, own_finished, kwargs
):
    """dynamic_decode's loop; ``own_finished``: a decoder's ``tracks_own_finished`` is honoured."""
    _check_decode(decoder, max_step_num)
    program = LayerHelper("dynamic_decode").main_program
    initial_inputs, initial_states, initial_finished = _users(decoder.initialize, inits)
    global_inputs, global_states, global_finished = initial_inputs, initial_states, initial_finished
    global_finished.stop_gradient = True
    step_idx = fill_constant([1], "int64", 0)
    cond = _not_all(initial_finished)
    max_step = fill_constant([1], "int64", max_step_num) if max_step_num is not None else None
    loop = While(cond, is_test=is_test)
    sequence_lengths = cast(zeros_like(cast(initial_finished, "int64")), "int64")
    sequence_lengths.stop_gradient = True
    if is_test:
        inputs = map_structure(lambda x: x, initial_inputs)
        states = map_structure(lambda x: x, initial_states)
    else:
        inputs_arrays = map_structure(lambda x: array_write(x, step_idx), initial_inputs)
        states_arrays = map_structure(lambda x: array_write(x, step_idx), initial_states)
    with loop.block():
        if not is_test:
            inputs = map_structure(lambda a: array_read(a, step_idx), inputs_arrays)
            states = map_structure(lambda a: array_read(a, step_idx), states_arrays)
        outputs, next_states, next_inputs, next_finished, next_lengths = _step(
            decoder, step_idx, inputs, states, global_finished, sequence_lengths, impute_finished, own_finished, kwargs
        )
        outputs_arrays = map_structure(lambda x: _array_in(program, x.dtype), outputs)
        map_structure(lambda x, a: array_write(x, step_idx, array=a), outputs, outputs_arrays)
        increment(step_idx, 1.0, in_place=True)
        if is_test:
            map_structure(lambda x, g: assign(x, g), next_inputs, global_inputs)
            map_structure(lambda x, g: assign(x, g), next_states, global_states)
        else:
            map_structure(lambda x, a: array_write(x, step_idx, array=a), next_inputs, inputs_arrays)
            map_structure(lambda x, a: array_write(x, step_idx, array=a), next_states, states_arrays)
        # after the states, as Fluid's: where they hold the finished flags' variable (a BeamSearchDecoder's
        # initialize gives it as both), the next step reads these (Fluid 1.8.5's: ORed per slot)
        assign(next_finished, global_finished)
        assign(next_lengths, sequence_lengths)
        if max_step is not None:
            logical_and(_not_all(global_finished), less_equal(step_idx, max_step), out=cond)
        else:
            _not_all(global_finished, out=cond)
    final_outputs = map_structure(lambda a: tensor_array_to_tensor(a, axis=0, use_stack=True)[0], outputs_arrays)
    if is_test:
        final_states = global_states
    else:
        final_states = map_structure(lambda a: array_read(a, step_idx), states_arrays)
    try:
        final_outputs, final_states = _users(decoder.finalize, final_outputs, final_states, sequence_lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        final_outputs = map_structure(_time_major, final_outputs)
    if return_length:
        return final_outputs, final_states, sequence_lengths
    return final_outputs, final_states
