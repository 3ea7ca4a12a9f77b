"""The value of a LoD rank table (ops/lod_rank.py's lod_rank_table): the level it ranks, the levels above it,
that level's offsets and the sequences' order, longest first (stable). Host data on either device: the CPU
kernels build and read it, the CUDA ones pass it as it is."""

import numpy as np


class RankTable:
    __slots__ = ("offsets", "order", "lengths", "level", "coarse")

    def __init__(self, offsets, level=0, coarse=()):
        self.offsets = np.asarray(offsets, dtype=np.int64)
        lengths = np.diff(self.offsets)
        self.order = np.argsort(-lengths, kind="stable")
        self.lengths = lengths[self.order]  # sorted, longest first
        self.level, self.coarse = level, [list(c) for c in coarse]

    def running(self, t):
        """How many sequences are longer than t."""
        return int((self.lengths > t).sum())

    def rows(self, t):
        """The t-th element (of the level below the ranked one) of each sequence longer than t."""
        return self.offsets[:-1][self.order][: self.running(t)] + t

    def items(self):
        """Fluid's table items: (sequence index, length), longest first."""
        return [(int(i), int(n)) for i, n in zip(self.order, self.lengths)]
