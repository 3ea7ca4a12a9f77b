"""Paddle 2.x's quantization ops, under Paddle 2.6's op types: quantize_linear / dequantize_linear (what
PaddleSlim's quantized inference models hold: X to the integers of bit_length bits over Scale, per tensor, or
per channel along quant_axis, and back; inference only: is_test, no observer). (Paddle 2.6.2's CPU build has
no kernel of fake_quantize_dequantize_abs_max and its channel-wise twin, GPU-only: no oracle, not here.)"""

from ..kernels.cpu import quantization_linear as cpu_linear
from ..shapes import quantization as rules
from .define import Attr, Structured, fmt_shape, is_int, register
from .pointwise_math import QUANT

_BITS = Attr(8, lambda v: is_int(v) and 1 < v <= 16, "an int in [2, 16]")


def _infer_linear(ctx):
    x, s, a = ctx.shape("X"), ctx.shape("Scale"), ctx.attrs
    if (
        a["quant_axis"] >= 0
        and len(s) == 1
        and s[0] > 1
        and (a["quant_axis"] >= len(x) or x[a["quant_axis"]] not in (-1, s[0]))
    ):
        ctx.fail(
            f"Scale {fmt_shape(s)} must hold one scale per channel of X {fmt_shape(x)} along quant_axis "
            f"{a['quant_axis']}"
        )
    ctx.set_output("Y", x, ctx.dtype("Scale") if ctx.op.type == "dequantize_linear" else ctx.dtype("X"))


_LINEAR_ATTRS = {
    "quant_axis": Attr(0, is_int, "an int (-1: one scale for X)"),
    "bit_length": _BITS,
    "round_type": Attr(0, choices=(0, 1)),
    # the observers of training (moving averages of the scale) are not computed: inference only
    "is_test": Attr(True, choices=(True,)),
    "only_observer": Attr(False, choices=(False,)),
    "moving_rate": Attr(0.9),
    **QUANT,
}
for _type, _doc in (
    (
        "quantize_linear",
        "Y = round(X / Scale * (2^(bit_length - 1) - 1)) clipped to the integers of "
        "bit_length bits (round_type 0: ties to even; 1: away from zero)",
    ),
    ("dequantize_linear", "Y = X * Scale / (2^(bit_length - 1) - 1), in Scale's dtype"),
):
    register(
        _type,
        kernel_module="quantization_linear",
        structured=Structured(meta=getattr(rules, f"{_type}_meta"), cpu=cpu_linear.OUT[_type]),
        inputs=["X", "Scale", "ZeroPoint", "InAccum?", "InState?"],
        outputs=["Y", "OutState?", "OutAccum?", "OutScale?"],
        attrs=dict(_LINEAR_ATTRS),
        infer=_infer_linear,
        doc=_doc + "; Scale one value, or one per channel along quant_axis. ZeroPoint is Paddle's, unread "
        "(symmetric quantization).",
    )
