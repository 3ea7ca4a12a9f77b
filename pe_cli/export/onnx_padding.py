"""Between sequences and dense batches in ONNX: pe's sequence_pad (a sequence, in the padded layout of
onnx_sequence.py, as a dense [batch, maxlen, ...] batch and its lengths), sequence_unpad (a dense
batch and lengths into that layout) and sequence_mask (lengths as a 0/1 mask), and what the sequence
converters share: the step mask, a sequence input's lengths, the refusal of an output they cannot give."""

import numpy as np

ONNX_DTYPES = {"float32": 1, "int32": 6, "int64": 7, "float64": 11, "bool": 9, "uint8": 2, "int8": 3}  # TensorProto


def _lengths(ctx, op, slot):
    return ctx.sequences[op.input(slot)[0]]


def refuse_used(ctx, op, slot, why):
    names = op.output(slot) if slot in op.output_names else []
    if names and any(names[0] in other.input_arg_names for other in ctx.block.ops):
        ctx.refuse(op, why)


def step_mask(ctx, lengths, rank, like):
    """bool [N, T, 1, ...] (``rank`` dims): step t of a sample is < its length; T from ``like``."""
    steps = ctx.temp("steps")
    shape = ctx.temp("shape")
    ctx.node("Shape", [like], [shape], start=1, end=2)
    count = ctx.temp("count")
    ctx.node("Squeeze", [shape, ctx.constant(np.array([0], np.int64))], [count])
    ctx.node("Range", [ctx.constant(np.array(0, np.int64)), count, ctx.constant(np.array(1, np.int64))], [steps])
    lens = ctx.temp("lens")
    ctx.node("Unsqueeze", [lengths, ctx.constant(np.array([1], np.int64))], [lens])
    mask = ctx.temp("mask")
    ctx.node("Less", [steps, lens], [mask])
    if rank > 2:
        out = ctx.temp("mask")
        ctx.node("Unsqueeze", [mask, ctx.constant(np.arange(2, rank, dtype=np.int64))], [out])
        return out
    return mask


def sequence_mask(ctx, op):
    """Y[..., j] = j < X[...], as out_dtype; maxlen -1: the largest length."""
    if "MaxLenTensor" in op.input_names and op.input("MaxLenTensor"):
        ctx.refuse(op, "its maxlen must be an attribute, not a tensor")
    x, maxlen = op.input("X")[0], int(op.attrs.get("maxlen", -1))
    lengths = ctx.temp(x)
    ctx.node("Cast", [x], [lengths], to=7)
    if maxlen < 0:
        count = ctx.temp("maxlen")
        ctx.node("ReduceMax", [lengths], [count], keepdims=0)
    else:
        count = ctx.constant(np.array(maxlen, np.int64))
    steps, below, last = ctx.temp("steps"), ctx.temp("mask"), ctx.temp(x)
    ctx.node("Range", [ctx.constant(np.array(0, np.int64)), count, ctx.constant(np.array(1, np.int64))], [steps])
    ctx.node("Unsqueeze", [lengths, ctx.constant(np.array([-1], np.int64))], [last])
    ctx.node("Less", [steps, last], [below])
    ctx.node("Cast", [below], [op.output("Y")[0]], to=ONNX_DTYPES[str(op.attrs.get("out_dtype", "int64"))])


def sequence_unpad(ctx, op):
    """A dense X [batch, seq, ...] becomes a sequence: in the padded layout (onnx_sequence.py) X itself,
    with Length (flattened to [batch]) beside it."""
    if op.input("X")[0] in ctx.sequences:
        ctx.refuse(op, "its X is already a sequence")
    lengths = ctx.temp(op.input("Length")[0])
    ctx.node("Cast", [ctx.reshape(op.input("Length")[0], [-1])], [lengths], to=7)
    ctx.node("Identity", [op.input("X")[0]], [op.output("Out")[0]])
    ctx.sequences[op.output("Out")[0]] = lengths


def sequence_pad(ctx, op):
    """Out: the padded steps cut (or zero-extended) to padded_length (-1: the longest sample), PadValue
    after each length; Length: the lengths."""
    x, out = op.input("X")[0], op.output("Out")[0]
    lengths = ctx.sequences[x]
    rank, maxlen = ctx.rank(x) + 1, int(op.attrs.get("padded_length", -1))
    if maxlen < 0:
        end, source = ctx.temp("maxlen"), x
        ctx.node("ReduceMax", [lengths], [end], keepdims=1)
    else:
        end, source = ctx.constant(np.array([maxlen], np.int64)), ctx.temp(x)
        pads = np.zeros(2 * rank, np.int64)
        pads[rank + 1] = maxlen
        ctx.node("Pad", [x, ctx.constant(pads)], [source])
    cut = ctx.temp(x)
    ctx.node(
        "Slice", [source, ctx.constant(np.array([0], np.int64)), end, ctx.constant(np.array([1], np.int64))], [cut]
    )
    ctx.node("Where", [step_mask(ctx, lengths, rank, cut), cut, op.input("PadValue")[0]], [out])
    ctx.node("Identity", [lengths], [op.output("Length")[0]])
