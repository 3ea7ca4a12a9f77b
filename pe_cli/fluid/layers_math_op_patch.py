"""``paddle.fluid.layers.math_op_patch``: Variable's operators (pe_cli/layers/math_op_patch.py), with
the ``core`` and ``unique_name`` Fluid's module holds. (``fluid.layers`` is pe_cli.layers, which sits
below the Fluid face that holds ``core``; ``pe fluid`` maps this submodule here.)"""

from __future__ import print_function  # noqa: F401 -- one of Fluid's names of this module

from . import core  # noqa: F401
from ..framework import unique_name  # noqa: F401
from ..layers.math_op_patch import OpProtoHolder, Variable, compare_ops, monkey_patch_variable  # noqa: F401
