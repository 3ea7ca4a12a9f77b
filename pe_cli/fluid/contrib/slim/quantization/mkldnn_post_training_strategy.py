"""``paddle.fluid.contrib.slim.quantization.mkldnn_post_training_strategy``: MKLDNNPostTrainingQuantStrategy, an MKL-DNN int8 path (not in pe: one line)."""

from ....unsupported import MKLDNN, refuse

__all__ = ["MKLDNNPostTrainingQuantStrategy"]
refuse(globals(), "paddle.fluid.contrib.slim.quantization.mkldnn_post_training_strategy", __all__, MKLDNN)
