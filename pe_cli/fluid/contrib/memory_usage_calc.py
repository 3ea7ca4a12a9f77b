"""Fluid 1.8's ``contrib.memory_usage``: an estimate of the memory a program's global block needs
at a batch size (every LoD tensor some op writes, counted once; a -1 dimension is the batch)."""

import numpy as np

from ...base import dtypes
from ...framework import Program

__all__ = ["memory_usage"]


def _var_bytes(var, batch_size):
    count, negative = 1, 0
    for d in var.shape or ():
        if d < 0:
            if negative >= 1:
                raise ValueError(f"Var {var.name} has more than one negative dim.")
            negative += 1
            count *= batch_size * (-d)
        else:
            count *= d
    return count * np.dtype(var.dtype).itemsize


def memory_usage(program, batch_size):
    """(lower, upper, unit): the sum over the global block's op outputs of their bytes at
    ``batch_size``, in B, KB or MB, plus 5% (lower) and 10% (upper) for what the count leaves out."""
    if not isinstance(program, Program):
        raise TypeError(f"Calculating Memory Usage requires Program as its Parameter.But you passed in {type(program)}")
    if batch_size <= 0:
        raise ValueError("The batch size need to be positive.")
    block, total, seen = program.global_block(), 0.0, {"@EMPTY@"}
    for op in block.ops:
        for name in op.output_arg_names:
            if name in seen:
                continue
            seen.add(name)
            var = block.vars.get(name)
            if var is None or var.type != dtypes.VarType.LOD_TENSOR:
                continue
            total += _var_bytes(var, batch_size)
    unit = "B"
    if total > 1024:
        total, unit = total / 1024, "KB"
        if total > 1024:
            total, unit = total / 1024, "MB"
    return total * 1.05, total * 1.1, unit
