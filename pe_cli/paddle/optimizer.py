"""``paddle.optimizer`` (2.x names and arguments) over pe's optimizers: ``weight_decay`` a float is
L2 decay of that coefficient (or a regularizer), ``grad_clip`` a gradient clip; ``parameters`` is
for dygraph and must be None here (pe runs static graphs)."""
from ..training import optimizer as _plain
from ..training import optimizer_adaptive as _adaptive
from ..base.errors import PeError
from ..training.regularizer import L2Decay

__all__ = ["SGD", "Momentum", "Adam"]


def _common(parameters, weight_decay):
    if parameters is not None:
        raise PeError("paddle.optimizer: parameters= is for dygraph; pe runs static graphs: leave it None and "
                      "call minimize(loss)")
    return L2Decay(float(weight_decay)) if isinstance(weight_decay, (int, float)) else weight_decay


def SGD(learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None, name=None):
    return _plain.SGD(learning_rate, regularization=_common(parameters, weight_decay), grad_clip=grad_clip,
                      name=name)


def Momentum(learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False, weight_decay=None,
             grad_clip=None, name=None):
    return _plain.Momentum(learning_rate, momentum, use_nesterov=use_nesterov,
                           regularization=_common(parameters, weight_decay), grad_clip=grad_clip, name=name)


def Adam(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None, weight_decay=None,
         grad_clip=None, lazy_mode=False, name=None):
    return _adaptive.Adam(learning_rate, beta1, beta2, epsilon, regularization=_common(parameters, weight_decay),
                       grad_clip=grad_clip, name=name, lazy_mode=lazy_mode, epsilon_scaled=True)
