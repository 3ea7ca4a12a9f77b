"""``paddle.fluid.dygraph.dygraph_to_static.partial_program``: dygraph-to-static conversion (partial_program).
pe runs static graphs: each name of dygraph mode says so in one line."""

from __future__ import print_function  # noqa: F401

import numpy as np  # noqa: F401

from .. import layers  # noqa: F401
from ... import backward  # noqa: F401
from ... import core  # noqa: F401
from ... import framework  # noqa: F401
from ..base import switch_to_static_graph  # noqa: F401
from ...unsupported import DYGRAPH, refuse, user_modules

__getattr__ = user_modules(__name__, {"cpt": "paddle.compat"})
refuse(
    globals(),
    "paddle.fluid.dygraph.dygraph_to_static.partial_program",
    ["PartialProgramLayer", "partial_program_from", "valid_vars"],
    DYGRAPH,
)
