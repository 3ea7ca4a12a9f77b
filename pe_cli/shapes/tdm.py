"""Meta rules of the TDM tree ops (ops/tdm.py): tdm_child (Child and LeafMask, X's shape and child_nums more) and
tdm_sampler (Out, Labels and Mask, a row per item of X and a column per layer's positive and negatives), each of the
``dtype`` attribute, written into the buffers handed by numpy forms (tdm_sampler's told the call's Generator)."""

import numpy as np

from ..base.errors import PeError
from .structured import Meta


def tdm_child_meta(attrs, ins, facts):
    """tdm_child: Child and LeafMask [*X's shape, child_nums] of ``dtype``; a TreeInfo narrower than 3 + child_nums
    (whose rows Fluid's kernel reads past) refused."""
    info, n = ins["TreeInfo"], attrs["child_nums"]
    if len(info.shape) != 2 or info.shape[1] < 3 + n:
        raise PeError(
            f"tdm_child: TreeInfo {list(info.shape)} must be [node_nums, >= 3 + child_nums] = [node_nums, >= {3 + n}]"
        )
    spec = (tuple(ins["X"].shape) + (n,), np.dtype(attrs["dtype"]))
    return Meta({"Child": spec, "LeafMask": spec}, "numpy")


def tdm_sampler_meta(attrs, ins, facts):
    """tdm_sampler: Out, Labels and Mask [items of X, sum(negatives) + layers if output_positive] of ``dtype``; a
    layer with no more nodes than its negatives refused."""
    offsets, negatives = attrs["layer_offset_lod"], attrs["neg_samples_num_list"]
    for l, k in enumerate(negatives):
        if k >= offsets[l + 1] - offsets[l]:
            raise PeError(
                f"tdm_sampler: layer {l} has {offsets[l + 1] - offsets[l]} nodes, fewer than "
                f"{k} negatives + the positive"
            )
    width = sum(negatives) + len(negatives) * int(attrs["output_positive"])
    spec = ((int(np.prod(ins["X"].shape, dtype=np.int64)), width), np.dtype(attrs["dtype"]))
    return Meta({"Out": spec, "Labels": spec, "Mask": spec}, "numpy")
