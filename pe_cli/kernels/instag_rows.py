"""The rows filter_by_instag keeps and the gradient's scatter back, on host arrays (numpy): the CPU kernels
of ops/instag.py run them, and the CUDA gradient scatters back on the host too."""

import numpy as np

from ..base.errors import PeError


def select(ins, tags, filt, attrs, ctx):
    """({slot: array}, {slot: LoD}) of filter_by_instag on host arrays."""
    lods = ctx.lod
    tag_offs = np.asarray((lods.get("Ins_tag") or [[]])[-1], dtype=np.int64)
    if tag_offs.size < 2:
        raise PeError("filter_by_instag: Ins_tag needs a LoD (its tags per instance)")
    if attrs["is_lod"]:
        ins_offs = np.asarray((lods.get("Ins") or [[]])[-1], dtype=np.int64)
    else:
        ins_offs = np.arange(ins.shape[0] + 1, dtype=np.int64)
    if ins_offs.size != tag_offs.size:
        raise PeError(f"filter_by_instag: Ins has {ins_offs.size - 1} instances but Ins_tag {tag_offs.size - 1}")
    wanted = set(np.asarray(filt).reshape(-1).tolist())
    tags = np.asarray(tags).reshape(-1)
    keep = [i for i in range(tag_offs.size - 1) if wanted & set(tags[tag_offs[i] : tag_offs[i + 1]].tolist())]
    if not keep:
        out = np.full((1, ins.shape[1]), attrs["out_val_if_empty"], dtype=ins.dtype)
        return (
            {"Out": out, "LossWeight": np.zeros((1, 1), np.float32), "IndexMap": np.array([[0, 1, 1]])},
            {"Out": [[0, 1]], "LossWeight": [[0, 1]], "IndexMap": [[0, 1]]},
        )
    lengths = np.array([ins_offs[i + 1] - ins_offs[i] for i in keep], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    rows = np.concatenate([np.arange(ins_offs[i], ins_offs[i + 1]) for i in keep])
    index_map = np.stack([starts[:-1], ins_offs[keep], lengths], axis=1).astype(np.int64)
    count = [list(range(len(keep) + 1))]
    return (
        {"Out": ins[rows], "LossWeight": np.ones((len(keep), 1), np.float32), "IndexMap": index_map},
        {"Out": [starts.tolist()], "LossWeight": count, "IndexMap": count},
    )


def scatter_back(x_shape, dtype, weight, index_map, dout):
    dx = np.zeros(x_shape, dtype=dtype)
    if np.asarray(weight).size == 1 and np.asarray(weight).reshape(-1)[0] == 0:
        return dx
    for out_start, in_start, length in np.asarray(index_map):
        dx[in_start : in_start + length] = dout[out_start : out_start + length]
    return dx
