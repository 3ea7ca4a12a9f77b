"""Op cases for lstmp (dynamic_lstmp) over LoD input: a step-by-step numpy reference of Fluid's
equations, one sequence at a time (no batching): with and without peepholes, reversed, with
H0/C0, with cell and projection clipping (values chosen so that some are clipped), a linear
projection (Fluid 1.8.5 applies cell_activation where proj_activation is not identity, and so does
the reference), and Fluid's BatchGate, BatchCellPreAct, BatchHidden (each row's gates, cell(c), h, in
Fluid's batch order); the gradient runs the forward again."""

import numpy as np

from op_test import OpCase
from tests.ops.cases_lstm import only
from tests.ops.cases_sequence import batch_rows, lod_tensor, sequences

rng = np.random.default_rng(17)
D, P = 3, 2
_F = {
    "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
    "tanh": np.tanh,
    "relu": lambda v: np.maximum(v, 0),
    "identity": lambda v: v,
}


def _clip(v, bound):
    return np.clip(v, -bound, bound) if bound > 0 else v


def lstmp_ref(i, a):
    w, pw, b = i["Weight"], i["ProjWeight"], i["Bias"].reshape(-1)
    gate, cell, cand = (_F[a[k]] for k in ("gate_activation", "cell_activation", "candidate_activation"))
    proj = _F["identity" if a["proj_activation"] == "identity" else a["cell_activation"]]
    peep = a["use_peepholes"]
    rs, cs, gs, hs = [], [], [], []
    for s, seq in enumerate(sequences(i["Input"])):
        r = i["H0"][s] if "H0" in i else np.zeros(P)
        c = i["C0"][s] if "C0" in i else np.zeros(D)
        out_r, out_c, out_g, out_h = [], [], [], []
        for x in seq[::-1] if a["is_reverse"] else seq:
            g = x + r @ w + b[: 4 * D]
            ig = gate(g[D : 2 * D] + (b[4 * D : 5 * D] * c if peep else 0))
            fg = gate(g[2 * D : 3 * D] + (b[5 * D : 6 * D] * c if peep else 0))
            c = _clip(fg * c + ig * cand(g[:D]), a["cell_clip"])
            o = gate(g[3 * D :] + (b[6 * D :] * c if peep else 0))
            r = _clip(proj((o * cell(c)) @ pw), a["proj_clip"])
            out_r.append(r)
            out_c.append(c)
            out_g.append(np.concatenate([cand(g[:D]), ig, fg, o]))
            out_h.append(o * cell(c))
        if a["is_reverse"]:
            out_r, out_c, out_g, out_h = out_r[::-1], out_c[::-1], out_g[::-1], out_h[::-1]
        rs, cs, gs, hs = rs + out_r, cs + out_c, gs + out_g, hs + out_h
    rows = batch_rows(i["Input"], a["is_reverse"])
    return {
        "Projection": np.array(rs),
        "Cell": np.array(cs),
        "BatchGate": np.array(gs).reshape(len(gs), -1)[rows],
        "BatchCellPreAct": cell(np.array(cs)).reshape(len(cs), -1)[rows],
        "BatchHidden": np.array(hs).reshape(len(hs), -1)[rows],
    }


def _case(name, peep=True, state=False, saved=True, lengths=(3, 1, 4), **attrs):
    inputs = {
        "Input": lod_tensor(list(lengths), 4 * D),
        "Weight": rng.normal(size=(P, 4 * D)) * 0.5,
        "ProjWeight": rng.normal(size=(D, P)),
        "Bias": rng.normal(size=(1, (7 if peep else 4) * D)) * 0.5,
    }
    if state:
        inputs["H0"], inputs["C0"] = rng.normal(size=(3, P)), rng.normal(size=(3, D))
    # saved: the op also writes Fluid's batch-ordered values
    outputs = ("Projection", "Cell", "BatchGate", "BatchCellPreAct", "BatchHidden") if saved else ("Projection", "Cell")
    return OpCase(
        "lstmp",
        inputs,
        only(lstmp_ref, outputs),
        attrs={"use_peepholes": peep, **attrs},
        grad=tuple(inputs),
        name=name,
        grad_rtol=1e-4,
        grad_atol=1e-6,
        loss_outputs=("Projection", "Cell"),
        outputs=outputs,
    )


CASES = [
    _case("lstmp"),
    _case("lstmp_no_peepholes_reverse", peep=False, is_reverse=True),
    _case("lstmp_h0_c0_linear_projection", state=True, proj_activation="identity"),
    _case("lstmp_clipped", state=True, cell_clip=0.3, proj_clip=0.25),
    _case("lstmp_relu_projection_is_cell_activation", proj_activation="relu", saved=False),
    _case("lstmp_empty_sequences", state=True, lengths=(0, 4, 0)),
]
