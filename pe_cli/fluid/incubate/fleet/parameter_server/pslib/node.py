"""``paddle.fluid.incubate.fleet.parameter_server.pslib.node``: pslib's server and worker
descriptions (Server, Worker, DownpourServer, DownpourWorker), which fill pslib's protobuf messages;
pe has no pslib, so making one says so in one line."""

from . import ps_messages as pslib  # noqa: F401 -- Fluid's module has it as ``pslib``
from .....unsupported import PSLIB, refuse

refuse(globals(), "pslib.node", ["Server", "Worker", "DownpourServer", "DownpourWorker"], PSLIB)
