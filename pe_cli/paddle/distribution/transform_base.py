"""The base of ``paddle.distribution``'s transforms (Paddle 2.6.2's): forward / inverse, their log |det J|,
the shapes they map, and the domains (variable.py) whose event ranks TransformedDistribution reads."""

import enum
import typing

from ...framework.variable import Variable
from . import distribution, variable

_CHAIN = []  # ChainTransform, which transform_event.py sets
_TRANSFORMED = []  # TransformedDistribution, which transformed_distribution.py sets (it builds on this module)


def set_transformed_distribution(cls):
    _TRANSFORMED[:] = [cls]


def set_chain(cls):
    _CHAIN[:] = [cls]


class Type(enum.Enum):
    BIJECTION = "bijection"
    INJECTION = "injection"
    SURJECTION = "surjection"
    OTHER = "other"

    @classmethod
    def is_injective(cls, _type):
        return _type in (cls.BIJECTION, cls.INJECTION)


def _tensor(value, what, rank):
    if not isinstance(value, Variable):
        raise TypeError(f"Expected '{what}' is a Tensor or Real, but got {type(value)}.")
    if len(value.shape) < rank:
        raise ValueError(f"The dimensions of {what}({len(value.shape)}) should be grater than or equal to {rank}")


class Transform:
    """The base: forward / inverse, their log |det J|, and the shapes they map."""

    _type = Type.INJECTION

    def __init__(self):
        super().__init__()

    @classmethod
    def _is_injective(cls):
        return Type.is_injective(cls._type)

    def __call__(self, input):  # noqa: A002 -- Paddle's name
        if isinstance(input, distribution.Distribution):
            return _TRANSFORMED[0](input, [self])
        if isinstance(input, Transform):
            return _CHAIN[0]([self, input])
        return self.forward(input)

    def forward(self, x):
        _tensor(x, "x", self._domain.event_rank)
        return self._forward(x)

    def inverse(self, y):
        _tensor(y, "y", self._codomain.event_rank)
        return self._inverse(y)

    def forward_log_det_jacobian(self, x):
        _tensor(x, "x", self._domain.event_rank)
        if not self._is_injective():
            raise NotImplementedError("forward_log_det_jacobian can't be implemented for non-injectivetransforms.")
        return self._call_forward_log_det_jacobian(x)

    def inverse_log_det_jacobian(self, y):
        _tensor(y, "y", self._codomain.event_rank)
        return self._call_inverse_log_det_jacobian(y)

    def forward_shape(self, shape):
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f"Expected shape is Sequence[int] type, but got {type(shape)}.")
        return self._forward_shape(shape)

    def inverse_shape(self, shape):
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f"Expected shape is Sequence[int] type, but got {type(shape)}.")
        return self._inverse_shape(shape)

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.real

    def _forward(self, x):
        raise NotImplementedError("Forward not implemented")

    def _inverse(self, y):
        raise NotImplementedError("Inverse not implemented")

    def _call_forward_log_det_jacobian(self, x):
        if hasattr(self, "_forward_log_det_jacobian"):
            return self._forward_log_det_jacobian(x)
        if hasattr(self, "_inverse_log_det_jacobian"):
            return -self._inverse_log_det_jacobian(self.forward(x))
        raise NotImplementedError(
            "Neither _forward_log_det_jacobian nor _inverse_log_det_jacobianis implemented. One of them is required."
        )

    def _call_inverse_log_det_jacobian(self, y):
        if hasattr(self, "_inverse_log_det_jacobian"):
            return self._inverse_log_det_jacobian(y)
        if hasattr(self, "_forward_log_det_jacobian"):
            return -self._forward_log_det_jacobian(self._inverse(y))
        raise NotImplementedError(
            "Neither _forward_log_det_jacobian nor _inverse_log_det_jacobian is implemented. One of them is required"
        )

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


def needs_tensor(value, what):
    if not isinstance(value, Variable):
        raise TypeError(f"Expected '{what}' is a Tensor, but got {type(value)}")
