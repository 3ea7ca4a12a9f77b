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


def rewritten(program, make, blocks=(0,)):
    """A clone of ``program`` in each of whose blocks ``blocks`` (indices; the global block by
    default) ``make(block) -> ({index: new op}, {indices to drop})`` replaced and dropped ops. The
    program given is left unchanged."""
    new = program.clone()
    new.__dict__.update({k: v for k, v in program.__dict__.items() if k not in new.__dict__})
    for idx in blocks:
        block = new.blocks[idx]
        replace, drop = make(block)
        block.ops = [replace.get(n, op) for n, op in enumerate(block.ops) if n not in drop]
        for op in block.ops:
            for name in op.output_arg_names:
                if name in block.vars:
                    block.vars[name].op = op
    return new


def read_elsewhere(program, block):
    """The names the ops of ``program``'s other blocks read: what a loop body reads of its parent,
    or a parent of the body's writes (the control-flow op lists them), or a gradient block of its
    forward block's values. A fusion removes none of them."""
    return {name for b in program.blocks if b is not block for op in b.ops for name in op.input_arg_names}


def removable(block, names, elsewhere):
    """True when a fusion in ``block`` may stop writing ``names``: no other block reads them, and
    in a sub-block they are its own (a name it writes through to its parent outlives the run)."""
    return not (set(names) & elsewhere) and (block.idx == 0 or all(n in block.vars for n in names))


def fuse_pairs(program, find_pairs, fuse_pair):
    """The driver of a fusion pass, over every block (a loop's body too): ``find_pairs(ops,
    readers, writers)`` lists the (i, j) op index pairs of a block to fuse, where op i's outputs
    are no longer written or are written by the fused op; ``fuse_pair(block, ops, readers, writers,
    i, j)`` gives ({index: new op}, {indices to drop}, [change lines]) for one. Returns (the new
    program, changes), or the program itself and [] when nothing fuses."""
    found = {}
    for block in program.blocks:
        ops = block.ops
        readers, writers = uses(ops)
        elsewhere = read_elsewhere(program, block) if len(program.blocks) > 1 else set()
        pairs = [
            (i, j) for i, j in find_pairs(ops, readers, writers) if removable(block, ops[i].output_arg_names, elsewhere)
        ]
        if pairs:
            found[block.idx] = (ops, readers, writers, pairs)
    if not found:
        return program, []
    changes = []

    def make(block):
        ops, readers, writers, pairs = found[block.idx]
        replace, drop = {}, set()
        for i, j in pairs:
            more, dropped, lines = fuse_pair(block, ops, readers, writers, i, j)
            replace.update(more)
            drop.update(dropped)
            changes.extend(lines)
        return replace, drop

    return rewritten(program, make, sorted(found)), changes


def op_name(op):
    """'type (layer)' for change lines."""
    return f"{op.type} ({op.layer})" if op.layer else op.type
