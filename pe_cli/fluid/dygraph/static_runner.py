"""``paddle.fluid.dygraph.static_runner``: StaticModelRunner, a saved static model run as a dygraph Layer. pe
runs static graphs: each name of dygraph mode says so in one line."""

from __future__ import print_function  # noqa: F401

import logging  # noqa: F401
import numpy as np  # noqa: F401
import os  # noqa: F401

from . import layers  # noqa: F401
from .. import backward  # noqa: F401
from .. import core  # noqa: F401
from .. import framework  # noqa: F401
from ...layers import nn  # noqa: F401
from .base import switch_to_static_graph  # noqa: F401
from ..unsupported import DYGRAPH, optional_module, refuse, user_modules

__getattr__ = user_modules(__name__, {"cpt": "paddle.compat"})
six = optional_module("six")
refuse(globals(), "paddle.fluid.dygraph.static_runner", ["StaticModelRunner"], DYGRAPH)
