"""Fluid 1.8's ``contrib.layers`` tdm_child and tdm_sampler (ops/tdm.py): the tree lives in int
parameters the layer creates (zeros unless the ParamAttr's initializer fills them), never trained."""

from ..base.errors import ArgumentTypeError
from ..training.initializer import ConstantInitializer
from .helper import LayerHelper
from .indexing import slice as _slice
from .manipulation import reshape

__all__ = ["tdm_child", "tdm_sampler"]


def _int_dtype(layer, what, dtype):
    if dtype not in ("int32", "int64"):
        raise ArgumentTypeError(f"{layer}: {what} must be 'int32' or 'int64', got {dtype!r}")
    return dtype


def _tree_param(helper, attr, shape, dtype):
    param = helper.create_parameter(attr, shape, dtype, default_initializer=ConstantInitializer(0))
    param.stop_gradient = True
    return param


def tdm_child(x, node_nums, child_nums, param_attr=None, dtype="int32"):
    """(child, leaf_mask) of each node id in x, from the tree info parameter [node_nums, 3 +
    child_nums] (item_id, layer_id, parent_id, children per node)."""
    helper = LayerHelper("tdm_child")
    _int_dtype("tdm_child", "dtype", dtype)
    tree_info = _tree_param(helper, param_attr, [node_nums, 3 + child_nums], dtype)
    child = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    leaf_mask = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(
        "tdm_child",
        {"X": [x], "TreeInfo": [tree_info]},
        {"Child": [child], "LeafMask": [leaf_mask]},
        {"child_nums": child_nums, "dtype": dtype},
    )
    return child, leaf_mask


def _check_layers(neg_samples_num_list, layer_node_num_list, leaf_node_num):
    if len(neg_samples_num_list) != len(layer_node_num_list):
        raise ValueError(
            f"The shape of negative samples list must match the shape of layers. But received len of "
            f"neg_samples_num_list: {len(neg_samples_num_list)},and len of layer_node_num_list: "
            f"{len(layer_node_num_list)}, please check your input."
        )
    assert leaf_node_num is not None, "leaf_node_num should not be None here."
    offsets = [0]
    for i, (negatives, nodes) in enumerate(zip(neg_samples_num_list, layer_node_num_list)):
        if negatives >= nodes:
            raise ValueError(
                f"The number of negative samples must be less than the number of nodes in the layer "
                f"{i}, But received negative nums {negatives}, and num of node at layer {i} is "
                f"{nodes}, please check your input."
            )
        offsets.append(offsets[-1] + nodes)
    assert leaf_node_num < offsets[-1], "leaf_node_num must be less than total node nums."
    return offsets


def _per_layer(values, neg_samples_num_list, positive):
    """values [N, total] cut into one [N, k + positive, 1] tensor per layer."""
    parts, start = [], 0
    for k in neg_samples_num_list:
        end = start + k + positive
        part = reshape(_slice(values, axes=[1], starts=[start], ends=[end]), [-1, k + positive, 1])
        part.stop_gradient = True
        parts.append(part)
        start = end
    return parts


def tdm_sampler(
    x,
    neg_samples_num_list,
    layer_node_num_list,
    leaf_node_num,
    tree_travel_attr=None,
    tree_layer_attr=None,
    output_positive=True,
    output_list=True,
    seed=0,
    tree_dtype="int32",
    dtype="int32",
):
    """(out, labels, mask): per item id in x [N, 1], per layer its path's node and
    neg_samples_num_list[l] negatives of that layer; as lists of [N, k (+1), 1] per layer when
    ``output_list``, else [N, total]."""
    helper = LayerHelper("tdm_sampler")
    _int_dtype("tdm_sampler", "tree_dtype", tree_dtype)
    _int_dtype("tdm_sampler", "dtype", dtype)
    offsets = _check_layers(neg_samples_num_list, layer_node_num_list, leaf_node_num)
    travel = _tree_param(helper, tree_travel_attr, [leaf_node_num, len(layer_node_num_list)], tree_dtype)
    layer = _tree_param(helper, tree_layer_attr, [offsets[-1], 1], tree_dtype)
    outs = [helper.create_variable_for_type_inference(dtype, stop_gradient=True) for _ in range(3)]
    helper.append_op(
        "tdm_sampler",
        {"X": [x], "Travel": [travel], "Layer": [layer]},
        {"Out": [outs[0]], "Labels": [outs[1]], "Mask": [outs[2]]},
        {
            "neg_samples_num_list": list(neg_samples_num_list),
            "output_positive": bool(output_positive),
            "layer_offset_lod": offsets,
            "seed": int(seed),
            "dtype": dtype,
        },
    )
    if output_list:
        outs = [_per_layer(v, neg_samples_num_list, int(bool(output_positive))) for v in outs]
    return tuple(outs)
