"""CPU kernels of the GRU ops (ops/gru.py): kernels/gru_math.py over numpy (its GEMMs release the
GIL)."""
import numpy as np

from .. import gru_math
from ..common import seq_offsets

_UNIT_ACTS = {0: "identity", 1: "sigmoid", 2: "tanh", 3: "relu"}


def _prepare(ins, attrs):
    x = np.ascontiguousarray(ins["Input"])
    return x, ins["Weight"], ins.get("Bias"), ins.get("H0"), seq_offsets(attrs, "Input", x.shape[0])


def gru(ins, attrs):
    x, w, b, h0, offs = _prepare(ins, attrs)
    hidden, saved = gru_math.forward(x, w, b, h0, offs, attrs)
    return {"Hidden": hidden, "BatchGate": gru_math.pack(saved)}


def gru_grad(ins, attrs):
    x, w, b, h0, offs = _prepare(ins, attrs)
    if "BatchGate" in ins:
        saved = gru_math.unpack(ins["BatchGate"])
    else:
        _, saved = gru_math.forward(x, w, b, h0, offs, attrs)
    dx, dw, db, dh0 = gru_math.backward(x, w, saved, ins["Hidden@GRAD"], offs, attrs)
    return {"Input@GRAD": dx, "Weight@GRAD": dw, "Bias@GRAD": None if b is None else db.reshape(b.shape),
            "H0@GRAD": None if h0 is None else dh0}


def _unit(attrs):
    (gate, dgate), (cand, dcand) = gru_math.acts({k: _UNIT_ACTS[attrs[k]] for k in ("gate_activation", "activation")})
    return gate, dgate, cand, dcand


def gru_unit(ins, attrs):
    gate, _, cand, _ = _unit(attrs)
    w_ur, w_c = gru_math.split_weight(ins["Weight"])
    b = ins.get("Bias")
    g, rhp, h = gru_math.step_forward(ins["Input"], ins["HiddenPrev"], w_ur, w_c, None if b is None else b.reshape(-1),
                                      gate, cand, attrs["origin_mode"])
    return {"Gate": g, "ResetHiddenPrev": rhp, "Hidden": h}


def gru_unit_grad(ins, attrs):
    _, dgate, _, dcand = _unit(attrs)
    w = ins["Weight"]
    w_ur, w_c = gru_math.split_weight(w)
    dg, dhp, dw_ur, dw_c = gru_math.step_backward(ins["Gate"], ins["ResetHiddenPrev"], ins["HiddenPrev"],
                                                  ins["Hidden@GRAD"], w_ur, w_c, dgate, dcand, attrs["origin_mode"],
                                                  ins.get("Gate@GRAD"), ins.get("ResetHiddenPrev@GRAD"))
    b = ins.get("Bias")
    return {"Input@GRAD": dg, "HiddenPrev@GRAD": dhp, "Weight@GRAD": gru_math.join_weight(dw_ur, dw_c),
            "Bias@GRAD": None if b is None else dg.sum(0).reshape(b.shape)}
