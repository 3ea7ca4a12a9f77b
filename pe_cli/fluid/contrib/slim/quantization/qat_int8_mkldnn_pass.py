"""``paddle.fluid.contrib.slim.quantization.qat_int8_mkldnn_pass``: QatInt8MkldnnPass, an MKL-DNN int8 path (not in pe: one line)."""

from ....unsupported import MKLDNN, unsupported

__all__ = ["QatInt8MkldnnPass"]
QatInt8MkldnnPass = unsupported("paddle.fluid.contrib.slim.quantization.qat_int8_mkldnn_pass.QatInt8MkldnnPass", MKLDNN)
