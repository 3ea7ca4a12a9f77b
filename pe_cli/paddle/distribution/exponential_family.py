"""``paddle.distribution.ExponentialFamily``: distributions p(x) = h(x) exp(<theta, T(x)> - A(theta)),
whose entropy is A(theta) - <theta, dA/dtheta> - E[log h(x)], the gradient taken by the static program's
own backward (paddle.static.gradients), as Paddle's."""

from .distribution import Distribution
from ._tensor import P, gradients


def natural_gradients(dist, params):
    """(the parameters as fresh differentiable copies, log normalizer A of them, dA/dparams)."""
    fresh = []
    for p in params:
        copy = p.detach()
        copy.stop_gradient = False
        fresh.append(copy)
    log_norm = dist._log_normalizer(*fresh)
    return fresh, log_norm, gradients(P.sum(log_norm), fresh)


class ExponentialFamily(Distribution):
    @property
    def _natural_parameters(self):
        raise NotImplementedError

    def _log_normalizer(self):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """A(theta) - sum(theta * dA/dtheta) - E[log h]."""
        params, log_norm, grads = natural_gradients(self, self._natural_parameters)
        value = -self._mean_carrier_measure + log_norm
        for p, g in zip(params, grads):
            value = P.subtract(value, P.multiply(p, g))
        return value
