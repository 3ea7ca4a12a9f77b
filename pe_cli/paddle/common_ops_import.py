"""``paddle.common_ops_import``: the names Paddle 1.8's ``paddle.tensor`` modules import in one line
(``from paddle.common_ops_import import *``): LayerHelper, the dtype checks, fill_constant, scale, ..."""

import warnings  # noqa: F401
from functools import reduce  # noqa: F401

import numpy  # noqa: F401

from .. import fluid  # noqa: F401
from ..fluid import core, dygraph_utils  # noqa: F401
from ..fluid.core import VarDesc  # noqa: F401
from ..fluid.data_feeder import check_dtype, check_type, check_variable_and_dtype, convert_dtype  # noqa: F401
from ..fluid.framework import (
    OpProtoHolder,
    Variable,
    convert_np_dtype_to_dtype_,
    default_main_program,  # noqa: F401
    device_guard,
    dygraph_only,
    in_dygraph_mode,
)
from ..fluid.initializer import Constant  # noqa: F401
from ..fluid.layer_function_generator import templatedoc  # noqa: F401
from ..fluid.layer_helper import LayerHelper  # noqa: F401
from ..fluid.param_attr import ParamAttr  # noqa: F401
from ..layers import fill_constant, scale, utils  # noqa: F401
