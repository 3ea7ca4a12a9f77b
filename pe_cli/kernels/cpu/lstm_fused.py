"""CPU out-kernels of ops/lstm_fused.py (meta rules: shapes/recurrent.py; fresh variants, fresh_outputs): the recurrence is kernels/lstm_math.py's over numpy, with Fluid's
CPU vector activations (lstm_math.VEC_ACTS); attention_lstm steps each sequence as Fluid's kernel does."""

import numpy as np

from ...base.errors import PeError
from .. import lstm_math
from ...shapes import recurrent as rules
from ..common import check_initial_states
from ..structured import adapter, fresh_outputs

_ACT_KEYS = ("gate_activation", "cell_activation", "candidate_activation")


def _lstm(xx, ins, attrs, ctx, offs):
    """Hidden, Cell and the intermediates of lstm over ``xx`` (the gates before activation, biased):
    WeightH the recurrent weight, Bias[4D:7D] the peepholes; the states start from H0, C0 only where
    H0 is given (Fluid's kernels read C0 with H0 alone)."""
    h0 = ins.get("H0")
    c0 = ins.get("C0") if h0 is not None else None
    if h0 is not None and c0 is None:
        raise PeError("H0 is given without C0: Fluid's kernel reads C0 wherever H0 is given")
    check_initial_states({"H0": h0, "C0": c0}, offs)
    wh = np.asarray(ins["WeightH"])
    d = wh.shape[0]
    bias = np.asarray(ins["Bias"], dtype=xx.dtype).reshape(-1).copy()
    bias[: 4 * d] = 0  # the gates' bias is in xx already
    with np.errstate(over="ignore"):
        hidden, cell, _ = lstm_math.forward(xx, wh, bias, h0, c0, offs, attrs, table=lstm_math.VEC_ACTS)
    return {
        "Hidden": hidden,
        "Cell": cell,
        **lstm_math.fused_intermediates(
            attrs,
            ctx,
            offs,
            XX=xx,
            BatchedInput=xx,
            BatchedHidden=hidden,
            BatchedCell=cell,
            ReorderedH0=h0,
            ReorderedC0=c0,
        ),
    }


def fusion_lstm_out(ins, outs, attrs, meta, ctx):
    x = np.asarray(ins["X"])
    d = np.shape(ins["WeightH"])[0]
    xx = (x @ ins["WeightX"] + np.reshape(ins["Bias"], -1)[: 4 * d]).astype(x.dtype, copy=False)
    fresh_outputs(_lstm(xx, ins, attrs, ctx, meta.args[0]), ins, outs, meta)


def fused_embedding_fc_lstm_out(ins, outs, attrs, meta, ctx):
    table, ids = np.asarray(ins["Embeddings"]), np.asarray(ins["Ids"]).reshape(-1)
    bad = (ids < 0) | (ids >= table.shape[0])
    if bad.any():
        raise PeError(f"Ids hold {int(ids[bad][0])}, outside the table of {table.shape[0]} rows")
    fresh_outputs(_lstm(table[ids], ins, attrs, ctx, meta.args[0]), ins, outs, meta)


def _softmax(v):
    """Fluid's vec_softmax: exp(v - max) times 1 / their sum."""
    e = np.exp(v - v.max())
    return e * (1 / e.sum())


def _attention_step(cur_x, atted, c_prev, h_prev, ins, state, acts):
    """One step of attention_lstm as Fluid's kernel computes it; returns (h, c) and fills ``state``'s
    buffers (the scores in fc_out, x_t, the gates buffer) as Fluid's kernel leaves them."""
    (gate, _), (cell, _), (cand, _) = acts
    m, aw, w = cur_x.shape[1], state["aw"], state["w"]
    d = w.shape[1] // 4
    n = len(cur_x)
    scores = np.maximum(atted + c_prev @ aw[m:], 0)
    if ins.get("AttentionScalar") is not None:
        scores = scores * np.reshape(ins["AttentionScalar"], -1)[0]
        if ins.get("AttentionScalarBias") is not None:
            scores = scores + np.reshape(ins["AttentionScalarBias"], -1)[0]
        scores = np.maximum(scores, 0)
    scores = _softmax(scores)
    state["fc_out"][:n] = scores
    x_t = scores @ cur_x
    gates = x_t @ w[d:] + (h_prev @ w[:d] if h_prev is not None else 0) + state["b"]
    f, i, o, cd = gate(gates[:d]), gate(gates[d : 2 * d]), gate(gates[2 * d : 3 * d]), cand(gates[3 * d :])
    c = f * c_prev + i * cd
    ac = cell(c)
    state["lstm_x"], state["lstm_out"] = x_t, np.concatenate([ac, i * cd, o, cd])
    return o * ac, c


def attention_lstm_out(ins, outs, attrs, meta):
    x, c0, h0 = np.asarray(ins["X"]), np.asarray(ins["C0"]), ins.get("H0")
    offs = meta.args[0]
    aw, w = np.asarray(ins["AttentionWeight"]).reshape(-1), np.asarray(ins["LSTMWeight"])
    m, d = x.shape[1], w.shape[1] // 4
    atted = x @ aw[:m] + (np.reshape(ins["AttentionBias"], -1)[0] if ins.get("AttentionBias") is not None else 0)
    lengths = np.diff(offs)
    state = {
        "aw": aw,
        "w": w,
        "b": np.reshape(ins["LSTMBias"], -1),
        "fc_out": np.zeros(max(lengths, default=0), x.dtype),
        "lstm_x": np.zeros(m, x.dtype),
        "lstm_out": np.zeros(4 * d, x.dtype),
    }
    acts = lstm_math.activations(attrs, lstm_math.VEC_ACTS)
    hidden, cell = np.empty((len(x), d), x.dtype), np.empty((len(x), d), x.dtype)
    with np.errstate(over="ignore"):
        for s, (a, e) in enumerate(zip(offs[:-1], offs[1:])):
            c_prev, h_prev = c0[s], None if h0 is None else np.asarray(h0)[s]
            for t in range(a, e):
                h_prev, c_prev = _attention_step(x[a:e], atted[a:e], c_prev, h_prev, ins, state, acts)
                hidden[t], cell[t] = h_prev, c_prev
    results = {"Hidden": hidden, "Cell": cell, "AttentionedX": atted.reshape(-1, 1).astype(x.dtype, copy=False)}
    results["AttentionFCOut"] = state["fc_out"].reshape(-1, 1)
    results["LSTMX"] = state["lstm_x"].reshape(1, m).astype(x.dtype)
    results["LSTMOUT"] = state["lstm_out"].reshape(1, 4 * d).astype(x.dtype)
    fresh_outputs(results, ins, outs, meta)


fusion_lstm_out.takes_context = fused_embedding_fc_lstm_out.takes_context = True  # (ctx.wanted)

# the ops' kernels by name, the three above: CUDA's host fallbacks run them (kernels/cuda/lstm_fused.py's HOST_OPS)
fusion_lstm = adapter(rules.fusion_lstm_meta, fusion_lstm_out, "fusion_lstm")
fused_embedding_fc_lstm = adapter(
    rules.fused_embedding_fc_lstm_meta, fused_embedding_fc_lstm_out, "fused_embedding_fc_lstm"
)
attention_lstm = adapter(rules.attention_lstm_meta, attention_lstm_out, "attention_lstm")
