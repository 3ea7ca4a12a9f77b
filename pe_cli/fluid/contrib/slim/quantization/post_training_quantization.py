"""``paddle.fluid.contrib.slim.quantization.post_training_quantization``: PostTrainingQuantization,
Fluid 1.8.5's calibration of a saved float32 inference model: it runs the model on sample data,
keeps the quantized ops' inputs and outputs (as persistable variables, so their values stay in the
scope), takes their thresholds ('KL': the KL-divergence clip point of the activations, kl_threshold.py;
'abs_max'; 'min_max'), and for 'KL' and 'abs_max' quantizes the program through
QuantizationTransformPass, AddQuantDequantPass and QuantizationFreezePass with those scales; the
thresholds are noted on the ops (``out_threshold``, ``<input>.min``/``.max``). WeightQuantization
(weight_quantization.py) quantizes a saved model's weights alone."""

import logging
import os
import re

import numpy as np

from .... import core, framework, io
from ....executor import global_scope
from ....framework import IrGraph
from .kl_threshold import kl_threshold
from .quant_scale import AddQuantDequantPass
from .quant_freeze import QuantizationFreezePass
from .quant_transform import QuantizationTransformPass
from .quantizable_ops import _get_op_input_var_names, _get_op_output_var_names, _out_scale_op_list
from .weight_quantization import WeightQuantization, _load_variable_data, _set_variable_data

__all__ = ["PostTrainingQuantization", "WeightQuantization"]

_logger = logging.getLogger("pe.slim")
_ACTIVATION_TYPES = ["range_abs_max", "moving_average_abs_max", "abs_max"]
_WEIGHT_TYPES = ["abs_max", "channel_wise_abs_max"]
_ALGOS = ["KL", "abs_max", "min_max"]


def _all_persistable_var_names(program):
    return [var.name for var in program.list_vars() if var.persistable]


class PostTrainingQuantization:
    """Quantizes the float32 model in ``model_dir`` with scales calibrated on ``sample_generator``'s
    samples (batched by ``batch_size``) or ``batch_generator``'s batches, ``batch_nums`` batches."""

    def __init__(
        self,
        executor=None,
        scope=None,
        model_dir=None,
        model_filename=None,
        params_filename=None,
        batch_generator=None,
        sample_generator=None,
        batch_size=10,
        batch_nums=None,
        algo="KL",
        quantizable_op_type=["conv2d", "depthwise_conv2d", "mul"],
        is_full_quantize=False,
        activation_bits=8,
        weight_bits=8,
        activation_quantize_type="range_abs_max",
        weight_quantize_type="channel_wise_abs_max",
        is_use_cache_file=False,
        cache_dir="./temp_post_training",
    ):
        supported_ops = sorted(
            set(
                QuantizationTransformPass._supported_quantizable_op_type
                + AddQuantDequantPass._supported_quantizable_op_type
            )
        )
        assert executor is not None, "The executor cannot be None."
        assert model_dir is not None, "The model_dir cannot be None."
        assert sample_generator is not None or batch_generator is not None, (
            "The sample_generator and batch_generator cannot be None in the same time."
        )
        assert batch_size > 0, "The batch_size should be greater than 0."
        assert algo in _ALGOS, "The algo should be KL, abs_max or min_max."
        assert activation_quantize_type in _ACTIVATION_TYPES, (
            f"The activation_quantize_type ({activation_quantize_type}) should in ({_ACTIVATION_TYPES})."
        )
        assert weight_quantize_type in _WEIGHT_TYPES, (
            f"The weight_quantize_type ({weight_quantize_type}) shoud in ({_WEIGHT_TYPES})."
        )
        self._executor, self._scope = executor, global_scope() if scope is None else scope
        self._model_dir, self._model_filename, self._params_filename = model_dir, model_filename, params_filename
        self._sample_generator, self._batch_generator = sample_generator, batch_generator
        self._batch_size, self._batch_nums, self._algo = batch_size, batch_nums, algo
        self._activation_bits, self._weight_bits = activation_bits, weight_bits
        self._activation_quantize_type, self._weight_quantize_type = activation_quantize_type, weight_quantize_type
        self._is_full_quantize = is_full_quantize
        self._quantizable_op_type = supported_ops if is_full_quantize else quantizable_op_type
        for op_type in self._quantizable_op_type:
            assert op_type in supported_ops, op_type + " is not supported for quantization."
        self._is_use_cache_file, self._cache_dir = is_use_cache_file, cache_dir
        if is_use_cache_file:
            os.makedirs(cache_dir, exist_ok=True)
        self._place = executor.place
        self._program = self._feed_list = self._fetch_list = self._data_loader = None
        self._out_scale_op_list = _out_scale_op_list
        self._quantized_weight_var_name, self._quantized_act_var_name = set(), set()
        self._sampling_data = {}
        self._quantized_var_kl_threshold, self._quantized_var_abs_max = {}, {}
        self._quantized_var_min, self._quantized_var_max = {}, {}

    def quantize(self):
        """Calibrates on the sample data and returns the quantized program."""
        self._load_model_data()
        self._collect_target_varnames()
        self._set_activation_persistable(True)
        batch_id = 0
        for data in self._data_loader():
            self._executor.run(program=self._program, feed=data, fetch_list=self._fetch_list, return_numpy=False)
            if self._algo == "KL":
                self._sample_data(batch_id)
            else:
                self._sample_threshold()
            if batch_id % 5 == 0:
                _logger.info("Run batch: %d", batch_id)
            batch_id += 1
            if self._batch_nums and batch_id >= self._batch_nums:
                break
        _logger.info("Finish all batch: %d", batch_id)
        self._set_activation_persistable(False)
        if self._algo == "KL":
            self._calculate_kl_threshold()
        if self._algo in ["KL", "abs_max"]:
            self._update_program()
        else:
            self._save_input_threhold()
        self._save_output_threshold()
        return self._program

    def save_quantized_model(self, save_model_path, model_filename=None, params_filename=None):
        """Saves the quantized program and its parameters (save_inference_model)."""
        io.save_inference_model(
            dirname=save_model_path,
            model_filename=model_filename,
            params_filename=params_filename,
            feeded_var_names=self._feed_list,
            target_vars=self._fetch_list,
            executor=self._executor,
            main_program=self._program,
        )

    def _load_model_data(self):
        _logger.info("Load model and set data loader ...")
        self._program, self._feed_list, self._fetch_list = io.load_inference_model(
            dirname=self._model_dir,
            executor=self._executor,
            model_filename=self._model_filename,
            params_filename=self._params_filename,
        )
        feed_vars = [framework._get_var(str(name), self._program) for name in self._feed_list]
        self._data_loader = io.DataLoader.from_generator(
            feed_list=feed_vars, capacity=3 * self._batch_size, iterable=True
        )
        if self._sample_generator is not None:
            self._data_loader.set_sample_generator(
                self._sample_generator, batch_size=self._batch_size, drop_last=True, places=self._place
            )
        else:
            self._data_loader.set_batch_generator(self._batch_generator, places=self._place)

    def _collect_target_varnames(self):
        """The quantized ops' inputs and outputs, the other ops' outputs whose scale is noted: weights
        (persistable) and activations apart."""
        persistable = _all_persistable_var_names(self._program)

        def collect(names):
            for name in names:
                (self._quantized_weight_var_name if name in persistable else self._quantized_act_var_name).add(name)

        for op in self._program.global_block().ops:
            if op.type in self._quantizable_op_type:
                collect(_get_op_input_var_names(op))
                collect(_get_op_output_var_names(op))
            elif op.type in self._out_scale_op_list:
                collect(_get_op_output_var_names(op))

    def _set_activation_persistable(self, persistable):
        """Activations kept in the scope by each run (persistable), or not."""
        for var in self._program.list_vars():
            if var.name in self._quantized_act_var_name:
                var.persistable = persistable
        self._program._bump()

    def _sample_threshold(self):
        """This batch's abs max (or min and max) of each activation; the weights' per channel once."""
        weights = self._quantized_weight_var_name
        if self._algo == "abs_max":
            if not self._quantized_var_abs_max:
                for name in weights:
                    value = _load_variable_data(self._scope, name)
                    self._quantized_var_abs_max[name] = [float(np.max(np.abs(value[i]))) for i in range(value.shape[0])]
            for name in self._quantized_act_var_name:
                value = float(np.max(np.abs(_load_variable_data(self._scope, name))))
                if name not in self._quantized_var_abs_max or value > self._quantized_var_abs_max[name]:
                    self._quantized_var_abs_max[name] = value
            return
        if not self._quantized_var_min and not self._quantized_var_max:
            for name in weights:
                value = _load_variable_data(self._scope, name)
                self._quantized_var_min[name] = [float(np.min(value[i])) for i in range(value.shape[0])]
                self._quantized_var_max[name] = [float(np.max(value[i])) for i in range(value.shape[0])]
        for name in self._quantized_act_var_name:
            value = _load_variable_data(self._scope, name)
            low, high = float(np.min(value)), float(np.max(value))
            if name not in self._quantized_var_min or low < self._quantized_var_min[name]:
                self._quantized_var_min[name] = low
            if name not in self._quantized_var_max or high > self._quantized_var_max[name]:
                self._quantized_var_max[name] = high

    def _save_input_threhold(self):
        """min_max: each quantized op notes its inputs' ranges as ``<input>.min`` and ``<input>.max``."""
        for op in self._program.global_block().ops:
            if op.type in self._quantizable_op_type:
                for name in _get_op_input_var_names(op):
                    assert name in self._quantized_var_min and name in self._quantized_var_max
                    op._set_attr(name + ".min", self._quantized_var_min[name])
                    op._set_attr(name + ".max", self._quantized_var_max[name])

    def _sample_data(self, batch_id):
        """KL: keeps the weights and this batch's activations (flattened), in memory or in cache_dir."""
        for name in self._quantized_weight_var_name:
            if name not in self._sampling_data:
                self._sampling_data[name] = _load_variable_data(self._scope, name)
        for name in self._quantized_act_var_name:
            value = _load_variable_data(self._scope, name).ravel()
            if self._is_use_cache_file:
                np.save(os.path.join(self._cache_dir, f"{name}_{batch_id}.npy"), value)
            else:
                self._sampling_data.setdefault(name, []).append(value)

    def _cached_samples(self, name):
        files = [f for f in os.listdir(self._cache_dir) if re.match(name + "_[0-9]+.npy", f)]
        samples = []
        for filename in files:
            path = os.path.join(self._cache_dir, filename)
            samples.append(np.load(path))
            os.remove(path)
        return np.concatenate(samples)

    def _calculate_kl_threshold(self):
        _logger.info("Calculate KL threshold ...")
        for name in self._quantized_weight_var_name:
            weight = self._sampling_data[name]
            self._quantized_var_kl_threshold[name] = (
                np.max(np.abs(weight))
                if self._weight_quantize_type == "abs_max"
                else [np.max(np.abs(weight[i])) for i in range(weight.shape[0])]
            )
        for name in self._quantized_act_var_name:
            if self._is_use_cache_file:
                samples = self._cached_samples(name)
            else:
                samples = self._sampling_data[name] = np.concatenate(self._sampling_data[name])
            self._quantized_var_kl_threshold[name] = kl_threshold(np.abs(samples))

    def _update_program(self):
        """The fake quantize ops, with the thresholds as their scales, frozen (QuantizationFreezePass)."""
        _logger.info("Update the program ...")
        graph = IrGraph(core.Graph(self._program.desc), for_test=True)
        major = [t for t in QuantizationTransformPass._supported_quantizable_op_type if t in self._quantizable_op_type]
        QuantizationTransformPass(
            scope=self._scope,
            place=self._place,
            weight_bits=self._weight_bits,
            activation_bits=self._activation_bits,
            activation_quantize_type=self._activation_quantize_type,
            weight_quantize_type=self._weight_quantize_type,
            quantizable_op_type=major,
        ).apply(graph)
        minor = [t for t in AddQuantDequantPass._supported_quantizable_op_type if t in self._quantizable_op_type]
        AddQuantDequantPass(scope=self._scope, place=self._place, quantizable_op_type=minor).apply(graph)
        scales = self._quantized_var_kl_threshold if self._algo == "KL" else self._quantized_var_abs_max
        for name, value in scales.items():
            for suffix in (".scale", ".quant_dequant.scale"):
                _set_variable_data(self._scope, self._place, name + suffix, np.array([value], dtype=np.float32))
        QuantizationFreezePass(
            scope=self._scope,
            place=self._place,
            weight_bits=self._weight_bits,
            activation_bits=self._activation_bits,
            weight_quantize_type=self._weight_quantize_type,
            quantizable_op_type=major,
        ).apply(graph)
        self._program = graph.to_program()

    def _save_output_threshold(self):
        """Each quantized or out-scale op notes its output's threshold (``out_threshold``, or ``out_min``
        and ``out_max``), a quantized op also how it was quantized (``quantization_type``)."""
        notes = {
            "KL": [(self._quantized_var_kl_threshold, "out_threshold", "post_kl")],
            "abs_max": [(self._quantized_var_abs_max, "out_threshold", "post_abs_max")],
            "min_max": [
                (self._quantized_var_min, "out_min", "post_min_max"),
                (self._quantized_var_max, "out_max", "post_min_max"),
            ],
        }[self._algo]
        for op in self._program.global_block().ops:
            if op.type not in self._quantizable_op_type + self._out_scale_op_list:
                continue
            names = _get_op_output_var_names(op)
            assert len(names) == 1, "Post training quantization only support one output for " + op.type
            for thresholds, attr, quantized_type in notes:
                assert names[0] in thresholds, f"The output ({names[0]}) of {op.type} node does not have threshold."
                op._set_attr(attr, thresholds[names[0]])
                if op.type in self._quantizable_op_type:
                    op._set_attr("quantization_type", quantized_type)
