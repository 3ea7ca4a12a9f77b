"""``paddle.fluid.communicator``: Fluid 1.8's trainer-side communicator (a thread that merges and
sends gradients in the asynchronous modes). pe's trainers send each gradient block once per step
from the program's own send ops, so there is no communicator to start: ``Communicator`` raises pe's
one-line "not supported"; the fleet's init_worker/stop_worker need none."""

from ..base.errors import FluidUnsupported

__all__ = ["Communicator"]


class Communicator:
    def __init__(self, *args, **kwargs):
        raise FluidUnsupported(
            "paddle.fluid.communicator.Communicator",
            "pe's trainers send their gradients from the program's send ops; the fleet's "
            "init_worker() and stop_worker() need no communicator",
        )
