"""``paddle.fluid.contrib.slim.quantization.quantization_pass``: Fluid 1.8.5's quantization passes over
an IrGraph (``fluid.framework.IrGraph(core.Graph(program.desc), for_test)``), on pe's graphs and its
fake quantization ops: QuantizationTransformPass (quant_transform.py), QuantizationFreezePass,
ConvertToInt8Pass, TransformForMobilePass (quant_freeze.py), OutScaleForTrainingPass,
OutScaleForInferencePass, AddQuantDequantPass (quant_scale.py), and Fluid's tables of quantizable
ops (quantizable_ops.py), which PaddleSlim imports from here."""

from .quant_freeze import ConvertToInt8Pass, QuantizationFreezePass, TransformForMobilePass
from .quant_scale import AddQuantDequantPass, OutScaleForInferencePass, OutScaleForTrainingPass
from .quant_transform import QuantizationTransformPass
from .quantizable_ops import (
    _fake_dequant_op_list,
    _fake_quant_dequant_op_list,
    _fake_quant_op_list,  # noqa: F401
    _get_op_input_var_names,
    _get_op_output_var_names,
    _init_var_node,
    _is_input_all_not_persistable,
    _op_real_in_out_name,
    _out_scale_op_list,
)

__all__ = [
    "QuantizationTransformPass",
    "QuantizationFreezePass",
    "ConvertToInt8Pass",
    "TransformForMobilePass",
    "OutScaleForTrainingPass",
    "OutScaleForInferencePass",
    "AddQuantDequantPass",
]
