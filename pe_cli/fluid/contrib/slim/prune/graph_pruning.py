"""The three ways Fluid 1.8.5's pruning strategies prune a parameter's filters (its
``PruneStrategy._prune_parameters``), over pe's pruning plan (channel_pruning.py: the filters, then
along the data path the bias, batch norm, the next conv's input channels or fc rows): for real (the
tensors cut down in the scope, the shapes in the programs), lazily (the pruned slices set to zero,
shapes kept: a sensitivity's trial) or in the graph only (the parameters' shapes alone, as Fluid's:
a FLOPs estimate). Each records what it changed first, so the strategy can put it back."""

import numpy as np

from .channel_pruning import _optimizer_states, apply_plan, plan_conv_pruning, set_shape


def _shape_after(shape, axis, count):
    shape = list(shape)
    if isinstance(axis, tuple):  # an fc weight: rows are (channel, position) pairs
        shape[0] -= count * (shape[0] // axis[1])
    else:
        shape[axis] -= count
    return shape


def _zeroed(tensor, axis, idx):
    out = tensor.copy()
    if isinstance(axis, tuple):
        view = out.reshape(axis[1], -1, out.shape[-1])
        view[idx] = 0
        return view.reshape(tensor.shape)
    index = [slice(None)] * out.ndim
    index[axis] = idx
    out[tuple(index)] = 0
    return out


def pruned_idx(pruner, scope, name, ratio):
    """The filters of ``name`` the pruner removes at ``ratio``."""
    return pruner.cal_pruned_idx(name, np.array(scope.find_var(name).get_tensor()), ratio, axis=0)


def prune(programs, scope, place, name, idx, mode, value_backup=None, shape_backup=None):
    """Prunes filters ``idx`` of conv filter ``name`` (the data path followed in ``programs[0]``);
    ``mode``: 'real', 'lazy' or 'graph'. ``value_backup`` / ``shape_backup`` (name -> array / (program
    index, shape)) get the values and shapes it changes, the first time each is changed."""
    plan = plan_conv_pruning(programs[0], name, idx)
    if mode == "lazy":
        for var, axis, index in plan.tensors:
            tensor = np.array(scope.find_var(var).get_tensor())
            if value_backup is not None:
                value_backup.setdefault(var, tensor)
            scope.find_var(var).get_tensor().set(_zeroed(tensor, axis, index), place)
        return plan
    _backup_shapes(programs, plan, scope, shape_backup)
    if mode == "graph":  # the parameters' shapes, as Fluid's only_graph (its FLOPs read them)
        for var, axis, index in plan.tensors:
            set_shape(programs, var, _shape_after(programs[0].global_block().var(var).shape, axis, len(index)))
        for program in programs:
            program._bump()
        return plan
    if value_backup is not None:
        for var, _, _ in plan.tensors:
            for target in [var] + sorted(set(_optimizer_states(programs, var))):
                if scope.find_var(target) is not None:
                    value_backup.setdefault(target, np.array(scope.find_var(target).get_tensor()))
    apply_plan(plan, programs, scope, place)
    return plan


def _touched(plan, programs):
    names = [var for var, _, _ in plan.tensors] + list(plan.shapes)
    names += [s for var, _, _ in plan.tensors for s in _optimizer_states(programs, var)]
    return names + [n + "@GRAD" for n in names]


def _backup_shapes(programs, plan, scope, shape_backup):
    if shape_backup is None:
        return
    for i, program in enumerate(programs):
        for name in _touched(plan, programs):
            var = program.global_block().vars.get(name)
            if var is not None and var.shape is not None:
                shape_backup.setdefault((i, name), tuple(var.shape))


def restore(programs, scope, place, value_backup=None, shape_backup=None):
    """Puts back what ``prune`` recorded (and empties the records)."""
    for name, value in (value_backup or {}).items():
        scope.var(name).get_tensor().set(value, place)
    for (i, name), shape in (shape_backup or {}).items():
        var = programs[i].global_block().vars.get(name)
        if var is not None:
            var.shape = shape
    for program in programs:
        program._bump()
    for record in (value_backup, shape_backup):
        if record is not None:
            record.clear()


def sync_shapes(program, target):
    """Every variable of ``program`` takes the shape of ``target``'s variable of its name (Fluid's
    ``_prune_graph``: the eval graph follows the pruned optimize graph)."""
    source = target.global_block().vars
    for name, var in program.global_block().vars.items():
        if name in source and source[name].shape is not None:
            var.shape = tuple(source[name].shape)
    program._bump()


__all__ = ["prune", "pruned_idx", "restore", "sync_shapes"]
