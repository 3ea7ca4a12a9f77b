"""Optimizers whose step adapts per parameter from running statistics of its gradients: ``Adam``,
``Adagrad``, ``RMSProp``, ``Adamax``, ``Adadelta``, ``DecayedAdagrad``, ``Ftrl`` and ``Lamb`` (and the
``...Optimizer`` spellings), each one update op per parameter on the base class of optimizer_base.py.
The Adam family (Adam, Adamax, Lamb) is defined in optimizer_adam.py and offered here with the others."""

from .optimizer_base import Optimizer, check_number
from .optimizer_adam import Adam, AdamOptimizer, Adamax, AdamaxOptimizer, Lamb, LambOptimizer  # noqa: F401

__all__ = [
    "Adam",
    "AdamOptimizer",
    "Adagrad",
    "AdagradOptimizer",
    "RMSProp",
    "RMSPropOptimizer",
    "Adamax",
    "AdamaxOptimizer",
    "Adadelta",
    "AdadeltaOptimizer",
    "DecayedAdagrad",
    "DecayedAdagradOptimizer",
    "Ftrl",
    "FtrlOptimizer",
    "Lamb",
    "LambOptimizer",
]


class AdagradOptimizer(Optimizer):
    """moment += grad^2; param -= lr * grad / (sqrt(moment) + epsilon)."""

    type = "adagrad"

    _moment_acc_str = "moment"

    def __init__(
        self,
        learning_rate,
        epsilon=1e-6,
        parameter_list=None,
        regularization=None,
        grad_clip=None,
        name=None,
        initial_accumulator_value=0.0,
    ):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)
        self._epsilon = check_number("AdagradOptimizer", "epsilon", epsilon, lo=0.0)
        self._initial_accumulator_value = check_number(
            "AdagradOptimizer", "initial_accumulator_value", initial_accumulator_value, lo=0.0
        )

    def _create_accumulators(self, block, params):
        for p in params:
            self._add_accumulator(self._moment_acc_str, p, fill_value=self._initial_accumulator_value)

    def _append_optimize_op(self, block, param, grad, lr):
        moment = self._get_accumulator(self._moment_acc_str, param)
        return block.append_op(
            "adagrad",
            {"Param": [param], "Grad": [grad], "Moment": [moment], "LearningRate": [lr]},
            {"ParamOut": [param], "MomentOut": [moment]},
            {"epsilon": self._epsilon},
        )


class RMSPropOptimizer(Optimizer):
    """mean_square = rho * mean_square + (1 - rho) * grad^2;
    moment = momentum * moment + lr * grad / sqrt(mean_square + epsilon)
    (``centered``: mean_grad = rho * mean_grad + (1 - rho) * grad, and mean_square - mean_grad^2 under
    the root); param -= moment."""

    type = "rmsprop"

    _momentum_acc_str = "momentum"
    _mean_square_acc_str = "mean_square"
    _mean_grad_acc_str = "mean_grad"

    def __init__(
        self,
        learning_rate,
        rho=0.95,
        epsilon=1e-6,
        momentum=0.0,
        centered=False,
        parameter_list=None,
        regularization=None,
        grad_clip=None,
        name=None,
    ):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)
        self._rho = check_number("RMSPropOptimizer", "rho", rho, lo=0.0, hi=1.0)
        self._epsilon = check_number("RMSPropOptimizer", "epsilon", epsilon, lo=0.0)
        self._momentum = check_number("RMSPropOptimizer", "momentum", momentum, lo=0.0)
        self._centered = bool(centered)

    def _create_accumulators(self, block, params):
        for p in params:
            self._add_accumulator(self._momentum_acc_str, p)
            self._add_accumulator(self._mean_square_acc_str, p)
            self._add_accumulator(self._mean_grad_acc_str, p)

    def _append_optimize_op(self, block, param, grad, lr):
        mom, ms = (self._get_accumulator(s, param) for s in (self._momentum_acc_str, self._mean_square_acc_str))
        mg = self._get_accumulator(self._mean_grad_acc_str, param)
        return block.append_op(
            "rmsprop",
            {
                "Param": [param],
                "Grad": [grad],
                "Moment": [mom],
                "MeanSquare": [ms],
                "MeanGrad": [mg],
                "LearningRate": [lr],
            },
            {"ParamOut": [param], "MomentOut": [mom], "MeanSquareOut": [ms], "MeanGradOut": [mg]},
            {"decay": self._rho, "epsilon": self._epsilon, "momentum": self._momentum, "centered": self._centered},
        )


class AdadeltaOptimizer(Optimizer):
    """avg_sq_grad = rho * avg_sq_grad + (1 - rho) * grad^2;
    update = -sqrt((avg_sq_update + epsilon) / (avg_sq_grad + epsilon)) * grad;
    avg_sq_update = rho * avg_sq_update + (1 - rho) * update^2; param += update. As in Fluid, the
    update op reads no learning rate (``learning_rate`` is checked and kept, not applied)."""

    type = "adadelta"

    _avg_squared_grad_acc_str = "_avg_squared_grad"
    _avg_squared_update_acc_str = "_avg_squared_update"

    def __init__(
        self,
        learning_rate,
        epsilon=1.0e-6,
        rho=0.95,
        parameter_list=None,
        regularization=None,
        grad_clip=None,
        name=None,
    ):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)
        self._epsilon = check_number("AdadeltaOptimizer", "epsilon", epsilon, lo=0.0)
        self._rho = check_number("AdadeltaOptimizer", "rho", rho, lo=0.0, hi=1.0)

    def _create_accumulators(self, block, params):
        for p in params:
            self._add_accumulator(self._avg_squared_grad_acc_str, p)
            self._add_accumulator(self._avg_squared_update_acc_str, p)

    def _append_optimize_op(self, block, param, grad, lr):
        sg = self._get_accumulator(self._avg_squared_grad_acc_str, param)
        su = self._get_accumulator(self._avg_squared_update_acc_str, param)
        return block.append_op(
            "adadelta",
            {"Param": [param], "Grad": [grad], "AvgSquaredGrad": [sg], "AvgSquaredUpdate": [su]},
            {"ParamOut": [param], "AvgSquaredGradOut": [sg], "AvgSquaredUpdateOut": [su]},
            {"rho": self._rho, "epsilon": self._epsilon},
        )


class DecayedAdagradOptimizer(Optimizer):
    """moment = decay * moment + (1 - decay) * grad^2; param -= lr * grad / (sqrt(moment) + epsilon)."""

    type = "decayed_adagrad"

    _moment_acc_str = "moment"

    def __init__(
        self,
        learning_rate,
        decay=0.95,
        epsilon=1.0e-6,
        parameter_list=None,
        regularization=None,
        grad_clip=None,
        name=None,
    ):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)
        self._decay = check_number("DecayedAdagradOptimizer", "decay", decay, lo=0.0, hi=1.0)
        self._epsilon = check_number("DecayedAdagradOptimizer", "epsilon", epsilon, lo=0.0)

    def _create_accumulators(self, block, params):
        for p in params:
            self._add_accumulator(self._moment_acc_str, p)

    def _append_optimize_op(self, block, param, grad, lr):
        moment = self._get_accumulator(self._moment_acc_str, param)
        return block.append_op(
            "decayed_adagrad",
            {"Param": [param], "Grad": [grad], "Moment": [moment], "LearningRate": [lr]},
            {"ParamOut": [param], "MomentOut": [moment]},
            {"decay": self._decay, "epsilon": self._epsilon},
        )


class FtrlOptimizer(Optimizer):
    """FTRL-Proximal: squared += grad^2 (n); linear += grad - (n^c - old^c) / lr * param with
    c = -lr_power; param = (l1 * sign(linear) - linear) / (n^c / lr + 2 * l2) where |linear| > l1,
    else 0 (Fluid's kernel adds 1e-10 to l1 and l2)."""

    type = "ftrl"

    _squared_acc_str = "squared"
    _linear_acc_str = "linear"

    def __init__(
        self,
        learning_rate,
        l1=0.0,
        l2=0.0,
        lr_power=-0.5,
        parameter_list=None,
        regularization=None,
        grad_clip=None,
        name=None,
    ):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name)
        self._l1 = check_number("FtrlOptimizer", "l1", l1, lo=0.0)
        self._l2 = check_number("FtrlOptimizer", "l2", l2, lo=0.0)
        self._lr_power = check_number("FtrlOptimizer", "lr_power", lr_power, hi=0.0)

    def _create_accumulators(self, block, params):
        for p in params:
            self._add_accumulator(self._squared_acc_str, p)
            self._add_accumulator(self._linear_acc_str, p)

    def _append_optimize_op(self, block, param, grad, lr):
        sq, lin = (self._get_accumulator(s, param) for s in (self._squared_acc_str, self._linear_acc_str))
        return block.append_op(
            "ftrl",
            {
                "Param": [param],
                "Grad": [grad],
                "LearningRate": [lr],
                "SquaredAccumulator": [sq],
                "LinearAccumulator": [lin],
            },
            {"ParamOut": [param], "SquaredAccumOut": [sq], "LinearAccumOut": [lin]},
            {"l1": self._l1, "l2": self._l2, "lr_power": self._lr_power},
        )


Adagrad = AdagradOptimizer
RMSProp = RMSPropOptimizer
Adadelta = AdadeltaOptimizer
DecayedAdagrad = DecayedAdagradOptimizer
Ftrl = FtrlOptimizer
