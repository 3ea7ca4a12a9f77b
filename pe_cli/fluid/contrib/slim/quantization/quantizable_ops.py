"""What the quantization passes know of ops (Fluid 1.8.5's tables): the fake quantize and dequantize
op types, the ops whose output scales are collected, each quantizable op's real input and output
slots (not its shape tensors), and the helpers the passes share over an IrGraph."""

import numpy as np

from ....framework import IrNode, Operator

_fake_quant_op_list = [
    "fake_quantize_abs_max",
    "fake_quantize_range_abs_max",
    "fake_quantize_moving_average_abs_max",
    "fake_channel_wise_quantize_abs_max",
]
_fake_dequant_op_list = ["fake_dequantize_max_abs", "fake_channel_wise_dequantize_max_abs"]
_fake_quant_dequant_op_list = ["fake_quantize_dequantize_moving_average_abs_max"]

_out_scale_op_list = [
    "conv2d",
    "depthwise_conv2d",
    "mul",
    "matmul",
    "relu",
    "leaky_relu",
    "relu6",
    "sigmoid",
    "tanh",
    "prelu",
    "swish",
    "softmax",
    "batch_norm",
    "elementwise_add",
    "pool2d",
    "reshape2",
    "transpose2",
    "concat",
    "elementwise_mul",
    "scale",
]

_XY, _X = [["X", "Y"], ["Out"]], [["X"], ["Out"]]
# op type -> [its real input slots, its real output slots]
_op_real_in_out_name = {
    "conv2d": [["Input", "Filter"], ["Output"]],
    "depthwise_conv2d": [["Input", "Filter"], ["Output"]],
    "slice": [["Input"], ["Out"]],
    "batch_norm": [["X"], ["Y"]],
    **{
        t: _XY
        for t in (
            "mul",
            "matmul",
            "elementwise_add",
            "equal",
            "greater_equal",
            "greater_than",
            "less_equal",
            "less_than",
            "not_equal",
            "elementwise_sub",
            "elementwise_mul",
        )
    },
    **{
        t: _X
        for t in (
            "pool2d",
            "concat",
            "softmax",
            "argmax",
            "transpose",
            "gather",
            "mean",
            "reshape",
            "reshape2",
            "transpose2",
            "bilinear_interp",
            "nearest_interp",
            "trilinear_interp",
            "squeeze",
            "relu",
            "relu6",
            "leaky_relu",
            "prelu",
            "tanh",
            "swish",
            "dropout",
            "sigmoid",
            "scale",
        )
    },
}


# pe's gradient ops of these are split by the input whose gradient they compute (the backward appends the
# one that is needed); each reads the forward inputs Fluid's ``<op>_grad`` reads
_SPLIT_GRAD_OPS = {
    "conv2d": ["conv2d_grad_filter", "conv2d_grad_input"],
    "depthwise_conv2d": ["depthwise_conv2d_grad_filter", "depthwise_conv2d_grad_input"],
    "matmul": ["matmul_grad_x", "matmul_grad_y"],
}


def grad_op_types(op_types):
    """The types of the gradient ops of ``op_types``: Fluid's ``<op>_grad`` and pe's split ones."""
    return [f"{t}_grad" for t in op_types] + [g for t in op_types for g in _SPLIT_GRAD_OPS.get(t, [])]


def _slot_var_names(op, which):
    assert isinstance(op, (IrNode, Operator)), "The input op should be IrNode or Operator."
    op_type = op.name() if isinstance(op, IrNode) else op.type
    get = op.input if which == 0 else op.output
    names = []
    for slot in _op_real_in_out_name[op_type][which]:
        found = get(slot)
        names.extend(found if isinstance(found, list) else [found])
    return names


def _get_op_input_var_names(op):
    """The variable names of an op's (IrNode or Operator) real inputs."""
    return _slot_var_names(op, 0)


def _get_op_output_var_names(op):
    """The variable names of an op's real outputs."""
    return _slot_var_names(op, 1)


def _init_var_node(var_node, value, scope, place):
    """Sets the value of ``var_node``'s variable in ``scope``."""
    assert isinstance(value, np.ndarray), "The type of value should be numpy array."
    assert scope is not None, "The scope cannot be set None."
    assert place is not None, "The place cannot be set None."
    scope.var(var_node.name()).get_tensor().set(value, place)


def _is_input_all_not_persistable(graph, op_node):
    """True when none of the op's real inputs is persistable."""
    return all(
        not graph._find_node_by_name(op_node.inputs, name).persistable() for name in _get_op_input_var_names(op_node)
    )


def float_type(var_node):
    """'float64' for a float64 variable node, else 'float32' (the dtype of the scales made for it)."""
    return "float64" if str(var_node.dtype()) == "float64" else "float32"


def skipped_by_pattern(op_node, skip_pattern):
    """True when the op's name scope holds ``skip_pattern`` (a string, or any of a list's)."""
    desc = op_node.op()
    if not desc.has_attr("op_namescope"):
        return False
    scope = desc.attr("op_namescope")
    if isinstance(skip_pattern, list):
        return any(pattern in scope for pattern in skip_pattern)
    if isinstance(skip_pattern, str):
        return scope.find(skip_pattern) != -1
    return False


def remove_unused_var_nodes(graph):
    """Removes the variable nodes no op reads or writes."""
    used = {n.node for op in graph.all_op_nodes() for n in op.inputs + op.outputs}
    graph.safe_remove_nodes({n for n in graph.all_var_nodes() if n.node not in used})
