"""Weight decay: adds coeff * sign(param) (L1) or coeff * param (L2) to a gradient, as ops."""

import abc

from ..framework import unique_name


class WeightDecayRegularizer(abc.ABC):
    def __init__(self, regularization_coeff=0.0):
        self._regularization_coeff = float(regularization_coeff)

    @abc.abstractmethod
    def append_decay(self, block, param, grad):
        """Returns the variable holding the decay term for ``param``."""


class L2DecayRegularizer(WeightDecayRegularizer):
    def append_decay(self, block, param, grad):
        decay = block.create_var(name=unique_name.generate(f"{param.name}.l2decay"), dtype=param.dtype)
        block.append_op("scale", {"X": [param]}, {"Out": [decay]}, {"scale": self._regularization_coeff})
        return decay


class L1DecayRegularizer(WeightDecayRegularizer):
    def append_decay(self, block, param, grad):
        sign = block.create_var(name=unique_name.generate(f"{param.name}.sign"), dtype=param.dtype)
        block.append_op("sign", {"X": [param]}, {"Out": [sign]})
        decay = block.create_var(name=unique_name.generate(f"{param.name}.l1decay"), dtype=param.dtype)
        block.append_op("scale", {"X": [sign]}, {"Out": [decay]}, {"scale": self._regularization_coeff})
        return decay


L1Decay = L1DecayRegularizer
L2Decay = L2DecayRegularizer


def append_regularization_ops(params_grads, regularization=None):
    """A parameter's own regularizer wins over the optimizer's."""
    out = []
    for param, grad in params_grads:
        reg = param.regularizer or regularization
        if reg is None or grad is None:
            out.append((param, grad))
            continue
        block = param.block
        decay = reg.append_decay(block, param, grad)
        new_grad = block.create_var(
            name=unique_name.generate(f"{grad.name}.regularized"), shape=grad.shape, dtype=grad.dtype
        )
        block.append_op("sum", {"X": [grad, decay]}, {"Out": [new_grad]})
        out.append((param, new_grad))
    return out
