"""Fluid 1.8's ``contrib.slim.quantization``: Fluid's IrGraph passes (quantization_pass.py), the
Compressor's QuantizationStrategy (pe's, over contrib.QuantizeTranspiler), post-training quantization,
and the MKL-DNN int8 passes, which pe does not have (each refuses in one line)."""

from . import (
    mkldnn_post_training_strategy,
    post_training_quantization,
    qat2_int8_mkldnn_pass,  # noqa: F401
    qat_int8_mkldnn_pass,
    quantization_pass,
    quantization_strategy,
)
from .mkldnn_post_training_strategy import *  # noqa: F401,F403
from .post_training_quantization import *  # noqa: F401,F403
from .qat2_int8_mkldnn_pass import *  # noqa: F401,F403
from .qat_int8_mkldnn_pass import *  # noqa: F401,F403
from .quantization_pass import *  # noqa: F401,F403
from .quantization_strategy import *  # noqa: F401,F403

__all__ = (
    quantization_pass.__all__
    + quantization_strategy.__all__
    + mkldnn_post_training_strategy.__all__
    + qat_int8_mkldnn_pass.__all__
    + qat2_int8_mkldnn_pass.__all__
    + post_training_quantization.__all__
)
