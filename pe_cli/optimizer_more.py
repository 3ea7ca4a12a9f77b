"""Fluid 1.x's further optimizers: ``Adamax``, ``Adadelta`` and ``DecayedAdagrad`` (and the
``...Optimizer`` spellings), each one update op per parameter like those of ``optimizer.py``."""
from .optimizer import Optimizer, _check_number

__all__ = ["Adamax", "AdamaxOptimizer", "Adadelta", "AdadeltaOptimizer", "DecayedAdagrad",
           "DecayedAdagradOptimizer"]


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


Adamax = AdamaxOptimizer
Adadelta = AdadeltaOptimizer
DecayedAdagrad = DecayedAdagradOptimizer
