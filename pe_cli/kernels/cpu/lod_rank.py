"""Kernels of the LoD rank table ops (pe_cli/ops/lod_rank.py). A rank table's value is a RankTable:
the offsets of the level it ranks, and the sequences' order (longest first, stable)."""
import numpy as np

from ...base.errors import PeError


class RankTable:
    __slots__ = ("offsets", "order", "lengths")

    def __init__(self, offsets):
        self.offsets = np.asarray(offsets, dtype=np.int64)
        lengths = np.diff(self.offsets)
        self.order = np.argsort(-lengths, kind="stable")
        self.lengths = lengths[self.order]      # sorted, longest first

    def running(self, t):
        """How many sequences are longer than t."""
        return int((self.lengths > t).sum())

    def rows(self, t):
        return self.offsets[:-1][self.order][:self.running(t)] + t


def _host(x):
    return x.copy_to_host() if hasattr(x, "copy_to_host") else np.asarray(x)


def lod_rank_table(ins, attrs):
    lod = (attrs.get("_lod") or {}).get("X")
    if not lod:
        raise PeError("lod_rank_table: X has no LoD; feed a LoDTensor (sequences)")
    return {"Out": RankTable(lod[attrs["level"]])}


def max_sequence_len(ins, attrs):
    table = ins["RankTable"]
    return {"Out": np.array([table.lengths[0] if len(table.lengths) else 0], dtype=np.int64)}


def lod_tensor_to_array(ins, attrs):
    x, table = ins["X"], ins["RankTable"]
    steps = int(table.lengths[0]) if len(table.lengths) else 0
    return {"Out": [x[table.rows(t)] for t in range(steps)]}


def array_to_lod_tensor(ins, attrs):
    array, table = ins["X"], ins["RankTable"]
    first = next((a for a in array if a is not None), None)
    if first is None:
        raise PeError("array_to_lod_tensor: the array holds no tensor")
    out = np.zeros((int(table.offsets[-1]),) + first.shape[1:], dtype=first.dtype)
    for t, step in enumerate(array):
        if step is not None:
            out[table.rows(t)] = step
    return {"Out": out, "@LOD": {"Out": [table.offsets.tolist()]}}


def shrink_rnn_memory(ins, attrs):
    i = int(_host(ins["I"]).reshape(-1)[0])
    return {"Out": ins["X"][:ins["RankTable"].running(i)]}


def shrink_rnn_memory_grad(ins, attrs):
    x, og = ins["X"], ins["Out@GRAD"]
    grad = np.zeros_like(x)
    grad[:len(og)] = og
    return {"X@GRAD": grad}


def reorder_lod_tensor_by_rank(ins, attrs):
    x, table = ins["X"], ins["RankTable"]
    if len(x) != len(table.order):
        raise PeError(f"reorder_lod_tensor_by_rank: X has {len(x)} rows for {len(table.order)} sequences")
    return {"Out": x[table.order]}


def reorder_lod_tensor_by_rank_grad(ins, attrs):
    grad = np.zeros_like(ins["X"])
    grad[ins["RankTable"].order] = ins["Out@GRAD"]
    return {"X@GRAD": grad}
