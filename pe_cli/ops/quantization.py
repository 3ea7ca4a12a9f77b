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
the ring as the pe-only input InScales too (the transpiler names the same variable in both)."""
from .define import Attr, fmt_shape, in_range, positive, register

_BITS = Attr(8, in_range(1, 16), "an int in [1, 16]")


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
    if not ctx.attrs["is_test"] and not (ctx.has_input("Iter") and ctx.has_input("InScales")):
        ctx.fail("training (is_test=False) needs the step counter Iter and the window of scales InScales "
                 "(the variable its OutScales names)")
    if ctx.has_input("InScales") and list(ctx.shape("InScales")) != [ctx.attrs["window_size"]]:
        ctx.fail(f"InScales {fmt_shape(ctx.shape('InScales'))} must be [window_size] = "
                 f"[{ctx.attrs['window_size']}]")
    _infer_quantize(ctx)


def _infer_moving_average(ctx):
    if not ctx.attrs["is_test"] and not (ctx.has_input("InState") and ctx.has_input("InAccum")):
        ctx.fail("training (is_test=False) needs InState and InAccum (the moving average's state)")
    _infer_quantize(ctx)


def _infer_dequantize(ctx):
    if list(ctx.shape("Scale")) not in ([1], [-1]):
        ctx.fail(f"Scale {fmt_shape(ctx.shape('Scale'))} must be [1]")
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _straight_through(g):
    g.op("fake_quantize_grad", {"Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")})


def _infer_grad(ctx):
    ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD"))


_COMMON = dict(kernel_module="quantization", grad=_straight_through)

register("fake_quantize_abs_max", inputs=["X"], outputs=["Out", "OutScale"], attrs={"bit_length": _BITS},
         infer=_infer_quantize, doc="s = max|X|; Out = round(clip(X, -s, s) * (2^(bits-1) - 1) / s); "
                                    "OutScale = s", **_COMMON)
register("fake_quantize_range_abs_max", inputs=["X", "InScale", "Iter?", "InScales?"],
         outputs=["Out", "OutScale", "OutScales?"],
         attrs={"window_size": Attr(10000, positive, "> 0"), "bit_length": _BITS, "is_test": False},
         infer=_infer_range, doc="training: s = the largest max|X| of the last window_size steps (OutScales, "
                                 "indexed by Iter % window_size); test: s = InScale", **_COMMON)
register("fake_quantize_moving_average_abs_max", inputs=["X", "InScale", "InAccum?", "InState?"],
         outputs=["Out", "OutScale", "OutState?", "OutAccum?"],
         attrs={"moving_rate": Attr(0.9, in_range(0.0, 1.0), "in [0, 1]"), "bit_length": _BITS, "is_test": False},
         infer=_infer_moving_average, doc="training: state = rate * state + 1, accum = rate * accum + max|X|, "
                                          "s = accum / state; test: s = InScale", **_COMMON)
register("fake_dequantize_max_abs", inputs=["X", "Scale"], outputs=["Out"],
         attrs={"max_range": Attr(127.0, positive, "> 0")}, infer=_infer_dequantize,
         doc="Out = X * Scale / max_range", **_COMMON)
register("fake_quantize_grad", kernel_module="quantization", inputs=["Out@GRAD"], outputs=["X@GRAD"],
         infer=_infer_grad, doc="straight-through: X@GRAD = Out@GRAD")
