"""Fluid 1.8's ``contrib.quantize.quantize_transpiler``: ``QuantizeTranspiler`` resolves and refuses in pe."""
from ....base.errors import unsupported

__all__ = ["QuantizeTranspiler"]

QuantizeTranspiler = unsupported(
    "fluid.contrib.QuantizeTranspiler", "quantization-aware training inserts Fluid's fake_quantize / "
    "fake_dequantize ops, which pe does not have")
