"""Paddle 2.x's learning-rate schedulers (``paddle.optimizer.lr``, lr.py): the base and the
decays, plain Python objects. A scheduler holds ``last_epoch`` and ``last_lr``; ``step()``
advances the epoch and computes the new value with Paddle 2.6's formula (``get_lr``),
``scheduler()`` returns it. An optimizer given a scheduler makes the program's learning-rate
variable and sets ``program.lr_scheduler``; pe's Executor writes ``scheduler()`` into that
variable before each run of the program, as Paddle's static Executor does, so the user's
``scheduler.step()`` between runs changes the rate."""

import math
import warnings

__all__ = [
    "LRScheduler",
    "NoamDecay",
    "PiecewiseDecay",
    "NaturalExpDecay",
    "InverseTimeDecay",
    "PolynomialDecay",
    "LinearWarmup",
    "ExponentialDecay",
    "MultiStepDecay",
    "StepDecay",
    "LambdaDecay",
    "CosineAnnealingDecay",
    "MultiplicativeDecay",
]


class LRScheduler:
    """The base: a subclass defines ``get_lr()`` from ``self.base_lr`` and ``self.last_epoch``."""

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (float, int)):
            raise TypeError(f"The type of learning rate must be float, but received {type(learning_rate)}")
        if learning_rate < 0:
            raise ValueError(f"Invalid learning rate: {learning_rate}")
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._var_name = None
        self.step()

    def __call__(self):
        """The learning rate of the current epoch."""
        return self.last_lr

    def step(self, epoch=None):
        """Advances to the next epoch (or to ``epoch``) and computes its learning rate."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            self.last_lr = closed() if closed is not None else self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")

    def state_keys(self):
        self.keys = ["last_epoch", "last_lr"]

    def state_dict(self):
        """The scheduler's state (``last_epoch``, ``last_lr`` and what ``state_keys`` adds)."""
        self.state_keys()
        return {k: self.__dict__[k] for k in self.keys if k in self.__dict__}

    def set_state_dict(self, state_dict):
        self.state_keys()
        for key in self.keys:
            if key not in state_dict:
                raise RuntimeError(
                    f"Please check whether state_dict is correct for optimizer. Can't find [ {key} ] in state_dict"
                )
            self.__dict__[key] = state_dict[key]
        if len(state_dict) > len(self.keys):
            warnings.warn(
                "There are some unused values in state_dict. Maybe the optimizer have different "
                "'LearningRateDecay' when invoking state_dict and set_dict"
            )

    set_dict = set_state_dict

    def get_lr(self):
        raise NotImplementedError


class NoamDecay(LRScheduler):
    """lr * d_model^-0.5 * min(epoch^-0.5, epoch * warmup_steps^-1.5) (epoch 0 takes 1 for the first)."""

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        if d_model <= 0:
            raise ValueError("d_model should be grater than 0")
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        a = 1 if self.last_epoch == 0 else self.last_epoch**-0.5
        b = self.warmup_steps**-1.5 * self.last_epoch
        return self.base_lr * (self.d_model**-0.5) * min(a, b)


class PiecewiseDecay(LRScheduler):
    """values[i] while epoch < boundaries[i]; the last value after the last boundary."""

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        if len(boundaries) == 0:
            raise ValueError("The boundaries cannot be empty.")
        if len(values) <= len(boundaries):
            raise ValueError(
                f"The values have one more element than boundaries, but received "
                f"len(values) [{len(values)}] < len(boundaries) + 1 [{len(boundaries) + 1}]."
            )
        self.boundaries, self.values = list(boundaries), list(values)
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self):
        for boundary, value in zip(self.boundaries, self.values):
            if self.last_epoch < boundary:
                return value
        return self.values[len(self.values) - 1]


class NaturalExpDecay(LRScheduler):
    """lr * exp(-gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        if not isinstance(gamma, (float, int)) or gamma <= 0:
            raise AssertionError(" 'gamma' must be a positive number so that the learning rate will decay.")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """lr / (1 + gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """(lr - end_lr) * (1 - epoch / decay_steps)^power + end_lr, epoch capped at decay_steps, or with
    ``cycle`` decay_steps grown to the next multiple above the epoch."""

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False, last_epoch=-1, verbose=False):
        if not (isinstance(decay_steps, int) and decay_steps > 0):
            raise AssertionError(" 'decay_steps' must be a positive integer.")
        self.decay_steps, self.end_lr, self.power, self.cycle = decay_steps, end_lr, power, cycle
        if not 0 <= power:
            raise AssertionError(" 'power' must be greater than 0.0 so that the learning rate will decay.")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            div = math.ceil(float(self.last_epoch) / float(self.decay_steps))
            steps = self.decay_steps * (1 if self.last_epoch == 0 else div)
        else:
            epoch = min(self.last_epoch, self.decay_steps)
        return (self.base_lr - self.end_lr) * ((1 - float(epoch) / float(steps)) ** self.power) + self.end_lr


class LinearWarmup(LRScheduler):
    """start_lr + (end_lr - start_lr) * epoch / warmup_steps during the warmup, then
    ``learning_rate`` (a float, or a scheduler stepped to epoch - warmup_steps)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1, verbose=False):
        if not (isinstance(learning_rate, (float, int)) or isinstance(learning_rate, LRScheduler)):
            raise TypeError(
                f"the type of learning_rate should be [int, float or LRScheduler], the current type is {learning_rate}"
            )
        if not (isinstance(warmup_steps, int) and warmup_steps > 0):
            raise AssertionError(" 'warmup_steps' must be a positive integer.")
        self.learning_rate, self.warmup_steps = learning_rate, warmup_steps
        self.start_lr, self.end_lr = start_lr, end_lr
        if end_lr <= start_lr:
            raise AssertionError(f"end_lr {end_lr} must be greater than start_lr {start_lr}")
        super().__init__(start_lr, last_epoch, verbose)

    def state_dict(self):
        state = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            state["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        state_dict = dict(state_dict)  # the caller's dict stays whole
        inner = state_dict.pop("LinearWarmup_LR", None)
        super().set_state_dict(state_dict)
        if inner is not None and isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.set_state_dict(inner)

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * float(self.last_epoch) / float(self.warmup_steps) + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate


class ExponentialDecay(LRScheduler):
    """lr * gamma^epoch."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        if not (isinstance(gamma, (float, int)) and 0.0 < gamma < 1.0):
            raise AssertionError(" 'gamma' must be in interval (0.0, 1.0) so that the learning rate will decay.")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * (self.gamma**self.last_epoch)


class MultiStepDecay(LRScheduler):
    """lr * gamma^(the number of milestones passed)."""

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(milestones, (tuple, list)):
            raise TypeError(
                f"The type of 'milestones' in 'MultiStepDecay' must be 'tuple, list', but received {type(milestones)}."
            )
        if not all(milestones[i] < milestones[i + 1] for i in range(len(milestones) - 1)):
            raise ValueError("The elements of milestones must be incremented")
        if gamma >= 1.0:
            raise ValueError("gamma should be < 1.0.")
        self.milestones, self.gamma = list(milestones), gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        for i, milestone in enumerate(self.milestones):
            if self.last_epoch < milestone:
                return self.base_lr * (self.gamma**i)
        return self.base_lr * (self.gamma ** len(self.milestones))


class StepDecay(LRScheduler):
    """lr * gamma^(epoch // step_size)."""

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(step_size, int):
            raise TypeError(f"The type of 'step_size' must be 'int', but received {type(step_size)}.")
        if gamma >= 1.0:
            raise ValueError("gamma should be < 1.0.")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * (self.gamma ** (self.last_epoch // self.step_size))


class LambdaDecay(LRScheduler):
    """lr * lr_lambda(epoch)."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError(
                f"The type of 'lr_lambda' in '{type(self).__name__}' must be 'function', "
                f"but received {type(lr_lambda)}."
            )
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LambdaDecay):
    """lr * lr_lambda(1) * ... * lr_lambda(epoch)."""

    def get_lr(self):
        lr = self.base_lr
        for epoch in range(1, self.last_epoch + 1):
            lr = lr * self.lr_lambda(epoch)
        return lr


class CosineAnnealingDecay(LRScheduler):
    """Cosine annealing from lr to eta_min over T_max epochs (Paddle's recursive form on step(), the
    closed form on step(epoch))."""

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        if not isinstance(T_max, int) or isinstance(T_max, bool):
            raise TypeError(f"The type of 'T_max' in 'CosineAnnealingDecay' must be 'int', but received {type(T_max)}.")
        if not isinstance(eta_min, (float, int)):
            raise TypeError(
                f"The type of 'eta_min' in 'CosineAnnealingDecay' must be 'float, int', but received {type(eta_min)}."
            )
        if T_max <= 0:
            raise AssertionError(" 'T_max' must be a positive integer.")
        self.T_max, self.eta_min = T_max, float(eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        e, t = self.last_epoch, self.T_max
        if e == 0:
            return self.base_lr
        if (e - 1 - t) % (2 * t) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / t)) / 2
        return (1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t)) * (
            self.last_lr - self.eta_min
        ) + self.eta_min

    def _get_closed_form_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
