"""``paddle.fluid.layer_helper``: LayerHelper, which programs use to append ops of their own
(``helper.append_op``, ``create_variable_for_type_inference``, ``create_parameter``); pe's layers use
the same one. The other names of Fluid's module are the ones it imports, and ``dtype_is_floating``."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has these names

import copy  # noqa: F401

from . import core, unique_name  # noqa: F401
from .framework import Parameter, in_dygraph_mode  # noqa: F401
from .initializer import Constant, Xavier  # noqa: F401
from .layer_helper_base import LayerHelperBase  # noqa: F401
from .op_proto import OpProtoHolder  # noqa: F401
from .param_attr import ParamAttr  # noqa: F401
from .unsupported import optional_module
from ..base.dtypes import convert_dtype
from ..layers.helper import LayerHelper  # noqa: F401

__all__ = ["LayerHelper"]
six = optional_module("six")
zip = zip  # noqa: A001 -- six.moves.zip in Fluid's module


def dtype_is_floating(dtype):
    """True for float16, float32 and float64 (a VarType or a numpy name)."""
    return convert_dtype(dtype) in ("float16", "float32", "float64")
