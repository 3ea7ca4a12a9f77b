"""``paddle.fluid.distributed.fleet``: Fleet, the pslib servers and workers of Fluid's Downpour trainer."""

from ..unsupported import PSLIB, refuse

refuse(globals(), "paddle.fluid.distributed.fleet", ["Fleet"], PSLIB)
