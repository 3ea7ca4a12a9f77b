"""``paddle.fluid.transpiler``: DistributeTranspiler (collective and parameter-server modes), the
servers' placement policies, memory_optimize / release_memory and InferenceTranspiler
(distribute_transpiler.py), and Fluid's submodules of the package under their own names."""

from .distribute_transpiler import *  # noqa: F401,F403
from .distribute_transpiler import __all__  # noqa: F401
