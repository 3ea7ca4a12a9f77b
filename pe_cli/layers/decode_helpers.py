"""Fluid 1.8's ``BasicDecoder`` and its helpers for ``dynamic_decode``: a cell whose next input the
helper decides, ``TrainingHelper`` (teacher forcing: the next step of given sequences, finished
at their lengths), ``GreedyEmbeddingHelper`` (the argmax id, embedded; finished at end_token) and
``SampleEmbeddingHelper`` (an id drawn from softmax(logits / temperature))."""

import collections

from ..base.errors import PeError
from ..framework.variable import Variable
from .activation import softmax
from .beam_search import sampling_id
from .logic import equal, less_equal
from .creation import fill_constant_batch_size_like
from .decode import Decoder
from .indexing import argmax
from .elementwise import scale
from .utils import map_structure
from .creation import fill_constant
from .elementwise import elementwise_add
from .indexing import gather
from .manipulation import cast, concat, slice, squeeze, transpose

__all__ = ["DecodeHelper", "TrainingHelper", "GreedyEmbeddingHelper", "SampleEmbeddingHelper", "BasicDecoder"]


class DecodeHelper:
    """The base of BasicDecoder's helpers: ``initialize() -> (initial_inputs, initial_finished)``,
    ``sample(time, outputs, states) -> sample_ids``, ``next_inputs(time, outputs, states,
    sample_ids) -> (finished, next_inputs, next_states)``."""

    def initialize(self):
        raise NotImplementedError(f"{type(self).__name__} must implement initialize()")

    def sample(self, time, outputs, states):
        raise NotImplementedError(f"{type(self).__name__} must implement sample()")

    def next_inputs(self, time, outputs, states, sample_ids):
        raise NotImplementedError(f"{type(self).__name__} must implement next_inputs()")


def _time_major(x):
    return transpose(x, [1, 0] + list(range(2, len(x.shape))))


class TrainingHelper(DecodeHelper):
    """Feeds step t + 1 of ``inputs`` ([batch, time, ...], or [time, batch, ...] with
    ``time_major``; nested allowed) after step t; an entry is finished once ``sequence_length``
    ([batch] ints) steps were decoded. ``sample`` is the argmax of the outputs."""

    def __init__(self, inputs, sequence_length, time_major=False):
        if not isinstance(sequence_length, Variable):
            raise PeError(f"TrainingHelper: sequence_length must be an int Variable [batch], got {sequence_length!r}")
        self.inputs, self.sequence_length, self.time_major = inputs, sequence_length, time_major
        steps = map_structure(lambda x: x if time_major else _time_major(x), inputs)
        # one zero step after the last, so that the step after the end can be read
        self.inputs_ = map_structure(lambda x: concat([x, scale(slice(x, [0], [0], [1]), 0.0)], 0), steps)

    def initialize(self):
        finished = equal(self.sequence_length, fill_constant([1], self.sequence_length.dtype, 0))
        first = map_structure(lambda x: squeeze(slice(x, [0], [0], [1]), [0]), self.inputs_)
        return first, finished

    def sample(self, time, outputs, states):
        return argmax(outputs, axis=-1)

    def next_inputs(self, time, outputs, states, sample_ids):
        next_time = elementwise_add(time, fill_constant([1], time.dtype, 1))
        lengths = (
            self.sequence_length if self.sequence_length.dtype == time.dtype else cast(self.sequence_length, time.dtype)
        )
        finished = less_equal(lengths, next_time)
        next_inputs = map_structure(lambda x: squeeze(gather(x, next_time), [0]), self.inputs_)
        return finished, next_inputs, states


class GreedyEmbeddingHelper(DecodeHelper):
    """Starts from ``start_tokens`` ([batch] int64), feeds ``embedding_fn`` of each step's argmax
    id to the next step; an entry is finished when its id is ``end_token``."""

    def __init__(self, embedding_fn, start_tokens, end_token):
        if not isinstance(start_tokens, Variable):
            raise PeError(
                f"GreedyEmbeddingHelper: start_tokens must be an int64 Variable [batch], got {start_tokens!r}"
            )
        self.embedding_fn, self.start_tokens = embedding_fn, start_tokens
        self.end_token = fill_constant([1], "int64", int(end_token))

    def initialize(self):
        finished = fill_constant_batch_size_like(self.start_tokens, [-1], "bool", 0)
        return self.embedding_fn(self.start_tokens), finished

    def sample(self, time, outputs, states):
        return argmax(outputs, axis=-1)

    def next_inputs(self, time, outputs, states, sample_ids):
        return equal(sample_ids, self.end_token), self.embedding_fn(sample_ids), states


class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """GreedyEmbeddingHelper drawing each id from softmax(outputs / softmax_temperature) (the op
    sampling_id) instead of taking the argmax; ``seed`` fixes the draws."""

    def __init__(self, embedding_fn, start_tokens, end_token, softmax_temperature=None, seed=None):
        super().__init__(embedding_fn, start_tokens, end_token)
        if softmax_temperature is not None and not softmax_temperature > 0:
            raise PeError(f"SampleEmbeddingHelper: softmax_temperature must be > 0, got {softmax_temperature!r}")
        self.softmax_temperature, self.seed = softmax_temperature, seed

    def sample(self, time, outputs, states):
        logits = outputs if self.softmax_temperature is None else scale(outputs, 1.0 / self.softmax_temperature)
        probs = softmax(logits)
        probs.stop_gradient = True
        return sampling_id(probs, seed=self.seed or 0, dtype=self.start_tokens.dtype)


class BasicDecoder(Decoder):
    """A cell (``output_fn`` applied to its outputs) stepped by a DecodeHelper; each step's
    outputs are OutputWrapper(cell_outputs, sample_ids)."""

    OutputWrapper = collections.namedtuple("OutputWrapper", ("cell_outputs", "sample_ids"))

    def __init__(self, cell, helper, output_fn=None):
        if not isinstance(helper, DecodeHelper) and not callable(getattr(helper, "next_inputs", None)):
            raise PeError(f"BasicDecoder: helper must be a DecodeHelper (TrainingHelper, ...), got {helper!r}")
        self.cell, self.helper, self.output_fn = cell, helper, output_fn

    def initialize(self, initial_cell_states):
        inputs, finished = self.helper.initialize()
        return inputs, initial_cell_states, finished

    def step(self, time, inputs, states, **kwargs):
        cell_outputs, cell_states = self.cell(inputs, states, **kwargs)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        sample_ids = self.helper.sample(time=time, outputs=cell_outputs, states=cell_states)
        sample_ids.stop_gradient = True
        finished, next_inputs, next_states = self.helper.next_inputs(
            time=time, outputs=cell_outputs, states=cell_states, sample_ids=sample_ids
        )
        return self.OutputWrapper(cell_outputs, sample_ids), next_states, next_inputs, finished
