"""How the Fluid face says "not in pe": one NotImplementedError naming the Fluid name, and the
reason when there is one (another issue owns it, or pe will never have it). The error and the
stand-ins live in pe_cli/base/errors.py, so lower layers (``fluid.layers`` is pe_cli.layers) use them too."""
from ..base.errors import FluidUnsupported, unsupported

__all__ = ["FluidUnsupported", "unsupported", "unsupported_module"]


def unsupported_module(module, why):
    """A module ``__getattr__`` for a whole Fluid module pe does not have: any public name raises."""
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise FluidUnsupported(f"{module}.{name}", why)
    return __getattr__
