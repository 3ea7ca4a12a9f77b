"""``paddle.fluid.op``: Operator, one op run by itself on a scope (standalone_op.py), and the op protos."""
from .standalone_op import *  # noqa: F401,F403
from .standalone_op import CondOp, DynamicRecurrentOp, OpDescCreationMethod, Operator, RecurrentOp  # noqa: F401
from .standalone_op import get_all_op_protos  # noqa: F401
