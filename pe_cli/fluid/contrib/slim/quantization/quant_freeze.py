"""The passes that turn a quantization-trained test graph into an inference graph (Fluid 1.8.5's):
QuantizationFreezePass (weights quantized in the scope and their fake ops removed, activations keep
their quantize op, a dequantize op after each quantized op), ConvertToInt8Pass (the quantized ops
read int8 copies of their weights) and TransformForMobilePass (paddle-mobile's op names)."""

import collections

import numpy as np

from .... import core, unique_name
from .quantizable_ops import (
    _fake_dequant_op_list,
    _fake_quant_op_list,
    _init_var_node,
    float_type,
    remove_unused_var_nodes,
)
from ....framework import IrNode

_FORWARD = core.op_proto_and_checker_maker.OpRole.Forward
_SUFFIXES = (".quantized.dequantized", ".quantized", ".dequantized", ".scale")


def _qat_with_weight(op_node):
    desc = op_node.op()
    return desc.has_attr("quantization_type") and desc.attr("quantization_type") == "qat_with_weight"


class QuantizationFreezePass:
    """``activation -> quant -> dequant -> conv2d`` becomes ``activation -> quant -> conv2d -> dequant``;
    ``weight -> quant -> dequant -> conv2d`` becomes ``weight -> conv2d``, the weight scaled offline
    (rounded to ``weight_bits``' integers, kept as floats)."""

    def __init__(
        self, scope, place, weight_bits=8, activation_bits=8, weight_quantize_type="abs_max", quantizable_op_type=None
    ):
        assert scope is not None, "The scope cannot be set None."
        assert place is not None, "The place cannot be set None."
        self._scope, self._place = scope, place
        self._weight_bits, self._activation_bits = weight_bits, activation_bits
        self._weight_quantize_type = weight_quantize_type
        self._conv_ops = ["conv2d", "depthwise_conv2d"]
        self._fake_quant_op_names = _fake_quant_op_list
        self._fake_dequant_op_names = _fake_dequant_op_list
        self._op_input_rename_map = collections.OrderedDict()
        self._op_output_rename_map = collections.OrderedDict()
        self._quant_var_scale_map = collections.OrderedDict()

    def apply(self, graph):
        persistable = [p.name() for p in graph.all_persistable_nodes()]
        for op_node in graph.all_op_nodes():
            if op_node.name() in self._fake_quant_op_names:
                self._take_scale(graph, op_node, persistable)
        for op_node in graph.all_op_nodes():
            if op_node.name() in self._fake_dequant_op_names:
                self._remove_fake_quant_and_dequant_op(graph, op_node)
        ops = graph.all_op_nodes()
        for op_node in ops:
            if _qat_with_weight(op_node):
                if self._weight_quantize_type == "channel_wise_abs_max" and op_node.name() in self._conv_ops:
                    self._insert_post_channel_dequant_op(graph, op_node)
                else:
                    self._insert_post_dequant_op(graph, op_node)
        for op_node in ops:  # the ops after a quantized op read its dequantized output
            for var_node in op_node.inputs:
                if var_node.node in self._op_output_rename_map:
                    graph.update_input_link(var_node, self._op_output_rename_map[var_node.node], op_node)
        remove_unused_var_nodes(graph)
        graph.resolve_hazard()
        return graph

    def _take_scale(self, graph, op_node, persistable):
        """Records the scale of a fake quantize op's input; a weight's is computed from its value,
        the weight quantized in the scope and its quantize op removed."""
        name = op_node.input("X")[0]
        name = getattr(graph, "out_node_mapping_table", {}).get(name, name)
        if name not in persistable:
            self._quant_var_scale_map[name] = graph._find_node_by_name(op_node.outputs, op_node.output("OutScale")[0])
            return
        if self._weight_quantize_type == "abs_max":
            scale = np.max(np.abs(self._load_var(name)))
        elif self._weight_quantize_type == "channel_wise_abs_max":
            param = self._load_var(name)
            scale = (
                [np.max(np.abs(param[i])) for i in range(param.shape[0])]
                if len(param.shape) == 4
                else np.max(np.abs(param))
            )
        else:
            scale = self._load_var(op_node.output("OutScale")[0])[0]
        self._quant_var_scale_map[name] = scale
        self._remove_fake_quant_and_dequant_op(graph, op_node)
        self._restore_var(name, self._quant(self._load_var(name), scale, self._weight_bits))

    def _remove_fake_quant_and_dequant_op(self, graph, op_node):
        out = graph._find_node_by_name(op_node.outputs, op_node.output("Out")[0])
        source = graph._find_node_by_name(op_node.inputs, op_node.input("X")[0])
        self._op_input_rename_map[out.node] = self._op_input_rename_map.get(source.node, source)
        graph.safe_remove_nodes(op_node)

    def _relink_inputs(self, graph, op_node):
        """Points the op at the values before the removed fake ops; yields (input name, its scale)."""
        for var_node in op_node.inputs:
            name = var_node.name()
            if name not in op_node.input_arg_names():
                continue
            if var_node.node in self._op_input_rename_map:
                new_in = self._op_input_rename_map[var_node.node]
                new_in.clear_outputs()
                graph.update_input_link(var_node, new_in, op_node)
            original = self._original_var_name(name)
            yield original, self._quant_var_scale_map[original]

    def _output_node(self, graph, op_node):
        if len(op_node.output_arg_names()) != 1:
            raise ValueError(f"Only support one output, but op {op_node.name()} has more than one output.")
        return graph._find_node_by_name(op_node.outputs, op_node.output_arg_names()[0])

    def _post_dequant(self, graph, output, op_type, attrs, scale_inputs, scale_nodes):
        dequant = graph.create_var_node(
            name=self._dequantized_var_name(output.name()),
            var_type=output.type(),
            shape=output.shape(),
            var_dtype=output.dtype(),
        )
        op = graph.create_op_node(
            op_type=op_type,
            attrs=dict(attrs, op_role=_FORWARD),
            inputs=dict({"X": output}, **scale_inputs),
            outputs={"Out": dequant},
        )
        graph.link_to(output, op)
        for node in scale_nodes:
            graph.link_to(node, op)
        graph.link_to(op, dequant)
        self._op_output_rename_map[output.node] = dequant
        return dequant

    def _insert_post_channel_dequant_op(self, graph, op_node):
        persistable = [p.name() for p in graph.all_persistable_nodes()]
        for original, scale in self._relink_inputs(graph, op_node):
            if original in persistable:
                assert isinstance(scale, list), f"The scale of parameter {original} is not a list."
                channel_scale = np.array(scale)
            else:
                assert isinstance(scale, IrNode)
                scale_var_node = scale
        output = self._output_node(graph, op_node)
        weight_scale = graph.create_persistable_node(
            name=unique_name.generate("channel_scale"),
            var_type=core.VarDesc.VarType.LOD_TENSOR,
            shape=[channel_scale.shape[0]],
            var_dtype=output.dtype(),
        )
        _init_var_node(weight_scale, channel_scale.astype(float_type(output)), self._scope, self._place)
        return self._post_dequant(
            graph,
            output,
            "fake_channel_wise_dequantize_max_abs",
            {"quant_bits": [self._weight_bits, self._activation_bits]},
            {"Scales": [weight_scale, scale_var_node]},
            [scale_var_node, weight_scale],
        )

    def _insert_post_dequant_op(self, graph, op_node):
        persistable = [p.name() for p in graph.all_persistable_nodes()]
        max_range = 1
        param_range = (1 << (self._weight_bits - 1)) - 1
        act_range = (1 << (self._activation_bits - 1)) - 1
        for original, scale in self._relink_inputs(graph, op_node):
            if original in persistable:
                assert self._is_float(scale), f"The scale of parameter {original} is not a float."
                max_range *= param_range / scale
            else:
                max_range *= act_range
                assert isinstance(scale, IrNode)
                scale_var_node = scale
        output = self._output_node(graph, op_node)
        return self._post_dequant(
            graph,
            output,
            "fake_dequantize_max_abs",
            {"max_range": float(max_range)},
            {"Scale": scale_var_node},
            [scale_var_node],
        )

    def _load_var(self, name):
        return np.array(self._scope.find_var(name).get_tensor())

    def _restore_var(self, name, array):
        self._scope.find_var(name).get_tensor().set(array, self._place)

    def _remove_unused_var_nodes(self, graph):
        remove_unused_var_nodes(graph)

    def _original_var_name(self, var_name):
        for suffix in _SUFFIXES:
            if var_name.endswith(suffix):
                return var_name[: -len(suffix)]
        return var_name

    def _dequantized_var_name(self, var_name):
        return f"{var_name}.dequantized"

    def _is_float(self, v):
        return isinstance(v, (float, np.float32, np.float64))

    def _quant(self, x, scale, num_bits):
        bound = (1 << (num_bits - 1)) - 1
        if isinstance(scale, list):
            for i, s in enumerate(scale):
                x[i] = np.round(x[i] / s * bound)
            return x
        return np.round(x / scale * bound)


class ConvertToInt8Pass:
    """The quantized ops read ``<weight>.int8``, an int8 copy of their (frozen) weights."""

    def __init__(self, scope, place, quantizable_op_type=None):
        assert scope is not None, "The scope cannot be set None."
        assert place is not None, "The place cannot be set None."
        self._scope, self._place = scope, place

    def apply(self, graph):
        persistable = [p.name() for p in graph.all_persistable_nodes()]
        converted = {}
        for op_node in graph.all_op_nodes():
            if not _qat_with_weight(op_node):
                continue
            for var_node in op_node.inputs:
                name = var_node.name()
                if name in persistable:
                    if name not in converted:
                        converted[name] = self._convert_to_int8(graph, var_node)
                    graph.update_input_link(var_node, converted[name], op_node)
        remove_unused_var_nodes(graph)
        graph.resolve_hazard()
        return graph

    def _convert_to_int8(self, graph, var_node):
        name = var_node.name() + ".int8"
        node = graph.create_persistable_node(
            name=name, var_type=var_node.type(), shape=var_node.shape(), var_dtype=core.VarDesc.VarType.INT8
        )
        array = self._load_var(var_node.name())
        self._scope.var(name)
        self._store_var(name, array, np.int8)
        return node

    def _load_var(self, name):
        return np.array(self._scope.find_var(name).get_tensor())

    def _store_var(self, name, array, dtype):
        self._scope.find_var(name).get_tensor().set(array.astype(dtype), self._place)

    def _remove_unused_var_nodes(self, graph):
        remove_unused_var_nodes(graph)


class TransformForMobilePass:
    """The fake quantize ops become ``quantize`` ops and the fake dequantize ops ``dequantize`` ops
    (paddle-mobile's names), keeping their slots and attributes."""

    def __init__(self):
        self._fake_quant_op_names = _fake_quant_op_list
        self._fake_dequant_op_names = _fake_dequant_op_list

    def apply(self, graph):
        for op_node in graph.all_op_nodes():
            name = op_node.name()
            new_type = (
                "quantize"
                if name in self._fake_quant_op_names
                else "dequantize"
                if name in self._fake_dequant_op_names
                else None
            )
            if new_type is None:
                continue
            op_node.set_type(new_type)
            new = graph.create_op_node_from_desc(op_node.op())
            for node in op_node.inputs:
                graph.link_to(node, new)
            for node in op_node.outputs:
                graph.link_to(new, node)
            graph.safe_remove_nodes(op_node)
        graph.resolve_hazard()
        return graph
