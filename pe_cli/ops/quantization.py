"""Fluid 1.8's fake quantization ops, which ``contrib.QuantizeTranspiler`` inserts to simulate int8
inference while training (kernels in kernels/<device>/quantization.py).

Each fake_quantize op maps X onto the integers of ``bit_length`` bits with a scale s:
Out = round(clip(X, -s, s) * (2^(bit_length-1) - 1) / s) (halves away from zero, as std::round), and
writes s to OutScale; fake_dequantize_max_abs maps back: Out = X * Scale / max_range. They differ in s:

- fake_quantize_abs_max: s = max|X| of this batch;
- fake_quantize_range_abs_max: training, the largest max|X| of the last ``window_size`` steps (a ring of
  scales indexed by the step counter Iter); test (``is_test``), InScale as it is;
- fake_quantize_moving_average_abs_max: training, accum / state with state = rate * state + 1 and
  accum = rate * accum + max|X|; test, InScale.

Gradients are straight-through (``fake_quantize_grad``): X@GRAD = Out@GRAD, so a quantize + dequantize
pair is the identity for backpropagation. The range op's ring of scales is Fluid's OutScales, which
Fluid's kernel reads back from its own output variable; pe's kernels read only inputs, so the op takes
the ring as the pe-only input InScales too (the transpiler names the same variable in both); without it
the ring starts at zeros, as a new OutScales variable does in Fluid.

Also Fluid 1.8's other quantization ops, which have no gradient in Fluid: the channel-wise pair
(fake_channel_wise_quantize_abs_max: a scale per slice of dim 0; fake_channel_wise_dequantize_max_abs:
one or two scales), fake_quantize_dequantize_moving_average_abs_max (quantize then map back at once),
moving_average_abs_max_scale (Out = X, and the moving average scale); the int8 inference ops
dequantize_abs_max and dequantize_log (int8 X back to float32 by a scale or a dictionary); and the
oneDNN int8 ops quantize (float32 -> int8 / uint8 by Scale), dequantize and requantize, computed as
oneDNN's reorders compute them (round half to even, saturated)."""

from ..base.activations import real_number
from ..kernels.cpu import quantization as cpu_quantization
from ..shapes import quantization as rules
from .define import Attr, Structured, fmt_shape, in_range, positive, register

_BITS = Attr(8, in_range(1, 16), "an int in [1, 16]")


def _structured(op, meta):
    """The op's structured kernel: its meta rule (shapes/quantization.py) and out-kernel, kernels/cpu/quantization.py's."""
    return Structured(meta=meta, cpu=cpu_quantization.OUT[op])


def _infer_quantize(ctx):
    x = ctx.shape("X")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("OutScale", [1], ctx.dtype("X"))
    for slot, like in (("OutState", "X"), ("OutAccum", "X")):
        if ctx.has_output(slot):
            ctx.set_output(slot, [1], ctx.dtype(like))
    if ctx.has_output("OutScales"):
        ctx.set_output("OutScales", [ctx.attrs["window_size"]], ctx.dtype("X"))


def _infer_range(ctx):
    if not ctx.attrs["is_test"] and not ctx.has_input("Iter"):
        ctx.fail("training (is_test=False) needs the step counter Iter")
    if ctx.has_input("InScales") and list(ctx.shape("InScales")) not in ([ctx.attrs["window_size"]], [-1]):
        ctx.fail(f"InScales {fmt_shape(ctx.shape('InScales'))} must be [window_size] = [{ctx.attrs['window_size']}]")
    _infer_quantize(ctx)


def _infer_moving_average(ctx):
    if not ctx.attrs["is_test"] and not (ctx.has_input("InState") and ctx.has_input("InAccum")):
        ctx.fail("training (is_test=False) needs InState and InAccum (the moving average's state)")
    _infer_quantize(ctx)


def _infer_dequantize(ctx):
    if list(ctx.shape("Scale")) not in ([], [1], [-1]):
        ctx.fail(f"Scale {fmt_shape(ctx.shape('Scale'))} must be [1] (one value)")
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _straight_through(g):
    g.op("fake_quantize_grad", {"Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


def _infer_grad(ctx):
    ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD"))


_COMMON = dict(kernel_module="quantization", grad=_straight_through)

register(
    "fake_quantize_abs_max",
    structured=_structured("fake_quantize_abs_max", rules.fake_quantize_abs_max_meta),
    inputs=["X"],
    outputs=["Out", "OutScale"],
    attrs={"bit_length": _BITS},
    infer=_infer_quantize,
    doc="s = max|X|; Out = round(clip(X, -s, s) * (2^(bits-1) - 1) / s); OutScale = s",
    **_COMMON,
)
register(
    "fake_quantize_range_abs_max",
    structured=_structured("fake_quantize_range_abs_max", rules.fake_quantize_range_abs_max_meta),
    inputs=["X", "InScale", "Iter?", "InScales?"],
    outputs=["Out", "OutScale", "OutScales?"],
    attrs={"window_size": Attr(10000, positive, "> 0"), "bit_length": _BITS, "is_test": False},
    infer=_infer_range,
    doc="training: s = the largest max|X| of the last window_size steps (OutScales, "
    "indexed by Iter % window_size); test: s = InScale",
    **_COMMON,
)
register(
    "fake_quantize_moving_average_abs_max",
    structured=_structured("fake_quantize_moving_average_abs_max", rules.moving_average_meta),
    inputs=["X", "InScale", "InAccum?", "InState?"],
    outputs=["Out", "OutScale", "OutState?", "OutAccum?"],
    attrs={"moving_rate": Attr(0.9, in_range(0.0, 1.0), "in [0, 1]"), "bit_length": _BITS, "is_test": False},
    infer=_infer_moving_average,
    doc="training: state = rate * state + 1, accum = rate * accum + max|X|, s = accum / state; test: s = InScale",
    **_COMMON,
)
register(
    "fake_dequantize_max_abs",
    structured=_structured("fake_dequantize_max_abs", rules.fake_dequantize_max_abs_meta),
    inputs=["X", "Scale"],
    outputs=["Out"],
    attrs={"max_range": Attr(127.0, real_number, "a number")},
    infer=_infer_dequantize,
    doc="Out = X * Scale / max_range",
    **_COMMON,
)


def _infer_channel_quantize(ctx):
    x = ctx.shape("X")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("OutScale", [x[0]], ctx.dtype("X"))


def _infer_channel_dequantize(ctx):
    n, x = ctx.num_inputs("Scales"), ctx.shape("X")
    if n not in (1, 2):
        ctx.fail(f"Scales has {n} tensors; it takes 1 (a scale per slice of dim 0) or 2 (per channel, then one)")
    if len(ctx.attrs["quant_bits"]) < n:
        ctx.fail(f"quant_bits {ctx.attrs['quant_bits']} needs a bit length per tensor of Scales ({n})")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _infer_scale(ctx):
    if not ctx.attrs["is_test"] and not (ctx.has_input("InState") and ctx.has_input("InAccum")):
        ctx.fail("training (is_test=False) needs InState and InAccum (the moving average's state)")
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    for slot in ("OutScale", "OutState", "OutAccum"):
        ctx.set_output(slot, [1], ctx.dtype("X"))


def _infer_to_float(ctx):
    ctx.set_output("Out", ctx.shape("X"), "float32", lod_level=ctx.input_var("X").lod_level)


def _infer_onednn(out_dtype):
    def infer(ctx):
        ctx.set_output("Output", ctx.shape("Input"), out_dtype(ctx), lod_level=ctx.input_var("Input").lod_level)

    return infer


_KERNELS = dict(kernel_module="quantization")
register(
    "fake_channel_wise_quantize_abs_max",
    structured=_structured("fake_channel_wise_quantize_abs_max", rules.fake_channel_wise_quantize_abs_max_meta),
    inputs=["X"],
    outputs=["Out", "OutScale"],
    attrs={"bit_length": _BITS},
    infer=_infer_channel_quantize,
    **_KERNELS,
    doc="per slice i of dim 0: s_i = max|X[i]|, Out[i] = round(clip(X[i], -s_i, s_i) * (2^(bits-1) - 1) / s_i); "
    "OutScale = s",
)
register(
    "fake_channel_wise_dequantize_max_abs",
    structured=_structured("fake_channel_wise_dequantize_max_abs", rules.fake_channel_wise_dequantize_max_abs_meta),
    inputs=["X", "Scales*"],
    outputs=["Out"],
    attrs={"quant_bits": Attr([8], lambda v: all(1 <= b <= 16 for b in v), "ints in [1, 16]")},
    infer=_infer_channel_dequantize,
    **_KERNELS,
    doc="one Scales tensor: Out[i] = X[i] * Scales[0][i] / (2^(b0-1) - 1) per slice of dim 0; two: "
    "Out[:, j] = X[:, j] * Scales[0][j] * Scales[1][0] / ((2^(b0-1) - 1) * (2^(b1-1) - 1))",
)
register(
    "fake_quantize_dequantize_moving_average_abs_max",
    structured=_structured("fake_quantize_dequantize_moving_average_abs_max", rules.moving_average_meta),
    inputs=["X", "InScale", "InAccum?", "InState?"],
    outputs=["Out", "OutScale", "OutState?", "OutAccum?"],
    attrs={"moving_rate": Attr(0.9, in_range(0.0, 1.0), "in [0, 1]"), "bit_length": _BITS, "is_test": False},
    infer=_infer_moving_average,
    **_KERNELS,
    doc="s as fake_quantize_moving_average_abs_max; Out = round(clip(X, -s, s) * n / s) * s / n, n = 2^(bits-1) - 1",
)
register(
    "moving_average_abs_max_scale",
    structured=_structured("moving_average_abs_max_scale", rules.moving_average_abs_max_scale_meta),
    inputs=["X", "InAccum?", "InState?"],
    outputs=["Out", "OutScale", "OutState?", "OutAccum?"],
    attrs={"moving_rate": Attr(0.9, in_range(0.0, 1.0), "in [0, 1]"), "is_test": False},
    infer=_infer_scale,
    **_KERNELS,
    doc="Out = X; training: state = rate * state + 1, accum = rate * accum + max|X|, OutScale = accum / state",
)
register(
    "dequantize_abs_max",
    structured=_structured("dequantize_abs_max", rules.to_float32_meta),
    inputs=["X", "Scale"],
    outputs=["Out"],
    attrs={"max_range": Attr(127.0, positive, "> 0")},
    infer=_infer_to_float,
    **_KERNELS,
    doc="int8 X: Out = Scale[0] * X / max_range (float32)",
)
register(
    "dequantize_log",
    structured=_structured("dequantize_log", rules.to_float32_meta),
    inputs=["X", "Dict"],
    outputs=["Out"],
    infer=_infer_to_float,
    **_KERNELS,
    doc="int8 X: Out = Dict[X] for X >= 0, -Dict[X + 128] for X < 0 (float32)",
)
register(
    "quantize",
    structured=_structured("quantize", rules.quantize_meta),
    inputs=["Input"],
    outputs=["Output"],
    attrs={"is_negative_input": False, "Scale": 1.0, "output_format": Attr("NHWC", choices=("NHWC", "NCHW"))},
    infer=_infer_onednn(lambda ctx: "int8" if ctx.attrs["is_negative_input"] else "uint8"),
    **_KERNELS,
    doc="Output = Input * Scale rounded half to even and saturated to int8 (is_negative_input) or "
    "uint8; output_format is the layout oneDNN keeps it in, the values are the same",
)
register(
    "dequantize",
    structured=_structured("dequantize", rules.dequantize_meta),
    inputs=["Input"],
    outputs=["Output"],
    attrs={"Scale": 1.0},
    infer=_infer_onednn(lambda ctx: "float32"),
    **_KERNELS,
    doc="int8 / uint8 Input: Output = Input * (1 / Scale) (float32)",
)
register(
    "requantize",
    structured=_structured("requantize", rules.requantize_meta),
    inputs=["Input"],
    outputs=["Output"],
    attrs={"Scale_in": 1.0, "Scale_out": 1.0},
    infer=_infer_onednn(lambda ctx: ctx.dtype("Input")),
    **_KERNELS,
    doc="int8 / uint8 Input: Output = Input * (Scale_out / Scale_in) rounded half to even, saturated to Input's dtype",
)
register(
    "fake_quantize_grad",
    structured=_structured("fake_quantize_grad", rules.fake_quantize_grad_meta),
    kernel_module="quantization",
    inputs=["Out@GRAD"],
    outputs=["X@GRAD"],
    infer=_infer_grad,
    doc="straight-through: X@GRAD = Out@GRAD",
)
