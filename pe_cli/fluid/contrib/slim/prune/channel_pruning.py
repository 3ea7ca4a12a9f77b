"""Removing output channels of a conv from a program and its scope: the conv's filters, then along
the data path the bias, batch norm statistics, the next conv's input channels or the fc rows that
read them, each parameter's optimizer state with it, and every variable's shape on the way."""

import numpy as np

from .....base.errors import PeError
from .....framework.operator import OpRole

__all__ = ["ChannelPruneError", "prune_conv_filters"]

_PASS_THROUGH = {
    "relu",
    "relu6",
    "leaky_relu",
    "sigmoid",
    "tanh",
    "swish",
    "hard_swish",
    "elu",
    "dropout",
    "pool2d",
    "scale",
    "softsign",
    "brelu",
    "hard_sigmoid",
}
_BN_PARAMS = ("Scale", "Bias", "Mean", "Variance")


class ChannelPruneError(PeError, ValueError):
    """A conv whose output feeds an op pe does not know how to shrink."""


class _Plan:
    """Tensors to shrink in the scope ((name, axis, indices)) and variable shapes to change."""

    def __init__(self):
        self.tensors, self.shapes = [], {}

    def shrink(self, name, axis, idx):
        self.tensors.append((name, axis, idx))

    def resize(self, name, axis, size):
        self.shapes[name] = (axis, size)


def _forward_ops(block):
    return [op for op in block.ops if op.role & ~OpRole.Loss == OpRole.Forward]


def _follow(block, var, idx, channels, plan, param):
    """Shrinks what reads channel axis 1 of ``var`` (``channels`` channels before pruning)."""
    kept = channels - len(idx)
    plan.resize(var, 1, kept)
    for op in _forward_ops(block):
        if var not in op.input_arg_names:
            continue
        if op.type == "elementwise_add" and op.input("X") == [var] and op.attrs.get("axis") == 1:
            plan.shrink(op.input("Y")[0], 0, idx)
            _follow(block, op.output("Out")[0], idx, channels, plan, param)
        elif op.type == "batch_norm" and op.input("X") == [var]:
            for slot in _BN_PARAMS:
                plan.shrink(op.input(slot)[0], 0, idx)
            for slot in ("SavedMean", "SavedVariance"):
                plan.resize(op.output(slot)[0], 0, kept)
            _follow(block, op.output("Y")[0], idx, channels, plan, param)
        elif op.type in _PASS_THROUGH and op.input("X") == [var]:
            _follow(block, op.output("Out")[0], idx, channels, plan, param)
        elif (
            op.type in ("conv2d", "depthwise_conv2d") and op.input("Input") == [var] and op.attrs.get("groups", 1) == 1
        ):
            plan.shrink(op.input("Filter")[0], 1, idx)
        elif op.type == "mul" and op.input("X") == [var] and op.attrs.get("x_num_col_dims") == 1:
            plan.shrink(op.input("Y")[0], ("rows", channels), idx)
        else:
            raise ChannelPruneError(
                f"cannot prune the filters of {param}: its output {var} feeds a {op.type} op, "
                "which pe's pruner does not shrink; leave it out of pruned_params"
            )


def plan_conv_pruning(program, param, idx):
    """The _Plan that removes output channels ``idx`` of the conv whose filter is ``param``."""
    block = program.global_block()
    convs = [
        op for op in _forward_ops(block) if op.type in ("conv2d", "depthwise_conv2d") and op.input("Filter") == [param]
    ]
    if not convs:
        raise ChannelPruneError(f"cannot prune {param}: no conv2d of the program reads it as its Filter")
    plan = _Plan()
    channels = block.var(param).shape[0]
    plan.shrink(param, 0, idx)
    for op in convs:
        _follow(block, op.output("Output")[0], idx, channels, plan, param)
    return plan


def _shrink(tensor, axis, idx):
    if isinstance(axis, tuple):  # an fc weight: rows are (channel, position) pairs
        channels = axis[1]
        t = tensor.reshape(channels, -1, tensor.shape[-1])
        return np.delete(t, idx, axis=0).reshape(-1, tensor.shape[-1])
    return np.delete(tensor, idx, axis=axis)


def _optimizer_states(programs, name):
    """The optimizer accumulators of parameter ``name`` that have its shape (moments, velocity)."""
    for program in programs:
        for op in program.global_block().ops:
            if op.input("Param") == [name]:
                for slot, names in op.inputs.items():
                    if slot not in ("Param", "Grad", "LearningRate"):
                        yield from names


def apply_plan(plan, programs, scope, place):
    """Shrinks the plan's tensors in ``scope`` (with same-shaped optimizer states) and the shapes of
    the variables (and their gradients) in every program."""
    for name, axis, idx in plan.tensors:
        old = np.array(scope.find_var(name).get_tensor())
        targets = [name] + [
            s
            for s in set(_optimizer_states(programs, name))
            if scope.find_var(s) is not None and np.array(scope.find_var(s).get_tensor()).shape == old.shape
        ]
        for target in targets:
            value = _shrink(np.array(scope.find_var(target).get_tensor()), axis, idx)
            scope.var(target).get_tensor().set(value, place)
            set_shape(programs, target, value.shape)
        set_shape(programs, name + "@GRAD", _shrink(old, axis, idx).shape)
    for name, (axis, size) in plan.shapes.items():
        for var_name in (name, name + "@GRAD"):
            for program in programs:
                var = program.global_block().vars.get(var_name)
                if var is not None and var.shape is not None and len(var.shape) > axis:
                    var.shape = tuple(size if i == axis else d for i, d in enumerate(var.shape))
    for program in programs:
        program._bump()


def set_shape(programs, name, shape):
    """The variable ``name``'s shape set to ``shape`` in each of ``programs`` that declares it."""
    for program in programs:
        var = program.global_block().vars.get(name)
        if var is not None:
            var.shape = tuple(shape)


def prune_conv_filters(programs, scope, place, param, idx):
    """Removes output channels ``idx`` of conv filter ``param`` from ``scope`` and ``programs`` (the
    first one is where the data path is followed)."""
    apply_plan(plan_conv_pruning(programs[0], param, idx), programs, scope, place)
