"""What the passes over the program share: where each name is read and written, a fused op built
like the op it replaces, and the clone of a program with some ops replaced or dropped."""
import collections

from ...framework.operator import Operator
from ...ops import registry


def uses(ops):
    """(readers, writers): name -> [indices of the ops that read / write it], in order."""
    readers, writers = collections.defaultdict(list), collections.defaultdict(list)
    for n, op in enumerate(ops):
        for name in op.input_arg_names:
            readers[name].append(n)
        for name in op.output_arg_names:
            writers[name].append(n)
    return readers, writers


def writes_between(ops, lo, hi):
    """The names the ops strictly between indices ``lo`` and ``hi`` write."""
    return {name for n in range(lo + 1, hi) for name in ops[n].output_arg_names}


def fused_op(block, type, like, inputs, outputs, attrs):
    """A new op of ``type`` with ``like``'s role, place in the source and op_* attributes, and
    ``attrs``; checked and shape-inferred by the registry (not appended to ``block``)."""
    attrs = dict({k: v for k, v in like.attrs.items() if k.startswith("op_")}, **attrs)
    op = Operator(block, type, inputs, outputs, attrs, like.role, like.source, like.layer)
    registry.prepare(op)
    return op


def rewritten(program, make):
    """A clone of ``program`` in whose global block ``make(block) -> ({index: new op}, {indices to
    drop})`` replaced and dropped ops. The program given is left unchanged."""
    new = program.clone()
    new.__dict__.update({k: v for k, v in program.__dict__.items() if k not in new.__dict__})
    block = new.global_block()
    replace, drop = make(block)
    block.ops = [replace.get(n, op) for n, op in enumerate(block.ops) if n not in drop]
    for op in block.ops:
        for name in op.output_arg_names:
            if name in block.vars:
                block.vars[name].op = op
    return new


def fuse_pairs(program, find_pairs, fuse_pair):
    """The driver of a fusion pass: ``find_pairs(ops, readers, writers)`` lists the (i, j) op index
    pairs to fuse; ``fuse_pair(block, ops, readers, writers, i, j)`` gives ({index: new op},
    {indices to drop}, [change lines]) for one. Returns (the new program, changes), or the program
    itself and [] when nothing fuses."""
    ops = program.global_block().ops
    readers, writers = uses(ops)
    pairs = find_pairs(ops, readers, writers)
    if not pairs:
        return program, []
    changes = []

    def make(block):
        replace, drop = {}, set()
        for i, j in pairs:
            more, dropped, lines = fuse_pair(block, ops, readers, writers, i, j)
            replace.update(more)
            drop.update(dropped)
            changes.extend(lines)
        return replace, drop
    return rewritten(program, make), changes


def op_name(op):
    """'type (layer)' for change lines."""
    return f"{op.type} ({op.layer})" if op.layer else op.type
