"""Fluid 1.8's ``contrib.search_pyramid_hash`` (ops/pyramid_hash.py)."""

from ..base.errors import ArgumentTypeError, FluidUnsupported
from .helper import LayerHelper

__all__ = ["search_pyramid_hash"]


def _filter_list(helper, attr, length, dtype):
    """Fluid's white/black-list parameter [length, 1] (none when length is 0)."""
    if length <= 0:
        return []
    p = helper.create_parameter(attr, [length, 1], dtype)
    p.stop_gradient = True
    return [p]


def _update_vars(distribute_update_vars, attrs):
    if not distribute_update_vars:
        return ""
    assert isinstance(distribute_update_vars, list)
    names = [getattr(a, "name", None) for a in attrs if a]
    for param in distribute_update_vars:
        if param not in names:
            raise ValueError(f"Pyramid Hash layer didn't have parameter {param}")
    return ",".join(distribute_update_vars)


def _check_pyramid_hash(input, use_filter, white_list_len, black_list_len):
    """search_pyramid_hash's refusals: Fluid's Bloom-filter lists, ids other than int32."""
    if use_filter and (white_list_len > 0 or black_list_len > 0):
        raise FluidUnsupported(
            "fluid.contrib.search_pyramid_hash",
            "use_filter with white_list_len or "
            "black_list_len > 0 needs Fluid's Bloom filters in its C library's binary layout, "
            "which pe does not read; set use_filter=False",
        )
    if getattr(input, "dtype", None) != "int32":
        raise ArgumentTypeError(f"search_pyramid_hash: input must be int32 ids, got {getattr(input, 'dtype', input)}")


def search_pyramid_hash(
    input,
    num_emb,
    space_len,
    pyramid_layer,
    rand_len,
    drop_out_percent,
    is_training,
    use_filter,
    white_list_len,
    black_list_len,
    seed,
    lr,
    param_attr=None,
    param_attr_wl=None,
    param_attr_bl=None,
    name=None,
    distribute_update_vars=None,
    dtype="float32",
):
    """Pyramid hash embedding of the n-grams (2..pyramid_layer ids) of each sequence of int32 ids
    ``input`` (LoD level 1): a LoDTensor [kept n-grams (at least one row per sequence), num_emb]
    gathered from W [space_len + rand_len, 1] at XXH32-hashed positions (ops/pyramid_hash.py).
    W is trained by the program's optimizer (Fluid updates it in its grad op by ``lr``; pe keeps
    ``lr`` as the op's attribute only). use_filter with a white or black list is refused."""
    _check_pyramid_hash(input, use_filter, white_list_len, black_list_len)
    helper = LayerHelper("search_pyramid_hash", name=name)
    w = helper.create_parameter(param_attr, [space_len + rand_len, 1], dtype)
    ins = {
        "X": [input],
        "W": [w],
        "WhiteList": _filter_list(helper, param_attr_wl, white_list_len, dtype),
        "BlackList": _filter_list(helper, param_attr_bl, black_list_len, dtype),
    }
    attrs = {
        "num_emb": num_emb,
        "space_len": space_len,
        "pyramid_layer": pyramid_layer,
        "rand_len": rand_len,
        "drop_out_percent": float(drop_out_percent),
        "is_training": int(is_training),
        "use_filter": bool(use_filter),
        "white_list_len": white_list_len,
        "black_list_len": black_list_len,
        "seed": seed,
        "lr": float(lr),
        "distribute_update_vars": _update_vars(distribute_update_vars, (param_attr, param_attr_wl, param_attr_bl)),
    }
    out = helper.create_variable_for_type_inference(dtype)
    drop_pos = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    x_temp = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    helper.append_op(
        "pyramid_hash",
        {k: v for k, v in ins.items() if v},
        {"Out": [out], "DropPos": [drop_pos], "X_Temp_Out": [x_temp]},
        attrs,
    )
    return out
