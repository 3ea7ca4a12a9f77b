"""Weight averaging: Fluid 1.x's ``ModelAverage``, ``ExponentialMovingAverage`` and
``LookaheadOptimizer``, each keeping a second copy of the parameters beside the optimizer's.

``ModelAverage``: the average of each parameter over a sliding window of recent
updates, applied for evaluation and restored afterwards.

Built after the training optimizer's ``minimize``: for every parameter of the default main program
whose ``ParamAttr.do_model_average`` is not False, one ``average_accumulates`` op (Fluid's op; the
window arithmetic is in its doc, pe_cli/ops/optimizer.py) is appended to the main program, keeping
sum_1, sum_2, sum_3, num_accumulates, old_num_accumulates and num_updates as persistable state
(so they are checkpointed with the optimizer's). ``with model_average.apply(exe):`` backs each
parameter up and sets it to (sum_1 + sum_2 + sum_3) / (num_accumulates + old_num_accumulates);
``restore(exe)`` puts the trained values back."""

import contextlib

from ..framework import Program, default_main_program, program_guard, unique_name
from . import tensor_ops as T
from .optimizer_base import check_number, persistable_var
from ..base.errors import PeError

__all__ = ["ModelAverage", "ExponentialMovingAverage", "LookaheadOptimizer"]

_SUMS = ("sum_1", "sum_2", "sum_3")
_COUNTS = ("num_accumulates", "old_num_accumulates", "num_updates")


def _window(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PeError(f"ModelAverage: {name} must be a non-negative integer, got {value!r}")
    return value


class _Applied:
    """What ModelAverage and ExponentialMovingAverage share: running their ``apply_program`` and
    ``restore_program``."""

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


class ModelAverage(_Applied):
    """``ModelAverage(average_window_rate, min_average_window=10000, max_average_window=10000,
    regularization=None, name=None)``: the window ends (and restarts) once it holds at least
    ``min_average_window`` updates and at least min(``max_average_window``, updates so far *
    ``average_window_rate``); the average covers the previous window and the current one."""

    def __init__(
        self, average_window_rate, min_average_window=10000, max_average_window=10000, regularization=None, name=None
    ):
        self.average_window = check_number("ModelAverage", "average_window_rate", average_window_rate, lo=0.0)
        self.min_average_window = _window("min_average_window", min_average_window)
        self.max_average_window = _window("max_average_window", max_average_window)
        if self.min_average_window > self.max_average_window:
            raise PeError(
                f"ModelAverage: min_average_window {min_average_window} exceeds max_average_window {max_average_window}"
            )
        self.regularization, self._name = regularization, name or ""
        main = default_main_program()
        params = [p for p in main.global_block().all_parameters() if p.do_model_average is not False]
        self._entries = []  # (param, {state: var}, backup name)
        for p in params:
            state = self._accumulate(main, p)
            self._entries.append((p, state, unique_name.generate(f"{p.name}.tmp")))
        self.apply_program, self.restore_program = self._programs()

    def _accumulate(self, main, param):
        prefix = f"{self._name}_" if self._name else ""
        state = {}
        for s in _SUMS:
            state[s] = persistable_var(
                main, unique_name.generate(f"{param.name}_{prefix}{s}"), list(param.shape), param.dtype, 0.0
            )
        for s in _COUNTS:
            state[s] = persistable_var(main, unique_name.generate(f"{param.name}_{prefix}{s}"), [1], "int64", 0)
        with main._optimized_guard():
            main.global_block().append_op(
                "average_accumulates",
                {"param": [param], **{f"in_{s}": [v] for s, v in state.items()}},
                {f"out_{s}": [v] for s, v in state.items()},
                {
                    "average_window": float(self.average_window),
                    "min_average_window": self.min_average_window,
                    "max_average_window": self.max_average_window,
                },
            )
        return state

    def _programs(self):
        apply_program, restore_program = Program(), Program()
        with program_guard(apply_program):
            block = apply_program.global_block()
            for param, state, backup in self._entries:
                p = _declare(block, param.name, param.shape, param.dtype)
                T.assign(p, _declare(block, backup, param.shape, param.dtype))
                v = {s: _declare(block, var.name, var.shape, var.dtype) for s, var in state.items()}
                total = T.add(T.add(v["sum_1"], v["sum_2"]), v["sum_3"])
                count = T.add(v["num_accumulates"], v["old_num_accumulates"])
                T.assign(T.div(T.cast(total, param.dtype), T.cast(count, param.dtype)), p)
        with program_guard(restore_program):
            block = restore_program.global_block()
            for param, _, backup in self._entries:
                T.assign(
                    _declare(block, backup, param.shape, param.dtype),
                    _declare(block, param.name, param.shape, param.dtype),
                )
        return apply_program, restore_program


def _declare(block, name, shape, dtype):
    """A persistable variable ``name`` in ``block`` (the scope holds one value for every program)."""
    return block.create_var(name=name, shape=shape, dtype=dtype, persistable=True)


class ExponentialMovingAverage(_Applied):
    """Fluid's EMA of the parameters: ``update()`` appends, to the main program, ema = decay * ema +
    (1 - decay) * param for every parameter (``do_model_average`` not False) and a step counter;
    ``with ema.apply(exe):`` sets each parameter to ema / (1 - decay^step) (ema itself before the
    first step) and ``restore(exe)`` puts the trained values back. With ``thres_steps`` (a Variable)
    the decay is min(decay, (1 + thres_steps) / (10 + thres_steps))."""

    def __init__(self, decay=0.999, thres_steps=None, name=None):
        self._decay = decay
        self._name = name or ""
        main = default_main_program()
        params = [p for p in main.global_block().all_parameters() if p.do_model_average is not False]
        self._step = T.global_var([1], 0.0, "float32", unique_name.generate(f"{self._name}@EMA_STEP_COUNTER@"))
        self._decay_var = self._decay_of(main, thres_steps)
        self._entries = []  # (param, ema, backup)
        for p in params:
            ema = T.global_var(list(p.shape), 0.0, p.dtype, unique_name.generate(f"{self._name}{p.name}.ema"))
            # the backup lives only in the apply/restore programs: the main program's persistables
            # (what save_persistables and fluid.save write) stay those training computes
            backup = _Backup(unique_name.generate(f"{self._name}{p.name}.ema_tmp"), p.shape, p.dtype)
            self._entries.append((p, ema, backup))
        self.apply_program, self.restore_program = self._apply_programs()

    def _decay_of(self, main, thres_steps):
        with main._lr_schedule_guard():
            decay = T.global_var([1], float(self._decay), "float32", unique_name.generate("scheduled_ema_decay_rate"))
            if thres_steps is not None:
                steps = T.cast(thres_steps, "float32")
                ramp = T.div(T.scale(steps, bias=1.0), T.scale(steps, bias=10.0))
                T.assign(T.minimum(ramp, T.fill_constant([1], "float32", self._decay)), decay)
        return decay

    def _apply_programs(self):
        apply_program, restore_program = Program(), Program()
        with program_guard(apply_program):
            block = apply_program.global_block()
            step, decay = _same_var(block, self._step), _same_var(block, self._decay_var)
            # 1 - decay^step, kept from 0 so that before the first step ema (all zeros) is used as is
            correction = T.maximum(
                T.scale(T.power(decay, step), scale=-1.0, bias=1.0), T.fill_constant([1], "float32", 1e-30)
            )
            for param, ema, backup in self._entries:
                param, ema, backup = (_same_var(block, v) for v in (param, ema, backup))
                T.assign(param, backup)
                T.assign(T.div(ema, T.cast(correction, param.dtype)), param)
        with program_guard(restore_program):
            block = restore_program.global_block()
            for param, _, backup in self._entries:
                T.assign(_same_var(block, backup), _same_var(block, param))
        return apply_program, restore_program

    def update(self):
        """Appends the moving-average updates (and the step count) to the main program."""
        main = default_main_program()
        with main._optimized_guard():
            block = main.global_block()
            block.append_op("increment", {"X": [self._step]}, {"Out": [self._step]}, {"step": 1.0})
            for param, ema, _ in self._entries:
                decay = T.cast(self._decay_var, param.dtype)
                kept = T.mul(ema, decay)
                added = T.mul(param, T.scale(decay, scale=-1.0, bias=1.0))
                T.assign(T.add(kept, added), ema)


class LookaheadOptimizer:
    """Lookahead (Fluid 1.8): ``inner_optimizer`` updates the fast weights every step; after the
    first step the slow weights take the fast ones, and every ``k`` steps slow = alpha * fast +
    (1 - alpha) * slow and fast = slow."""

    def __init__(self, inner_optimizer, alpha=0.5, k=5):
        if not hasattr(inner_optimizer, "minimize"):
            raise TypeError(f"LookaheadOptimizer: inner_optimizer must be an optimizer, got {inner_optimizer!r}")
        self.inner_optimizer = inner_optimizer
        self.alpha = check_number("LookaheadOptimizer", "alpha", alpha, lo=0.0, hi=1.0)
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise PeError(f"LookaheadOptimizer: k must be a positive integer, got {k!r}")
        self.k = k
        self.type = "lookahead"

    def minimize(self, loss, startup_program=None):
        ops, params_grads = self.inner_optimizer.minimize(loss, startup_program=startup_program)
        main = loss.block.program
        with main._optimized_guard():
            step = _counter("lookahead_step")  # 1, 2, 3, ... after this step's increment
            phase = _counter("lookahead_phase")  # 1..k, back to 0 after each k-th step
            first = _clip01(T.scale(step, scale=-1.0, bias=2.0))  # 1 on the first step
            sync = _clip01(T.scale(phase, bias=1.0 - self.k))  # 1 on every k-th step
            T.assign(T.mul(phase, T.scale(sync, scale=-1.0, bias=1.0)), phase)
            for param, _ in params_grads:
                slow = T.global_var(list(param.shape), 0.0, param.dtype, unique_name.generate(f"{param.name}@SLOW"))
                first_t, sync_t = T.cast(first, param.dtype), T.cast(sync, param.dtype)
                slow_now = _blend(param, slow, first_t)
                mixed = T.add(T.scale(param, scale=self.alpha), T.scale(slow_now, scale=1.0 - self.alpha))
                T.assign(_blend(mixed, slow_now, sync_t), slow)
                T.assign(_blend(mixed, param, sync_t), param)
        return ops, params_grads


def _counter(name):
    """A persistable float32 [1] counter, 0 at start, that the main program increments by one."""
    var = T.global_var([1], 0.0, "float32", unique_name.generate(name))
    var.block.append_op("increment", {"X": [var]}, {"Out": [var]}, {"step": 1.0})
    return var


def _clip01(x):
    """min(max(x, 0), 1) for a float32 [1] x."""
    zero, one = T.fill_constant([1], "float32", 0.0), T.fill_constant([1], "float32", 1.0)
    return T.minimum(T.maximum(x, zero), one)


def _blend(a, b, w):
    """w * a + (1 - w) * b for a [1] weight w of 0 or 1."""
    return T.add(T.mul(a, w), T.mul(b, T.scale(w, scale=-1.0, bias=1.0)))


class _Backup:
    """A parameter's backup during apply(): a name, shape and dtype, declared in the apply and
    restore programs only."""

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, shape, dtype


def _same_var(block, var):
    """The persistable variable ``var`` declared in another program's ``block`` (same name: the
    scope holds one value for both)."""
    return block.create_var(name=var.name, shape=var.shape, dtype=var.dtype, persistable=True)
