"""Fluid 1.x's further optimizers: ``Adamax``, ``Adadelta``, ``DecayedAdagrad``, ``Ftrl``, ``Lamb`` and ``LarsMomentum`` (and the
``...Optimizer`` spellings), each one update op per parameter like those of ``optimizer.py``."""
import contextlib

from . import layers
from .framework import Program, default_main_program, program_guard, unique_name
from .errors import PeError
from .optimizer import AdamOptimizer, MomentumOptimizer, Optimizer, _check_number

__all__ = ["Adamax", "AdamaxOptimizer", "Adadelta", "AdadeltaOptimizer", "DecayedAdagrad",
           "DecayedAdagradOptimizer", "Ftrl", "FtrlOptimizer", "Lamb",
           "LambOptimizer", "LarsMomentum", "LarsMomentumOptimizer",
           "ExponentialMovingAverage", "LookaheadOptimizer"]


class AdamaxOptimizer(Optimizer):
    """moment = beta1 * moment + (1 - beta1) * grad; inf_norm = max(beta2 * inf_norm + epsilon, |grad|);
    param -= lr / (1 - beta1^t) * moment / inf_norm. beta1^t is a persistable [1] state that a
    ``scale`` op multiplies by beta1 after the updates, as Fluid's does."""
    type = "adamax"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameter_list=None,
                 regularization=None, grad_clip=None, name=None):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)
        self._beta1 = _check_number("AdamaxOptimizer", "beta1", beta1, lo=0.0, hi=1.0, hi_open=True)
        self._beta2 = _check_number("AdamaxOptimizer", "beta2", beta2, lo=0.0, hi=1.0, hi_open=True)
        self._epsilon = _check_number("AdamaxOptimizer", "epsilon", epsilon, lo=0.0)

    def _create_accumulators(self, block, params):
        for p in params:
            self._add_accumulator("moment", p)
            self._add_accumulator("inf_norm", p)
            self._add_accumulator("beta1_pow_acc", p, fill_value=self._beta1, shape=[1])

    def _append_optimize_op(self, block, param, grad, lr):
        m, u = self._get_accumulator("moment", param), self._get_accumulator("inf_norm", param)
        b1 = self._get_accumulator("beta1_pow_acc", param)
        return block.append_op(
            "adamax", {"Param": [param], "Grad": [grad], "LearningRate": [lr], "Moment": [m], "InfNorm": [u],
                       "Beta1Pow": [b1]},
            {"ParamOut": [param], "MomentOut": [m], "InfNormOut": [u]},
            {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon})

    def _finish_update(self, block, params_grads):
        ops = []
        for param, _ in params_grads:
            b1 = self._get_accumulator("beta1_pow_acc", param)
            ops.append(block.append_op("scale", {"X": [b1]}, {"Out": [b1]}, {"scale": self._beta1}))
        return ops


class AdadeltaOptimizer(Optimizer):
    """avg_sq_grad = rho * avg_sq_grad + (1 - rho) * grad^2;
    update = -sqrt((avg_sq_update + epsilon) / (avg_sq_grad + epsilon)) * grad;
    avg_sq_update = rho * avg_sq_update + (1 - rho) * update^2; param += update. As in Fluid, the
    update op reads no learning rate (``learning_rate`` is checked and kept, not applied)."""
    type = "adadelta"

    def __init__(self, learning_rate, epsilon=1.0e-6, rho=0.95, parameter_list=None, regularization=None,
                 grad_clip=None, name=None):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)
        self._epsilon = _check_number("AdadeltaOptimizer", "epsilon", epsilon, lo=0.0)
        self._rho = _check_number("AdadeltaOptimizer", "rho", rho, lo=0.0, hi=1.0)

    def _create_accumulators(self, block, params):
        for p in params:
            self._add_accumulator("_avg_squared_grad", p)
            self._add_accumulator("_avg_squared_update", p)

    def _append_optimize_op(self, block, param, grad, lr):
        sg = self._get_accumulator("_avg_squared_grad", param)
        su = self._get_accumulator("_avg_squared_update", param)
        return block.append_op(
            "adadelta", {"Param": [param], "Grad": [grad], "AvgSquaredGrad": [sg], "AvgSquaredUpdate": [su]},
            {"ParamOut": [param], "AvgSquaredGradOut": [sg], "AvgSquaredUpdateOut": [su]},
            {"rho": self._rho, "epsilon": self._epsilon})


class DecayedAdagradOptimizer(Optimizer):
    """moment = decay * moment + (1 - decay) * grad^2; param -= lr * grad / (sqrt(moment) + epsilon)."""
    type = "decayed_adagrad"

    def __init__(self, learning_rate, decay=0.95, epsilon=1.0e-6, parameter_list=None, regularization=None,
                 grad_clip=None, name=None):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)
        self._decay = _check_number("DecayedAdagradOptimizer", "decay", decay, lo=0.0, hi=1.0)
        self._epsilon = _check_number("DecayedAdagradOptimizer", "epsilon", epsilon, lo=0.0)

    def _create_accumulators(self, block, params):
        for p in params:
            self._add_accumulator("moment", p)

    def _append_optimize_op(self, block, param, grad, lr):
        moment = self._get_accumulator("moment", param)
        return block.append_op(
            "decayed_adagrad", {"Param": [param], "Grad": [grad], "Moment": [moment], "LearningRate": [lr]},
            {"ParamOut": [param], "MomentOut": [moment]}, {"decay": self._decay, "epsilon": self._epsilon})


class FtrlOptimizer(Optimizer):
    """FTRL-Proximal: squared += grad^2 (n); linear += grad - (n^c - old^c) / lr * param with
    c = -lr_power; param = (l1 * sign(linear) - linear) / (n^c / lr + 2 * l2) where |linear| > l1,
    else 0 (Fluid's kernel adds 1e-10 to l1 and l2)."""
    type = "ftrl"

    def __init__(self, learning_rate, l1=0.0, l2=0.0, lr_power=-0.5, parameter_list=None, regularization=None,
                 grad_clip=None, name=None):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)
        self._l1 = _check_number("FtrlOptimizer", "l1", l1, lo=0.0)
        self._l2 = _check_number("FtrlOptimizer", "l2", l2, lo=0.0)
        self._lr_power = _check_number("FtrlOptimizer", "lr_power", lr_power, hi=0.0)

    def _create_accumulators(self, block, params):
        for p in params:
            self._add_accumulator("squared", p)
            self._add_accumulator("linear", p)

    def _append_optimize_op(self, block, param, grad, lr):
        sq, lin = self._get_accumulator("squared", param), self._get_accumulator("linear", param)
        return block.append_op(
            "ftrl", {"Param": [param], "Grad": [grad], "LearningRate": [lr], "SquaredAccumulator": [sq],
                     "LinearAccumulator": [lin]},
            {"ParamOut": [param], "SquaredAccumOut": [sq], "LinearAccumOut": [lin]},
            {"l1": self._l1, "l2": self._l2, "lr_power": self._lr_power})


class LambOptimizer(AdamOptimizer):
    """LAMB: Adam's moments with bias correction give r = m_hat / (sqrt(v_hat) + epsilon) +
    lamb_weight_decay * param; param -= lr * (||param|| / ||r||) * r (ratio 1 when a norm is 0).
    ``exclude_from_weight_decay_fn(param)`` True drops the decay term for that parameter. The op
    advances beta1^t and beta2^t itself, as pe's adam does."""
    type = "lamb"

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 parameter_list=None, regularization=None, grad_clip=None, exclude_from_weight_decay_fn=None,
                 name=None):
        super().__init__(learning_rate, beta1, beta2, epsilon, parameter_list, regularization, grad_clip, name)
        self._weight_decay = _check_number("LambOptimizer", "lamb_weight_decay", lamb_weight_decay, lo=0.0)
        if exclude_from_weight_decay_fn is not None and not callable(exclude_from_weight_decay_fn):
            raise TypeError(f"LambOptimizer: exclude_from_weight_decay_fn must be callable, "
                            f"got {exclude_from_weight_decay_fn!r}")
        self._exclude_fn = exclude_from_weight_decay_fn

    def _append_optimize_op(self, block, param, grad, lr):
        m1, m2 = self._get_accumulator("moment1", param), self._get_accumulator("moment2", param)
        b1, b2 = self._get_accumulator("beta1_pow_acc", param), self._get_accumulator("beta2_pow_acc", param)
        excluded = self._exclude_fn is not None and self._exclude_fn(param)
        return block.append_op(
            "lamb", {"Param": [param], "Grad": [grad], "LearningRate": [lr], "Moment1": [m1], "Moment2": [m2],
                     "Beta1Pow": [b1], "Beta2Pow": [b2]},
            {"ParamOut": [param], "Moment1Out": [m1], "Moment2Out": [m2], "Beta1PowOut": [b1],
             "Beta2PowOut": [b2]},
            {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon,
             "weight_decay": 0.0 if excluded else self._weight_decay})


class LarsMomentumOptimizer(MomentumOptimizer):
    """Momentum with a layer-wise rate: local_lr = lr * lars_coeff * ||param|| / (||grad|| +
    lars_weight_decay * ||param||) (lr when a norm is 0); velocity = momentum * velocity +
    local_lr * (grad + lars_weight_decay * param); param -= velocity."""
    type = "lars_momentum"

    def __init__(self, learning_rate, momentum, lars_coeff=0.001, lars_weight_decay=0.0005, parameter_list=None,
                 regularization=None, grad_clip=None, name=None):
        super().__init__(learning_rate, momentum, parameter_list, False, regularization, grad_clip, name)
        self._lars_coeff = _check_number("LarsMomentumOptimizer", "lars_coeff", lars_coeff, lo=0.0)
        self._lars_weight_decay = _check_number("LarsMomentumOptimizer", "lars_weight_decay", lars_weight_decay,
                                                lo=0.0)

    def _append_optimize_op(self, block, param, grad, lr):
        velocity = self._get_accumulator("velocity", param)
        return block.append_op(
            "lars_momentum", {"Param": [param], "Grad": [grad], "Velocity": [velocity], "LearningRate": [lr]},
            {"ParamOut": [param], "VelocityOut": [velocity]},
            {"mu": self._momentum, "lars_coeff": self._lars_coeff, "lars_weight_decay": self._lars_weight_decay})


class ExponentialMovingAverage:
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
        self._step = layers.create_global_var([1], 0.0, "float32", persistable=True,
                                              name=unique_name.generate(f"{self._name}@EMA_STEP_COUNTER@"))
        self._decay_var = self._decay_of(main, thres_steps)
        self._entries = []   # (param, ema, backup)
        for p in params:
            ema = layers.create_global_var(list(p.shape), 0.0, p.dtype, persistable=True,
                                           name=unique_name.generate(f"{self._name}{p.name}.ema"))
            # the backup lives only in the apply/restore programs: the main program's persistables
            # (what save_persistables and fluid.save write) stay those training computes
            backup = _Backup(unique_name.generate(f"{self._name}{p.name}.ema_tmp"), p.shape, p.dtype)
            self._entries.append((p, ema, backup))
        self.apply_program, self.restore_program = self._apply_programs()

    def _decay_of(self, main, thres_steps):
        with main._lr_schedule_guard():
            decay = layers.create_global_var([1], float(self._decay), "float32", persistable=True,
                                             name=unique_name.generate("scheduled_ema_decay_rate"))
            if thres_steps is not None:
                steps = layers.cast(thres_steps, "float32")
                ramp = layers.elementwise_div(layers.scale(steps, bias=1.0), layers.scale(steps, bias=10.0))
                layers.assign(layers.elementwise_min(ramp, layers.fill_constant([1], "float32", self._decay)), decay)
        return decay

    def _apply_programs(self):
        apply_program, restore_program = Program(), Program()
        with program_guard(apply_program):
            block = apply_program.global_block()
            step, decay = _same_var(block, self._step), _same_var(block, self._decay_var)
            # 1 - decay^step, kept from 0 so that before the first step ema (all zeros) is used as is
            correction = layers.elementwise_max(layers.scale(layers.elementwise_pow(decay, step), scale=-1.0, bias=1.0),
                                                layers.fill_constant([1], "float32", 1e-30))
            for param, ema, backup in self._entries:
                param, ema, backup = (_same_var(block, v) for v in (param, ema, backup))
                layers.assign(param, backup)
                layers.assign(layers.elementwise_div(ema, layers.cast(correction, param.dtype)), param)
        with program_guard(restore_program):
            block = restore_program.global_block()
            for param, _, backup in self._entries:
                layers.assign(_same_var(block, backup), _same_var(block, param))
        return apply_program, restore_program

    def update(self):
        """Appends the moving-average updates (and the step count) to the main program."""
        main = default_main_program()
        with main._optimized_guard():
            block = main.global_block()
            block.append_op("increment", {"X": [self._step]}, {"Out": [self._step]}, {"step": 1.0})
            for param, ema, _ in self._entries:
                decay = layers.cast(self._decay_var, param.dtype)
                kept = layers.elementwise_mul(ema, decay)
                added = layers.elementwise_mul(param, layers.scale(decay, scale=-1.0, bias=1.0))
                layers.assign(layers.elementwise_add(kept, added), ema)

    @contextlib.contextmanager
    def apply(self, executor, need_restore=True):
        executor.run(self.apply_program)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor):
        executor.run(self.restore_program)


class LookaheadOptimizer:
    """Lookahead (Fluid 1.8): ``inner_optimizer`` updates the fast weights every step; after the
    first step the slow weights take the fast ones, and every ``k`` steps slow = alpha * fast +
    (1 - alpha) * slow and fast = slow."""

    def __init__(self, inner_optimizer, alpha=0.5, k=5):
        if not hasattr(inner_optimizer, "minimize"):
            raise TypeError(f"LookaheadOptimizer: inner_optimizer must be an optimizer, got {inner_optimizer!r}")
        self.inner_optimizer = inner_optimizer
        self.alpha = _check_number("LookaheadOptimizer", "alpha", alpha, lo=0.0, hi=1.0)
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise PeError(f"LookaheadOptimizer: k must be a positive integer, got {k!r}")
        self.k = k
        self.type = "lookahead"

    def minimize(self, loss, startup_program=None):
        ops, params_grads = self.inner_optimizer.minimize(loss, startup_program=startup_program)
        main = loss.block.program
        with main._optimized_guard():
            step = _counter("lookahead_step")          # 1, 2, 3, ... after this step's increment
            phase = _counter("lookahead_phase")        # 1..k, back to 0 after each k-th step
            first = _clip01(layers.scale(step, scale=-1.0, bias=2.0))          # 1 on the first step
            sync = _clip01(layers.scale(phase, bias=1.0 - self.k))              # 1 on every k-th step
            layers.assign(layers.elementwise_mul(phase, layers.scale(sync, scale=-1.0, bias=1.0)), phase)
            for param, _ in params_grads:
                slow = layers.create_global_var(list(param.shape), 0.0, param.dtype, persistable=True,
                                                name=unique_name.generate(f"{param.name}@SLOW"))
                first_t, sync_t = layers.cast(first, param.dtype), layers.cast(sync, param.dtype)
                slow_now = _blend(param, slow, first_t)
                mixed = layers.elementwise_add(layers.scale(param, scale=self.alpha),
                                               layers.scale(slow_now, scale=1.0 - self.alpha))
                layers.assign(_blend(mixed, slow_now, sync_t), slow)
                layers.assign(_blend(mixed, param, sync_t), param)
        return ops, params_grads


def _counter(name):
    """A persistable float32 [1] counter, 0 at start, that the main program increments by one."""
    var = layers.create_global_var([1], 0.0, "float32", persistable=True, name=unique_name.generate(name))
    var.block.append_op("increment", {"X": [var]}, {"Out": [var]}, {"step": 1.0})
    return var


def _clip01(x):
    """min(max(x, 0), 1) for a float32 [1] x."""
    zero, one = layers.fill_constant([1], "float32", 0.0), layers.fill_constant([1], "float32", 1.0)
    return layers.elementwise_min(layers.elementwise_max(x, zero), one)


def _blend(a, b, w):
    """w * a + (1 - w) * b for a [1] weight w of 0 or 1."""
    return layers.elementwise_add(layers.elementwise_mul(a, w),
                                  layers.elementwise_mul(b, layers.scale(w, scale=-1.0, bias=1.0)))


class _Backup:
    """A parameter's backup during apply(): a name, shape and dtype, declared in the apply and
    restore programs only."""

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, shape, dtype


def _same_var(block, var):
    """The persistable variable ``var`` declared in another program's ``block`` (same name: the
    scope holds one value for both)."""
    return block.create_var(name=var.name, shape=var.shape, dtype=var.dtype, persistable=True)


Adamax = AdamaxOptimizer
Adadelta = AdadeltaOptimizer
DecayedAdagrad = DecayedAdagradOptimizer
Ftrl = FtrlOptimizer
Lamb = LambOptimizer
LarsMomentum = LarsMomentumOptimizer
