"""``paddle.distribution.Dirichlet`` (Paddle 2.6.2's, in static programs): over the simplex of the last
dim of ``concentration``; samples from pe's dirichlet op (Paddle's op type)."""

from ...layers.checks import check_variable_and_dtype
from ...layers.helper import LayerHelper
from .exponential_family import ExponentialFamily
from ._tensor import P


def _dirichlet(concentration, name=None):
    check_variable_and_dtype(concentration, "concentration", ("float16", "float32", "float64"), "dirichlet")
    helper = LayerHelper("dirichlet", name=name)
    out = helper.create_variable_for_type_inference(concentration.dtype, stop_gradient=True)
    helper.append_op("dirichlet", {"Alpha": [concentration]}, {"Out": [out]})
    return out


class Dirichlet(ExponentialFamily):
    def __init__(self, concentration):
        if len(concentration.shape) < 1:
            raise ValueError("`concentration` parameter must be at least one dimensional")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:])

    @property
    def mean(self):
        return P.divide(self.concentration, P.sum(self.concentration, -1, keepdim=True))

    @property
    def variance(self):
        total = P.sum(self.concentration, -1, keepdim=True)
        return P.divide(
            P.multiply(self.concentration, P.subtract(total, self.concentration)),
            P.multiply(P.pow(total, 2), P.scale(total, 1.0, bias=1.0)),
        )

    def sample(self, shape=()):
        return _dirichlet(P.expand(self.concentration, list(self._extend_shape(tuple(shape)))))

    def prob(self, value):
        return P.exp(self.log_prob(value))

    def log_prob(self, value):
        c = self.concentration
        return P.subtract(
            P.add(P.sum(P.multiply(P.log(value), P.scale(c, 1.0, bias=-1.0)), -1), P.lgamma(P.sum(c, -1))),
            P.sum(P.lgamma(c), -1),
        )

    def entropy(self):
        c = self.concentration
        total, k = P.sum(c, -1), c.shape[-1]
        return P.subtract(
            P.subtract(
                P.subtract(P.sum(P.lgamma(c), -1), P.lgamma(total)),
                P.multiply(P.scale(total, -1.0, bias=float(k)), P.digamma(total)),
            ),
            P.sum(P.multiply(P.scale(c, 1.0, bias=-1.0), P.digamma(c)), -1),
        )

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return P.subtract(P.sum(P.lgamma(x), -1), P.lgamma(P.sum(x, -1)))
