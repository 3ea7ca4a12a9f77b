"""Op cases for gru (dynamic_gru) over LoD input and gru_unit: a step-by-step numpy reference of
Fluid's equations, one sequence at a time (no batching), with Weight read in Fluid's memory layout
([D, 2D] update/reset block, then the [D, D] candidate block); the gradient from the forward's saved
batch-ordered values (BatchGate, BatchResetHiddenPrev, BatchHidden: each row's gates, r h' and h put
in Fluid's batch order) with Hidden, and recomputed without them."""

import numpy as np

from op_test import OpCase
from tests.ops.cases_lstm import only
from tests.ops.cases_sequence import batch_rows, lod_tensor, sequences

rng = np.random.default_rng(21)
D = 3
_F = {
    "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
    "tanh": np.tanh,
    "relu": lambda v: np.maximum(v, 0),
    "identity": lambda v: v,
}
_CODES = {0: "identity", 1: "sigmoid", 2: "tanh", 3: "relu"}


def gru_step(x, h, w, b, gate, cand, origin):
    w_ur, w_c = w.reshape(-1)[: 2 * D * D].reshape(D, 2 * D), w.reshape(-1)[2 * D * D :].reshape(D, D)
    u = _F[gate](x[:D] + h @ w_ur[:, :D] + b[:D])
    r = _F[gate](x[D : 2 * D] + h @ w_ur[:, D:] + b[D : 2 * D])
    c = _F[cand](x[2 * D :] + (r * h) @ w_c + b[2 * D :])
    new_h = u * h + (1 - u) * c if origin else (1 - u) * h + u * c
    return np.concatenate([u, r, c]), r * h, new_h


def gru_ref(i, a):
    b = i["Bias"].reshape(-1) if "Bias" in i else np.zeros(3 * D)
    out = []
    for s, seq in enumerate(sequences(i["Input"])):
        h = i["H0"][s] if "H0" in i else np.zeros(D)
        steps = []
        for x in seq[::-1] if a["is_reverse"] else seq:
            steps.append(gru_step(x, h, i["Weight"], b, a["gate_activation"], a["activation"], a["origin_mode"]))
            h = steps[-1][2]
        out += steps[::-1] if a["is_reverse"] else steps
    rows = batch_rows(i["Input"], a["is_reverse"])
    gates, rhps, hidden = (np.array([step[k] for step in out]).reshape(len(out), -1) for k in range(3))
    return {"BatchGate": gates[rows], "BatchResetHiddenPrev": rhps[rows], "BatchHidden": hidden[rows], "Hidden": hidden}


def unit_ref(i, a):
    b = i["Bias"].reshape(-1) if "Bias" in i else np.zeros(3 * D)
    rows = [
        gru_step(x, h, i["Weight"], b, _CODES[a["gate_activation"]], _CODES[a["activation"]], a["origin_mode"])
        for x, h in zip(i["Input"], i["HiddenPrev"])
    ]
    return {
        "Gate": np.array([r[0] for r in rows]),
        "ResetHiddenPrev": np.array([r[1] for r in rows]),
        "Hidden": np.array([r[2] for r in rows]),
    }


def _gru(name, bias=True, h0=False, saved=True, lengths=(3, 1, 4), **attrs):
    inputs = {"Input": lod_tensor(list(lengths), 3 * D), "Weight": rng.normal(size=(D, 3 * D)) * 0.5}
    if bias:
        inputs["Bias"] = rng.normal(size=(1, 3 * D)) * 0.5
    if h0:
        inputs["H0"] = rng.normal(size=(len(lengths), D))
    # saved: the op also writes Fluid's batch-ordered values, which its gradient then reads (with Hidden)
    # instead of running the forward again
    outputs = ("BatchGate", "BatchResetHiddenPrev", "BatchHidden", "Hidden") if saved else ("Hidden",)
    return OpCase(
        "gru",
        inputs,
        only(gru_ref, outputs),
        attrs=attrs,
        grad=tuple(inputs),
        name=name,
        grad_rtol=1e-4,
        grad_atol=1e-6,
        outputs=outputs,
        loss_outputs=("Hidden",),
    )


def _unit(name, bias=True, **attrs):
    inputs = {
        "Input": rng.normal(size=(4, 3 * D)),
        "HiddenPrev": rng.normal(size=(4, D)),
        "Weight": rng.normal(size=(D, 3 * D)) * 0.5,
    }
    if bias:
        inputs["Bias"] = rng.normal(size=(1, 3 * D)) * 0.5
    return OpCase(
        "gru_unit", inputs, unit_ref, attrs=attrs, grad=tuple(inputs), name=name, grad_rtol=1e-4, grad_atol=1e-6
    )


CASES = [
    _gru("gru"),
    _gru("gru_reverse_h0", is_reverse=True, h0=True),
    _gru("gru_origin_mode_no_bias", bias=False, origin_mode=True),
    _gru("gru_relu_identity", h0=True, gate_activation="identity", activation="relu"),
    _gru("gru_recomputed", saved=False),
    _gru("gru_empty_sequence_equal_lengths", h0=True, lengths=(2, 0, 3, 2)),
    _gru("gru_reverse_h0_recomputed", is_reverse=True, h0=True, saved=False),
    _unit("gru_unit"),
    _unit("gru_unit_origin_mode", origin_mode=True),
    _unit("gru_unit_no_bias_identity", bias=False, activation=0),
]


# fusion_gru: Fluid's CPU inference fusion of fc + gru. Its jit kernels compute h = u c + (1 - u) h' whatever
# origin_mode says, and tanh as 2 sigmoid(2x) - 1 of the clipped sigmoid (saturating at 0.9999955).
_VEC = {
    "sigmoid": lambda v: 1 / (1 + np.exp(-np.clip(v, -40, 13))),
    "tanh": lambda v: 2 / (1 + np.exp(-np.clip(2 * v, -40, 13))) - 1,
}


def _fusion_gru_ref(i, a):
    xx = np.asarray(i["X"]) @ i["WeightX"] + (i["Bias"] if "Bias" in i else 0)
    ur, c_w = (
        i["WeightH"].reshape(-1)[: 2 * D * D].reshape(D, 2 * D),
        i["WeightH"].reshape(-1)[2 * D * D :].reshape(D, D),
    )
    gate, cand = _VEC[a["gate_activation"]], _VEC[a["activation"]]
    hidden, offs = np.zeros((len(xx), D)), i["X"].lod()[-1]
    for s, (b, e) in enumerate(zip(offs, offs[1:])):
        h = i["H0"][s] if "H0" in i else np.zeros(D)
        for r in range(e - 1, b - 1, -1) if a["is_reverse"] else range(b, e):
            u, rg = gate(xx[r, :D] + h @ ur[:, :D]), gate(xx[r, D : 2 * D] + h @ ur[:, D:])
            c = cand(xx[r, 2 * D :] + (rg * h) @ c_w)
            h = hidden[r] = u * c + (1 - u) * h
    rows = batch_rows(i["X"], a["is_reverse"])
    order = np.argsort([-n for n in np.diff(offs)], kind="stable")
    outs = {"Hidden": hidden, "XX": xx, "BatchedInput": xx[rows], "BatchedOut": hidden[rows]}
    if "H0" in i:
        outs["ReorderedH0"] = i["H0"][order]
    return outs


CASES += [
    OpCase(
        "fusion_gru",
        {
            "X": lod_tensor([3, 1, 4], 2, scale=3.0),
            "WeightX": rng.normal(size=(2, 3 * D)),
            "WeightH": rng.normal(size=(D, 3 * D)),
            "Bias": rng.normal(size=(1, 3 * D)),
            "H0": rng.normal(size=(3, D)),
        },
        _fusion_gru_ref,
        attrs={"is_reverse": True, "origin_mode": True},
        name="fusion_gru_ignores_origin_mode",
    ),
    OpCase(
        "fusion_gru",
        {"X": lod_tensor([2, 2], 2), "WeightX": rng.normal(size=(2, 3 * D)), "WeightH": rng.normal(size=(D, 3 * D))},
        _fusion_gru_ref,
        attrs={"use_seq": False},
        name="fusion_gru_no_bias_no_h0",
    ),
]
