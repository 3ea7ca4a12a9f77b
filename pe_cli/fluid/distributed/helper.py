"""``paddle.fluid.distributed.helper``: FileSystem (pslib's HDFS client settings) and MPIHelper (ranks
through mpi4py) of Fluid's Downpour trainer."""

from ..unsupported import PSLIB, refuse

refuse(globals(), "paddle.fluid.distributed.helper", ["FileSystem", "MPIHelper"], PSLIB)
