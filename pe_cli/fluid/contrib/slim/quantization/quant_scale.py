"""Fluid 1.8.5's passes for ops without weights and for output scales: AddQuantDequantPass (a
fake_quantize_dequantize_moving_average_abs_max op before the inputs of pool2d, elementwise_add, ...),
OutScaleForTrainingPass (a moving_average_abs_max_scale op after each output of the ops in the
out-scale list, learning ``<output>@scale``) and OutScaleForInferencePass (those scales written into
the ops as ``out_threshold``)."""

import collections

import numpy as np

from .... import core, unique_name
from ....framework import IrGraph
from .quantizable_ops import (
    grad_op_types,
    _get_op_input_var_names,
    _get_op_output_var_names,
    _init_var_node,
    _is_input_all_not_persistable,
    _out_scale_op_list,
    float_type,
    skipped_by_pattern,
)

_FORWARD = core.op_proto_and_checker_maker.OpRole.Forward
_LOD_TENSOR = core.VarDesc.VarType.LOD_TENSOR


def _moving_average_state(graph, var_node, scope, place, state_prefix, accum_prefix, ins, outs):
    """The state and accumulator (persistable, set to 1) of a moving average over ``var_node``'s
    absolute maximum, added to the op's inputs and outputs."""
    nodes = []
    for prefix in (state_prefix, accum_prefix):
        node = graph.create_persistable_node(
            name=unique_name.generate(prefix), var_type=_LOD_TENSOR, var_dtype=var_node.dtype(), shape=[1]
        )
        _init_var_node(node, np.ones([1], dtype=float_type(var_node)), scope, place)
        nodes.append(node)
    state_in, accum_in = nodes
    ins.update(InState=state_in, InAccum=accum_in)
    outs.update(
        OutState=graph.create_var_node_from_desc(state_in.var()),
        OutAccum=graph.create_var_node_from_desc(accum_in.var()),
    )


def _link_op(graph, op, inputs, outputs):
    for node in inputs:
        graph.link_to(node, op)
    for node in outputs:
        graph.link_to(op, node)


class OutScaleForTrainingPass:
    """Learns the output scales of the ops in the out-scale list (for TensorRT and other engines)."""

    def __init__(self, scope=None, place=None, moving_rate=0.9):
        self._scope, self._place = scope, place
        self._moving_rate = moving_rate
        self._is_test = None
        self._teller_set = _out_scale_op_list

    def apply(self, graph):
        assert isinstance(graph, IrGraph), "graph must be the instance of IrGraph."
        self._is_test = graph.is_test()
        for op in [op for op in graph.all_op_nodes() if op.name() in self._teller_set]:
            for name in _get_op_output_var_names(op):
                self._insert_scale_op(graph, graph._find_node_by_name(op.outputs, name))
        graph.resolve_hazard()
        return graph

    def _insert_scale_op(self, graph, in_node):
        out_node = graph.create_var_node_from_desc(in_node.var())
        scale_node = graph.create_persistable_node(
            name=self._scale_name(in_node.name()), var_type=_LOD_TENSOR, shape=[1], var_dtype=in_node.dtype()
        )
        _init_var_node(scale_node, np.ones([1], dtype=float_type(in_node)), self._scope, self._place)
        ins, outs = {"X": in_node}, {"Out": out_node, "OutScale": scale_node}
        if not self._is_test:
            _moving_average_state(graph, in_node, self._scope, self._place, "scale_state@", "scale_accum@", ins, outs)
        op = graph.create_op_node(
            op_type="moving_average_abs_max_scale",
            attrs={"moving_rate": self._moving_rate, "is_test": self._is_test, "op_role": _FORWARD},
            inputs=ins,
            outputs=outs,
        )
        _link_op(graph, op, [in_node], [out_node, scale_node])
        if not self._is_test:
            _link_op(graph, op, [ins["InState"], ins["InAccum"]], [outs["OutState"], outs["OutAccum"]])

    def _scale_name(self, var_name):
        return f"{var_name}@scale"


class OutScaleForInferencePass:
    """Writes each learned output scale into its op's ``out_threshold`` attribute."""

    def __init__(self, scope=None):
        self._scope = scope
        self._teller_set = _out_scale_op_list

    def apply(self, graph):
        assert isinstance(graph, IrGraph), "graph must be the instance of IrGraph."
        for op_node in graph.all_op_nodes():
            if op_node.name() in self._teller_set:
                names = _get_op_output_var_names(op_node)
                assert len(names) == 1, (
                    "Only support collecting output for op that only has an activation output for now."
                )
                scale = np.array(self._scope.find_var(self._scale_name(names[0])).get_tensor())[0]
                op_node.op()._set_attr("out_threshold", float(scale))
        graph.resolve_hazard()
        return graph

    def _scale_name(self, var_name):
        return f"{var_name}@scale"


class AddQuantDequantPass:
    """Quantizes the ops without weights: their inputs go through quantize-dequantize ops."""

    _supported_quantizable_op_type = [
        "pool2d",
        "elementwise_add",
        "concat",
        "softmax",
        "argmax",
        "transpose",
        "equal",
        "gather",
        "greater_equal",
        "greater_than",
        "less_equal",
        "less_than",
        "mean",
        "not_equal",
        "reshape",
        "reshape2",
        "bilinear_interp",
        "nearest_interp",
        "trilinear_interp",
        "slice",
        "squeeze",
        "elementwise_sub",
        "mul",
        "matmul",
        "relu",
        "relu6",
        "leaky_relu",
        "tanh",
        "swish",
    ]
    _activation_type = ["relu", "relu6", "leaky_relu", "tanh", "swish"]

    def __init__(
        self,
        scope=None,
        place=None,
        moving_rate=0.9,
        quant_bits=8,
        skip_pattern=["skip_quant"],
        quantizable_op_type=["elementwise_add", "pool2d"],
        is_full_quantized=False,
    ):
        self._scope, self._place = scope, place
        self._moving_rate, self._quant_bits = moving_rate, quant_bits
        self._is_test = None
        self._skip_pattern = skip_pattern
        if is_full_quantized:
            self._quantizable_op_type = AddQuantDequantPass._supported_quantizable_op_type
        else:
            self._quantizable_op_type = quantizable_op_type
            for op_type in quantizable_op_type:
                assert op_type in AddQuantDequantPass._supported_quantizable_op_type, (
                    op_type + " is not supported for quantization."
                )
        self._quantizable_grad_op_type = grad_op_types(self._quantizable_op_type)
        assert self._scope is not None, "scope must not be None."
        assert self._place is not None, "place must not be None."

    def apply(self, graph):
        assert isinstance(graph, IrGraph), "graph must be the instance of IrGraph."
        self._is_test = graph.is_test()
        dequantized = collections.OrderedDict()
        ops = graph.all_op_nodes()
        for op_node in ops:
            if op_node.name() in self._quantizable_op_type and self._quantizes(graph, op_node):
                self._quantize_inputs(graph, op_node, dequantized)
        for op_node in ops:
            if op_node.name() in self._quantizable_grad_op_type:
                for name in op_node.input_arg_names():
                    if name in dequantized:
                        in_node = graph._find_node_by_name(op_node.inputs, name)
                        graph.update_input_link(in_node, dequantized[name], op_node)
        graph.resolve_hazard()
        return graph

    def _quantizes(self, graph, op_node):
        desc = op_node.op()
        quantized = desc.has_attr("quantization_type") and desc.attr("quantization_type") == "qat_with_weight"
        return not (
            skipped_by_pattern(op_node, self._skip_pattern)
            or quantized
            or not _is_input_all_not_persistable(graph, op_node)
        )

    def _quantize_inputs(self, graph, op_node, dequantized):
        op_node.op()._set_attr("quantization_type", "qat_without_weight")
        op_node.op()._set_attr("activation_bits", self._quant_bits)
        for name in _get_op_input_var_names(op_node):
            in_node = graph._find_node_by_name(op_node.inputs, name)
            if name not in dequantized:
                dequantized[name], _ = self._inser_quant_dequant_moving_average_abs_max_op(
                    graph, in_node, self._quant_bits
                )
            graph.update_input_link(in_node, dequantized[name], op_node)

    def _inser_quant_dequant_moving_average_abs_max_op(self, graph, var_node, quant_bits):
        quant = graph.create_var_node(
            name=f"{var_node.name()}.quant_dequant",
            var_type=var_node.type(),
            shape=var_node.shape(),
            var_dtype=var_node.dtype(),
        )
        scale_in = graph.create_persistable_node(
            name=f"{var_node.name()}.quant_dequant.scale", var_type=_LOD_TENSOR, shape=[1], var_dtype=var_node.dtype()
        )
        _init_var_node(scale_in, np.array([0.001], dtype=float_type(var_node)), self._scope, self._place)
        scale_out = graph.create_var_node_from_desc(scale_in.var())
        ins, outs = {"X": var_node, "InScale": scale_in}, {"Out": quant, "OutScale": scale_out}
        if not self._is_test:
            _moving_average_state(
                graph, var_node, self._scope, self._place, "quant_dequant.state", "quant_dequant.accum", ins, outs
            )
        op = graph.create_op_node(
            op_type="fake_quantize_dequantize_moving_average_abs_max",
            attrs={
                "bit_length": quant_bits,
                "moving_rate": self._moving_rate,
                "is_test": self._is_test,
                "op_role": _FORWARD,
            },
            inputs=ins,
            outputs=outs,
        )
        _link_op(graph, op, [var_node, scale_in], [quant, scale_out])
        if not self._is_test:
            _link_op(graph, op, [ins["InState"], ins["InAccum"]], [outs["OutState"], outs["OutAccum"]])
        return quant, scale_out
