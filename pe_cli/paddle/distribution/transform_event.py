"""``paddle.distribution``'s composite and event-shaped transforms (Paddle 2.6.2's): ChainTransform (one
after another), IndependentTransform (batch dims read as event dims), ReshapeTransform (an event's
shape), SoftmaxTransform, StackTransform (one transform per slice along an axis), StickBreakingTransform
(R^k onto the (k + 1)-simplex)."""

import typing

from ...base.dims import numel
from . import constraint, variable
from ._tensor import F, P
from .distribution import sum_rightmost
from .transform_base import Transform, Type, set_chain


class ChainTransform(Transform):
    def __init__(self, transforms):
        if not isinstance(transforms, typing.Sequence):
            raise TypeError(f"Expected type of 'transforms' is Sequence, but got {type(transforms)}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("All elements of transforms should be Transform type.")
        self.transforms = transforms
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self.transforms)

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        value, event_rank = 0.0, self._domain.event_rank
        for t in self.transforms:
            value = value + sum_rightmost(t.forward_log_det_jacobian(x), event_rank - t._domain.event_rank)
            x = t.forward(x)
            event_rank += t._codomain.event_rank - t._domain.event_rank
        return value

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in self.transforms:
            shape = t.inverse_shape(shape)
        return shape

    def _sum_rightmost(self, value, n):
        return sum_rightmost(value, n)

    @property
    def _domain(self):
        domain, rank = self.transforms[0]._domain, self.transforms[-1]._codomain.event_rank
        for t in reversed(self.transforms):
            rank = max(rank - (t._codomain.event_rank - t._domain.event_rank), t._domain.event_rank)
        return variable.Independent(domain, rank - domain.event_rank)

    @property
    def _codomain(self):
        codomain, rank = self.transforms[-1]._codomain, self.transforms[0]._domain.event_rank
        for t in self.transforms:
            rank = max(rank + t._codomain.event_rank - t._domain.event_rank, t._codomain.event_rank)
        return variable.Independent(codomain, rank - codomain.event_rank)


set_chain(ChainTransform)


class IndependentTransform(Transform):
    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError(f"Expected 'base' is Transform type, but get {type(base)}")
        if reinterpreted_batch_rank <= 0:
            raise ValueError(
                f"Expected 'reinterpreted_batch_rank' is grater than zero, but got {reinterpreted_batch_rank}"
            )
        self._base, self._reinterpreted_batch_rank = base, reinterpreted_batch_rank
        super().__init__()

    def _is_injective(self):
        return self._base._is_injective()

    def _forward(self, x):
        return self._base.forward(x)

    def _inverse(self, y):
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return P.sum(self._base.forward_log_det_jacobian(x), list(range(-self._reinterpreted_batch_rank, 0)))

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)

    @property
    def _domain(self):
        return variable.Independent(self._base._domain, self._reinterpreted_batch_rank)

    @property
    def _codomain(self):
        return variable.Independent(self._base._codomain, self._reinterpreted_batch_rank)


class ReshapeTransform(Transform):
    _type = Type.BIJECTION

    def __init__(self, in_event_shape, out_event_shape):
        if not isinstance(in_event_shape, typing.Sequence) or not isinstance(out_event_shape, typing.Sequence):
            raise TypeError(
                f"Expected type of 'in_event_shape' and 'out_event_shape' is Squence[int], but got "
                f"'in_event_shape': {in_event_shape}, 'out_event_shape': {out_event_shape}"
            )
        if numel(in_event_shape) != numel(out_event_shape):
            raise ValueError(
                f"The numel of 'in_event_shape' should be 'out_event_shape', but got "
                f"{numel(in_event_shape)}!={numel(out_event_shape)}"
            )
        self._in_event_shape, self._out_event_shape = tuple(in_event_shape), tuple(out_event_shape)
        super().__init__()

    @property
    def in_event_shape(self):
        return self._in_event_shape

    @property
    def out_event_shape(self):
        return self._out_event_shape

    @property
    def _domain(self):
        return variable.Independent(variable.real, len(self._in_event_shape))

    @property
    def _codomain(self):
        return variable.Independent(variable.real, len(self._out_event_shape))

    def _forward(self, x):
        return P.reshape(x, list(x.shape[: len(x.shape) - len(self._in_event_shape)]) + list(self._out_event_shape))

    def _inverse(self, y):
        return P.reshape(y, list(y.shape[: len(y.shape) - len(self._out_event_shape)]) + list(self._in_event_shape))

    def _forward_shape(self, shape):
        return _swap_event(shape, self._in_event_shape, self._out_event_shape)

    def _inverse_shape(self, shape):
        return _swap_event(shape, self._out_event_shape, self._in_event_shape)

    def _forward_log_det_jacobian(self, x):
        return P.zeros(list(x.shape[: len(x.shape) - len(self._in_event_shape)]), dtype=x.dtype)


def _swap_event(shape, old, new):
    if len(shape) < len(old):
        raise ValueError(f"Expected length of 'shape' is not less than {len(old)}, but got {len(shape)}")
    if tuple(shape[len(shape) - len(old) :]) != tuple(old):
        raise ValueError(f"Event shape mismatch, expected: {old}, but got {tuple(shape[len(shape) - len(old) :])}")
    return tuple(shape[: len(shape) - len(old)]) + tuple(new)


class SoftmaxTransform(Transform):
    _type = Type.OTHER

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)

    def _forward(self, x):
        e = P.exp(P.subtract(x, P.max(x, -1, keepdim=True)))
        return P.divide(e, P.sum(e, -1, keepdim=True))

    def _inverse(self, y):
        return P.log(y)

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(f"Expected length of shape is grater than 1, but got {len(shape)}")
        return shape

    _inverse_shape = _forward_shape


class StackTransform(Transform):
    def __init__(self, transforms, axis=0):
        if not transforms or not isinstance(transforms, typing.Sequence):
            raise TypeError(f"Expected 'transforms' is Sequence[Transform], but got {type(transforms)}.")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("Expected all element in transforms is Transform Type.")
        if not isinstance(axis, int):
            raise TypeError(f"Expected 'axis' is int, but got{type(axis)}.")
        self._transforms, self._axis = transforms, axis

    def _is_injective(self):
        return all(t._is_injective() for t in self._transforms)

    @property
    def transforms(self):
        return self._transforms

    @property
    def axis(self):
        return self._axis

    def _each(self, v, method):
        self._check_size(v)
        return P.stack(
            [getattr(t, method)(part) for part, t in zip(P.unstack(v, self._axis), self._transforms)], self._axis
        )

    def _forward(self, x):
        return self._each(x, "forward")

    def _inverse(self, y):
        return self._each(y, "inverse")

    def _forward_log_det_jacobian(self, x):
        return self._each(x, "forward_log_det_jacobian")

    def _check_size(self, v):
        if not -len(v.shape) <= self._axis < len(v.shape):
            raise ValueError(
                f"Input dimensions {len(v.shape)} should be grater than stack transform axis {self._axis}."
            )
        if v.shape[self._axis] != len(self._transforms):
            raise ValueError(f"Input size along {self._axis} should be equal to the length of transforms.")

    @property
    def _domain(self):
        return variable.Stack([t._domain for t in self._transforms], self._axis)

    @property
    def _codomain(self):
        return variable.Stack([t._codomain for t in self._transforms], self._axis)


def _offsets(k, dtype):
    """[k, k - 1, ..., 1] (Paddle's x.shape[-1] + 1 - cumsum(ones))."""
    return P.scale(P.cumsum(P.ones([k], dtype=dtype), -1), -1.0, bias=float(k + 1))


class StickBreakingTransform(Transform):
    _type = Type.BIJECTION

    def _forward(self, x):
        k = x.shape[-1]
        z = F.sigmoid(P.subtract(x, P.log(_offsets(k, x.dtype))))
        rest = P.cumprod(P.scale(z, -1.0, bias=1.0), -1)
        lead = [0] * 2 * (len(x.shape) - 1)
        return P.multiply(F.pad(z, lead + [0, 1], value=1.0), F.pad(rest, lead + [1, 0], value=1.0))

    def _inverse(self, y):
        k = y.shape[-1] - 1
        crop = P.slice(y, [len(y.shape) - 1], [0], [k])
        left = P.scale(P.cumsum(crop, -1), -1.0, bias=1.0)
        return P.add(P.subtract(P.log(crop), P.log(left)), P.log(_offsets(k, y.dtype)))

    def _forward_log_det_jacobian(self, x):
        y = self.forward(x)
        k = x.shape[-1]
        x = P.subtract(x, P.log(_offsets(k, x.dtype)))
        crop = P.slice(y, [len(y.shape) - 1], [0], [k])
        return P.sum(P.add(P.add(-x, F.log_sigmoid(x)), P.log(crop)), -1)

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return tuple(shape[:-1]) + (shape[-1] - 1,)

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)
