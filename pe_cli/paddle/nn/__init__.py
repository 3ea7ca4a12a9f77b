"""``paddle.nn``: of the 2.0-preview module Paddle 1.8 ships, the activation layers its own tests
reach (``ReLU``, ``Sigmoid``); each calls ``paddle.nn.functional``'s function of its name."""
from . import functional

__all__ = ["ReLU", "Sigmoid", "functional"]


class ReLU:
    """``ReLU(inplace=False)(input)``: max(input, 0). ``inplace`` is accepted; pe decides in-place
    writes itself (the enable_inplace pass)."""

    def __init__(self, inplace=False):
        self._inplace = inplace

    def __call__(self, input):
        return functional.relu(input, self._inplace)


class Sigmoid:
    """``Sigmoid(inplace=False)(input)``: 1 / (1 + exp(-input))."""

    def __init__(self, inplace=False):
        self._inplace = inplace

    def __call__(self, input):
        return functional.sigmoid(input, self._inplace)
