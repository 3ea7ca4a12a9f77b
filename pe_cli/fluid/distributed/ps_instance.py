"""``paddle.fluid.distributed.ps_instance``: PaddlePSInstance, the roles of Fluid's Downpour trainer
over mpi4py."""

from .helper import MPIHelper  # noqa: F401
from ..unsupported import PSLIB, refuse

refuse(globals(), "paddle.fluid.distributed.ps_instance", ["PaddlePSInstance"], PSLIB)
