"""``paddle.distribution.Independent`` (Paddle 2.6.2's, in static programs): ``base`` with its
``reinterpreted_batch_rank`` rightmost batch dims read as event dims (log_prob and entropy summed over
them)."""

from .distribution import Distribution, sum_rightmost


class Independent(Distribution):
    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}")
        if not 0 < reinterpreted_batch_rank <= len(base.batch_shape):
            raise ValueError(
                f"Expected 0 < reinterpreted_batch_rank <= {len(base.batch_shape)}, but got {reinterpreted_batch_rank}"
            )
        self._base, self._reinterpreted_batch_rank = base, reinterpreted_batch_rank
        shape = base.batch_shape + base.event_shape
        cut = len(base.batch_shape) - reinterpreted_batch_rank
        super().__init__(batch_shape=shape[:cut], event_shape=shape[cut:])

    @property
    def mean(self):
        return self._base.mean

    @property
    def variance(self):
        return self._base.variance

    def sample(self, shape=()):
        return self._base.sample(shape)

    def log_prob(self, value):
        return sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def entropy(self):
        return sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)
