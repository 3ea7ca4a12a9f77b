"""``paddle.optimizer``'s classes (Paddle 2.x names and arguments) over pe's optimizers
(pe_cli/training): ``learning_rate`` a float or a ``paddle.optimizer.lr`` scheduler, whose value
pe's Executor writes into the program's learning-rate variable before each run (the program's
``lr_scheduler``); ``weight_decay`` a float is L2 decay of that coefficient (or a
``paddle.regularizer`` object); ``grad_clip`` a gradient clip; ``parameters`` is dygraph's and must
be None (pe runs static graphs: ``minimize(loss)``). ``step()``/``clear_grad()`` are dygraph's and
refuse; ``LBFGS`` is dygraph-only and refuses. ``Adadelta`` applies the learning rate to its
update, as Paddle 2.x's kernel (Fluid's did not). ``multi_precision``/``use_multi_tensor`` change
nothing (pe trains float32 here). AdamW (adamw.py) decays decoupled from the gradient."""

import numbers

import numpy as np

from ...base.errors import PeError
from ...executor import global_scope
from ...framework import default_main_program, unique_name
from ...framework.variable import Variable
from ...training import optimizer as _plain
from ...training import optimizer_adaptive as _adaptive
from ...training.optimizer_base import persistable_var as _persistable_var
from ...training.regularizer import L2Decay, append_regularization_ops
from .lr_scheduler import LRScheduler

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "Adagrad", "RMSProp", "Adadelta", "Adamax", "Lamb", "LBFGS"]


def _fluid_args(owner, learning_rate, parameters, weight_decay=None):
    """(the learning rate as pe's base takes it, the regularizer) of 2.x's arguments. ``parameters``
    (checked here, kept by _schedule): the parameters minimize updates, as Paddle's static mode takes
    them; parameter groups (dicts) are dygraph's, refused with Paddle's TypeError."""
    for p in parameters or ():
        if not isinstance(p, (Variable, str)):
            raise TypeError(
                f"paddle.optimizer.{owner}: parameters= takes a list of parameters (or their names) in "
                f"static mode, got {type(p).__name__} (parameter groups are for dygraph)"
            )
    if isinstance(learning_rate, LRScheduler):
        learning_rate = learning_rate()
    if isinstance(weight_decay, numbers.Real) and not isinstance(weight_decay, bool):
        weight_decay = L2Decay(float(weight_decay))
    return learning_rate, weight_decay


class Optimizer(_plain.Optimizer):
    """Paddle 2.x's base: what every ``paddle.optimizer`` class adds to pe's optimizer."""

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None, name=None):
        lr, reg = _fluid_args(type(self).__name__, learning_rate, parameters, weight_decay)
        _plain.Optimizer.__init__(self, lr, regularization=reg, grad_clip=grad_clip, name=name)
        self._schedule(learning_rate, parameters)

    def _schedule(self, learning_rate, parameters=None):
        if isinstance(learning_rate, LRScheduler):
            self._learning_rate = learning_rate
        self._parameter_list = None if parameters is None else list(parameters)

    def _global_learning_rate(self, program=None):
        if not isinstance(self._learning_rate, LRScheduler):
            return super()._global_learning_rate(program)
        program = default_main_program() if program is None else program
        var = self._lr_vars.get(program)
        if var is None:
            var = self._lr_vars[program] = _persistable_var(
                program, unique_name.generate("learning_rate"), [1], "float32", self._learning_rate(), self._startup
            )
            program.lr_scheduler, program.lr_var = self._learning_rate, var  # the Executor feeds it
            self._learning_rate._var_name = var.name
        return var

    def append_regularization_ops(self, parameters_and_grads, regularization=None):
        """Paddle 2.x's method: each gradient plus its parameter's decay (the parameter's own
        regularizer, else ``regularization``, else the optimizer's weight decay)."""
        return append_regularization_ops(parameters_and_grads, regularization or self.regularization)

    def get_lr(self):
        """The current learning rate (the scheduler's value when it is one)."""
        return self._learning_rate() if isinstance(self._learning_rate, LRScheduler) else float(self._learning_rate)

    def set_lr(self, value):
        """A new float learning rate, also written to the programs' learning-rate variables."""
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError(
                "optimizer's learning rate can't be LRScheduler when invoke this API, because this "
                "will lead to conflict."
            )
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"The type of 'learning_rate' in set_lr must be float, but received {type(value)}.")
        self._learning_rate = float(value)
        for var in self._lr_vars.values():
            if global_scope().find_var(var.name) is not None:
                global_scope().set_array(var.name, _lr_array(value))

    def set_lr_scheduler(self, scheduler):
        if not isinstance(scheduler, LRScheduler):
            raise TypeError(
                f"The type of 'scheduler' in optimizer.set_lr_schduler must be LRScheduler, "
                f"but received {type(scheduler)}."
            )
        self._learning_rate = scheduler

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Appends the backward and update ops of ``loss`` to its program; (ops, [(param, grad)]). Only
        ``parameters`` (default: the ones the optimizer was made with; None: all) are updated."""
        if parameters is None:
            parameters = getattr(self, "_parameter_list", None)
        return _plain.Optimizer.minimize(self, loss, startup_program, parameters, no_grad_set)

    def step(self):
        raise PeError(
            f"paddle.optimizer.{type(self).__name__}.step() is for dygraph; pe runs static graphs: call "
            f"minimize(loss) once when building, then exe.run(...) trains one step"
        )

    def clear_grad(self, set_to_zero=True):
        raise PeError(
            f"paddle.optimizer.{type(self).__name__}.clear_grad() is for dygraph; in a static graph "
            f"gradients are recomputed by every exe.run(...)"
        )

    clear_gradients = clear_grad


def _lr_array(value):
    return np.array([value], dtype="float32")


class SGD(Optimizer, _plain.SGDOptimizer):
    def __init__(
        self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None, multi_precision=False, name=None
    ):
        lr, reg = _fluid_args("SGD", learning_rate, parameters, weight_decay)
        _plain.SGDOptimizer.__init__(self, lr, regularization=reg, grad_clip=grad_clip, name=name)
        self._schedule(learning_rate, parameters)


class Momentum(Optimizer, _plain.MomentumOptimizer):
    def __init__(
        self,
        learning_rate=0.001,
        momentum=0.9,
        parameters=None,
        use_nesterov=False,
        weight_decay=None,
        grad_clip=None,
        multi_precision=False,
        rescale_grad=1.0,
        use_multi_tensor=False,
        name=None,
    ):
        if rescale_grad != 1.0:
            raise PeError(
                "paddle.optimizer.Momentum: rescale_grad other than 1.0 is not supported by pe: scale the loss instead"
            )
        lr, reg = _fluid_args("Momentum", learning_rate, parameters, weight_decay)
        _plain.MomentumOptimizer.__init__(
            self, lr, momentum, use_nesterov=use_nesterov, regularization=reg, grad_clip=grad_clip, name=name
        )
        self._schedule(learning_rate, parameters)


class Adam(Optimizer, _adaptive.AdamOptimizer):
    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-08,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        lazy_mode=False,
        multi_precision=False,
        use_multi_tensor=False,
        name=None,
    ):
        lr, reg = _fluid_args("Adam", learning_rate, parameters, weight_decay)
        _adaptive.AdamOptimizer.__init__(
            self,
            lr,
            beta1,
            beta2,
            epsilon,
            regularization=reg,
            grad_clip=grad_clip,
            name=name,
            lazy_mode=lazy_mode,
            epsilon_scaled=True,
        )  # 2.x's epsilon
        self._schedule(learning_rate, parameters)


class Adagrad(Optimizer, _adaptive.AdagradOptimizer):
    def __init__(
        self,
        learning_rate,
        epsilon=1e-06,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
        initial_accumulator_value=0.0,
    ):
        lr, reg = _fluid_args("Adagrad", learning_rate, parameters, weight_decay)
        _adaptive.AdagradOptimizer.__init__(
            self,
            lr,
            epsilon,
            regularization=reg,
            grad_clip=grad_clip,
            name=name,
            initial_accumulator_value=initial_accumulator_value,
        )
        self._schedule(learning_rate, parameters)


class RMSProp(Optimizer, _adaptive.RMSPropOptimizer):
    def __init__(
        self,
        learning_rate,
        rho=0.95,
        epsilon=1e-06,
        momentum=0.0,
        centered=False,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
    ):
        for arg, value in (
            ("learning_rate", learning_rate),
            ("rho", rho),
            ("epsilon", epsilon),
            ("momentum", momentum),
        ):
            if value is None:  # Paddle 2.x's checks, before its range checks
                raise ValueError(f"paddle.optimizer.RMSProp: {arg} is not set.")
        lr, reg = _fluid_args("RMSProp", learning_rate, parameters, weight_decay)
        _adaptive.RMSPropOptimizer.__init__(
            self, lr, rho, epsilon, momentum, centered, regularization=reg, grad_clip=grad_clip, name=name
        )
        self._schedule(learning_rate, parameters)


class Adadelta(Optimizer, _adaptive.AdadeltaOptimizer):
    def __init__(
        self,
        learning_rate=0.001,
        epsilon=1e-06,
        rho=0.95,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
    ):
        lr, reg = _fluid_args("Adadelta", learning_rate, parameters, weight_decay)
        _adaptive.AdadeltaOptimizer.__init__(self, lr, epsilon, rho, regularization=reg, grad_clip=grad_clip, name=name)
        self._schedule(learning_rate, parameters)

    def _append_optimize_op(self, block, param, grad, lr):
        """Paddle 2.x's adadelta scales its update by the learning rate (Fluid's did not): the op's
        step, then param = before + lr * (after - before)."""
        before = block.create_var(
            name=unique_name.generate(f"{param.name}.before"), shape=param.shape, dtype=param.dtype, stop_gradient=True
        )
        block.append_op("assign", {"X": [param]}, {"Out": [before]})
        op = super()._append_optimize_op(block, param, grad, lr)
        step = block.create_var(
            name=unique_name.generate(f"{param.name}.update"), shape=param.shape, dtype=param.dtype, stop_gradient=True
        )
        block.append_op("elementwise_sub", {"X": [param], "Y": [before]}, {"Out": [step]}, {"axis": -1})
        block.append_op("elementwise_mul", {"X": [step], "Y": [lr]}, {"Out": [step]}, {"axis": -1})
        block.append_op("elementwise_add", {"X": [before], "Y": [step]}, {"Out": [param]}, {"axis": -1})
        return op


class Adamax(Optimizer, _adaptive.AdamaxOptimizer):
    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-08,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
    ):
        lr, reg = _fluid_args("Adamax", learning_rate, parameters, weight_decay)
        _adaptive.AdamaxOptimizer.__init__(
            self, lr, beta1, beta2, epsilon, regularization=reg, grad_clip=grad_clip, name=name
        )
        self._schedule(learning_rate, parameters)


class Lamb(Optimizer, _adaptive.LambOptimizer):
    """Paddle 2.6's Lamb: bias-corrected moments; the trust ratio where a parameter has weight decay, or for every
    parameter with ``always_adapt``."""

    def __init__(
        self,
        learning_rate=0.001,
        lamb_weight_decay=0.01,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-06,
        parameters=None,
        grad_clip=None,
        exclude_from_weight_decay_fn=None,
        multi_precision=False,
        always_adapt=False,
        name=None,
    ):
        lr, _ = _fluid_args("Lamb", learning_rate, parameters)
        _adaptive.LambOptimizer.__init__(
            self,
            lr,
            lamb_weight_decay,
            beta1,
            beta2,
            epsilon,
            grad_clip=grad_clip,
            exclude_from_weight_decay_fn=exclude_from_weight_decay_fn,
            name=name,
            bias_correction=True,
            always_adapt=always_adapt,
        )  # 2.x's lamb corrects the moments
        self._schedule(learning_rate, parameters)

    @property
    def _lamb_weight_decay(self):  # Paddle 2.x's attribute names, which subclasses read
        return self._weight_decay

    @_lamb_weight_decay.setter
    def _lamb_weight_decay(self, value):
        self._weight_decay = value

    @property
    def _exclude_from_weight_decay_fn(self):
        return self._exclude_fn


class LBFGS:
    """Dygraph-only in Paddle 2.6 (its step takes a closure that re-runs the model)."""

    def __init__(
        self,
        learning_rate=1.0,
        max_iter=20,
        max_eval=None,
        tolerance_grad=1e-07,
        tolerance_change=1e-09,
        history_size=100,
        line_search_fn=None,
        parameters=None,
        weight_decay=None,
        grad_clip=None,
        name=None,
    ):
        raise PeError(
            "paddle.optimizer.LBFGS is dygraph-only (its step re-runs the model through a closure); pe runs "
            "static graphs: use another paddle.optimizer"
        )
