"""``paddle.fluid.contrib.slim.quantization.qat_int8_mkldnn_pass``: QatInt8MkldnnPass, an MKL-DNN int8 path (not in pe: one line)."""

from ....unsupported import MKLDNN, refuse

__all__ = ["QatInt8MkldnnPass"]
refuse(globals(), "paddle.fluid.contrib.slim.quantization.qat_int8_mkldnn_pass", __all__, MKLDNN)
