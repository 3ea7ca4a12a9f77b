"""Copying what makes variables parameters, and a program's distributed settings, from one program
to another (Fluid's ``Program._copy_param_info_from`` / ``_copy_dist_param_info_from``): a copy
that lost them (pruned, parsed from its serialized form) gets them back."""

from .variable import Parameter

# A program's parameter-server settings, as Fluid's transpiler sets them (absent: not distributed).
DIST_FIELDS = (
    "_is_distributed",
    "_is_chief",
    "_parameters_on_pservers",
    "_endpoints",
    "_ps_endpoint",
    "_distributed_lookup_table",
)


def copy_param_info(block, other):
    """Each variable of ``block`` named as a parameter of block ``other`` becomes a Parameter with
    that parameter's training attributes (its own shape, dtype and LoD level kept)."""
    for p in other.all_parameters():
        var = block.vars.get(p.name)
        if var is None:
            continue  # pruned away
        param = Parameter(
            block,
            var.name,
            var.shape,
            var.dtype,
            p.trainable,
            p.initializer,
            p.regularizer,
            dict(p.optimize_attr),
            p.gradient_clip_attr,
            p.do_model_average,
            var.lod_level,
            p.need_clip,
        )
        param.stop_gradient, param.error_clip, param.op = p.stop_gradient, p.error_clip, var.op
        block.vars[var.name] = param
    block.program._bump()


def copy_dist_info(program, other):
    for field in DIST_FIELDS:
        if hasattr(other, field):
            setattr(program, field, getattr(other, field))


def copy_data_info(program, other, pruned_origin_block_id_map=None):
    """``Program._copy_data_info_from`` (Fluid's): each variable of ``program`` that is fed data in
    ``other`` (``is_data``, ``need_check_feed``) is marked so; block i of ``program`` is block
    ``pruned_origin_block_id_map[i]`` of ``other`` (default: the same index). A variable ``other``
    lacks is a ValueError, as in Fluid (``program`` must be a clone of ``other``)."""
    if not isinstance(other, type(program)):
        raise TypeError(
            f"Function Program._copy_param_info_from() needs to pass in a source Program, but received {type(other)}"
        )
    id_map = pruned_origin_block_id_map or {i: i for i in range(len(program.blocks))}
    for i, block in enumerate(program.blocks):
        other_block = other.blocks[id_map[i]]
        for var in list(block.vars.values()):
            other_var = other_block.var(var.name)
            var.is_data = var.is_data or other_var.is_data
            var.need_check_feed = var.need_check_feed or other_var.need_check_feed
