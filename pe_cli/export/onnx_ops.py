"""One converter per pe op type: ``convert(ctx, op)`` appends the ONNX nodes computing the op's
outputs (named as pe names its variables) to ``ctx``. The table at the bottom is the whole list of
ops pe can export; an op missing from it is refused by name."""
import numpy as np


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
        ctx.refuse(op, "data_format NHWC is not exported (ONNX's Conv and pools are channels first); build "
                       "the model NCHW")


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
    kwargs = {"kernel_shape": op.attrs["ksize"], "strides": op.attrs["strides"], "pads": _pads(op, 2),
              "ceil_mode": int(bool(op.attrs.get("ceil_mode")))}
    if kind == "max":
        ctx.node("MaxPool", [_x(op)], [_out(op)], **kwargs)
    else:
        ctx.node("AveragePool", [_x(op)], [_out(op)],
                 count_include_pad=0 if op.attrs.get("exclusive", True) else 1, **kwargs)


def _mul(ctx, op):
    """X flattened to 2-D at x_num_col_dims, times Y flattened at y_num_col_dims."""
    x, y = _x(op), _x(op, "Y")
    xd, yd = op.attrs.get("x_num_col_dims", 1), op.attrs.get("y_num_col_dims", 1)
    if ctx.rank(x) != 2 or xd != 1:
        x = ctx.flatten(x, xd)
    if len(ctx.shape(y)) != 2 or yd != 1:
        y = ctx.flatten(y, yd)
    out = _out(op)
    if xd == 1:
        ctx.node("MatMul", [x, y], [out])
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
    else:   # downgrade_in_infer: inference scales by the keep probability
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
}
