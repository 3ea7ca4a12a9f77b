"""``paddle.distribution.TransformedDistribution`` (Paddle 2.6.2's, in static programs): ``base`` pushed
through ``transforms`` in order; log_prob by the change of variables."""

import typing

from .distribution import Distribution, sum_rightmost
from .independent import Independent
from .transform_base import Transform, set_transformed_distribution
from .transform_event import ChainTransform


class TransformedDistribution(Distribution):
    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}.")
        if not isinstance(transforms, typing.Sequence):
            raise TypeError(
                f"Expected type of 'transforms' is Sequence[Transform] or Chain, but got {type(transforms)}."
            )
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("All element of transforms must be Transform type.")
        self._base, self._transforms = base, transforms
        if not transforms:
            super().__init__(base.batch_shape, base.event_shape)
            return
        chain = ChainTransform(transforms)
        rank = chain._domain.event_rank
        if len(base.batch_shape + base.event_shape) < rank:
            raise ValueError(
                f"'base' needs to have shape with size at least {rank}, bug got "
                f"{len(base.batch_shape + base.event_shape)}."
            )
        if rank > len(base.event_shape):
            base = Independent(base, rank - len(base.event_shape))
        shape = chain.forward_shape(base.batch_shape + base.event_shape)
        event_rank = chain._codomain.event_rank + max(len(base.event_shape) - rank, 0)
        super().__init__(shape[: len(shape) - event_rank], shape[len(shape) - event_rank :])

    def sample(self, shape=()):
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape=()):
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        """The base's log_prob of the inverse, minus each transform's log |det J|."""
        log_prob, y, event_rank = 0.0, value, len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain.event_rank - t._codomain.event_rank
            log_prob = log_prob - sum_rightmost(t.forward_log_det_jacobian(x), event_rank - t._domain.event_rank)
            y = x
        return sum_rightmost(self._base.log_prob(y), event_rank - len(self._base.event_shape)) + log_prob


set_transformed_distribution(TransformedDistribution)
