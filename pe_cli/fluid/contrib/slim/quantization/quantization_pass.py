"""``paddle.fluid.contrib.slim.quantization.quantization_pass``: Fluid's quantization passes over its
IrGraph (QuantizationTransformPass, QuantizationFreezePass, ConvertToInt8Pass,
TransformForMobilePass, OutScaleForTrainingPass, OutScaleForInferencePass, AddQuantDequantPass).
pe has no IrGraph: each says so in one line. pe quantizes programs with contrib's QuantizeTranspiler
(fake quantize/dequantize ops, freezing, int8 weights) and slim's QuantizationStrategy over it."""
from ....unsupported import SLIM, refuse

__all__ = ["QuantizationTransformPass", "QuantizationFreezePass", "ConvertToInt8Pass", "TransformForMobilePass",
           "OutScaleForTrainingPass", "OutScaleForInferencePass", "AddQuantDequantPass"]
refuse(globals(), "paddle.fluid.contrib.slim.quantization.quantization_pass", __all__,
       SLIM + " (contrib.QuantizeTranspiler quantizes a program)")
