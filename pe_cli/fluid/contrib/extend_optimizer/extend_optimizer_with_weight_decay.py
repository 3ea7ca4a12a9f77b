"""Fluid 1.8's decoupled weight decay (AdamW's rule, Loshchilov & Hutter): before the base
optimizer's update, each parameter loses ``coeff * param`` (not scaled by the learning rate), so the
decay does not pass through the gradient (and Adam's moments) as L2 regularization would."""

from .... import layers
from ....framework.variable import Variable
from ....training.optimizer import Optimizer

__all__ = ["extend_with_decoupled_weight_decay"]


class DecoupledWeightDecay:
    """The mixin ``extend_with_decoupled_weight_decay`` puts before the base optimizer."""

    def __init__(self, coeff=0.0, apply_decay_param_fun=None, **kwargs):
        if not isinstance(coeff, (float, Variable)):
            raise TypeError("coeff should be float or Variable.")
        self._params_name = set()
        self._apply_decay_param_fun = apply_decay_param_fun
        self._coeff = coeff
        super().__init__(**kwargs)

    def _scale_parameters(self, params_and_grads):
        """[(param, grad, coeff * param)] for the parameters that decay (a gradient, and
        apply_decay_param_fun(name) true when given)."""
        if isinstance(self._coeff, float) and self._coeff == 0.0:
            return []
        scaled = []
        for param, grad in params_and_grads:
            if grad is None:
                continue
            if self._apply_decay_param_fun is not None and not self._apply_decay_param_fun(param.name):
                continue
            if isinstance(self._coeff, float):
                assert self._coeff >= 0.0, "coeff should be a non-negative."
            assert param.name not in self._params_name
            with param.block.program._optimized_guard([param, grad]):
                decay = (
                    layers.scale(param, self._coeff)
                    if isinstance(self._coeff, float)
                    else layers.elementwise_mul(param, self._coeff)
                )
            scaled.append((param, grad, decay))
            self._params_name.add(param.name)
        return scaled

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        """Backward, then param -= coeff * param for each decaying parameter, then the base
        optimizer's update; returns (update ops, [(param, grad)]) as Optimizer.minimize."""
        params_grads = self.backward(
            loss=loss, startup_program=startup_program, parameter_list=parameter_list, no_grad_set=no_grad_set
        )
        for param, grad, decay in self._scale_parameters(params_grads):
            with param.block.program._optimized_guard([param, grad]):
                layers.assign(input=layers.elementwise_sub(x=param, y=decay), output=param)
        ops = self.apply_optimize(loss=loss, startup_program=startup_program, params_grads=params_grads)
        return ops, params_grads

    def __str__(self):
        return " ".join(["Weight Decay, params:", ",".join(self._params_name)])


def extend_with_decoupled_weight_decay(base_optimizer):
    """A subclass of the optimizer class ``base_optimizer`` whose first argument is the decay
    coefficient: ``AdamW = extend_with_decoupled_weight_decay(fluid.optimizer.Adam);
    AdamW(weight_decay=0.01, learning_rate=1e-3, apply_decay_param_fun=None)``."""
    if not (isinstance(base_optimizer, type) and issubclass(base_optimizer, Optimizer)):
        raise TypeError("The input(base_optimizer) should be a derived class of Optimizer.")

    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecay, base_optimizer):
        def __init__(self, weight_decay, apply_decay_param_fun=None, **kwargs):
            super().__init__(weight_decay, apply_decay_param_fun, **kwargs)

    OptimizerWithDecoupledWeightDecay.__name__ = f"{base_optimizer.__name__}WithDecoupledWeightDecay"
    return OptimizerWithDecoupledWeightDecay
