"""Fluid 1.8's ``contrib.slim.prune.pruner``: which slices of a parameter to prune, and pruning them."""

import re

import numpy as np

__all__ = ["Pruner", "StructurePruner"]


class Pruner:
    """Base class of pruners."""

    def prune(self, param):
        pass


class StructurePruner(Pruner):
    """Prunes whole slices (conv filters along axis 0) ranked by a criterion.

    ``pruning_axis`` and ``criterions`` map a parameter-name pattern (``'*'`` for any) to the axis
    and the criterion; ``'l1_norm'`` is the criterion Fluid 1.8 knows."""

    def __init__(self, pruning_axis, criterions):
        self.pruning_axis = dict(pruning_axis)
        self.criterions = dict(criterions)
        for criterion in self.criterions.values():
            if criterion != "l1_norm":
                raise ValueError(f"StructurePruner: criterion {criterion!r} is unknown; use 'l1_norm'")

    @staticmethod
    def _lookup(table, name):
        for pattern, value in table.items():
            if pattern != "*" and re.fullmatch(pattern, name):
                return value
        return table.get("*")

    def cal_pruned_idx(self, name, param, ratio, axis=None):
        """The indices along ``axis`` of ``param`` with the smallest l1 norms, ``round(ratio * size)``
        of them (at least one slice is kept), sorted."""
        axis = self._lookup(self.pruning_axis, name) if axis is None else axis
        param = np.asarray(param)
        prune_num = min(int(round(param.shape[axis] * ratio)), param.shape[axis] - 1)
        reduce_dims = tuple(i for i in range(param.ndim) if i != axis)
        norms = np.abs(param).sum(axis=reduce_dims)
        return np.sort(np.argsort(norms, kind="stable")[:prune_num])

    def prune_tensor(self, tensor, pruned_idx, pruned_axis, lazy=False):
        """``tensor`` without the slices ``pruned_idx`` along ``pruned_axis``; ``lazy`` zeroes them
        instead, keeping the shape."""
        tensor = np.asarray(tensor)
        if lazy:
            out = tensor.copy()
            index = [slice(None)] * tensor.ndim
            index[pruned_axis] = pruned_idx
            out[tuple(index)] = 0
            return out
        return np.delete(tensor, pruned_idx, axis=pruned_axis)
