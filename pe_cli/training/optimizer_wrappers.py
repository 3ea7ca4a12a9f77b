"""Optimizers that wrap another one and change how its step is scheduled, not what it computes:
``RecomputeOptimizer`` (Fluid's activation recomputation between checkpoints, training/recompute.py)
and ``PipelineOptimizer`` (Fluid's split of a program into sections run by a pipeline of threads).

Both give exactly the wrapped optimizer's updates: the backward runs the forward ops between
checkpoints again, as Fluid's does, and the pipeline's sections (recorded on
``program._pipeline_opt`` as Fluid does) run as one program."""

from .backward import append_backward
from ..framework import Variable, default_startup_program, program_guard

__all__ = ["RecomputeOptimizer", "PipelineOptimizer"]


def _check_inner(owner, optimizer):
    if not hasattr(optimizer, "apply_gradients") or not hasattr(optimizer, "minimize"):
        raise TypeError(f"{owner}: optimizer must be a fluid.optimizer optimizer, got {optimizer!r}")


class RecomputeOptimizer:
    """Fluid's recompute wrapper: ``_set_checkpoints(vars)`` then ``minimize(loss)``: the backward
    runs again the forward ops between checkpoints (Fluid 1.8's op sequence, a ``seed`` op before
    each dropout). The update is the wrapped optimizer's, with the same gradients as without them."""

    def __init__(self, optimizer):
        _check_inner("RecomputeOptimizer", optimizer)
        self._optimizer = optimizer
        self._checkpoints = None
        self._learning_rate = optimizer._learning_rate

    def _set_checkpoints(self, checkpoints):
        self._checkpoints = checkpoints

    def load(self, stat_dict):
        raise NotImplementedError("load function is not supported by Recompute Optimizer for now")

    def apply_gradients(self, params_grads):
        return self._optimizer.apply_gradients(params_grads)

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None):
        self._dtype = loss.dtype
        with program_guard(loss.block.program, startup_program or default_startup_program()):
            parameter_list = parameter_list if parameter_list is not None else self._optimizer._parameter_list
            return append_backward(loss, parameter_list, no_grad_set, callbacks, checkpoints=self._checkpoints)

    def apply_optimize(self, loss, startup_program, params_grads):
        return self._optimizer.apply_optimize(loss, startup_program, params_grads)

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        assert isinstance(loss, Variable), "The loss should be an Variable."
        assert self._checkpoints is not None, "You should call _set_checkpoints first"
        params_grads = self.backward(loss, startup_program, parameter_list, no_grad_set)
        ops = self.apply_optimize(loss, startup_program, params_grads)
        return ops, params_grads


class PipelineOptimizer:
    """Fluid's pipeline wrapper: ``minimize`` appends the wrapped optimizer's backward and update,
    checks the cut points and records Fluid's ``_pipeline_opt`` on the program. Running it (``exe.run``
    or ``train_from_dataset``) runs the sections in order, one batch at a time: the same updates as
    the wrapped optimizer (Fluid's threads overlap sections of successive batches)."""

    def __init__(
        self,
        optimizer,
        cut_list=None,
        place_list=None,
        concurrency_list=None,
        queue_size=30,
        sync_steps=1,
        start_cpu_core_id=0,
    ):
        _check_inner("PipelineOptimizer", optimizer)
        self._optimizer = optimizer
        self._cut_list = cut_list
        self._place_list = place_list
        self._concurrency_list = concurrency_list
        self._queue_size = queue_size
        self._sync_steps = sync_steps
        self._start_cpu_core_id = start_cpu_core_id

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        program = loss.block.program
        cuts = [list(c) if isinstance(c, (list, tuple)) else [c] for c in (self._cut_list or [])]
        for cut in cuts:
            for var in cut:
                name = var if isinstance(var, str) else getattr(var, "name", None)
                if name is None or not program.global_block().has_var(name):
                    raise ValueError(
                        f"PipelineOptimizer: cut_list names {var!r}, which is not a variable of the loss's program"
                    )
        ops, params_grads = self._optimizer.minimize(loss, startup_program, parameter_list, no_grad_set)
        program._pipeline_opt = {
            "trainer": "PipelineTrainer",
            "device_worker": "Section",
            "section_program_list": [],
            "cut_list": cuts,
            "place_list": self._place_list,
            "concurrency_list": self._concurrency_list,
            "queue_size": self._queue_size,
            "start_cpu_core_id": self._start_cpu_core_id,
            "sync_steps": self._sync_steps,
        }
        return ops, params_grads
