"""The fuse_all_optimizer_ops pass (``BuildStrategy.fuse_all_optimizer_ops``): the update ops of one
type (sgd, momentum, adam) with the same attributes, the same learning-rate variable and the same
parameter dtype become one ``fused_sgd`` / ``fused_momentum`` / ``fused_adam`` op
(pe_cli/ops/fused_optimizer.py) over all their parameters, placed where the last of them was: one
node per device instead of one per parameter.

Fluid (fuse_optimizer_op_pass.cc) lays the parameters, gradients and optimizer states of the fused
ops end to end in contiguous buffers and runs the update op once over them. pe's kernels return new
arrays and gradients arrive as separate arrays, so laying them end to end would copy every value
each step; the fused op runs the update kernel on each parameter in turn instead, which keeps the
numbers bitwise those of the separate updates. As in Fluid only updates of dense gradients are fused
(a gradient shape inference knows to be row-sparse, SelectedRows, keeps its update; one only found
at run time reaches the update kernel as it is), and an update op is fused only when moving it
down to the last one changes nothing: no op between them reads what it writes or writes what it
reads (Fluid's HasVarDepsBetweenOps), and Fluid fuses only under ``ReduceStrategy.AllReduce``, where
every device updates every parameter (program.py applies it only there). Unlike Fluid, which fuses
one optimizer type per graph, every type present is fused.

A pass over the program, like fuse_elewise_add_act.py: Program -> (a new Program, changes)."""

from ...ops.fusion_patterns import FUSABLE_OPTIMIZERS, SHARED, UNFUSED_INPUTS, fused_type, per_param_slots
from ...base.dtypes import VarType
from ...ops import registry
from .rewrite import fused_op, rewritten

NAME = "fuse_all_optimizer_ops"


def fuse_all_optimizer_ops(program):
    """Program -> (Program, changes): a clone of ``program`` with each group of update ops fused."""
    ops = program.global_block().ops
    groups = fusable_groups(program)
    if not groups:
        return program, []
    changes = []

    def make(block):
        replace, drop = {}, set()
        for members in groups:
            like = ops[members[-1]]
            ins_slots, out_slots = per_param_slots(registry.get(like.type))
            ins = {slot: [ops[i].input(slot)[0] for i in members] for slot in ins_slots if like.input(slot)}
            ins[SHARED] = like.input(SHARED)
            outs = {slot: [ops[i].output(slot)[0] for i in members] for slot in out_slots if like.output(slot)}
            attrs = {k: v for k, v in like.attrs.items() if not k.startswith("op_")}
            replace[members[-1]] = fused_op(block, fused_type(like.type), like, ins, outs, attrs)
            drop.update(members[:-1])
            changes.append(
                f"{len(members)} {like.type} ops -> {fused_type(like.type)} updating {', '.join(ins['Param'])}"
            )
        return replace, drop

    return rewritten(program, make), changes


def fusable_groups(program):
    """[[indices of the update ops fused into one op, in program order]], each of 2 ops or more."""
    ops = program.global_block().ops
    block = program.global_block()
    candidates = {}
    for i, op in enumerate(ops):
        key = _key(block, op)
        if key is not None:
            candidates.setdefault(key, []).append(i)
    groups = []
    for members in candidates.values():
        last = members[-1]
        members = [i for i in members if i == last or _movable(ops, i, last)]
        if len(members) > 1:
            groups.append(members)
    return sorted(groups)


def _key(block, op):
    """What update ops must share to be fused (type, attributes, learning rate, dtype, the slots
    they fill), or None for an op that is not a fusable update."""
    if op.type not in FUSABLE_OPTIMIZERS or any(op.input(s) for s in UNFUSED_INPUTS):
        return None
    opdef = registry.get(op.type)
    ins, outs = per_param_slots(opdef)
    required = {s.name for s in opdef.inputs if not s.optional}  # an optional one (MasterParam): 0 or 1
    filled = tuple(len(op.input(s)) for s in ins) + tuple(len(op.output(s)) for s in outs)
    if (
        any(n > 1 for n in filled)
        or any(len(op.input(s)) != 1 for s in ins if s in required)
        or len(op.input(SHARED)) != 1
    ):
        return None
    param, grad = block.vars.get(op.input("Param")[0]), block.vars.get(op.input("Grad")[0])
    if grad is not None and grad.type != VarType.LOD_TENSOR:
        return None  # a row-sparse gradient: Fluid fuses only the dense ones
    attrs = repr(sorted((k, v) for k, v in op.attrs.items() if not k.startswith("op_")))
    return (op.type, attrs, op.input(SHARED)[0], getattr(param, "dtype", None), filled)


def _movable(ops, i, last):
    """Whether update op ``i`` can run at ``last`` instead: no op between them writes what it reads
    or writes, or reads what it writes."""
    op = ops[i]
    reads, writes = set(op.input_arg_names), set(op.output_arg_names)
    for other in ops[i + 1 : last]:
        if set(other.output_arg_names) & (reads | writes) or set(other.input_arg_names) & writes:
            return False
    return True
