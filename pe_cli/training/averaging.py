"""Fluid 1.x's ``ModelAverage``: the average of each parameter over a sliding window of recent
updates, applied for evaluation and restored afterwards.

Built after the training optimizer's ``minimize``: for every parameter of the default main program
whose ``ParamAttr.do_model_average`` is not False, one ``average_accumulates`` op (Fluid's op; the
window arithmetic is in its doc, pe_cli/ops/optimizer.py) is appended to the main program, keeping
sum_1, sum_2, sum_3, num_accumulates, old_num_accumulates and num_updates as persistable state
(so they are checkpointed with the optimizer's). ``with model_average.apply(exe):`` backs each
parameter up and sets it to (sum_1 + sum_2 + sum_3) / (num_accumulates + old_num_accumulates);
``restore(exe)`` puts the trained values back."""
import contextlib

from . import layers
from .framework import Program, default_main_program, program_guard, unique_name
from .optimizer import _check_number, _persistable_var
from .errors import PeError

__all__ = ["ModelAverage"]

_SUMS = ("sum_1", "sum_2", "sum_3")
_COUNTS = ("num_accumulates", "old_num_accumulates", "num_updates")


def _window(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PeError(f"ModelAverage: {name} must be a non-negative integer, got {value!r}")
    return value


class ModelAverage:
    """``ModelAverage(average_window_rate, min_average_window=10000, max_average_window=10000,
    regularization=None, name=None)``: the window ends (and restarts) once it holds at least
    ``min_average_window`` updates and at least min(``max_average_window``, updates so far *
    ``average_window_rate``); the average covers the previous window and the current one."""

    def __init__(self, average_window_rate, min_average_window=10000, max_average_window=10000,
                 regularization=None, name=None):
        self.average_window = _check_number("ModelAverage", "average_window_rate", average_window_rate, lo=0.0)
        self.min_average_window = _window("min_average_window", min_average_window)
        self.max_average_window = _window("max_average_window", max_average_window)
        if self.min_average_window > self.max_average_window:
            raise PeError(f"ModelAverage: min_average_window {min_average_window} exceeds max_average_window "
                          f"{max_average_window}")
        self.regularization, self._name = regularization, name or ""
        main = default_main_program()
        params = [p for p in main.global_block().all_parameters() if p.do_model_average is not False]
        self._entries = []   # (param, {state: var}, backup name)
        for p in params:
            state = self._accumulate(main, p)
            self._entries.append((p, state, unique_name.generate(f"{p.name}.tmp")))
        self.apply_program, self.restore_program = self._programs()

    def _accumulate(self, main, param):
        prefix = f"{self._name}_" if self._name else ""
        state = {}
        for s in _SUMS:
            state[s] = _persistable_var(main, unique_name.generate(f"{param.name}_{prefix}{s}"), list(param.shape),
                                        param.dtype, 0.0)
        for s in _COUNTS:
            state[s] = _persistable_var(main, unique_name.generate(f"{param.name}_{prefix}{s}"), [1], "int64", 0)
        with main._optimized_guard():
            main.global_block().append_op(
                "average_accumulates", {"param": [param], **{f"in_{s}": [v] for s, v in state.items()}},
                {f"out_{s}": [v] for s, v in state.items()},
                {"average_window": float(self.average_window), "min_average_window": self.min_average_window,
                 "max_average_window": self.max_average_window})
        return state

    def _programs(self):
        apply_program, restore_program = Program(), Program()
        with program_guard(apply_program):
            block = apply_program.global_block()
            for param, state, backup in self._entries:
                p = _declare(block, param.name, param.shape, param.dtype)
                layers.assign(p, _declare(block, backup, param.shape, param.dtype))
                v = {s: _declare(block, var.name, var.shape, var.dtype) for s, var in state.items()}
                total = layers.elementwise_add(layers.elementwise_add(v["sum_1"], v["sum_2"]), v["sum_3"])
                count = layers.elementwise_add(v["num_accumulates"], v["old_num_accumulates"])
                layers.assign(layers.elementwise_div(layers.cast(total, param.dtype), layers.cast(count, param.dtype)), p)
        with program_guard(restore_program):
            block = restore_program.global_block()
            for param, _, backup in self._entries:
                layers.assign(_declare(block, backup, param.shape, param.dtype),
                              _declare(block, param.name, param.shape, param.dtype))
        return apply_program, restore_program

    @contextlib.contextmanager
    def apply(self, executor, need_restore=True):
        """Sets every averaged parameter to its average (backing the trained value up); restores
        the trained values on leaving when ``need_restore``."""
        executor.run(self.apply_program)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor):
        """Puts back the parameter values ``apply`` backed up."""
        executor.run(self.restore_program)


def _declare(block, name, shape, dtype):
    """A persistable variable ``name`` in ``block`` (the scope holds one value for every program)."""
    return block.create_var(name=name, shape=shape, dtype=dtype, persistable=True)
