"""``paddle.fluid.incubate.fleet.parameter_server.pslib``: Baidu's pslib parameter server (a
separate C++ service Fluid's wheels ship without). pe has no pslib: the module exists, as in
Fluid's CPU wheels, and every use of ``fleet`` or ``PSLib`` raises pe's one-line "not supported"
(a NotImplementedError). The parameter-server fleet of pe is ``...distribute_transpiler``."""

import os  # noqa: F401 -- Fluid's module has these names
import sys  # noqa: F401

from . import node, optimizer_factory, ps_messages as ps_pb2  # noqa: F401
from .optimizer_factory import *  # noqa: F401,F403
from ...base.fleet_base import DistributedOptimizer, Fleet, Mode  # noqa: F401
from ...base.role_maker import MPISymetricRoleMaker  # noqa: F401
from ...... import fluid  # noqa: F401
from .....framework import Program  # noqa: F401
from .....unsupported import PSLIB, optional_module, refuse
from ......base.errors import FluidUnsupported

__all__ = ["fleet", "PSLib"]

_WHY = (
    "pslib is Baidu's parameter-server service; use paddle.fluid.incubate.fleet.parameter_server.distribute_transpiler"
)


class PSLib:
    """Every method raises FluidUnsupported (pe has no pslib)."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise FluidUnsupported(f"paddle.fluid.incubate.fleet.parameter_server.pslib.fleet.{name}", _WHY)


fleet = PSLib()

text_format = optional_module("google.protobuf.text_format", "protobuf")
refuse(globals(), "pslib", ["DownpourOptimizer", "fleet_embedding"], PSLIB)
