"""``paddle.nn.functional``: the activations of Paddle 1.8's 2.0-preview module its tests reach."""
from ... import layers

__all__ = ["relu", "sigmoid"]


def relu(input, inplace=False, name=None):
    """max(input, 0), by the relu op."""
    return layers.relu(input, name=name)


def sigmoid(input, inplace=False, name=None):
    """1 / (1 + exp(-input)), by the sigmoid op."""
    return layers.sigmoid(input, name=name)
