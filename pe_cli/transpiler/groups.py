"""Which optimize ops belong to which parameter, read from a trained program's data flow.

Parameter-server mode runs each parameter's update (its regularization and clipping ops, the update
op, and the ops that advance its optimizer state) on the server that holds the parameter, and the
learning-rate schedule's ops on every server. An optimize op belongs to the parameter whose update op
it feeds, or whose state it advances; the learning rate is shared by all.
"""

from dataclasses import dataclass, field

from ..base.errors import PeError
from ..framework.operator import OpRole
from ..ops.registry import grad_var_name


@dataclass
class ParamGroup:
    param: str
    grad: str  # the gradient backward writes (w@GRAD): what trainers send
    ops: list = field(default_factory=list)  # its optimize ops, in program order
    names: set = field(default_factory=set)  # the variables those ops read or write


def _role(op):
    return op.role & ~OpRole.Loss


def lr_ops(block):
    """The learning-rate schedule's ops (role lr_sched), in order."""
    return [op for op in block.ops if _role(op) == OpRole.LRSched]


def optimize_groups(block):
    """``(groups, shared)``: one ParamGroup per update op (an optimize op with a ``Param`` input), in
    program order, and the names every group reads (learning rates and the schedule's variables).
    A one-line PeError when an optimize op reads several parameters' values (clipping by the global
    norm), which parameter-server mode cannot place on one server."""
    schedule = lr_ops(block)
    shared = {n for op in schedule for n in op.input_arg_names + op.output_arg_names}
    optimize = [op for op in block.ops if _role(op) == OpRole.Optimize]
    groups = []
    for op in optimize:
        if "Param" in op.inputs:
            p = op.input("Param")[0]
            shared.update(op.input("LearningRate"))
            groups.append(ParamGroup(p, grad_var_name(p)))
    update_of = {}
    for g in groups:
        update = next(op for op in optimize if op.input("Param") == [g.param])
        update_of[id(update)] = g
        g.names = set(update.input_arg_names + update.output_arg_names) - shared
    owner = dict(update_of)
    changed = True
    while changed:  # chains: scale -> sum -> update; an op joins when it touches a group
        changed = False
        for op in optimize:
            if id(op) in owner:
                continue
            names = set(op.input_arg_names + op.output_arg_names) - shared
            hits = [g for g in groups if g.names & names]
            if len(hits) > 1:
                raise PeError(
                    f"parameter-server mode: {op.describe()} reads the values of several "
                    f"parameters ({', '.join(g.param for g in hits)}); each parameter is updated "
                    f"on one server, so clipping by the global norm is not supported in this mode"
                )
            if hits:
                owner[id(op)] = hits[0]
                hits[0].names |= names
                changed = True
    for op in optimize:
        group = owner.get(id(op))
        if group is None:
            raise PeError(
                f"parameter-server mode: {op.describe()} belongs to no parameter's update; "
                f"train this program in collective mode (config.mode = 'nccl2')"
            )
        group.ops.append(op)
    return groups, shared
