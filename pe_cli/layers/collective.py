"""``paddle.fluid.layers.collective`` of Fluid 1.8: its public names are the ones it imports (its
collective ops are private helpers of the parameter-server and fleet code), so the names scripts
may reach for are here: LayerHelper, Variable and the ``print_function`` future feature."""
from __future__ import print_function  # noqa: F401 -- Fluid's module exports the feature object

from ..framework.variable import Variable  # noqa: F401
from .helper import LayerHelper  # noqa: F401

__all__ = ["LayerHelper", "Variable", "print_function"]
