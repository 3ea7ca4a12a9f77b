"""WeightQuantization (Fluid 1.8.5's, in post_training_quantization): a saved inference model with the
weights of its conv2d / depthwise_conv2d / mul ops stored as int8 or int16 (abs_max, or per output
channel), each op noting its scales (``<weight>_quant_scale``), ``quantization_type`` and
``quantize_weight_bits``, for engines that dequantize them when they load the model (Paddle-Lite);
``generate_test_model`` also saves the weights quantized and dequantized back to float32, a model
any engine runs."""

import logging
import os

import numpy as np

from .... import core, io
from ....executor import Executor, global_scope

_logger = logging.getLogger("pe.slim")


def _load_variable_data(scope, var_name):
    var = scope.find_var(var_name)
    assert var is not None, "Cannot find " + var_name + " in scope."
    return np.array(var.get_tensor())


def _set_variable_data(scope, place, var_name, np_value):
    """Sets the value of ``var_name`` where the scope has the variable."""
    assert isinstance(np_value, np.ndarray), "The type of value should be numpy array."
    var = scope.find_var(var_name)
    if var is not None:
        var.get_tensor().set(np_value, place)


def _channels(weight, axis):
    """The slices of ``weight`` along ``axis`` (conv: output channels, axis 0; mul: columns, axis 1)."""
    return [weight[i] if axis == 0 else weight[:, i] for i in range(weight.shape[axis])]


def _set_channel(array, axis, i, value):
    if axis == 0:
        array[i] = value
    else:
        array[:, i] = value


class WeightQuantization:
    _supported_quantizable_op_type = ["conv2d", "depthwise_conv2d", "mul"]
    _supported_weight_quantize_type = ["channel_wise_abs_max", "abs_max"]

    def __init__(self, model_dir, model_filename=None, params_filename=None):
        self._model_dir, self._model_filename, self._params_filename = model_dir, model_filename, params_filename

    def quantize_weight_to_int(
        self,
        save_model_dir,
        save_model_filename=None,
        save_params_filename=None,
        quantizable_op_type=["conv2d", "mul"],
        weight_bits=8,
        weight_quantize_type="channel_wise_abs_max",
        generate_test_model=False,
        threshold_rate=0.0,
    ):
        """Saves ``save_model_dir/quantized_model`` (and with ``generate_test_model``, ``test_model``)."""
        for op_type in quantizable_op_type:
            assert op_type in self._supported_quantizable_op_type, (
                "Input error:" + op_type + " is not supported for weight quantization."
            )
        assert weight_bits in [8, 16], "Input error: weight_bits should be 8 or 16."
        assert weight_quantize_type in self._supported_weight_quantize_type, (
            f"Input error: weight_quantize_type should in {self._supported_weight_quantize_type}"
        )
        runs = [("quantized_model", False)] + ([("test_model", True)] if generate_test_model else [])
        for folder, for_test in runs:
            self._quantize_weight_to_int(
                os.path.join(save_model_dir, folder),
                save_model_filename,
                save_params_filename,
                quantizable_op_type,
                weight_bits,
                weight_quantize_type,
                for_test,
                threshold_rate,
            )

    def _quantize_weight_to_int(
        self,
        save_model_dir,
        save_model_filename,
        save_params_filename,
        quantizable_op_type,
        weight_bits,
        weight_quantize_type,
        for_test,
        threshold_rate,
    ):
        place, scope = core.CPUPlace(), global_scope()
        exe = Executor(place)
        program, feed_list, fetch_list = io.load_inference_model(
            dirname=self._model_dir,
            executor=exe,
            model_filename=self._model_filename,
            params_filename=self._params_filename,
        )
        persistable = [var.name for var in program.list_vars() if var.persistable]
        ops = [op for block in program.blocks for op in block.ops if op.type in quantizable_op_type]
        for op in ops:
            for name in op.input_arg_names:
                if name not in persistable:
                    continue
                if weight_quantize_type == "abs_max":
                    self._weight_abs_max_quantization(scope, place, weight_bits, threshold_rate, op, name, for_test)
                else:
                    self._weight_channel_wise_abs_max_quantization(scope, place, weight_bits, op, name, for_test)
        io.save_inference_model(
            dirname=save_model_dir,
            feeded_var_names=feed_list,
            target_vars=fetch_list,
            executor=exe,
            main_program=program,
            model_filename=save_model_filename,
            params_filename=save_params_filename,
        )

    def _weight_abs_max_quantization(self, scope, place, weight_bits, threshold_rate, op, var_name, for_test):
        bound = (1 << (weight_bits - 1)) - 1
        dtype = np.int8 if weight_bits == 8 else np.int16
        weight = _load_variable_data(scope, var_name)
        if abs(threshold_rate) < 1e-10:
            threshold = np.max(np.abs(weight))
        else:
            threshold = self._calculate_threshold(weight, threshold_rate)
            weight[weight > threshold] = threshold
            weight[weight < -threshold] = -threshold
        scale = threshold / bound
        quantized = np.around(weight / scale).astype(dtype)
        _set_variable_data(scope, place, var_name, (quantized * scale).astype(np.float32) if for_test else quantized)
        op._set_attr("quantization_type", "post_weight_abs_max")
        op._set_attr("quantize_weight_bits", weight_bits)
        op._set_attr(var_name + "_quant_scale", [scale])

    def _weight_channel_wise_abs_max_quantization(self, scope, place, weight_bits, op, var_name, for_test):
        bound = (1 << (weight_bits - 1)) - 1
        dtype = np.int8 if weight_bits == 8 else np.int16
        weight = _load_variable_data(scope, var_name)
        if op.type not in ("mul", "conv2d", "depthwise_conv2d"):
            _logger.error("%s is not supported by weight quantization", op.type)
            return
        axis = 1 if op.type == "mul" else 0
        scales, quantized = self._channel_wise_quantization(weight, axis, bound, dtype)
        if for_test:
            dequantized = np.zeros_like(quantized, dtype=np.float32)
            for i, scale in enumerate(scales):
                _set_channel(dequantized, axis, i, (_channels(quantized, axis)[i] * scale).astype(np.float32))
            quantized = dequantized
        _set_variable_data(scope, place, var_name, quantized)
        op._set_attr("quantization_type", "post_weight_channel_wise_abs_max")
        op._set_attr("quantize_weight_bits", weight_bits)
        op._set_attr(var_name + "_quant_scale", scales)

    def _channel_wise_quantization(self, weight, axis, bound, dtype):
        """(each channel's scale, the weight quantized channel by channel)."""
        scales, quantized = [], np.zeros_like(weight, dtype=dtype)
        for i, channel in enumerate(_channels(weight, axis)):
            scale = np.max(np.abs(channel)) / bound
            scales.append(scale)
            _set_channel(quantized, axis, i, np.around(channel / scale).astype(dtype))
        return scales, quantized

    def _conv_channel_wise_quantization(self, weight_data, quantize_range, save_weight_dtype):
        return self._channel_wise_quantization(weight_data, 0, quantize_range, save_weight_dtype)

    def _mul_channel_wise_quantization(self, weight_data, quantize_range, save_weight_dtype):
        return self._channel_wise_quantization(weight_data, 1, quantize_range, save_weight_dtype)

    def _calculate_threshold(self, input, threshold_rate, histogram_bins=5000):
        """The abs value below which all but ``threshold_rate`` of the weights lie (histogram bins)."""
        values = np.abs(input)
        hist, edges = np.histogram(values, bins=histogram_bins, range=(0, np.max(values)))
        hist = hist / float(sum(hist))
        total, index = 0, 0
        for i in range(len(hist)):
            total += hist[i]
            if total >= 1.0 - threshold_rate:
                index = i + 1
                break
        return index * (edges[1] - edges[0])
