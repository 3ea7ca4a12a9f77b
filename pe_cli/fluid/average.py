"""``paddle.fluid.average``: ``WeightedAverage``, a running weighted mean of numbers or arrays
(the values a training loop fetches), computed in Python as Fluid's."""

import numbers

import numpy as np

__all__ = ["WeightedAverage"]


def _is_number_or_array(value):
    return (
        isinstance(value, (numbers.Number, np.ndarray)) and not isinstance(value, bool) or isinstance(value, np.generic)
    )


def _is_number(value):
    """A number, or (as Fluid's) an array of shape [1]: a fetched batch size."""
    if isinstance(value, np.ndarray):
        return value.shape == (1,)
    return isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, bool)


class WeightedAverage:
    """``add(value, weight)`` accumulates value * weight and weight; ``eval()`` is their ratio."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.numerator = None
        self.denominator = None

    def add(self, value, weight):
        if not _is_number_or_array(value):
            raise ValueError("The 'value' must be a number(int, float) or a numpy ndarray.")
        if not _is_number(weight):
            raise ValueError("The 'weight' must be a number(int, float).")
        if self.numerator is None or self.denominator is None:
            self.numerator, self.denominator = value * weight, weight
        else:
            self.numerator = self.numerator + value * weight
            self.denominator = self.denominator + weight

    def eval(self):
        if self.numerator is None or self.denominator is None:
            raise ValueError("There is no data to be averaged in WeightedAverage.")
        return self.numerator / self.denominator
