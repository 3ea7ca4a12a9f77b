"""``paddle.fluid.dygraph``: not part of pe. pe builds static graphs (Program, Executor); any use of
this module says so in one error."""
from .unsupported import unsupported_module

__getattr__ = unsupported_module(
    "fluid.dygraph", "pe runs static graphs only (Program + Executor); dygraph (imperative) mode is "
    "not supported")
