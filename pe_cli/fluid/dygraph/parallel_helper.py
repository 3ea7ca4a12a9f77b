"""``paddle.fluid.dygraph.parallel_helper``: the helpers of dygraph DataParallel. pe runs static graphs: each
name of dygraph mode says so in one line."""

import os  # noqa: F401

from ...layers import collective  # noqa: F401
from ..framework import Parameter  # noqa: F401
from ..unsupported import DYGRAPH, refuse
