"""The meta rule (shapes/structured.py) of weighted_sample_neighbors (ops/graph_sampling.py; out-kernel:
kernels/cpu/graph_sampling.py): out_count one per input node, out_neighbors (and out_eids with return_eids) as long as
the draws make them (-1: the values give the length), all in row's dtype. Variant "draws", ``fresh``: the out-kernel
draws on the call's Generator and hands over the arrays it made."""

import numpy as np

from .structured import Meta


def weighted_sample_neighbors_meta(attrs, ins, facts):
    dtype = np.dtype(ins["row"].dtype)
    outputs = {"out_neighbors": ((-1,), dtype), "out_count": ((int(np.prod(ins["input_nodes"].shape)),), dtype)}
    if attrs["return_eids"]:
        outputs["out_eids"] = ((-1,), dtype)
    return Meta(outputs, "draws", fresh=True)


def graph_sample_neighbors_meta(attrs, ins, facts):
    """graph_sample_neighbors' (paddle.geometric.sample_neighbors) Out and Out_Eids as long as the draws make them
    (-1), Out_Count one int32 per node of X (Paddle's kernel writes int32 whatever Row's dtype); Out_Eids empty
    without return_eids (Paddle leaves it unwritten)."""
    dtype = np.dtype(ins["Row"].dtype)
    outputs = {"Out": ((-1,), dtype), "Out_Count": ((int(np.prod(ins["X"].shape)),), np.dtype(np.int32))}
    outputs["Out_Eids"] = ((-1 if attrs["return_eids"] else 0,), dtype)  # (empty without return_eids)
    return Meta(outputs, "draws", fresh=True)


def graph_khop_sampler_meta(attrs, ins, facts):
    """graph_khop_sampler's (paddle.incubate.graph_khop_sampler) Out_Src and Out_Dst [-1, 1], Sample_Index and
    Out_Eids [-1] (Out_Eids empty without return_eids), Reindex_X X's shape, all of Row's dtype."""
    dtype = np.dtype(ins["Row"].dtype)
    outputs = {"Out_Src": ((-1, 1), dtype), "Out_Dst": ((-1, 1), dtype), "Sample_Index": ((-1,), dtype)}
    outputs.update(Reindex_X=(tuple(ins["X"].shape), dtype), Out_Eids=((-1 if attrs["return_eids"] else 0,), dtype))
    return Meta(outputs, "draws", fresh=True)
