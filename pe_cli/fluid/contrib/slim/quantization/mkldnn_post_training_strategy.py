"""``paddle.fluid.contrib.slim.quantization.mkldnn_post_training_strategy``: MKLDNNPostTrainingQuantStrategy, an MKL-DNN int8 path (not in pe: one line)."""

from ....unsupported import MKLDNN, unsupported

__all__ = ["MKLDNNPostTrainingQuantStrategy"]
MKLDNNPostTrainingQuantStrategy = unsupported(
    "paddle.fluid.contrib.slim.quantization.mkldnn_post_training_strategy.MKLDNNPostTrainingQuantStrategy", MKLDNN
)
