"""``paddle.fluid.transpiler``: the names exist so scripts import; distributed training (parameter
servers, NCCL2 transpiling) is not in pe yet and has its own issue."""
from .unsupported import unsupported

__all__ = ["DistributeTranspiler", "DistributeTranspilerConfig", "memory_optimize", "release_memory",
           "HashName", "RoundRobin"]

_WHY = "distributed training (parameter servers) is not in pe yet; it has its own issue"
DistributeTranspiler = unsupported("fluid.transpiler.DistributeTranspiler", _WHY)
DistributeTranspilerConfig = unsupported("fluid.transpiler.DistributeTranspilerConfig", _WHY)
HashName = unsupported("fluid.transpiler.HashName", _WHY)
RoundRobin = unsupported("fluid.transpiler.RoundRobin", _WHY)


def memory_optimize(input_program, skip_opt_set=None, print_log=False, level=0, skip_grads=True):
    """A no-op, as in Fluid 1.6+ (where it only warns): pe plans memory itself."""


def release_memory(input_program, skip_opt_set=None):
    """A no-op, as in Fluid 1.6+."""
