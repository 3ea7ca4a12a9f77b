"""``paddle.fluid.incubate.fleet.parameter_server.pslib``: Baidu's pslib parameter server (a
separate C++ service Fluid's wheels ship without). pe has no pslib: the module exists, as in
Fluid's CPU wheels, and every use of ``fleet`` or ``PSLib`` raises pe's one-line "not supported"
(a NotImplementedError). The parameter-server fleet of pe is ``...distribute_transpiler``."""
from ......base.errors import FluidUnsupported

__all__ = ["fleet", "PSLib"]

_WHY = "pslib is Baidu's parameter-server service; use paddle.fluid.incubate.fleet.parameter_server.distribute_transpiler"


class PSLib:
    """Every method raises FluidUnsupported (pe has no pslib)."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise FluidUnsupported(f"paddle.fluid.incubate.fleet.parameter_server.pslib.fleet.{name}", _WHY)


fleet = PSLib()
