"""Sequence models in ONNX: pe's LoD sequences become padded tensors plus lengths.

A feed with ``lod_level: 1`` (rows of every sample's steps one after another, in pe) is two graph
inputs in the exported model: ``NAME`` [batch, max_len, ...] (each sample's steps from position 0,
anything after its length) and ``NAME_lengths`` [batch] (int64). Every variable computed from it
stays padded [batch, max_len, ...], with the lengths carried beside it (``ctx.sequences``):
row-wise ops (an fc's mul and bias, activations, scale, dropout) run on the padded tensor as they
are; the ops that read the sequence structure convert through SEQUENCE_CONVERTERS to ONNX's LSTM
and GRU with ``sequence_lens`` (onnx_recurrences.py), or to masked reductions. Steps past a sample's
length never reach a result (the recurrences stop at the length, pooling masks them).
"""

import numpy as np

from ..data.ragged import LENGTHS_SUFFIX
from .onnx_ops import CONVERTERS
from .onnx_padding import ONNX_DTYPES, _lengths, refuse_used, sequence_pad, step_mask
from .onnx_recurrences import _gru, _lstm

# ops that treat each row (step) alone: their converters work on the padded layout as they are
ROW_WISE = (
    "mul",
    "elementwise_add",
    "elementwise_sub",
    "elementwise_mul",
    "elementwise_div",
    "relu",
    "sigmoid",
    "tanh",
    "exp",
    "softmax",
    "scale",
    "dropout",
    "lookup_table",
    "lookup_table_v2",
    "sum",
)
_INT64_MAX = np.iinfo(np.int64).max


def padded_inputs(ctx, names):
    """The graph inputs of feeds ``names``: a sequence feed (lod_level > 0) is padded plus lengths.
    Marks the sequence feeds in ``ctx.sequences``; returns [(name, ONNX dims, dtype)]."""
    out = []
    for name in names:
        var = ctx.block.var(name)
        dims = ["N" if d == -1 else d for d in var.shape]
        if not var.lod_level:
            out.append((name, dims, str(var.dtype)))
            continue
        lengths = name + LENGTHS_SUFFIX
        ctx.sequences[name] = lengths
        out.append((name, ["N", f"T_{name}"] + dims[1:], str(var.dtype)))
        out.append((lengths, ["N"], "int64"))
    return out


def output_dims(ctx, var):
    """The ONNX dims of an output: a sequence comes out padded [batch, max_len, ...]."""
    dims = ["N" if d == -1 else d for d in var.shape]
    return ["N", "T"] + dims[1:] if var.name in ctx.sequences else dims


def convert_op(ctx, op):
    """Appends the ONNX nodes of ``op``: plain ops through onnx_ops.CONVERTERS, an op reading a
    padded sequence through SEQUENCE_CONVERTERS (or as it is when it is row-wise)."""
    seq_inputs = [n for n in op.input_arg_names if n in ctx.sequences]
    if op.type in SEQUENCE_CONVERTERS and (seq_inputs or op.type not in CONVERTERS):
        if not seq_inputs:
            ctx.refuse(op, "it needs a sequence input (a feed with lod_level: 1)")
        SEQUENCE_CONVERTERS[op.type](ctx, op)
        return
    if seq_inputs:
        if op.type not in ROW_WISE:
            ctx.refuse(
                op,
                f"it reads the sequence '{seq_inputs[0]}' and has no padded-sequence form in ONNX "
                f"(sequence ops that export: {', '.join(sorted(SEQUENCE_CONVERTERS))})",
            )
        _check_row_wise(ctx, op, seq_inputs[0])
        lengths = ctx.sequences[seq_inputs[0]]
        for name in op.output_arg_names:
            ctx.sequences[name] = lengths
    CONVERTERS[op.type](ctx, op)


def _check_row_wise(ctx, op, seq):
    if op.type == "mul" and (op.input("X")[0] != seq or op.attrs.get("x_num_col_dims", 1) != 1 or ctx.rank(seq) != 2):
        ctx.refuse(op, "only an fc over the steps of a sequence [rows, D] exports (x_num_col_dims 1)")
    if op.type.startswith("elementwise_") and op.input("Y")[0] not in ctx.sequences and op.attrs.get("axis", -1) == 0:
        ctx.refuse(op, "a Y per row (axis 0) of a sequence has no padded form")
    if op.type == "softmax" and op.attrs.get("axis", -1) not in (-1, ctx.rank(seq) - 1):
        ctx.refuse(op, "only a softmax over the last axis of a sequence exports")


# -- reductions and windows over the steps ----------------------------------------------------


def _sequence_pool(ctx, op):
    """One row per sample over its first ``length`` steps; an empty sequence gives pad_value."""
    refuse_used(ctx, op, "MaxIndex", "its MaxIndex output is read (a training-only value)")
    x, out = op.input("X")[0], op.output("Out")[0]
    lengths = _lengths(ctx, op, "X")
    kind = op.attrs.get("pooltype", "AVERAGE").upper()
    rank = ctx.rank(x) + 1
    pooled = ctx.temp(out)
    if kind in ("LAST", "FIRST"):
        index = ctx.temp("index")
        if kind == "LAST":
            ctx.node("Sub", [lengths, ctx.constant(np.array(1, np.int64))], [index + "_"])
            ctx.node("Max", [index + "_", ctx.constant(np.array(0, np.int64))], [index + "__"])
        else:
            ctx.node("Mul", [lengths, ctx.constant(np.array(0, np.int64))], [index + "__"])
        ctx.node("Unsqueeze", [index + "__", ctx.constant(np.array([1], np.int64))], [index])
        ctx.node("GatherND", [x, index], [pooled], batch_dims=1)
    elif kind in ("MAX", "SUM", "AVERAGE", "SQRT"):
        mask = step_mask(ctx, lengths, rank, x)
        fill = -np.inf if kind == "MAX" else 0.0
        kept = ctx.temp(x)
        ctx.node("Where", [mask, x, ctx.constant(np.array(fill, np.float32))], [kept])
        reduced = pooled if kind in ("MAX", "SUM") else ctx.temp(out)
        if kind == "MAX":  # opset 17: ReduceMax's axes an attribute, ReduceSum's an input
            ctx.node("ReduceMax", [kept], [reduced], axes=[1], keepdims=0)
        else:
            ctx.node("ReduceSum", [kept, ctx.constant(np.array([1], np.int64))], [reduced], keepdims=0)
        if kind in ("AVERAGE", "SQRT"):
            count = ctx.temp("count")
            ctx.node("Cast", [lengths], [count + "_"], to=1)
            if kind == "SQRT":
                ctx.node("Sqrt", [count + "_"], [count + "__"])
            else:
                ctx.node("Identity", [count + "_"], [count + "__"])
            ctx.reshape(count + "__", [-1] + [1] * (rank - 2), count)
            ctx.node("Div", [reduced, count], [pooled])
    else:
        ctx.refuse(op, f"pooltype {kind} has no ONNX form here")
    nonempty = ctx.temp("nonempty")
    ctx.node("Greater", [lengths, ctx.constant(np.array(0, np.int64))], [nonempty + "_"])
    ctx.reshape(nonempty + "_", [-1] + [1] * (rank - 2), nonempty)
    pad = ctx.constant(np.array(op.attrs.get("pad_value", 0.0), np.float32))
    ctx.node("Where", [nonempty, pooled, pad], [out])


def _sequence_conv(ctx, op):
    """Out[t] = concat(X[t + start + k], k < length; zeros outside the sample) @ Filter: the steps
    past each length zeroed, padded along T, ``length`` shifted slices side by side, one MatMul."""
    x, out = op.input("X")[0], op.output("Out")[0]
    lengths = _lengths(ctx, op, "X")
    if ctx.rank(x) != 2:
        ctx.refuse(op, "only a sequence of rows [rows, D] exports")
    size, start = int(op.attrs.get("contextLength", 3)), int(op.attrs.get("contextStart", 0))
    zeroed = ctx.temp(x)
    ctx.node("Where", [step_mask(ctx, lengths, 3, x), x, ctx.constant(np.array(0.0, np.float32))], [zeroed])
    before, after = max(0, -start), max(0, start + size - 1)
    padded = ctx.temp(x)
    ctx.node("Pad", [zeroed, ctx.constant(np.array([0, before, 0, 0, after, 0], np.int64))], [padded])
    windows = []
    for k in range(size):
        begin = before + start + k  # of T + before + after rows, T of them
        end = begin - before - after if begin - before - after < 0 else _INT64_MAX
        piece = ctx.temp(x)
        ctx.node(
            "Slice",
            [
                padded,
                ctx.constant(np.array([begin], np.int64)),
                ctx.constant(np.array([end], np.int64)),
                ctx.constant(np.array([1], np.int64)),
            ],
            [piece],
        )
        windows.append(piece)
    joined = ctx.temp(x)
    ctx.node("Concat", windows, [joined], axis=2)
    ctx.node("MatMul", [joined, op.input("Filter")[0]], [out])
    ctx.sequences[out] = lengths


# -- a recurrent block (dynamic_rnn) -----------------------------------------------------------


def _dynamic_recurrent(ctx, op):
    """DynamicRNN's step block as the body of an ONNX Scan over the padded steps (axis 1): the
    memories are Scan's states, each kept where a sample has ended (the step's mask, scanned
    beside the inputs); the step outputs are stacked back to [N, T, ...]."""
    a = op.attrs
    step_inputs = op.input("inputs")
    lengths = ctx.sequences[step_inputs[0]]
    if any(ctx.sequences.get(n) != lengths for n in step_inputs):
        ctx.refuse(op, "its step inputs are not all sequences of the same lengths")
    body = type(ctx)(ctx.block.program.block(a["sub_block"]), ctx.helper, ctx.numpy_helper)
    body.temp, body.initializers = ctx.temp, ctx.initializers  # names unique across the graphs
    mask = step_mask(ctx, lengths, 2, step_inputs[0])
    body_mask = body.temp("step_mask")
    for outer, inner in zip(op.input("static_inputs"), a["static_inputs"]):
        body.node("Identity", [outer], [inner])
    for sub in body.block.ops:
        convert_op(body, sub)
    states = []
    for ex, new in zip(a["ex_states"], a["states"]):
        kept = body.temp(new)
        where = body.temp("step_mask")
        body.node("Unsqueeze", [body_mask, body.constant(np.arange(1, body.rank(ex), dtype=np.int64))], [where])
        body.node("Where", [where, new, ex], [kept])
        states.append(kept)
    outs = [body.temp(name) for name in a["step_outputs"]]
    for name, out in zip(a["step_outputs"], outs):
        body.node("Identity", [name], [out])
    info = ctx.helper.make_tensor_value_info
    graph = ctx.helper.make_graph(
        body.nodes,
        ctx.temp("dynamic_rnn_step"),
        [info(n, ONNX_DTYPES[str(body.block.var(n).dtype)], None) for n in a["ex_states"]]
        + [info(n, ONNX_DTYPES[str(body.block.var(n).dtype)], None) for n in a["step_inputs"]]
        + [info(body_mask, 9, None)],
        [info(n, ONNX_DTYPES[str(body.block.var(s).dtype)], None) for n, s in zip(states, a["states"])]
        + [info(n, ONNX_DTYPES[str(body.block.var(s).dtype)], None) for n, s in zip(outs, a["step_outputs"])],
    )
    finals = [ctx.temp("final_state") for _ in states]
    n_scan = len(step_inputs) + 1
    ctx.node(
        "Scan",
        _initial_memories(ctx, op, step_inputs[0]) + step_inputs + [mask],
        finals + op.output("outputs"),
        body=graph,
        num_scan_inputs=n_scan,
        scan_input_axes=[1] * n_scan,
        scan_output_axes=[1] * len(outs),
    )
    for name in op.output("outputs"):
        ctx.sequences[name] = lengths


def _initial_memories(ctx, op, like):
    """Each memory's first value: its boot (an initial_states input) or memory_values[i] of shape
    [N, memory_dims...] (memory_ranks[i] of the dims belong to memory i)."""
    a, out, at = op.attrs, [], 0
    for i, boot in enumerate(a["boots"]):
        dims = list(a["memory_dims"][at : at + a["memory_ranks"][i]])
        at += a["memory_ranks"][i]
        if boot >= 0:
            out.append(op.input("initial_states")[boot])
            continue
        batch, shape, value = ctx.temp("batch"), ctx.temp("shape"), ctx.temp("memory")
        ctx.node("Shape", [like], [batch], start=0, end=1)
        ctx.node("Concat", [batch, ctx.constant(np.array(dims, np.int64))], [shape], axis=0)
        fill = np.array([a["memory_values"][i]], dtype=a["memory_dtypes"][i])
        ctx.node("ConstantOfShape", [shape], [value], value=ctx.numpy_helper.from_array(fill))
        out.append(value)
    return out


def _lod_reset(ctx, op):
    """X with Y's sequences: in the padded layout X itself, with Y's lengths."""
    y = op.input("Y")[0] if "Y" in op.input_names and op.input("Y") else None
    if y not in ctx.sequences or op.input("X")[0] not in ctx.sequences or op.attrs.get("append"):
        ctx.refuse(op, "only X given the sequences of a sequence Y of the same steps exports")
    ctx.node("Identity", [op.input("X")[0]], [op.output("Out")[0]])
    ctx.sequences[op.output("Out")[0]] = ctx.sequences[y]


SEQUENCE_CONVERTERS = {
    "lstm": _lstm,
    "gru": _gru,
    "sequence_pool": _sequence_pool,
    "sequence_conv": _sequence_conv,
    "dynamic_recurrent": _dynamic_recurrent,
    "lod_reset": _lod_reset,
    "sequence_pad": sequence_pad,
}
