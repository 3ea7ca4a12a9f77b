"""``paddle.distribution``'s transforms (Paddle 2.6.2's, in static programs): invertible maps with their
log |det J|, which TransformedDistribution pushes a distribution through. The base is transform_base.py;
the element-wise ones are here (Abs, Affine, Exp, Power, Sigmoid, Tanh), the composite and event-shaped
ones in transform_event.py (Chain, Independent, Reshape, Softmax, Stack, StickBreaking)."""

import math

from . import constraint, variable
from ._tensor import F, P
from .transform_base import Transform, Type, needs_tensor
from .transform_event import (
    ChainTransform,
    IndependentTransform,
    ReshapeTransform,
    SoftmaxTransform,  # noqa: F401
    StackTransform,
    StickBreakingTransform,
)

__all__ = [
    "Transform",
    "AbsTransform",
    "AffineTransform",
    "ChainTransform",
    "ExpTransform",
    "IndependentTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "TanhTransform",
]


class AbsTransform(Transform):
    """|x|; its inverse is the pair (-y, y)."""

    _type = Type.SURJECTION

    def _forward(self, x):
        return P.abs(x)

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = P.zeros([], dtype=y.dtype)
        return zero, zero

    @property
    def _codomain(self):
        return variable.positive


class AffineTransform(Transform):
    """loc + scale x."""

    _type = Type.BIJECTION

    def __init__(self, loc, scale):
        needs_tensor(loc, "loc")
        needs_tensor(scale, "scale")
        self._loc, self._scale = loc, scale
        super().__init__()

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _forward(self, x):
        return P.add(self._loc, P.multiply(self._scale, x))

    def _inverse(self, y):
        return P.divide(P.subtract(y, self._loc), self._scale)

    def _forward_log_det_jacobian(self, x):
        return P.log(P.abs(self._scale))

    def _forward_shape(self, shape):
        return tuple(P.broadcast_shape(P.broadcast_shape(list(shape), list(self._loc.shape)), list(self._scale.shape)))

    _inverse_shape = _forward_shape


class ExpTransform(Transform):
    """exp(x)."""

    _type = Type.BIJECTION

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return P.exp(x)

    def _inverse(self, y):
        return P.log(y)

    def _forward_log_det_jacobian(self, x):
        return x


class PowerTransform(Transform):
    """x ** power (a Tensor)."""

    _type = Type.BIJECTION

    def __init__(self, power):
        needs_tensor(power, "power")
        self._power = power
        super().__init__()

    @property
    def power(self):
        return self._power

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return P.pow(x, self._power)

    def _inverse(self, y):
        return P.pow(y, P.divide(P.ones_like(self._power), self._power))

    def _forward_log_det_jacobian(self, x):
        return P.log(P.abs(P.multiply(self._power, P.pow(x, P.scale(self._power, 1.0, bias=-1.0)))))

    def _forward_shape(self, shape):
        return tuple(P.broadcast_shape(list(shape), list(self._power.shape)))

    _inverse_shape = _forward_shape


class SigmoidTransform(Transform):
    """sigmoid(x)."""

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(0.0, 1.0))

    def _forward(self, x):
        return F.sigmoid(x)

    def _inverse(self, y):
        return P.subtract(P.log(y), P.log1p(-y))

    def _forward_log_det_jacobian(self, x):
        return P.subtract(-F.softplus(-x), F.softplus(x))


class TanhTransform(Transform):
    """tanh(x)."""

    _type = Type.BIJECTION

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(-1.0, 1.0))

    def _forward(self, x):
        return P.tanh(x)

    def _inverse(self, y):
        return P.atanh(y)

    def _forward_log_det_jacobian(self, x):
        """log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2 x))."""
        return P.scale(P.subtract(P.scale(x, -1.0, bias=math.log(2.0)), F.softplus(P.scale(x, -2.0))), 2.0)
