"""``paddle.fluid.dygraph.varbase_patch_methods``: the methods of dygraph VarBase (backward, gradient, numpy,
...). pe runs static graphs: each name of dygraph mode says so in one line."""

import numpy as np  # noqa: F401

from .. import core  # noqa: F401
from .. import framework  # noqa: F401
from .. import unique_name  # noqa: F401
from ..framework import Variable  # noqa: F401
from ..unsupported import DYGRAPH, refuse

refuse(
    globals(),
    "paddle.fluid.dygraph.varbase_patch_methods",
    ["BackwardStrategy", "monkey_patch_math_varbase", "monkey_patch_varbase"],
    DYGRAPH,
)
