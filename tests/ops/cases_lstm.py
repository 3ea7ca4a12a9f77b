"""Op cases for lstm (dynamic_lstm) over LoD input: a step-by-step numpy reference of Fluid's
equations (one sequence at a time, no batching), with and without peepholes, reversed, with H0/C0,
and Fluid's BatchGate and BatchCellPreAct (each row's gates and cell(c), put in Fluid's batch order);
the gradient from those batch-ordered values (with Hidden and Cell) and recomputed without them. lstm_unit: Fluid's formula in
numpy (X split into i, f, o, candidate; forget_bias added to f), with float64 finite-difference
gradients of X and C_prev."""

import numpy as np

from op_test import OpCase
from tests.ops.cases_sequence import batch_rows, lod_tensor, sequences

rng = np.random.default_rng(14)
D = 3


def _sig(x):
    return 1 / (1 + np.exp(-x))


def lstm_ref(i, a):
    w, b = i["Weight"], i["Bias"].reshape(-1)
    hs, cs, gs = [], [], []
    for s, seq in enumerate(sequences(i["Input"])):
        h = i["H0"][s] if "H0" in i else np.zeros(D)
        c = i["C0"][s] if "C0" in i else np.zeros(D)
        out_h, out_c, out_g = [], [], []
        for x in seq[::-1] if a["is_reverse"] else seq:
            g = x + h @ w + b[: 4 * D]
            pi = b[4 * D : 5 * D] * c if a["use_peepholes"] else 0
            pf = b[5 * D : 6 * D] * c if a["use_peepholes"] else 0
            ig, fg, cand = _sig(g[D : 2 * D] + pi), _sig(g[2 * D : 3 * D] + pf), np.tanh(g[:D])
            c = fg * c + ig * cand
            o = _sig(g[3 * D :] + (b[6 * D :] * c if a["use_peepholes"] else 0))
            h = o * np.tanh(c)
            out_h.append(h)
            out_c.append(c)
            out_g.append(np.concatenate([cand, ig, fg, o]))
        if a["is_reverse"]:
            out_h, out_c, out_g = out_h[::-1], out_c[::-1], out_g[::-1]
        hs += out_h
        cs += out_c
        gs += out_g
    rows = batch_rows(i["Input"], a["is_reverse"])
    return {
        "Hidden": np.array(hs),
        "Cell": np.array(cs),
        "BatchGate": np.array(gs)[rows],
        "BatchCellPreAct": np.tanh(np.array(cs))[rows],
    }


def only(ref, slots):
    """``ref`` keeping the outputs ``slots``."""
    return lambda i, a: {k: v for k, v in ref(i, a).items() if k in slots}


def _case(name, peep=True, reverse=False, state=False, saved=True, lengths=(3, 1, 4)):
    inputs = {
        "Input": lod_tensor(list(lengths), 4 * D),
        "Weight": rng.normal(size=(D, 4 * D)) * 0.5,
        "Bias": rng.normal(size=(1, (7 if peep else 4) * D)) * 0.5,
    }
    if state:
        inputs["H0"], inputs["C0"] = rng.normal(size=(3, D)), rng.normal(size=(3, D))
    # saved: the op also writes Fluid's BatchGate and BatchCellPreAct, which its gradient then reads (with
    # Hidden and Cell) instead of running the forward again
    outputs = ("Hidden", "Cell", "BatchGate", "BatchCellPreAct") if saved else ("Hidden", "Cell")
    return OpCase(
        "lstm",
        inputs,
        only(lstm_ref, outputs),
        attrs={"use_peepholes": peep, "is_reverse": reverse},
        grad=tuple(inputs),
        name=name,
        grad_rtol=1e-4,
        grad_atol=1e-6,
        outputs=outputs,
        loss_outputs=("Hidden", "Cell"),
    )


CASES = [
    _case("lstm"),
    _case("lstm_no_peepholes", peep=False),
    _case("lstm_reverse_equal_lengths", reverse=True, lengths=(2, 3, 2)),
    _case("lstm_h0_c0", state=True),
    _case("lstm_recomputed", saved=False),
    _case("lstm_h0_c0_recomputed", state=True, saved=False),
]


_unit_rng = np.random.default_rng(15)
_UNIT_D = 3


def lstm_unit_ref(i, a):
    gi, gf, go, gj = np.split(i["X"], 4, axis=1)
    c = _sig(gf + a["forget_bias"]) * i["C_prev"] + _sig(gi) * np.tanh(gj)
    return {"C": c, "H": _sig(go) * np.tanh(c)}


CASES += [
    OpCase(
        "lstm_unit",
        {"X": _unit_rng.normal(size=(5, 4 * D)), "C_prev": _unit_rng.normal(size=(5, D))},
        lstm_unit_ref,
        grad=("X", "C_prev"),
        name="lstm_unit",
    ),
    OpCase(
        "lstm_unit",
        {"X": _unit_rng.normal(size=(2, 4 * D)), "C_prev": _unit_rng.normal(size=(2, D))},
        lstm_unit_ref,
        attrs={"forget_bias": 1.0},
        grad=("X", "C_prev"),
        name="lstm_unit_forget_bias",
    ),
]
