"""QuantizationTransformPass (Fluid 1.8.5's, over an IrGraph): before each quantizable op (conv2d,
depthwise_conv2d, mul, matmul) its inputs go through a fake quantize op and a fake dequantize op
(weights: ``weight_quantize_type``, activations: ``activation_quantize_type``), and its gradient op
reads the dequantized values too; ops whose name scope holds ``skip_pattern`` are left alone. The
scales and states the ops keep are persistable variables set in ``scope``. User functions may
replace the quantization or preprocess the inputs (quant_user_defined.py)."""

import collections

import numpy as np

from .... import core, unique_name
from ....framework import IrGraph
from .quant_user_defined import UserDefinedInsertion
from .quantizable_ops import (
    grad_op_types,
    _init_var_node,
    _is_input_all_not_persistable,
    float_type,
    skipped_by_pattern,
)

_QUANT_TYPES = ["abs_max", "channel_wise_abs_max", "range_abs_max", "moving_average_abs_max"]
_FORWARD = core.op_proto_and_checker_maker.OpRole.Forward
_LOD_TENSOR = core.VarDesc.VarType.LOD_TENSOR


def _check_types(activation_quantize_type, weight_quantize_type):
    assert activation_quantize_type != "channel_wise_abs_max", (
        "The activation quantization type does not support 'channel_wise_abs_max'."
    )
    if activation_quantize_type not in _QUANT_TYPES:
        raise ValueError(
            f"Unknown activation_quantize_type : '{activation_quantize_type}'. It can only be "
            "'abs_max' or 'range_abs_max' or 'moving_average_abs_max'."
        )
    if weight_quantize_type not in _QUANT_TYPES:
        raise ValueError(
            f"Unknown weight_quantize_type: '{weight_quantize_type}'. It can only be 'abs_max' or "
            "'channel_wise_abs_max' or 'range_abs_max' or 'moving_average_abs_max'."
        )


class QuantizationTransformPass(UserDefinedInsertion):
    """Quantizes the ops that have weights: quant and dequant ops on their inputs."""

    _supported_quantizable_op_type = ["conv2d", "depthwise_conv2d", "mul", "matmul"]

    def __init__(
        self,
        scope=None,
        place=None,
        weight_bits=8,
        activation_bits=8,
        activation_quantize_type="abs_max",
        weight_quantize_type="abs_max",
        window_size=10000,
        moving_rate=0.9,
        skip_pattern=["skip_quant"],
        quantizable_op_type=["conv2d", "depthwise_conv2d", "mul"],
        weight_quantize_func=None,
        act_quantize_func=None,
        weight_preprocess_func=None,
        act_preprocess_func=None,
        optimizer_func=None,
        executor=None,
    ):
        self._scope, self._place = scope, place
        self._weight_bits, self._activation_bits = weight_bits, activation_bits
        self._skip_pattern = skip_pattern
        self._weight_quantize_func, self._act_quantize_func = weight_quantize_func, act_quantize_func
        self._weight_preprocess_func, self._act_preprocess_func = weight_preprocess_func, act_preprocess_func
        self._optimizer, self._exe = optimizer_func, executor
        _check_types(activation_quantize_type, weight_quantize_type)
        self._activation_quantize_type, self._weight_quantize_type = activation_quantize_type, weight_quantize_type
        self._window_size, self._moving_rate = window_size, moving_rate
        self._quantizable_ops = quantizable_op_type
        for op in self._quantizable_ops:
            assert op in QuantizationTransformPass._supported_quantizable_op_type, (
                op + " is not supported for quantization."
            )
        self._conv_ops = ["conv2d", "depthwise_conv2d"]
        self._quantizable_grad_ops = grad_op_types(self._quantizable_ops)
        self._is_test = None
        self._global_step = None
        self.create_var_map, self.create_op_map = {}, {}

    def apply(self, graph):
        """Inserts the fake quantize and dequantize ops into ``graph`` (an IrGraph) and returns it."""
        assert isinstance(graph, IrGraph), "graph must be the instance of IrGraph."
        self._is_test = graph.is_test()
        dequantized = collections.OrderedDict()
        persistable = [p.name() for p in graph.all_persistable_nodes()]
        processed = []
        if not self._is_test:
            self._create_global_step(graph)
        ops = graph.all_op_nodes()
        for op in ops:
            if op.name() in self._quantizable_ops + self._quantizable_grad_ops and skipped_by_pattern(
                op, self._skip_pattern
            ):
                op.op()._set_attr("skip_quant", True)
        graph.out_node_mapping_table = dict()
        for op in ops:
            if op.name() in self._quantizable_ops and not self._is_skip_quant(graph, op):
                self._transform_forward(graph, op, dequantized, persistable, processed)
        for op in ops:
            if op.name() in self._quantizable_grad_ops:
                for var_node in op.inputs:
                    if var_node.name() in op.input_arg_names() and var_node.name() in dequantized:
                        graph.update_input_link(var_node, dequantized[var_node.name()], op)
        graph.resolve_hazard()
        return graph

    def _transform_forward(self, graph, op, dequantized, persistable, processed):
        op.op()._set_attr("quantization_type", "qat_with_weight")
        for var_node in op.inputs:
            if var_node.name() not in op.input_arg_names():
                continue
            name = var_node.name()
            if name in dequantized:
                graph.update_input_link(var_node, dequantized[name], op)
                continue
            if name in processed:
                continue
            is_weight = name in persistable
            preprocess = self._weight_preprocess_func if is_weight else self._act_preprocess_func
            if preprocess is not None:
                var_node = self._insert_func(graph, preprocess, var_node, op)
            quantize = self._weight_quantize_func if is_weight else self._act_quantize_func
            if quantize is not None:
                self._insert_func(graph, quantize, var_node, op)
                processed.append(name)
                continue
            # the bits follow the node being quantized (a preprocessed weight's is not persistable)
            bits = self._weight_bits if var_node.name() in persistable else self._activation_bits
            dequantized[name] = self._quant_dequant(graph, op, var_node, name, bits, is_weight)
            graph.update_input_link(var_node, dequantized[name], op)

    def _quant_dequant(self, graph, op, var_node, name, bits, is_weight):
        quant_type = self._weight_quantize_type if is_weight else self._activation_quantize_type
        if quant_type == "channel_wise_abs_max":
            assert is_weight, "'channel_wise_abs_max' can only be applied on weights."
            if op.name() in self._conv_ops:
                quant, scale = self._insert_channel_quant_op(graph, var_node, name, bits)
                return self._insert_channel_dequant_op(graph, quant, [scale], [bits])
            quant_type = "abs_max"
        quant, scale = self._insert_quant_op(graph, var_node, name, bits, quant_type)
        return self._insert_dequant_op(graph, quant, scale, bits)

    def _create_global_step(self, graph):
        if "range_abs_max" not in (self._weight_quantize_type, self._activation_quantize_type):
            return
        counter = "@STEP_COUNTER@"
        for node in graph.all_var_nodes():
            if node.name() == counter:
                self._global_step = node
        if self._global_step is not None:
            return
        step_in = graph.create_persistable_node(
            name=counter, var_type=_LOD_TENSOR, shape=[1], var_dtype=core.VarDesc.VarType.INT64
        )
        _init_var_node(step_in, np.zeros([1], dtype="int64"), self._scope, self._place)
        step_out = graph.create_var_node_from_desc(step_in.var())
        increment = graph.create_op_node(
            op_type="increment",
            attrs={"step": 1.0, "op_role": _FORWARD},
            inputs={"X": step_in},
            outputs={"Out": step_out},
        )
        graph.link_to(step_in, increment)
        graph.link_to(increment, step_out)
        self._global_step = step_out

    def _insert_quant_op(self, graph, var_node, name, quant_bits, quant_type):
        insert = {
            "abs_max": self._insert_quant_abs_max_op,
            "range_abs_max": self._insert_quant_range_abs_max_op,
            "moving_average_abs_max": self._insert_quant_moving_average_abs_max_op,
        }.get(quant_type)
        return None if insert is None else insert(graph, var_node, name, quant_bits)

    def _quantized_node(self, graph, var_node, name, shape=None):
        return graph.create_var_node(
            name=self._quantized_var_name(name),
            var_type=var_node.type(),
            shape=var_node.shape() if shape is None else shape,
            var_dtype=var_node.dtype(),
        )

    def _add_op(self, graph, op_type, attrs, inputs, outputs):
        """An op node linked to its input and output nodes (each a node or a list of nodes)."""
        op = graph.create_op_node(op_type=op_type, attrs=dict(attrs, op_role=_FORWARD), inputs=inputs, outputs=outputs)
        for nodes in inputs.values():
            for node in nodes if isinstance(nodes, list) else [nodes]:
                graph.link_to(node, op)
        for nodes in outputs.values():
            for node in nodes if isinstance(nodes, list) else [nodes]:
                graph.link_to(op, node)
        return op

    def _insert_quant_abs_max_op(self, graph, var_node, name, quant_bits):
        assert var_node.is_var(), f"{var_node.name()} is not a var"
        quant = self._quantized_node(graph, var_node, name)
        scale = graph.create_var_node(
            name=self._quantized_scale_name(name), var_type=var_node.type(), shape=[1], var_dtype=var_node.dtype()
        )
        self._add_op(
            graph,
            "fake_quantize_abs_max",
            {"bit_length": quant_bits},
            {"X": var_node},
            {"Out": quant, "OutScale": scale},
        )
        return quant, scale

    def _scale_in_out(self, graph, var_node, name):
        scale_in = graph.create_persistable_node(
            name=self._quantized_scale_name(name), var_type=_LOD_TENSOR, shape=[1], var_dtype=var_node.dtype()
        )
        _init_var_node(scale_in, np.array([0.001], dtype=float_type(var_node)), self._scope, self._place)
        return scale_in, graph.create_var_node_from_desc(scale_in.var())

    def _state(self, graph, var_node, prefix, shape, value):
        node = graph.create_persistable_node(
            name=unique_name.generate(prefix), var_type=_LOD_TENSOR, shape=shape, var_dtype=var_node.dtype()
        )
        _init_var_node(node, np.full(shape, value, dtype=float_type(var_node)), self._scope, self._place)
        return node

    def _insert_quant_range_abs_max_op(self, graph, var_node, name, quant_bits):
        assert var_node.is_var(), f"{var_node.name()} is not a var"
        quant = self._quantized_node(graph, var_node, name)
        scale_in, scale_out = self._scale_in_out(graph, var_node, name)
        inputs, outputs = {"X": var_node, "InScale": scale_in}, {"Out": quant, "OutScale": scale_out}
        if not self._is_test:
            inputs["Iter"] = self._global_step
            outputs["OutScales"] = self._state(graph, var_node, "scales", [self._window_size], 0.0)
        self._add_op(
            graph,
            "fake_quantize_range_abs_max",
            {"window_size": self._window_size, "bit_length": quant_bits, "is_test": self._is_test},
            inputs,
            outputs,
        )
        return quant, scale_out

    def _insert_quant_moving_average_abs_max_op(self, graph, var_node, name, quant_bits):
        quant = self._quantized_node(graph, var_node, name)
        scale_in, scale_out = self._scale_in_out(graph, var_node, name)
        inputs, outputs = {"X": var_node, "InScale": scale_in}, {"Out": quant, "OutScale": scale_out}
        if not self._is_test:
            state_in = self._state(graph, var_node, "state", [1], 1.0)
            accum_in = self._state(graph, var_node, "accum", [1], 1.0)
            inputs.update(InState=state_in, InAccum=accum_in)
            outputs.update(
                OutState=graph.create_var_node_from_desc(state_in.var()),
                OutAccum=graph.create_var_node_from_desc(accum_in.var()),
            )
        self._add_op(
            graph,
            "fake_quantize_moving_average_abs_max",
            {"bit_length": quant_bits, "moving_rate": self._moving_rate, "is_test": self._is_test},
            inputs,
            outputs,
        )
        return quant, scale_out

    def _insert_channel_quant_op(self, graph, var_node, name, quant_bits):
        assert var_node.is_var(), f"{var_node.name()} is not a var"
        quant = self._quantized_node(graph, var_node, name)
        scale = graph.create_var_node(
            name=self._quantized_scale_name(name),
            var_type=var_node.type(),
            shape=[var_node.shape()[0]],
            var_dtype=var_node.dtype(),
        )
        self._add_op(
            graph,
            "fake_channel_wise_quantize_abs_max",
            {"bit_length": quant_bits},
            {"X": var_node},
            {"Out": quant, "OutScale": scale},
        )
        return quant, scale

    def _dequantized_node(self, graph, var_node):
        return graph.create_var_node(
            name=self._dequantized_var_name(var_node.name()),
            var_type=var_node.type(),
            shape=var_node.shape(),
            var_dtype=var_node.dtype(),
        )

    def _insert_dequant_op(self, graph, var_node, scale_var_node, quant_bits):
        assert var_node.is_var(), f"{var_node.name()} is not a var"
        dequant = self._dequantized_node(graph, var_node)
        self._add_op(
            graph,
            "fake_dequantize_max_abs",
            {"max_range": float((1 << (quant_bits - 1)) - 1)},
            {"X": var_node, "Scale": scale_var_node},
            {"Out": dequant},
        )
        return dequant

    def _insert_channel_dequant_op(self, graph, var_node, scale_var_nodes, quant_bits):
        assert var_node.is_var(), f"{var_node.name()} is not a var"
        dequant = self._dequantized_node(graph, var_node)
        self._add_op(
            graph,
            "fake_channel_wise_dequantize_max_abs",
            {"quant_bits": quant_bits},
            {"X": var_node, "Scales": scale_var_nodes},
            {"Out": dequant},
        )
        return dequant

    def _quantized_var_name(self, var_name):
        return f"{var_name}.quantized"

    def _dequantized_var_name(self, var_name):
        return f"{var_name}.dequantized"

    def _quantized_scale_name(self, var_name):
        return f"{var_name}.scale"

    def _is_skip_quant(self, graph, op_node):
        """True for an op marked skip_quant, a mul/matmul with no persistable input (AddQuantDequantPass
        quantizes those) and an op already quantized without weights."""
        desc = op_node.op()
        if desc.has_attr("skip_quant") and desc.attr("skip_quant"):
            return True
        if op_node.name() in ["mul", "matmul"] and _is_input_all_not_persistable(graph, op_node):
            return True
        return desc.has_attr("quantization_type") and desc.attr("quantization_type") == "qat_without_weight"
