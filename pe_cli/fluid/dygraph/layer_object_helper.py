"""``paddle.fluid.dygraph.layer_object_helper``: LayerObjectHelper, the LayerHelper of dygraph Layer objects.
pe runs static graphs: each name of dygraph mode says so in one line."""

from __future__ import print_function  # noqa: F401

import copy  # noqa: F401

from .. import core  # noqa: F401
from ..framework import Parameter  # noqa: F401
from ..framework import in_dygraph_mode  # noqa: F401
from ..layer_helper_base import LayerHelperBase  # noqa: F401
from ..param_attr import ParamAttr  # noqa: F401
from ..unsupported import DYGRAPH, optional_module, refuse

six = optional_module("six")
zip = zip  # noqa: A001
refuse(globals(), "paddle.fluid.dygraph.layer_object_helper", ["LayerObjectHelper"], DYGRAPH)
