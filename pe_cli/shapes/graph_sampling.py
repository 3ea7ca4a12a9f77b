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
