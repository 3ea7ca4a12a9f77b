"""CPU kernels of ops/lstmp.py: kernels/lstmp_math.py over numpy (its GEMMs release the GIL). The
gradient runs the forward again for the per-row values it reads (Fluid's batch-ordered outputs do
not hold the unclipped cell and projection)."""

import numpy as np

from .. import lstmp_math
from ..common import check_initial_states, seq_offsets


def _prepare(ins, attrs, ctx):
    x = np.ascontiguousarray(ins["Input"])
    offs = seq_offsets(ctx, "Input", x.shape[0])
    check_initial_states(ins, offs)
    return x, ins["Weight"], ins["ProjWeight"], ins["Bias"], ins.get("H0"), ins.get("C0"), offs


def lstmp(ins, attrs, ctx):
    x, w, pw, b, h0, c0, offs = _prepare(ins, attrs, ctx)
    projection, cell, saved = lstmp_math.forward(x, w, pw, b, h0, c0, offs, attrs)
    outs = {"Projection": projection, "Cell": cell}
    if {"BatchGate", "BatchCellPreAct", "BatchHidden"} & ctx.wanted({"BatchGate"}):
        outs.update(lstmp_math.fluid_batch(saved, cell, offs, attrs))
    return outs


def lstmp_grad(ins, attrs, ctx):
    x, w, pw, b, h0, c0, offs = _prepare(ins, attrs, ctx)
    _, cell, saved = lstmp_math.forward(x, w, pw, b, h0, c0, offs, attrs)
    dx, dw, dpw, db, dh0, dc0 = lstmp_math.backward(
        x, w, pw, b, cell, saved, ins["Projection@GRAD"], ins.get("Cell@GRAD"), offs, attrs
    )
    return {
        "Input@GRAD": dx,
        "Weight@GRAD": dw,
        "ProjWeight@GRAD": dpw,
        "Bias@GRAD": db,
        "H0@GRAD": dh0 if h0 is not None else None,
        "C0@GRAD": dc0 if c0 is not None else None,
    }
