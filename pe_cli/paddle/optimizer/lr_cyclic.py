"""Paddle 2.x's schedulers that rise and fall or react to a metric: ``OneCycleLR``, ``CyclicLR``,
``LinearLR``, ``CosineAnnealingWarmRestarts`` and ``ReduceOnPlateau`` (Paddle 2.6's formulas; the
base class is lr_scheduler.py's)."""

import math
import numbers

import numpy as np

from .lr_scheduler import LRScheduler

__all__ = ["ReduceOnPlateau", "OneCycleLR", "CyclicLR", "LinearLR", "CosineAnnealingWarmRestarts"]


class ReduceOnPlateau(LRScheduler):
    """lr * factor (not below min_lr) once ``metrics`` given to ``step(metrics)`` has not improved
    for more than ``patience`` steps; then ``cooldown`` steps without counting."""

    def __init__(
        self,
        learning_rate,
        mode="min",
        factor=0.1,
        patience=10,
        threshold=1e-4,
        threshold_mode="rel",
        cooldown=0,
        min_lr=0,
        epsilon=1e-8,
        verbose=False,
    ):
        mode, threshold_mode = str(mode).lower(), str(threshold_mode).lower()
        if mode not in ("min", "max"):
            raise ValueError("mode: " + mode + " is unknown!")
        if factor >= 1.0:
            raise ValueError("new_lr = origin_lr * gamma and gamma should be < 1.0.")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode: " + threshold_mode + " is unknown!")
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (float, int)):
            raise TypeError(
                f"The type of 'learning_rate' in 'ReduceOnPlateau' must be 'float', but received {type(learning_rate)}."
            )
        self.mode, self.factor, self.patience, self.threshold = mode, float(factor), patience, threshold
        self.threshold_mode, self.cooldown, self.min_lr, self.epsilon = threshold_mode, cooldown, float(min_lr), epsilon
        self.cooldown_counter, self.best, self.num_bad_epochs = 0, None, 0
        self.last_epoch, self.last_lr, self.base_lr = 0, float(learning_rate), float(learning_rate)
        self.verbose, self._var_name = verbose, None

    def state_keys(self):
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def step(self, metrics, epoch=None):
        """One epoch with ``metrics`` (a number, or an array of one value, e.g. the fetched loss)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if isinstance(metrics, np.ndarray) or hasattr(metrics, "numpy"):
            metrics = np.asarray(metrics)
            if metrics.size != 1:
                raise AssertionError(
                    "the metrics.size should be 1, but the current metrics.size is "
                    f"{metrics.size}. Maybe that you should call paddle.mean to process it first."
                )
            metrics = float(metrics.reshape(-1)[0])
        elif isinstance(metrics, bool) or not isinstance(metrics, numbers.Real):
            raise TypeError(
                f"metrics must be 'int', 'float', 'np.float64', 'numpy.ndarray', but receive {type(metrics)}"
            )
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(metrics, self.best):
            self.best, self.num_bad_epochs = metrics, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                if self.verbose:
                    print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")

    def _is_better(self, current, best):
        if self.mode == "min":
            return current < (best - best * self.threshold if self.threshold_mode == "rel" else best - self.threshold)
        return current > (best + best * self.threshold if self.threshold_mode == "rel" else best + self.threshold)


class OneCycleLR(LRScheduler):
    """From max_learning_rate / divide_factor up to max_learning_rate over phase_pct of the steps,
    then down to end_learning_rate (``three_phase``: down to the start first), cosine or linear."""

    def __init__(
        self,
        max_learning_rate,
        total_steps,
        divide_factor=25.0,
        end_learning_rate=0.0001,
        phase_pct=0.3,
        anneal_strategy="cos",
        three_phase=False,
        last_epoch=-1,
        verbose=False,
    ):
        for name, value in (("max_learning_rate", max_learning_rate), ("end_learning_rate", end_learning_rate)):
            if isinstance(value, bool) or not isinstance(value, (float, int)):
                raise TypeError(f"'{name}' must be 'float' or 'int', but received {type(value)}")
            if value < 0:
                raise ValueError(f"'{name}' must be a positive integer.")
        if not isinstance(total_steps, int) or total_steps <= 0:
            raise ValueError("'total_step' must be a positive integer.")
        if not isinstance(phase_pct, float) or not 0 <= phase_pct <= 1:
            raise ValueError(f"'phase_pct' must be a float between 0 and 1, but received {phase_pct!r}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"'anneal_strategy' must by one of 'cos' or 'linear', but received {anneal_strategy}")
        self.total_steps = total_steps
        initial, low, n = max_learning_rate / float(divide_factor), float(end_learning_rate), total_steps
        if three_phase:
            if phase_pct >= 0.5:
                raise ValueError("When three_phase is True, 'phase_pct' must be less than 0.5")
            self._step_config = [0, phase_pct * n - 1, 2 * phase_pct * n - 2, n - 1, n - 1]
            self._lr_config = [initial, max_learning_rate, initial, low]
        else:
            self._step_config = [0, phase_pct * n - 1, n - 1, n - 1]
            self._lr_config = [initial, max_learning_rate, low]
        cfg = self._step_config
        self._steps_size = [cfg[i + 1] - cfg[i] for i in range(len(cfg) - 2)] + [cfg[-2] - cfg[-3]]
        self.anneal_strategy = anneal_strategy
        super().__init__(initial, last_epoch, verbose)

    def anneal_func(self, start, end, pct):
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. However the number of total steps is {self.total_steps}")
        for i, (end_step, size) in enumerate(zip(self._step_config[1:], self._steps_size)):
            if step <= end_step or i == len(self._lr_config) - 2:
                pct = (step - self._step_config[i]) / size
                return self.anneal_func(self._lr_config[i], self._lr_config[i + 1], pct)


class CyclicLR(LRScheduler):
    """Between base_learning_rate and max_learning_rate in triangles of step_size_up + step_size_down
    steps, the height scaled by ``mode`` (triangular, triangular2, exp_range) or ``scale_fn``."""

    def __init__(
        self,
        base_learning_rate,
        max_learning_rate,
        step_size_up,
        step_size_down=None,
        mode="triangular",
        exp_gamma=1.0,
        scale_fn=None,
        scale_mode="cycle",
        last_epoch=-1,
        verbose=False,
    ):
        if isinstance(max_learning_rate, bool) or not isinstance(max_learning_rate, (float, int)):
            raise TypeError(f"'max_learning_rate' must be 'float' or 'int', but received {type(max_learning_rate)}")
        if max_learning_rate < 0:
            raise ValueError(f"'max_learning_rate' must be a positive integer, but received {max_learning_rate}")
        for name, value in (("step_size_up", step_size_up), ("step_size_down", step_size_down)):
            if value is not None and (not isinstance(value, int) or value <= 0):
                raise ValueError(f"'{name}' must be a positive integer, but received {value!r}")
        if not isinstance(exp_gamma, float):
            raise TypeError(f"The type of 'exp_gamma' must be float, but received {type(exp_gamma)}")
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError(
                "'mode' is invalid and 'scale_fn' is not specified, make sure one of 'mode' or 'scale_fn' is valid"
            )
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError("'scale_mode' must be one of 'cycle' or 'iterations")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.cycle_size, self.step_up_pct = up + down, up / (up + down)
        self.max_lr, self.amplitude = float(max_learning_rate), float(max_learning_rate) - base_learning_rate
        self.mode, self.gamma = mode, exp_gamma
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        else:
            self.scale_fn = {
                "triangular": lambda x: 1.0,
                "triangular2": lambda x: 1 / (2.0 ** (x - 1)),
                "exp_range": lambda x: self.gamma**x,
            }[mode]
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self):
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle
        scale = pct / self.step_up_pct if pct <= self.step_up_pct else (1 - pct) / (1 - self.step_up_pct)
        return self.base_lr + self.amplitude * scale * self.scale_fn(
            cycle if self.scale_mode == "cycle" else iterations
        )


class LinearLR(LRScheduler):
    """From lr * start_factor to lr * end_factor linearly over total_steps (Paddle's recursive form)."""

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0, last_epoch=-1, verbose=False):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(f"`start_factor` must be greater than 0 and less or equal to 1, but got {start_factor}")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(f"`end_factor` must be greater than 0 and less than 1, but got {end_factor}")
        if total_steps <= 0:
            raise ValueError(f"`total_steps` must be greater than 0, but got {total_steps}")
        self.start_factor, self.end_factor, self.total_steps = start_factor, end_factor, total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        start = self.total_steps * self.start_factor
        delta = self.end_factor - self.start_factor
        return self.last_lr * (1.0 + delta / (start + (self.last_epoch - 1) * delta))


class CosineAnnealingWarmRestarts(LRScheduler):
    """eta_min + (lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2, restarting after T_i steps,
    T_i growing by T_mult at each restart."""

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0, self.T_i, self.T_mult, self.eta_min, self.T_cur = T_0, T_0, T_mult, eta_min, last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur, self.T_i = self.T_cur - self.T_i, self.T_i * self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch >= self.T_0 and self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        elif epoch >= self.T_0:
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult**n
        else:
            self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")
