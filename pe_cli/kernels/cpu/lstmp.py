"""CPU out-kernels of ops/lstmp.py (meta rules: shapes/recurrent.py; fresh variants, fresh_outputs): kernels/lstmp_math.py over numpy (its GEMMs release the GIL). The
gradient runs the forward again for the per-row values it reads (Fluid's batch-ordered outputs do
not hold the unclipped cell and projection)."""

import numpy as np

from .. import lstmp_math
from ..structured import fresh_outputs


def _prepare(ins, meta):
    x = np.ascontiguousarray(ins["Input"])
    return x, ins["Weight"], ins["ProjWeight"], ins["Bias"], ins.get("H0"), ins.get("C0"), meta.args[0]


def lstmp(ins, outs, attrs, meta, ctx):
    x, w, pw, b, h0, c0, offs = _prepare(ins, meta)
    projection, cell, saved = lstmp_math.forward(x, w, pw, b, h0, c0, offs, attrs)
    results = {"Projection": projection, "Cell": cell}
    if {"BatchGate", "BatchCellPreAct", "BatchHidden"} & ctx.wanted({"BatchGate"}):
        results.update(lstmp_math.fluid_batch(saved, cell, offs, attrs))
    fresh_outputs(results, ins, outs, meta)


lstmp.takes_context = True  # (ctx.wanted: whether the program reads the batch-ordered outputs)


def lstmp_grad(ins, outs, attrs, meta):
    x, w, pw, b, h0, c0, offs = _prepare(ins, meta)
    _, cell, saved = lstmp_math.forward(x, w, pw, b, h0, c0, offs, attrs)
    dx, dw, dpw, db, dh0, dc0 = lstmp_math.backward(
        x, w, pw, b, cell, saved, ins["Projection@GRAD"], ins.get("Cell@GRAD"), offs, attrs
    )
    results = {"Input@GRAD": dx, "Weight@GRAD": dw, "ProjWeight@GRAD": dpw, "Bias@GRAD": db}
    fresh_outputs({**results, "H0@GRAD": dh0, "C0@GRAD": dc0}, ins, outs, meta)
