"""``paddle.fluid.transpiler.details``: the transpilers' helpers (program_utils, ufind, checkport,
vars_distributed), each under its own name and gathered here."""

from __future__ import print_function  # noqa: F401 -- Fluid's package has these names

import socket  # noqa: F401
import sys  # noqa: F401
import time  # noqa: F401
from contextlib import closing  # noqa: F401

from . import checkport, program_utils, ufind, vars_distributed  # noqa: F401
from .checkport import string_types, wait_server_ready  # noqa: F401
from .program_utils import (
    block_to_code,
    core,
    delete_ops,
    find_op_by_input_arg,
    find_op_by_output_arg,  # noqa: F401
    get_indent_space,
    op_to_code,
    program_to_code,
    six,
    variable_to_code,
)
from .ufind import UnionFind  # noqa: F401
from .vars_distributed import VarDistributed, VarStruct, Variable, VarsDistributed  # noqa: F401
from ...unsupported import user_paddle

__getattr__ = user_paddle(__name__)
