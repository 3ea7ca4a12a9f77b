"""``paddle.fluid.dygraph.tracer``: Tracer, which records dygraph ops for backward. pe runs static graphs: each
name of dygraph mode says so in one line."""

from __future__ import print_function  # noqa: F401

from .. import core  # noqa: F401
from .. import framework  # noqa: F401
from collections import defaultdict  # noqa: F401
from ..unsupported import DYGRAPH, optional_module, refuse

six = optional_module("six")
refuse(globals(), "paddle.fluid.dygraph.tracer", ["Tracer"], DYGRAPH)
