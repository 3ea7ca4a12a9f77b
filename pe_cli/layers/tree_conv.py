"""Fluid 1.8's ``contrib.layers.tree_conv`` (ops/tree_conv.py)."""

from ..framework.variable import Variable
from .helper import LayerHelper
from .checks import check_type

__all__ = ["tree_conv"]


def tree_conv(
    nodes_vector,
    edge_set,
    output_size,
    num_filters=1,
    max_depth=2,
    act="tanh",
    param_attr=None,
    bias_attr=None,
    name=None,
):
    """A tree convolution of nodes_vector [batch, max_nodes, feature_size] over the trees of
    edge_set [batch, max_edges, 2]; a bias [max_nodes, output_size, num_filters] unless
    bias_attr is False, then ``act``: [batch, max_nodes, output_size, num_filters]."""
    check_type(nodes_vector, "nodes_vector", Variable, "tree_conv")
    check_type(edge_set, "edge_set", Variable, "tree_conv")
    helper = LayerHelper("tree_conv", name=name, act=act, bias_attr=bias_attr)
    dtype = nodes_vector.dtype
    w = helper.create_parameter(param_attr, [nodes_vector.shape[2], 3, output_size, num_filters], dtype)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(
        "tree_conv",
        {"NodesVector": [nodes_vector], "EdgeSet": [edge_set], "Filter": [w]},
        {"Out": [out]},
        {"max_depth": max_depth},
    )
    return helper.append_activation(helper.append_bias_op(out))
