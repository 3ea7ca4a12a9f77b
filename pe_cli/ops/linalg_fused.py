"""Matrix products fused with elementwise ops, as Fluid 1.8's CPU inference passes make them:
fusion_repeated_fc_relu (fc + relu layers in a row, Out = relu(relu(X W0 + b0) W1 + b1) for two,
ReluOut the layers before the last) and fusion_squared_mat_sub (Out = scalar ((X Y)^2 - X^2 Y^2),
elementwise squares; SquaredX, SquaredY, SquaredXY the three squares). Fluid has CPU kernels only and
no gradients; pe's CUDA kernels run the CPU ones on the host (kernels/cuda/_host.py), as Fluid falls
back to its CPU kernel on a GPU place."""

from ..base.dims import numel
from ..kernels.cpu import linalg_fused as cpu_linalg_fused
from ..shapes import linalg_fused as meta_rules
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, register


def _infer_repeated(ctx):
    x, ws, bs = ctx.shape("X"), ctx.shapes("W"), ctx.shapes("Bias")
    if len(ws) < 2 or len(bs) != len(ws):
        ctx.fail(f"takes 2 or more weights W and as many biases Bias, got {len(ws)} and {len(bs)}")
    if x is None or len(x) != 2:
        ctx.fail(f"X {fmt_shape(x)} must be 2-D [batch, features]")
    width = x[1]
    for i, (w, b) in enumerate(zip(ws, bs)):
        if len(w) != 2 or width not in (-1, w[0]):
            ctx.fail(f"W[{i}] {fmt_shape(w)} must be [{width}, n]: its rows are the previous layer's width")
        if -1 not in b and w[1] != -1 and int(abs(numel(b))) != w[1]:
            ctx.fail(f"Bias[{i}] {fmt_shape(b)} must hold W[{i}]'s {w[1]} columns")
        width = w[1]
        if i < len(ws) - 1:
            ctx.set_output("ReluOut", [x[0], width], ctx.dtype("X"), i=i)
    ctx.set_output("Out", [x[0], width], ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


register(
    "fusion_repeated_fc_relu",
    kernel_module="linalg_fused",
    inputs=["X", "W*", "Bias*"],
    outputs=["ReluOut*", "Out"],
    infer=_infer_repeated,
    doc="fc + relu layers in a row: Out = relu(... relu(X W[0] + Bias[0]) ... W[n-1] + Bias[n-1]); "
    "ReluOut[i] is layer i's output, for each layer before the last.",
    structured=Structured(meta=meta_rules.repeated_fc_relu_meta, cpu=cpu_linalg_fused.REPEATED_FC_RELU),
)


def _infer_squared(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if x is None or y is None or len(x) != 2 or len(y) != 2 or -1 not in (x[1], y[0]) and x[1] != y[0]:
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must be 2-D matrices [M, K] and [K, N]")
    dtype = ctx.dtype("X")
    for slot, shape in (("SquaredX", x), ("SquaredY", y), ("SquaredXY", [x[0], y[1]]), ("Out", [x[0], y[1]])):
        ctx.set_output(slot, shape, dtype)


register(
    "fusion_squared_mat_sub",
    kernel_module="linalg_fused",
    inputs=["X", "Y"],
    outputs=["SquaredX", "SquaredY", "SquaredXY", "Out"],
    attrs={"scalar": Attr(1.0)},
    infer=_infer_squared,
    lod="drop",
    doc="Out = scalar * ((X Y)^2 - (X^2)(Y^2)), squares elementwise; SquaredX = X^2, SquaredY = Y^2, "
    "SquaredXY = (X Y)^2.",
    structured=Structured(meta=meta_rules.squared_mat_sub_meta, cpu=cpu_linalg_fused.SQUARED_MAT_SUB),
)
