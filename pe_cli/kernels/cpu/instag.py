"""Out-kernels of ops/instag.py (numpy; their meta rules: shapes/instag.py): the rows kept and scattered back are
kernels/instag_rows.py's, handed over (``fresh``); filter_by_instag's kernel by name is their adapter, which the
CUDA twin runs on the host (kernels/cuda/instag.py's HOST_OPS)."""

import numpy as np

from ..instag_rows import scatter_back, select
from ..structured import adapter, fresh_outputs
from ...shapes import instag as rules


def filter_by_instag_out(ins, outs, attrs, meta, ctx):
    results, lods = select(np.asarray(ins["Ins"]), ins["Ins_tag"], ins["Filter_tag"], attrs, ctx)
    ctx.set_lod_map(lods)
    fresh_outputs(results, ins, outs, meta)


filter_by_instag_out.takes_context = True


def filter_by_instag_grad(ins, outs, attrs, meta):
    x = ins["Ins"]
    dx = scatter_back(x.shape, x.dtype, ins["LossWeight"], ins["IndexMap"], ins["Out@GRAD"])
    fresh_outputs({"Ins@GRAD": dx}, ins, outs, meta)


filter_by_instag = adapter(rules.filter_by_instag_meta, filter_by_instag_out, "filter_by_instag")
