"""``paddle.static.nn.control_flow`` (Paddle 2.6's module of the static control-flow builders): the
same objects as ``paddle.static.nn``'s ``case``, ``cond``, ``switch_case``, ``while_loop`` and Fluid's
``While``, ``Switch``, ``increment``, ``ConditionalBlock``, ``select_input``/``select_output`` and tensor
arrays."""

from ....layers import Switch, While, increment  # noqa: F401
from ....layers.branch_select import select_input, select_output  # noqa: F401
from ....layers.control_flow import ConditionalBlock  # noqa: F401
from ...tensor_array import array_length, array_read, array_write, create_array  # noqa: F401
from . import case, cond, switch_case, while_loop  # noqa: F401

__all__ = [
    "ConditionalBlock",
    "Switch",
    "While",
    "select_input",
    "select_output",
    "array_length",
    "array_read",
    "array_write",
    "case",
    "cond",
    "create_array",
    "increment",
    "switch_case",
    "while_loop",
]
