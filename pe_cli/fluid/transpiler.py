"""``paddle.fluid.transpiler``: memory_optimize and release_memory turn on the memory_optimize graph
pass (pe_cli/compiler/passes); distributed training (parameter servers, NCCL2 transpiling) is not in
pe yet and has its own issue."""
from ..compiler.passes import program_frees, reuse_log
from ..framework import Program
from .unsupported import unsupported

__all__ = ["DistributeTranspiler", "DistributeTranspilerConfig", "memory_optimize", "release_memory",
           "HashName", "RoundRobin"]

_WHY = "distributed training (parameter servers) is not in pe yet; it has its own issue"
DistributeTranspiler = unsupported("fluid.transpiler.DistributeTranspiler", _WHY)
DistributeTranspilerConfig = unsupported("fluid.transpiler.DistributeTranspilerConfig", _WHY)
HashName = unsupported("fluid.transpiler.HashName", _WHY)
RoundRobin = unsupported("fluid.transpiler.RoundRobin", _WHY)


def memory_optimize(input_program, skip_opt_set=None, print_log=False, level=0, skip_grads=True):
    """Turns on the memory_optimize pass for ``input_program`` (pe_cli/compiler/passes): each
    temporary is released once its last reader (backward ops included) has run, on the Executor and
    on every device of a data-parallel run. Fed, fetched, persistable and ``skip_opt_set`` variables
    are never released. ``print_log`` prints which released buffer each later value can take
    (``level`` 0: same shape only, 1: any that is large enough). Numbers never change."""
    if not isinstance(input_program, Program):
        raise TypeError(f"memory_optimize: input_program must be a Program, got {type(input_program).__name__}")
    if level not in (0, 1):
        raise ValueError(f"memory_optimize: level must be 0 or 1, got {level!r}")
    skip = {s if isinstance(s, str) else s.name for s in skip_opt_set or ()}
    input_program._memory_optimize = {"skip": skip, "level": level, "print_log": bool(print_log)}
    if print_log:
        block = input_program.global_block()
        for line in reuse_log(block, program_frees(block, (), skip), level):
            print(f"memory_optimize: {line}")


def release_memory(input_program, skip_opt_set=None):
    """Releases each temporary of ``input_program`` after its last reader (the memory_optimize pass
    without buffer-reuse logging)."""
    memory_optimize(input_program, skip_opt_set)
