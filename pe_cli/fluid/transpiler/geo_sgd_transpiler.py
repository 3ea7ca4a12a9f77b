"""``paddle.fluid.transpiler.geo_sgd_transpiler``: GeoSgdTranspiler (geo-SGD: trainers train locally
and send their parameters' deltas to the servers every ``geo_sgd_need_push_nums`` steps) is not in
pe, which runs DistributeTranspiler's synchronous and asynchronous modes; the other names of the
module are the transpiler's."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has these names

import collections  # noqa: F401
import sys  # noqa: F401

import numpy as np  # noqa: F401

from .distribute_transpiler import (
    DistributedMode,
    DistributeTranspiler,
    DistributeTranspilerConfig,  # noqa: F401
    RPC_OP_ROLE_ATTR_NAME,
    RPC_OP_ROLE_ATTR_VALUE,
    ServerRuntimeConfig,
    op_role_attr_name,
    same_or_split_var,
    six,
    slice_variable,
)
from .details import VarsDistributed, delete_ops, wait_server_ready  # noqa: F401
from .ps_dispatcher import PSDispatcher, RoundRobin  # noqa: F401
from .. import core, framework  # noqa: F401
from ..distribute_lookup_table import find_distributed_lookup_table  # noqa: F401
from ..framework import Block, Parameter, Program, default_main_program, default_startup_program  # noqa: F401
from ..unsupported import refuse

refuse(
    globals(),
    "paddle.fluid.transpiler.geo_sgd_transpiler",
    ["GeoSgdTranspiler"],
    "geo-SGD is not in pe; transpile with DistributeTranspiler (sync_mode True or False) instead",
)
