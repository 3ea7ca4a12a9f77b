"""``paddle.fluid.contrib.slim.quantization.post_training_quantization``: PostTrainingQuantization
(scales calibrated on sample data, then quantize ops through the IrGraph passes) and
WeightQuantization (a saved model's weights stored as int8/int16): not in pe, each says so in one line."""
from ....unsupported import SLIM, refuse

__all__ = ["PostTrainingQuantization", "WeightQuantization"]
refuse(globals(), "paddle.fluid.contrib.slim.quantization.post_training_quantization", __all__,
       SLIM + " (contrib.QuantizeTranspiler quantizes a program)")
