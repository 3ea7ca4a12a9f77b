"""``paddle.fluid.dygraph``: only the eager execution Fluid's op tests use (``base.guard``,
``to_variable``, ``backward()`` and ``gradient()`` on what ops made, pe_cli/fluid/dygraph/eager.py).
pe builds static graphs (Program, Executor); any other name of this module says so in one error."""
from ..unsupported import unsupported_module
from . import base  # noqa: F401
from .base import enabled, guard, to_variable  # noqa: F401

__getattr__ = unsupported_module(
    "fluid.dygraph", "pe runs static graphs (Program + Executor); of dygraph (imperative) mode it has only "
    "the eager op execution Fluid's op tests use (guard, to_variable, backward)")
