"""``paddle.fluid.dygraph.math_op_patch``: the operators of dygraph VarBase. pe runs static graphs: each name
of dygraph mode says so in one line."""

from __future__ import print_function  # noqa: F401

import numpy as np  # noqa: F401

from .. import core  # noqa: F401
from ..framework import OpProtoHolder  # noqa: F401
from ..framework import Variable  # noqa: F401
from ..framework import convert_np_dtype_to_dtype_  # noqa: F401
from .base import no_grad  # noqa: F401
from .base import to_variable  # noqa: F401
from ..unsupported import DYGRAPH, optional_module, refuse

six = optional_module("six")
refuse(globals(), "paddle.fluid.dygraph.math_op_patch", ["monkey_patch_math_varbase"], DYGRAPH)
