"""``paddle.fluid.evaluator`` (deprecated in Fluid 1.x in favour of fluid.metrics): evaluators whose
running totals live in persistable variables of the program. Building one appends the metric's ops
and ops that add each batch's counts to its states; ``eval(executor)`` reads the states and gives
the metric over every batch since ``reset(executor)``."""

import numpy as np

from .. import layers
from ..executor import global_scope
from ..framework import default_main_program
from .metrics import DetectionMAP as _DetectionMAP

__all__ = ["ChunkEvaluator", "EditDistance", "DetectionMAP"]


class Evaluator:
    """The states (persistable int64/float32 [1] variables) and the batch metrics of one evaluator."""

    def __init__(self, name, **kwargs):
        self.states, self.metrics = [], []
        self._name = name
        self._program = default_main_program()

    def _create_state(self, suffix, dtype, shape):
        state = layers.create_global_var(
            shape=shape, value=0, dtype=dtype, persistable=True, name=f"{self._name}_{suffix}_{len(self.states)}"
        )
        self.states.append(state)
        return state

    def _accumulate(self, state, batch_value):
        layers.sums([state, layers.cast(batch_value, state.dtype)], out=state)

    def reset(self, executor, reset_program=None):
        scope = global_scope()
        for state in self.states:
            var = scope.find_var(state.name)
            value = np.zeros(state.shape, dtype=state.dtype)
            if var is None:
                scope.var(state.name).get_tensor().set(value, executor.place)
            else:
                var.get_tensor().set(value, executor.place)

    def _values(self):
        return [np.array(global_scope().find_var(s.name).get_tensor()).reshape(-1)[0] for s in self.states]


class ChunkEvaluator(Evaluator):
    """Chunk precision, recall and F1 (``layers.chunk_eval``) over every batch since ``reset``."""

    def __init__(self, input, label, chunk_scheme, num_chunk_types, excluded_chunk_types=None):
        super().__init__("chunk_eval")
        precision, recall, f1, num_infer, num_label, num_correct = layers.chunk_eval(
            input, label, chunk_scheme, num_chunk_types, excluded_chunk_types
        )
        for suffix, batch in (
            ("num_infer_chunks", num_infer),
            ("num_label_chunks", num_label),
            ("num_correct_chunks", num_correct),
        ):
            self._accumulate(self._create_state(suffix, "int64", [1]), batch)
        self.metrics += [precision, recall, f1]

    def eval(self, executor, eval_program=None):
        num_infer, num_label, num_correct = (float(v) for v in self._values())
        precision = num_correct / num_infer if num_infer else 0.0
        recall = num_correct / num_label if num_label else 0.0
        f1 = 2 * precision * recall / (precision + recall) if num_correct else 0.0
        return (np.array([precision], "float32"), np.array([recall], "float32"), np.array([f1], "float32"))


class EditDistance(Evaluator):
    """The mean edit distance (``layers.edit_distance``) and the share of sequences with a nonzero
    one, over every batch since ``reset``."""

    def __init__(self, input, label, ignored_tokens=None, **kwargs):
        super().__init__("edit_distance", **kwargs)
        distances, seq_num = layers.edit_distance(input, label, ignored_tokens=ignored_tokens)
        errors = layers.reduce_sum(
            layers.cast(layers.greater_than(distances, layers.fill_constant([1], distances.dtype, 0.0)), "int64")
        )
        self._accumulate(self._create_state("total_distance", "float32", [1]), layers.reduce_sum(distances))
        self._accumulate(self._create_state("seq_num", "int64", [1]), seq_num)
        self._accumulate(self._create_state("instance_error", "int64", [1]), errors)
        self.metrics += [distances, seq_num]

    def eval(self, executor, eval_program=None):
        total, seq_num, errors = (float(v) for v in self._values())
        if not seq_num:
            raise ValueError("EditDistance.eval: no sequence was seen since reset")
        return np.array([total / seq_num], "float32"), np.array([errors / seq_num], "float32")


class DetectionMAP(_DetectionMAP):
    """Fluid's evaluator.DetectionMAP: fluid.metrics.DetectionMAP's mAP per batch and accumulated
    (``get_map_var()``, ``reset(executor)``)."""
