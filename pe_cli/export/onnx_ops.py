"""One converter per pe op type: ``convert(ctx, op)`` appends the ONNX nodes computing the op's
outputs (named as pe names its variables) to ``ctx``. The table at the bottom is the whole list of
ops pe can export; an op missing from it is refused by name."""

import numpy as np

from ..kernels.cpu.position import encoding
from .onnx_padding import sequence_mask, sequence_unpad


def _x(op, slot="X"):
    return op.input(slot)[0]


def _out(op, slot="Out"):
    return op.output(slot)[0]


def _unary(onnx_type):
    def convert(ctx, op):
        ctx.node(onnx_type, [_x(op)], [_out(op)])

    return convert


def _softmax(ctx, op):
    ctx.node("Softmax", [_x(op)], [_out(op)], axis=op.attrs.get("axis", -1))


def _elementwise(onnx_type):
    """Fluid broadcasts Y from ``axis`` of X; ONNX from the right: Y gets trailing ones."""

    def convert(ctx, op):
        x, y = _x(op), _x(op, "Y")
        rank_x, shape_y = ctx.rank(x), ctx.shape(y)
        axis = op.attrs.get("axis", -1)
        axis = rank_x - len(shape_y) if axis == -1 else axis
        trailing = rank_x - axis - len(shape_y)
        if trailing > 0:
            y = ctx.reshape(y, list(shape_y) + [1] * trailing)
        ctx.node(onnx_type, [x, y], [_out(op)])

    return convert


def _pads(op, rank):
    """Fluid's paddings ([ph, pw] or [top, bottom, left, right]) as ONNX's [begins..., ends...]."""
    p = list(op.attrs.get("paddings", [0] * rank))
    if len(p) == rank:
        return p + p
    return p[0::2] + p[1::2]


def _channels_first_only(ctx, op):
    if op.attrs.get("data_format") == "NHWC":
        ctx.refuse(
            op, "data_format NHWC is not exported (ONNX's Conv and pools are channels first); build the model NCHW"
        )


def _conv2d(ctx, op):
    _channels_first_only(ctx, op)
    algo = op.attrs.get("padding_algorithm", "EXPLICIT")
    kwargs = {"strides": op.attrs["strides"], "dilations": op.attrs["dilations"], "group": op.attrs["groups"]}
    if algo == "EXPLICIT":
        kwargs["pads"] = _pads(op, 2)
    else:
        kwargs["auto_pad"] = "SAME_UPPER" if algo == "SAME" else "VALID"
    ctx.node("Conv", [_x(op, "Input"), _x(op, "Filter")], [_out(op, "Output")], **kwargs)


def _pool2d(ctx, op):
    _channels_first_only(ctx, op)
    kind = op.attrs["pooling_type"]
    if op.attrs.get("adaptive"):
        ctx.refuse(op, "adaptive pooling has no ONNX operator")
    if op.attrs.get("global_pooling"):
        ctx.node("GlobalMaxPool" if kind == "max" else "GlobalAveragePool", [_x(op)], [_out(op)])
        return
    kwargs = {
        "kernel_shape": op.attrs["ksize"],
        "strides": op.attrs["strides"],
        "pads": _pads(op, 2),
        "ceil_mode": int(bool(op.attrs.get("ceil_mode"))),
    }
    if kind == "max":
        ctx.node("MaxPool", [_x(op)], [_out(op)], **kwargs)
    else:
        ctx.node(
            "AveragePool", [_x(op)], [_out(op)], count_include_pad=0 if op.attrs.get("exclusive", True) else 1, **kwargs
        )


def _mul(ctx, op):
    """X flattened to 2-D at x_num_col_dims, times Y flattened at y_num_col_dims."""
    x, y = _x(op), _x(op, "Y")
    xd, yd = op.attrs.get("x_num_col_dims", 1), op.attrs.get("y_num_col_dims", 1)
    if ctx.rank(x) != 2 or xd != 1:
        x = ctx.flatten(x, xd)
    if len(ctx.shape(y)) != 2 or yd != 1:
        y = ctx.flatten(y, yd)
    out = _out(op)
    if xd == 1 or (xd == ctx.rank(_x(op)) - 1 and yd == 1 and len(ctx.shape(_x(op, "Y"))) == 2):
        ctx.node("MatMul", [_x(op) if xd > 1 else x, y], [out])  # [..., K] @ [K, M]: over the leading dims
        return
    flat = ctx.temp(out)
    ctx.node("MatMul", [x, y], [flat])
    ctx.reshape(flat, [0 if d == -1 else d for d in ctx.shape(out)], out)


def _batch_norm(ctx, op):
    if not op.attrs.get("is_test"):
        ctx.refuse(op, "only the inference form (is_test) exports")
    ins = [_x(op), _x(op, "Scale"), _x(op, "Bias"), _x(op, "Mean"), _x(op, "Variance")]
    ctx.node("BatchNormalization", ins, [_out(op, "Y")], epsilon=float(op.attrs.get("epsilon", 1e-5)))


def _dropout(ctx, op):
    if op.attrs.get("dropout_implementation") == "upscale_in_train":
        ctx.node("Identity", [_x(op)], [_out(op)])
    else:  # downgrade_in_infer: inference scales by the keep probability
        keep = ctx.constant(np.array(1.0 - op.attrs["dropout_prob"], dtype=np.float32))
        ctx.node("Mul", [_x(op), keep], [_out(op)])


def _scale(ctx, op):
    scale = ctx.constant(np.array(op.attrs.get("scale", 1.0), dtype=np.float32))
    bias = ctx.constant(np.array(op.attrs.get("bias", 0.0), dtype=np.float32))
    mid = ctx.temp(_out(op))
    if op.attrs.get("bias_after_scale", True):
        ctx.node("Mul", [_x(op), scale], [mid])
        ctx.node("Add", [mid, bias], [_out(op)])
    else:
        ctx.node("Add", [_x(op), bias], [mid])
        ctx.node("Mul", [mid, scale], [_out(op)])


def _concat(ctx, op):
    if "AxisTensor" in op.input_names and op.input("AxisTensor"):
        ctx.refuse(op, "the axis must be an attribute, not a tensor")
    ctx.node("Concat", op.input("X"), [_out(op)], axis=int(op.attrs.get("axis", 0)))


def _reshape(ctx, op):
    """Fluid's shape and ONNX's Reshape agree: 0 copies the input's dim there, one -1 is inferred."""
    if "Shape" in op.input_names and op.input("Shape"):
        ctx.refuse(op, "the shape must be an attribute, not a tensor")
    shape = ctx.constant(np.array(op.attrs["shape"], dtype=np.int64))
    ctx.node("Reshape", [_x(op), shape], [_out(op)])


def _sum(ctx, op):
    ctx.node("Sum", op.input("X"), [_out(op)])


def _lookup_table(ctx, op):
    """Rows of W picked by Ids; lookup_table drops Ids' trailing 1, lookup_table_v2 keeps it; the
    rows of padding_idx are zeros."""
    ids, out = _x(op, "Ids"), _out(op)
    if op.type == "lookup_table" and ctx.shape(ids)[-1] == 1:
        squeezed = ctx.temp(ids)
        ctx.node("Squeeze", [ids, ctx.constant(np.array([-1], np.int64))], [squeezed])
        ids = squeezed
    pad = op.attrs.get("padding_idx", -1)
    if pad is None or pad < 0:
        ctx.node("Gather", [_x(op, "W"), ids], [out], axis=0)
        return
    rows, is_pad, where = ctx.temp(out), ctx.temp(ids), ctx.temp(ids)
    ctx.node("Gather", [_x(op, "W"), ids], [rows], axis=0)
    ctx.node("Equal", [ids, ctx.constant(np.array(pad, np.int64))], [is_pad])
    ctx.node("Unsqueeze", [is_pad, ctx.constant(np.array([-1], np.int64))], [where])
    ctx.node("Where", [where, ctx.constant(np.array(0.0, np.float32)), rows], [out])


def _attr_list(ctx, op, attr, tensor_slots):
    if any(slot in op.input_names and op.input(slot) for slot in tensor_slots):
        ctx.refuse(op, f"its {attr} must be an attribute, not a tensor")
    return [int(a) for a in op.attrs[attr]]


def _transpose(ctx, op):
    ctx.node("Transpose", [_x(op)], [_out(op)], perm=[int(a) for a in op.attrs["axis"]])


def _unsqueeze(ctx, op):
    """Fluid inserts the axes one after another: as ONNX's output positions when ascending."""
    axes = _attr_list(ctx, op, "axes", ("AxesTensor", "AxesTensorList"))
    if any(a < 0 for a in axes) or axes != sorted(axes):
        ctx.refuse(op, f"only ascending non-negative axes export, got {axes}")
    ctx.node("Unsqueeze", [_x(op), ctx.constant(np.array(axes, np.int64))], [_out(op)])


def _matmul_v2(ctx, op):
    """X @ Y, either transposed over its last two dims first (a 1-D operand has none)."""
    names = []
    for slot, flag in (("X", "trans_x"), ("Y", "trans_y")):
        name, rank = _x(op, slot), ctx.rank(_x(op, slot))
        if op.attrs.get(flag) and rank >= 2:
            swapped = ctx.temp(name)
            ctx.node("Transpose", [name], [swapped], perm=list(range(rank - 2)) + [rank - 1, rank - 2])
            name = swapped
        names.append(name)
    ctx.node("MatMul", names, [_out(op)])


def _layer_norm(ctx, op):
    """ONNX's LayerNormalization over the dims from begin_norm_axis; Fluid's Scale and Bias are
    flat [prod(those dims)]."""
    x, axis = _x(op), int(op.attrs.get("begin_norm_axis", 1))
    normalized = ctx.shape(x)[axis:]
    if any(d in (None, -1) for d in normalized):
        ctx.refuse(op, "the normalized dims must be known")
    ins = [x]
    for slot, fill in (("Scale", 1.0), ("Bias", 0.0)):
        given = slot in op.input_names and op.input(slot)
        ins.append(
            ctx.reshape(op.input(slot)[0], normalized) if given else ctx.constant(np.full(normalized, fill, np.float32))
        )
    ctx.node("LayerNormalization", ins, [_out(op, "Y")], axis=axis, epsilon=float(op.attrs.get("epsilon", 1e-5)))


def _add_position_encoding(ctx, op):
    """alpha * X + beta * the sinusoidal table (a constant: X is [batch, seq, size] with seq known)."""
    shape = ctx.shape(_x(op))
    if len(shape) != 3 or any(d in (None, -1) for d in shape[1:]):
        ctx.refuse(op, "only a dense [batch, seq, size] X with seq and size known exports")
    table = (encoding(np.arange(shape[1], dtype=np.int64), shape[2]) * op.attrs["beta"]).astype(np.float32)
    scaled = ctx.temp(_out(op))
    ctx.node("Mul", [_x(op), ctx.constant(np.array(op.attrs["alpha"], np.float32))], [scaled])
    ctx.node("Add", [scaled, ctx.constant(table[None])], [_out(op)])


def _reduce(onnx_type):
    """Over ``dim`` (every dim with reduce_all); where every dim goes, Fluid keeps a [1]."""

    def convert(ctx, op):
        x, out = _x(op), _out(op)
        rank = ctx.rank(x)
        every = op.attrs.get("reduce_all") or not op.attrs.get("dim", [0])  # dim=[]: every dim (Paddle 2.x)
        dims = list(range(rank)) if every else sorted({d % rank for d in op.attrs.get("dim", [0])})
        keep = int(bool(op.attrs.get("keep_dim")))
        target = out if keep or len(dims) < rank else ctx.temp(out)
        if onnx_type == "ReduceSum":  # opset 17: ReduceSum's axes an input, the others' an attribute
            ctx.node(onnx_type, [x, ctx.constant(np.array(dims, np.int64))], [target], keepdims=keep)
        else:
            ctx.node(onnx_type, [x], [target], axes=dims, keepdims=keep)
        if target != out:
            ctx.reshape(target, [1], out)

    return convert


def _fill_constant(ctx, op):
    """A constant of the shape and dtype the attributes give (not a shape or value known at run time)."""
    if any(op.input(slot) for slot in op.input_names):
        ctx.refuse(op, "its shape and value must be attributes, not tensors")
    var = ctx.block.var(_out(op))
    value = np.full([int(d) for d in op.attrs["shape"]], op.attrs.get("value", 0.0), dtype=str(var.dtype))
    ctx.node("Identity", [ctx.constant(value)], [_out(op)])


CONVERTERS = {
    "conv2d": _conv2d,
    "pool2d": _pool2d,
    "mul": _mul,
    "batch_norm": _batch_norm,
    "dropout": _dropout,
    "scale": _scale,
    "elementwise_add": _elementwise("Add"),
    "elementwise_sub": _elementwise("Sub"),
    "elementwise_mul": _elementwise("Mul"),
    "elementwise_div": _elementwise("Div"),
    "relu": _unary("Relu"),
    "sigmoid": _unary("Sigmoid"),
    "tanh": _unary("Tanh"),
    "exp": _unary("Exp"),
    "softmax": _softmax,
    "sum": _sum,
    "reshape": _reshape,
    "reshape2": _reshape,
    "concat": _concat,
    "lookup_table": _lookup_table,
    "lookup_table_v2": _lookup_table,
    "transpose": _transpose,
    "transpose2": _transpose,
    "unsqueeze": _unsqueeze,
    "unsqueeze2": _unsqueeze,
    "matmul_v2": _matmul_v2,
    "layer_norm": _layer_norm,
    "add_position_encoding": _add_position_encoding,
    "sequence_mask": sequence_mask,
    "sequence_unpad": sequence_unpad,
    "fill_constant": _fill_constant,
    "reduce_mean": _reduce("ReduceMean"),
    "reduce_sum": _reduce("ReduceSum"),
    "reduce_max": _reduce("ReduceMax"),
}
