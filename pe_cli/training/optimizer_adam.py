"""The Adam family: ``Adam``, ``Adamax`` and ``Lamb`` (and the ``...Optimizer`` spellings), whose step divides
a bias-corrected first moment by a second one (Adamax: an infinity norm; Lamb: that step scaled by a trust
ratio per parameter), with beta1^t and beta2^t as persistable state. optimizer_adaptive.py offers them with the other
adaptive optimizers."""

from ..framework.variable import Variable
from .optimizer_base import Optimizer, check_number


class AdamOptimizer(Optimizer):
    """Adam with bias correction; beta1^t and beta2^t are persistable [1] state updated by the op.
    ``epsilon_scaled`` (pe's, keyword-only): False adds epsilon as Fluid 1.8 does
    (``lr_t * m / (sqrt(v) + epsilon)``), True as Paddle 2.x and pe's run configs do
    (``epsilon * sqrt(1 - beta2^t)`` in that form)."""

    type = "adam"

    _moment1_acc_str = "moment1"
    _moment2_acc_str = "moment2"
    _beta1_pow_acc_str = "beta1_pow_acc"
    _beta2_pow_acc_str = "beta2_pow_acc"

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-8,
        parameter_list=None,
        regularization=None,
        grad_clip=None,
        name=None,
        lazy_mode=False,
        *,
        epsilon_scaled=False,
    ):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)
        self._epsilon_scaled = bool(epsilon_scaled)
        # a beta may be a one-value Variable (Fluid 1.8's): the op reads it each step as Beta1Tensor / Beta2Tensor
        self._beta1 = (
            beta1
            if isinstance(beta1, Variable)
            else check_number("AdamOptimizer", "beta1", beta1, lo=0.0, hi=1.0, hi_open=True)
        )
        self._beta2 = (
            beta2
            if isinstance(beta2, Variable)
            else check_number("AdamOptimizer", "beta2", beta2, lo=0.0, hi=1.0, hi_open=True)
        )
        self._epsilon = check_number("AdamOptimizer", "epsilon", epsilon, lo=0.0)
        self._lazy_mode = bool(lazy_mode)

    def _create_accumulators(self, block, params):
        for p in params:
            self._add_accumulator(self._moment1_acc_str, p)
            self._add_accumulator(self._moment2_acc_str, p)
            # Fluid starts beta^t at 0.9 / 0.999 where the beta is a Variable
            self._add_accumulator(
                self._beta1_pow_acc_str,
                p,
                shape=[1],
                fill_value=0.9 if isinstance(self._beta1, Variable) else self._beta1,
            )
            self._add_accumulator(
                self._beta2_pow_acc_str,
                p,
                shape=[1],
                fill_value=0.999 if isinstance(self._beta2, Variable) else self._beta2,
            )

    def _append_optimize_op(self, block, param, grad, lr):
        m1, m2, b1, b2 = (
            self._get_accumulator(s, param)
            for s in (self._moment1_acc_str, self._moment2_acc_str, self._beta1_pow_acc_str, self._beta2_pow_acc_str)
        )
        inputs = {
            "Param": [param],
            "Grad": [grad],
            "LearningRate": [lr],
            "Moment1": [m1],
            "Moment2": [m2],
            "Beta1Pow": [b1],
            "Beta2Pow": [b2],
        }
        attrs = {"epsilon": self._epsilon, "lazy_mode": self._lazy_mode, "epsilon_scaled": self._epsilon_scaled}
        for attr, slot, beta in (("beta1", "Beta1Tensor", self._beta1), ("beta2", "Beta2Tensor", self._beta2)):
            if isinstance(beta, Variable):
                inputs[slot] = [beta]
            else:
                attrs[attr] = beta
        return block.append_op(
            "adam",
            inputs,
            {"ParamOut": [param], "Moment1Out": [m1], "Moment2Out": [m2], "Beta1PowOut": [b1], "Beta2PowOut": [b2]},
            attrs,
        )


class AdamaxOptimizer(Optimizer):
    """moment = beta1 * moment + (1 - beta1) * grad; inf_norm = max(beta2 * inf_norm + epsilon, |grad|);
    param -= lr / (1 - beta1^t) * moment / inf_norm. beta1^t is a persistable [1] state that a
    ``scale`` op multiplies by beta1 after the updates, as Fluid's does."""

    type = "adamax"

    _moment_acc_str = "moment"
    _inf_norm_acc_str = "inf_norm"
    _beta1_pow_acc_str = "beta1_pow_acc"

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-8,
        parameter_list=None,
        regularization=None,
        grad_clip=None,
        name=None,
    ):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)
        self._beta1 = check_number("AdamaxOptimizer", "beta1", beta1, lo=0.0, hi=1.0, hi_open=True)
        self._beta2 = check_number("AdamaxOptimizer", "beta2", beta2, lo=0.0, hi=1.0, hi_open=True)
        self._epsilon = check_number("AdamaxOptimizer", "epsilon", epsilon, lo=0.0)

    def _create_accumulators(self, block, params):
        for p in params:
            self._add_accumulator(self._moment_acc_str, p)
            self._add_accumulator(self._inf_norm_acc_str, p)
            self._add_accumulator(self._beta1_pow_acc_str, p, fill_value=self._beta1, shape=[1])

    def _append_optimize_op(self, block, param, grad, lr):
        m, u = self._get_accumulator(self._moment_acc_str, param), self._get_accumulator(self._inf_norm_acc_str, param)
        b1 = self._get_accumulator(self._beta1_pow_acc_str, param)
        return block.append_op(
            "adamax",
            {"Param": [param], "Grad": [grad], "LearningRate": [lr], "Moment": [m], "InfNorm": [u], "Beta1Pow": [b1]},
            {"ParamOut": [param], "MomentOut": [m], "InfNormOut": [u]},
            {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon},
        )

    def _finish_update(self, block, params_grads):
        ops = []
        for param, _ in params_grads:
            b1 = self._get_accumulator(self._beta1_pow_acc_str, param)
            ops.append(block.append_op("scale", {"X": [b1]}, {"Out": [b1]}, {"scale": self._beta1}))
        return ops


class LambOptimizer(AdamOptimizer):
    """LAMB: Adam's moments give r = m / (sqrt(v) + epsilon) + lamb_weight_decay * param as Fluid 1.8's
    lamb op does, or with ``bias_correction`` (pe's, keyword-only; Paddle 2.x's form and a run config's)
    m_hat / (sqrt(v_hat) + epsilon) + ...; param -= lr * (||param|| / ||r||) * r (ratio 1 when a norm
    is 0; in Paddle 2.x's form also for a parameter without weight decay, unless ``always_adapt``).
    ``exclude_from_weight_decay_fn(param)`` True drops the decay term for that parameter. The op
    advances beta1^t and beta2^t itself, as pe's adam does."""

    type = "lamb"

    def __init__(
        self,
        learning_rate=0.001,
        lamb_weight_decay=0.01,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-6,
        parameter_list=None,
        regularization=None,
        grad_clip=None,
        exclude_from_weight_decay_fn=None,
        name=None,
        *,
        bias_correction=False,
        always_adapt=False,
    ):
        super().__init__(learning_rate, beta1, beta2, epsilon, parameter_list, regularization, grad_clip, name)
        self._bias_correction = bool(bias_correction)
        self._always_adapt = bool(always_adapt)
        self._weight_decay = check_number("LambOptimizer", "lamb_weight_decay", lamb_weight_decay, lo=0.0)
        if exclude_from_weight_decay_fn is not None and not callable(exclude_from_weight_decay_fn):
            raise TypeError(
                f"LambOptimizer: exclude_from_weight_decay_fn must be callable, got {exclude_from_weight_decay_fn!r}"
            )
        self._exclude_fn = exclude_from_weight_decay_fn

    def _append_optimize_op(self, block, param, grad, lr):
        m1, m2, b1, b2 = (
            self._get_accumulator(s, param)
            for s in (self._moment1_acc_str, self._moment2_acc_str, self._beta1_pow_acc_str, self._beta2_pow_acc_str)
        )
        excluded = self._exclude_fn is not None and self._exclude_fn(param)
        return block.append_op(
            "lamb",
            {
                "Param": [param],
                "Grad": [grad],
                "LearningRate": [lr],
                "Moment1": [m1],
                "Moment2": [m2],
                "Beta1Pow": [b1],
                "Beta2Pow": [b2],
            },
            {"ParamOut": [param], "Moment1Out": [m1], "Moment2Out": [m2], "Beta1PowOut": [b1], "Beta2PowOut": [b2]},
            {
                "beta1": self._beta1,
                "beta2": self._beta2,
                "epsilon": self._epsilon,
                "weight_decay": 0.0 if excluded else self._weight_decay,
                "bias_correction": self._bias_correction,
                **({"always_adapt": True} if self._always_adapt else {}),
            },
        )


Adam = AdamOptimizer


Adamax = AdamaxOptimizer


Lamb = LambOptimizer
