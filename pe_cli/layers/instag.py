"""The filter_by_instag layer (ops/instag.py) with Fluid 1.8's signature."""

__all__ = ["filter_by_instag"]
from .helper import LayerHelper


def filter_by_instag(ins, ins_tag, filter_tag, is_lod, out_val_if_empty=0):
    """[the instances of ``ins`` (rows, or its sequences with ``is_lod``) whose tags (``ins_tag``,
    int64 with a LoD per instance) meet ``filter_tag``, with a LoD over them; their loss weights
    (float32 [kept, 1], ones)]. None kept: one row of ``out_val_if_empty`` and a weight of 0."""
    helper = LayerHelper("filter_by_instag", ins=ins)
    out = helper.create_variable_for_type_inference(ins.dtype)
    weight = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    index_map = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op(
        "filter_by_instag",
        {"Ins": [ins], "Ins_tag": [ins_tag], "Filter_tag": [filter_tag]},
        {"Out": [out], "LossWeight": [weight], "IndexMap": [index_map]},
        {"is_lod": bool(is_lod), "out_val_if_empty": int(out_val_if_empty)},
    )
    return [out, weight]
