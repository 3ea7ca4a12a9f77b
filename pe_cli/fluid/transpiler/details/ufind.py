"""``paddle.fluid.transpiler.details.ufind``: a union-find (disjoint sets) over hashable elements."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has it


class UnionFind:
    """``UnionFind(elements)``: ``find(x)`` (the index of x's set's root, -1 for an unknown x),
    ``union(x, y)``, ``is_connected(x, y)``."""

    def __init__(self, elementes=None):
        self._index = {e: i for i, e in enumerate(elementes or [])}
        self._parents = list(range(len(self._index)))
        self._curr_idx = len(self._index)

    def find(self, x):
        if x not in self._index:
            return -1
        idx = self._index[x]
        while idx != self._parents[idx]:
            self._parents[idx] = self._parents[self._parents[idx]]  # path halving
            idx = self._parents[idx]
        return idx

    def union(self, x, y):
        x_root, y_root = self.find(x), self.find(y)
        if x_root != y_root:
            self._parents[x_root] = y_root

    def is_connected(self, x, y):
        return self.find(x) == self.find(y)
