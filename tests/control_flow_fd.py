"""Central finite differences for the control-flow gradient tests (float64 values by name)."""

import numpy as np


def finite_differences(loss_of, values, name, eps=1e-6):
    """d loss_of(values) / d values[name], every entry, by central differences."""
    grad = np.zeros_like(values[name])
    for idx in np.ndindex(*grad.shape):
        plus, minus = dict(values), dict(values)
        plus[name], minus[name] = values[name].copy(), values[name].copy()
        plus[name][idx] += eps
        minus[name][idx] -= eps
        grad[idx] = (loss_of(plus) - loss_of(minus)) / (2 * eps)
    return grad
