"""Exporting a run's inference program: ONNX (export/onnx_model.py, through the optional ``onnx``
package) and Fluid's save_inference_model layout (pe_cli.io)."""

from .onnx_model import OPSET, export_onnx, missing_onnx_message  # noqa: F401
from .inference_dir import export_inference_dir, unscaled_targets  # noqa: F401
from .onnx_preprocessing import summary_line  # noqa: F401
