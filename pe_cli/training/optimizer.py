"""Optimizers: ``minimize(loss)`` appends the backward ops, clipping, regularization and one update
op per parameter (role Optimize). Optimizer state (moments, beta powers, the learning rate) lives in
persistable variables initialized by the startup program, so checkpoints carry it.

This module holds the plain-gradient family: ``SGD``, ``Momentum`` and
``LarsMomentum`` (and the ``...Optimizer`` spellings); optimizer_base.py the base class (imported here,
where the optimizers of scripts and pe's other modules find it); optimizer_adaptive.py holds those with
per-parameter adaptive rates (Adam, ...), averaging.py the weight-averaging wrappers. Names and
semantics follow Fluid 1.x, each taking ``(learning_rate, ..., regularization=None, grad_clip=None,
name=None)``; ``learning_rate`` is a float or a [1] Variable (a schedule from
``layers.learning_rate_scheduler``)."""

from .optimizer_base import Optimizer, check_number

__all__ = [
    "Optimizer",
    "SGD",
    "SGDOptimizer",
    "Momentum",
    "MomentumOptimizer",
    "LarsMomentum",
    "Dpsgd",
    "DpsgdOptimizer",
    "DGCMomentumOptimizer",
    "LarsMomentumOptimizer",
]


class SGDOptimizer(Optimizer):
    """ParamOut = Param - lr * Grad."""

    type = "sgd"

    def __init__(self, learning_rate, parameter_list=None, regularization=None, grad_clip=None, name=None):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)

    def _append_optimize_op(self, block, param, grad, lr):
        return block.append_op("sgd", {"Param": [param], "Grad": [grad], "LearningRate": [lr]}, {"ParamOut": [param]})


class MomentumOptimizer(Optimizer):
    """velocity = momentum * velocity + grad; param -= lr * velocity, or with ``use_nesterov``
    param -= lr * (grad + momentum * velocity)."""

    type = "momentum"

    _velocity_acc_str = "velocity"

    def __init__(
        self,
        learning_rate,
        momentum,
        parameter_list=None,
        use_nesterov=False,
        regularization=None,
        grad_clip=None,
        name=None,
    ):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)
        self._momentum = check_number("MomentumOptimizer", "momentum", momentum, lo=0.0)
        self._use_nesterov = bool(use_nesterov)

    def _create_accumulators(self, block, params):
        for p in params:
            self._add_accumulator(self._velocity_acc_str, p)

    def _append_optimize_op(self, block, param, grad, lr):
        velocity = self._get_accumulator(self._velocity_acc_str, param)
        return block.append_op(
            "momentum",
            {"Param": [param], "Grad": [grad], "Velocity": [velocity], "LearningRate": [lr]},
            {"ParamOut": [param], "VelocityOut": [velocity]},
            {"mu": self._momentum, "use_nesterov": self._use_nesterov},
        )


SGD = SGDOptimizer
Momentum = MomentumOptimizer


class LarsMomentumOptimizer(MomentumOptimizer):
    """Momentum with a layer-wise rate: local_lr = lr * lars_coeff * ||param|| / (||grad|| +
    lars_weight_decay * ||param||) (lr when a norm is 0); velocity = momentum * velocity +
    local_lr * (grad + lars_weight_decay * param); param -= velocity."""

    type = "lars_momentum"

    def __init__(
        self,
        learning_rate,
        momentum,
        lars_coeff=0.001,
        lars_weight_decay=0.0005,
        parameter_list=None,
        regularization=None,
        grad_clip=None,
        name=None,
    ):
        super().__init__(learning_rate, momentum, parameter_list, False, regularization, grad_clip, name)
        self._lars_coeff = check_number("LarsMomentumOptimizer", "lars_coeff", lars_coeff, lo=0.0)
        self._lars_weight_decay = check_number("LarsMomentumOptimizer", "lars_weight_decay", lars_weight_decay, lo=0.0)

    def _append_optimize_op(self, block, param, grad, lr):
        velocity = self._get_accumulator(self._velocity_acc_str, param)
        return block.append_op(
            "lars_momentum",
            {"Param": [param], "Grad": [grad], "Velocity": [velocity], "LearningRate": [lr]},
            {"ParamOut": [param], "VelocityOut": [velocity]},
            {"mu": self._momentum, "lars_coeff": self._lars_coeff, "lars_weight_decay": self._lars_weight_decay},
        )


LarsMomentum = LarsMomentumOptimizer


class DpsgdOptimizer(Optimizer):
    """Differentially private SGD (the ``dpsgd`` op): each gradient is scaled to L2 norm at most
    ``clip``, one N(0, sigma^2) noise value divided by ``batch_size`` is added, and the parameter
    moves by ``-lr`` times that. The noise comes from the program's seeded generator (Fluid 1.8 seeds
    it from the clock, so its runs differ; pe's repeat under ``random_seed``)."""

    type = "dpsgd"

    def __init__(self, learning_rate=0.001, clip=0.9, batch_size=0.999, sigma=1e-8, parameter_list=None):
        assert learning_rate is not None
        assert clip is not None
        assert batch_size is not None
        assert sigma is not None
        super().__init__(learning_rate, parameter_list)
        self._clip = check_number("DpsgdOptimizer", "clip", clip, lo=0.0)
        self._batch_size = check_number("DpsgdOptimizer", "batch_size", batch_size, lo=0.0, lo_open=True)
        self._sigma = check_number("DpsgdOptimizer", "sigma", sigma, lo=0.0)
        self._seed = 0

    def _append_optimize_op(self, block, param, grad, lr):
        return block.append_op(
            "dpsgd",
            {"Param": [param], "Grad": [grad], "LearningRate": [lr]},
            {"ParamOut": [param]},
            {"clip": self._clip, "batch_size": self._batch_size, "sigma": self._sigma, "seed": self._seed},
        )


class DGCMomentumOptimizer(MomentumOptimizer):
    """Fluid's Deep Gradient Compression optimizer, with its parameters and checks. What pe runs is
    Momentum: Fluid's update for every parameter before ``rampup_begin_step`` and, at every step, for
    parameters of fewer than 16384 values. After ``rampup_begin_step`` Fluid's dgc op (GPU builds
    only) sends only the top (1 - sparsity) fraction of each large parameter's accumulated velocity
    and keeps the rest for later steps; pe does not sparsify: its update stays the dense momentum
    one (docs/COMPAT.md). ``grad_clip`` must be a GradientClipByNorm, as in Fluid."""

    type = "momentum"

    def __init__(
        self,
        learning_rate,
        momentum,
        rampup_begin_step,
        rampup_step=1,
        sparsity=(0.999,),
        parameter_list=None,
        use_nesterov=False,
        num_trainers=None,
        regularization=None,
        grad_clip=None,
        name=None,
    ):
        assert learning_rate is not None
        assert momentum is not None
        assert rampup_begin_step >= 0, "rampup_begin_step must >= 0"
        if grad_clip is not None:
            if type(grad_clip).__name__ != "GradientClipByNorm":
                raise TypeError(
                    "The type of grad_clip should be 'GradientClipByNorm', because "
                    "DGCMomentumOptimizer only support GradientClipByNorm"
                )
            assert isinstance(num_trainers, int), (
                f"The type of num_trainers should be 'int', but received {type(num_trainers)}"
            )
            assert num_trainers > 0, "The value of num_trainers should be greater than 0!"
        if regularization is not None:
            assert type(regularization).__name__ in ("L1DecayRegularizer", "L2DecayRegularizer"), (
                "regularization must be None|L1Decay|L2Deacy"
            )
        super().__init__(learning_rate, momentum, parameter_list, use_nesterov, regularization, grad_clip, name)
        self._rampup_begin_step = rampup_begin_step
        self._rampup_step = rampup_step
        self._sparsity = list(sparsity)
        self._num_trainers = num_trainers


Dpsgd = DpsgdOptimizer
