"""Kernels of ops/instag.py (numpy): the rows kept and scattered back are kernels/instag_rows.py's."""

import numpy as np

from ..instag_rows import scatter_back, select


def filter_by_instag(ins, attrs, ctx):
    outs, lods = select(np.asarray(ins["Ins"]), ins["Ins_tag"], ins["Filter_tag"], attrs, ctx)
    ctx.set_lod_map(lods)
    return outs


def filter_by_instag_grad(ins, attrs):
    x = ins["Ins"]
    return {"Ins@GRAD": scatter_back(x.shape, x.dtype, ins["LossWeight"], ins["IndexMap"], ins["Out@GRAD"])}
