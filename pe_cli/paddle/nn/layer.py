"""``paddle.nn.Layer``: Fluid's ``fluid.dygraph.Layer``, one class as in Paddle 2.x
(pe_cli/fluid/dygraph/layers.py)."""

from ...fluid.dygraph.layers import Layer, declare_in_current  # noqa: F401

__all__ = ["Layer"]
