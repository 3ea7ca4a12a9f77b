"""How parameter-server mode cuts variables into blocks and places the blocks on servers.

A variable of ``numel`` values is cut along dim 0 into at most ``servers`` blocks of at least
``min_block_size`` values (Fluid's ``slice_variable``): block_size = ceil(numel / count), rounded up
to whole rows, so a block is always a run of complete rows. A variable that yields one block keeps
its name; otherwise the blocks are ``name.block0``, ``name.block1``, ...
"""

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class VarBlock:
    """Rows ``[row0, row0 + rows)`` of variable ``var`` (``index`` of ``count`` blocks)."""

    var: str
    index: int
    count: int
    row0: int
    rows: int
    shape: tuple  # the block's shape

    def name(self, var=None):
        """This block's name for ``var`` (default: the sliced variable): ``w.block1``, or ``var``
        itself when the variable is not cut."""
        var = self.var if var is None else var
        return var if self.count == 1 else f"{var}.block{self.index}"

    def __str__(self):  # Fluid's VarBlock string: "name:index:size"
        return f"{self.var}:{self.index}:{_numel(self.shape)}"


def _numel(shape):
    return int(math.prod(shape)) if shape else 1


def slice_variable(name, shape, servers, min_block_size, slice_up=True):
    """The blocks of variable ``name`` of ``shape`` for ``servers`` parameter servers."""
    shape = tuple(int(d) for d in shape)
    numel = _numel(shape)
    if not slice_up or not shape or servers <= 1:
        return [VarBlock(name, 0, 1, 0, shape[0] if shape else 1, shape)]
    count = min(servers, max(1, numel // int(min_block_size)))
    block_size = math.ceil(numel / count)
    row = _numel(shape[1:])
    if block_size % row:
        block_size += row - block_size % row
    rows_per_block = block_size // row
    count = math.ceil(numel / block_size)
    blocks = []
    for i in range(count):
        row0 = i * rows_per_block
        rows = min(rows_per_block, shape[0] - row0)
        blocks.append(VarBlock(name, i, count, row0, rows, (rows,) + shape[1:]))
    return blocks
