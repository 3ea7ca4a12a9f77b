"""Fluid's recurrences in ONNX: the lstm and gru ops (a dynamic_lstm, a dynamic_gru) as ONNX's LSTM and GRU over
the padded layout of onnx_sequence.py, time-major, with ``sequence_lens``, so each sample's recurrence
stops at its length."""

import numpy as np

from .onnx_padding import _lengths, refuse_used


_ACTIVATIONS = {"sigmoid": "Sigmoid", "tanh": "Tanh", "relu": "Relu"}
_LSTM_ORDER = (1, 3, 2, 0)  # ONNX's gates i, o, f, c as blocks of Fluid's c, i, f, o


def _time_major(ctx, name):
    out = ctx.temp(name)
    ctx.node("Transpose", [name], [out], perm=[1, 0, 2])
    return out


def _batch_major(ctx, y, out):
    """ONNX's Y [T, 1, N, H] as pe's padded [N, T, H]."""
    squeezed = ctx.temp(out)
    ctx.node("Squeeze", [y, ctx.constant(np.array([1], np.int64))], [squeezed])
    ctx.node("Transpose", [squeezed], [out], perm=[1, 0, 2])


def _activations(ctx, op, keys):
    names = []
    for key in keys:
        act = op.attrs.get(key)
        if act not in _ACTIVATIONS:
            ctx.refuse(op, f"{key} '{act}' has no ONNX recurrent activation here (sigmoid, tanh, relu export)")
        names.append(_ACTIVATIONS[act])
    return names


def _initial_state(ctx, op, slot):
    if slot not in op.input_names or not op.input(slot):
        return ""
    out = ctx.temp(slot)
    ctx.node("Unsqueeze", [op.input(slot)[0], ctx.constant(np.array([0], np.int64))], [out])
    return out


def _gather_columns(ctx, name, columns, out=None):
    out = out or ctx.temp(name)
    ctx.node("Gather", [name, ctx.constant(np.asarray(columns, np.int64))], [out], axis=1)
    return out


def _seq_lens(ctx, op, slot):
    out = ctx.temp("seq_lens")
    ctx.node("Cast", [_lengths(ctx, op, slot)], [out], to=6)  # int32
    return out


def _lstm(ctx, op):
    """Fluid's Input is the gates already projected (an fc to 4H, blocks c, i, f, o): ONNX's W is the
    permutation to i, o, f, c; R is Weight's columns in that order, transposed; B the bias so
    permuted (and zeros for R's); P the peepholes (W_ic, W_oc, W_fc)."""
    refuse_used(ctx, op, "Cell", "its Cell output is read: ONNX's LSTM gives only the last step's cell")
    for slot in ("BatchGate", "BatchCellPreAct"):
        refuse_used(ctx, op, slot, f"its {slot} output is read (a training-only value)")
    x, weight, bias = op.input("Input")[0], op.input("Weight")[0], op.input("Bias")[0]
    h = ctx.shape(weight)[0]
    cols = np.concatenate([np.arange(h) + k * h for k in _LSTM_ORDER])
    w = np.zeros((1, 4 * h, 4 * h), np.float32)
    w[0, np.arange(4 * h), cols] = 1.0
    r = ctx.temp(weight)
    ctx.node("Transpose", [_gather_columns(ctx, weight, cols)], [r], perm=[1, 0])
    r3 = ctx.reshape(r, [1, 4 * h, h])
    b = ctx.temp(bias)
    ctx.node("Concat", [_gather_columns(ctx, bias, cols), ctx.constant(np.zeros((1, 4 * h), np.float32))], [b], axis=1)
    inputs = [
        _time_major(ctx, x),
        ctx.constant(w),
        r3,
        b,
        _seq_lens(ctx, op, "Input"),
        _initial_state(ctx, op, "H0"),
        _initial_state(ctx, op, "C0"),
    ]
    if op.attrs.get("use_peepholes", True):
        peep = np.concatenate([np.arange(h) + k * h for k in (4, 6, 5)])
        inputs.append(_gather_columns(ctx, bias, peep))
    y = ctx.temp("lstm_y")
    acts = _activations(ctx, op, ("gate_activation", "candidate_activation", "cell_activation"))
    ctx.node(
        "LSTM",
        inputs,
        [y],
        hidden_size=h,
        activations=acts,
        direction="reverse" if op.attrs.get("is_reverse") else "forward",
    )
    out = op.output("Hidden")[0]
    _batch_major(ctx, y, out)
    ctx.sequences[out] = _lengths(ctx, op, "Input")


def _gru(ctx, op):
    """Fluid's Input is the gates already projected (an fc to 3H: update u, reset r, candidate c);
    Weight [H, 3H] holds W_ur [H, 2H] then W_c [H, H] in its memory. ONNX's GRU (z, r, h, reset
    before the product) is origin_mode's h = u h' + (1 - u) c with z = u; Fluid's default
    h = u c + (1 - u) h' is the same with z = 1 - u = sigmoid(-(...)): z's rows negated."""
    for slot in ("BatchGate", "BatchResetHiddenPrev", "BatchHidden"):
        refuse_used(ctx, op, slot, f"its {slot} output is read (a training-only value)")
    x, weight = op.input("Input")[0], op.input("Weight")[0]
    h = ctx.shape(weight)[0]
    origin = bool(op.attrs.get("origin_mode"))
    if not origin and op.attrs.get("gate_activation", "sigmoid") != "sigmoid":
        ctx.refuse(op, "only a sigmoid gate exports without origin_mode (ONNX's GRU keeps z h' + (1 - z) c)")
    signs = np.ones(3 * h, np.float32)
    if not origin:
        signs[:h] = -1.0
    flat = ctx.reshape(weight, [-1])
    parts = []
    for start, end, shape in ((0, 2 * h * h, [h, 2 * h]), (2 * h * h, 3 * h * h, [h, h])):
        piece = ctx.temp(weight)
        ctx.node(
            "Slice", [flat, ctx.constant(np.array([start], np.int64)), ctx.constant(np.array([end], np.int64))], [piece]
        )
        parts.append(ctx.reshape(piece, shape))
    joined, signed, r = ctx.temp(weight), ctx.temp(weight), ctx.temp(weight)
    ctx.node("Concat", parts, [joined], axis=1)
    ctx.node("Mul", [joined, ctx.constant(signs)], [signed])
    ctx.node("Transpose", [signed], [r], perm=[1, 0])
    inputs = [_time_major(ctx, x), ctx.constant(np.diag(signs)[None]), ctx.reshape(r, [1, 3 * h, h])]
    if "Bias" in op.input_names and op.input("Bias"):
        b, wb = ctx.temp("bias"), ctx.temp("bias")
        ctx.node("Mul", [op.input("Bias")[0], ctx.constant(signs)], [wb])
        ctx.node("Concat", [wb, ctx.constant(np.zeros((1, 3 * h), np.float32))], [b], axis=1)
    else:
        b = ""
    inputs += [b, _seq_lens(ctx, op, "Input"), _initial_state(ctx, op, "H0")]
    y = ctx.temp("gru_y")
    ctx.node(
        "GRU",
        inputs,
        [y],
        hidden_size=h,
        activations=_activations(ctx, op, ("gate_activation", "activation")),
        direction="reverse" if op.attrs.get("is_reverse") else "forward",
        linear_before_reset=0,
    )
    out = op.output("Hidden")[0]
    _batch_major(ctx, y, out)
    ctx.sequences[out] = _lengths(ctx, op, "Input")
