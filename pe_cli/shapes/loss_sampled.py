"""The sampled losses' plans, shared by the kernels of both devices: hsigmoid's path of each label through its
tree (the default complete binary tree, or PathTable / PathCode)."""

import numpy as np

from ..base.errors import PeError


def hsigmoid_paths(label, attrs, table=None, code=None, nodes=None):
    """(node index [N, L] with -1 past each path's end, bit [N, L]) of each row's label."""
    label = np.asarray(label).reshape(-1).astype(np.int64)
    if table is not None:
        table = np.asarray(table).astype(np.int64).reshape(label.size, -1)
        code = np.asarray(code).astype(np.int64).reshape(table.shape)
        ends = np.where((table < 0).any(axis=1), (table < 0).argmax(axis=1), table.shape[1])
        valid = np.arange(table.shape[1])[None, :] < ends[:, None]
        idx, bits = np.where(valid, table, -1), np.where(valid, code, 0)
    else:
        n = attrs["num_classes"]
        if ((label < 0) | (label >= n)).any():
            raise PeError(f"hsigmoid: Label holds {int(label[(label < 0) | (label >= n)][0])}, outside the {n} classes")
        c = label + n
        length = np.array([int(v).bit_length() - 1 for v in c], dtype=np.int64)
        j = np.arange((n - 1).bit_length(), dtype=np.int64)[None, :]
        valid = j < length[:, None]
        idx = np.where(valid, (c[:, None] >> (j + 1)) - 1, -1)
        bits = np.where(valid, (c[:, None] >> j) & 1, 0)
    if nodes is not None and (idx >= nodes).any():
        raise PeError(f"hsigmoid: a path reaches node {int(idx.max())}, but W has {nodes} rows")
    return idx, bits
