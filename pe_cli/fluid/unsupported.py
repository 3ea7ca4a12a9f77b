"""How the Fluid face says "not in pe": one NotImplementedError naming the Fluid name, and the
reason when there is one (another issue owns it, or pe will never have it)."""


class FluidUnsupported(NotImplementedError):
    """A Fluid name pe does not implement. ``name`` is the dotted Fluid name."""

    def __init__(self, name, why="pe does not support it yet"):
        super().__init__(f"{name}: {why}")
        self.name = name


def unsupported(name, why="pe does not support it yet"):
    """A stand-in callable (function or class) that raises FluidUnsupported when called."""
    def stand_in(*args, **kwargs):
        raise FluidUnsupported(name, why)
    stand_in.__name__ = name.rsplit(".", 1)[-1]
    stand_in.__qualname__ = stand_in.__name__
    stand_in.__doc__ = f"Not in pe: {why}."
    return stand_in


def unsupported_module(module, why):
    """A module ``__getattr__`` for a whole Fluid module pe does not have: any public name raises."""
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise FluidUnsupported(f"{module}.{name}", why)
    return __getattr__
