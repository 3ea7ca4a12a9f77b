"""``paddle.fluid.layer_helper_base``: LayerHelperBase, what Fluid's LayerHelper is built on (naming,
parameters, variables, initializers); pe's LayerHelper (pe_cli/layers/helper.py) holds all of it."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has these names

import copy  # noqa: F401

import numpy as np  # noqa: F401

from . import core, unique_name  # noqa: F401
from .framework import Variable, default_main_program, default_startup_program, in_dygraph_mode  # noqa: F401
from .param_attr import ParamAttr, WeightNormParamAttr  # noqa: F401
from ..layers.creation import assign
from ..layers.helper import LayerHelper

__all__ = ["LayerHelperBase"]


class LayerHelperBase(LayerHelper):
    """``LayerHelperBase(name, layer_type)``: a LayerHelper named ``name`` for ``layer_type``."""

    def __init__(self, name, layer_type):
        super().__init__(layer_type, name=name)

    def to_variable(self, value, name=None):
        """A Variable as is; a numpy array or number as a variable holding its values (``assign``)."""
        if isinstance(value, Variable):
            return value
        return assign(np.asarray(value))
