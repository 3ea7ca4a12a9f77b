"""``paddle.fluid.dygraph``: not part of pe. pe builds static graphs (Program, Executor); any use of
this module, and of Fluid's dygraph switches and classes (``enable_dygraph``, ``VarBase``,
``ComplexVariable``, ...), says so in one error."""
from .unsupported import unsupported, unsupported_module

WHY = ("pe runs static graphs only (Program + Executor); dygraph (imperative) mode is not part of it: "
       "build a Program and run it with an Executor")

__getattr__ = unsupported_module("fluid.dygraph", WHY)

enable_dygraph = unsupported("fluid.enable_dygraph", WHY)
disable_dygraph = unsupported("fluid.disable_dygraph", WHY)
enable_imperative = unsupported("fluid.enable_imperative", WHY)
disable_imperative = unsupported("fluid.disable_imperative", WHY)
VarBase = unsupported("fluid.VarBase", WHY)
ComplexVariable = unsupported("fluid.ComplexVariable", "a dygraph complex tensor; " + WHY)
