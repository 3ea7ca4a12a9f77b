"""``paddle.fluid.contrib.slim.quantization.qat2_int8_mkldnn_pass``: Qat2Int8MkldnnPass, an MKL-DNN int8 path (not in pe: one line)."""

from ....unsupported import MKLDNN, unsupported

__all__ = ["Qat2Int8MkldnnPass"]
Qat2Int8MkldnnPass = unsupported(
    "paddle.fluid.contrib.slim.quantization.qat2_int8_mkldnn_pass.Qat2Int8MkldnnPass", MKLDNN
)
