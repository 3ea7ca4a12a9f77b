"""Out-kernels of ops/tdm.py (numpy; meta rules: shapes/tdm.py), writing into the buffers handed; tdm_sampler's told
the call's context (its Generator where seed is 0). The kernels by name CUDA's host fallbacks run (kernels/cuda/tdm.py)
are their adapters."""

import numpy as np

from ...base.errors import PeError
from ...shapes import tdm as rules
from ..structured import adapter


def _node_ids(x, limit, what):
    ids = x.astype(np.int64)
    bad = ids[(ids < 0) | (ids >= limit)]
    if bad.size:
        raise PeError(f"{what}: id {int(bad[0])} is outside [0, {limit})")
    return ids


def tdm_child_out(ins, outs, attrs, meta):
    info, n = ins["TreeInfo"], attrs["child_nums"]
    ids = _node_ids(ins["X"], info.shape[0], "tdm_child")
    children = info[ids, 3 : 3 + n].astype(np.int64)
    children[(ids == 0) | (info[ids, 3] == 0)] = 0
    leaf = (info[children, 0] != 0) & (children != 0)
    np.copyto(outs["Child"], children, casting="unsafe")
    np.copyto(outs["LeafMask"], leaf, casting="unsafe")


def _layer_samples(rng, positive, nodes, negatives, output_positive):
    """(nodes, labels, mask) of one item at one layer."""
    width = negatives + int(output_positive)
    if positive == 0:  # the item's path ends above this layer
        return [0] * width, [0] * width, [0] * width
    others = nodes[nodes != positive]
    picked = rng.choice(others, size=negatives, replace=False).tolist() if negatives else []
    head = [positive] if output_positive else []
    return head + picked, [1] * len(head) + [0] * negatives, [1] * width


def tdm_sampler_out(ins, outs, attrs, meta, ctx):
    travel, layer = ins["Travel"], ins["Layer"].reshape(-1)
    items = _node_ids(ins["X"].reshape(-1), travel.shape[0], "tdm_sampler")
    offsets, negatives = attrs["layer_offset_lod"], attrs["neg_samples_num_list"]
    rng = np.random.default_rng(attrs["seed"]) if attrs["seed"] else ctx.rng
    rows = [[], [], []]
    for item in items:
        row = [[], [], []]
        for l, k in enumerate(negatives):
            for acc, part in zip(
                row,
                _layer_samples(
                    rng, int(travel[item, l]), layer[offsets[l] : offsets[l + 1]], k, attrs["output_positive"]
                ),
            ):
                acc.extend(part)
        for acc, part in zip(rows, row):
            acc.append(part)
    for slot, values in zip(("Out", "Labels", "Mask"), rows):
        buffer = outs[slot]
        np.copyto(buffer, np.array(values, dtype=buffer.dtype).reshape(buffer.shape))


tdm_sampler_out.takes_context = True  # (the call's Generator, where seed is 0)

tdm_child = adapter(rules.tdm_child_meta, tdm_child_out, "tdm_child")
tdm_sampler = adapter(rules.tdm_sampler_meta, tdm_sampler_out, "tdm_sampler")
