"""The onednn_blocked_layout pass: values that only oneDNN's convolutions and the ops around them
read and write stay in oneDNN's blocked layout (nChw16c) between those ops, instead of being
converted from and back to NCHW by every convolution (pe_cli/kernels/cpu/blocked.py).

It runs on CPU devices where oneDNN is loaded, when the BuildStrategy's ``fuse_bn_act_ops`` is on:
with the passes over the SSA graph (``blocked_layout``, 2+ devices), and on a single-device
CompiledProgram's plan (``marks``, pe_cli/executor/executor.py). It goes with that option because
the values it holds are a ResNet's: conv -> batch norm (+ relu) -> conv, and the residual stream
between blocks (a batch norm, the add + relu, the gradients' sum, the global average pooling).
The registry says which slots of an op type may hold blocked values (``register(blocked=...)``);
a value is held blocked when:
  - it is a dense float32 NCHW image whose channels are a multiple of 16, written by an op (not
    fed, nor read from a scope), not persistable, fetched or skipped, nor used in a sub-block;
  - every op that reads or writes it takes it blocked in that slot, and the other values of that
    slot's group are blocked too (a batch norm's X, Y and their gradients are one group; so are
    all the values of an elementwise op, define.one_shape_blocked).
Groups make one NCHW value spread: a value that must stay NCHW keeps its whole group NCHW, and
through them their other groups. The marked compute node is a copy (same id) with
``attrs['blocked']``, the set of its slots held blocked; its step runs the op's blocked kernel.

The numbers: the elementwise ops' and the pooling's are the NCHW kernels' bits; a convolution's
are oneDNN's in either layout (an input gradient from and to blocked values may run another
implementation: float32 rounding). The batch norm's sums run in another order on blocked values
(one per channel, over fixed runs of samples: _blocked_loops.py), so its outputs differ from those
of the NCHW loops in the last bits; they do not depend on the threads."""

import copy

from ...base.dtypes import VarType
from ...kernels.cpu.runtime import onednn
from ...ops import registry
from ..ssa_nodes import COMPUTE
from .liveness import pinned_names

NAME = "onednn_blocked_layout"
_LANES = 16


def applies(places):
    """The pass can run on ``places``: CPU devices only, oneDNN loaded."""
    return all(place.kind == "cpu" for place in places) and onednn.library() is not None


def marks(block, fetched=(), skip=(), pinned=()):
    """{op index in ``block``: the set of its slots holding blocked values}, for the ops of a run of
    ``block`` fetching ``fetched``; ``pinned``: more names that must stay NCHW."""
    ops = block.ops
    # what a sub-block's ops (a while, a conditional block) read or write stays NCHW: its kernels are not marked
    inner = {
        n
        for b in block.program.blocks
        if b is not block
        for op in b.ops
        for n in op.input_arg_names + op.output_arg_names
    }
    held = _held(ops, _candidates(block, pinned_names(block, fetched, skip) | set(pinned) | inner))
    out = {}
    for i, op in enumerate(ops):
        slots = frozenset(slot for slot, names in _slots(op) if names and set(names) <= held)
        if slots:
            out[i] = slots
    return out


def blocked_layout(graph, fetched=(), skip=()):
    """Graph -> (a copy of the SSA ``graph`` whose compute nodes on blocked values are marked,
    changes); the graph itself where nothing is held blocked."""
    block = graph.program.global_block()
    moved = {v.name for node in graph.ops if node.kind != COMPUTE for v in node.inputs + node.outputs}
    by_op = {
        id(block.ops[i]): slots for i, slots in marks(block, fetched, skip, moved | set(graph.final_owned)).items()
    }
    if not by_op:
        return graph, []
    g = graph.copy()
    changes = []
    for i, node in enumerate(g.ops):
        slots = by_op.get(id(node.op)) if node.kind == COMPUTE else None
        if slots:
            marked = copy.copy(node)
            marked.attrs = dict(node.attrs, blocked=slots)
            g.ops[i] = marked
            changes.append(f"{node.op.type} on device {node.device}: {', '.join(sorted(slots))} blocked")
    return g, changes


def _slots(op):
    return list(op.inputs.items()) + list(op.outputs.items())


def _candidates(block, pinned):
    """float32 NCHW images (dense tensors, no LoD), channels a multiple of 16, that an op writes
    before any op reads them (not fed, nor read from a scope), not persistable nor ``pinned``."""
    read_first, written = set(), set()
    for op in block.ops:
        read_first.update(n for n in op.input_arg_names if n not in written)
        written.update(op.output_arg_names)
    out = set()
    for name in written - read_first - pinned:
        var = block.vars.get(name)
        shape = var.shape if var is not None else None
        if (
            var is not None
            and not var.persistable
            and var.dtype == "float32"
            and var.type == VarType.LOD_TENSOR
            and not var.lod_level
            and shape is not None
            and len(shape) == 4
            and shape[1] is not None
            and shape[1] > 0
            and shape[1] % _LANES == 0
        ):
            out.add(name)
    return out


def _held(ops, held):
    """``held`` less the names some op cannot take blocked, until no group is split."""
    changed = True
    while changed and held:
        before = len(held)
        for op in ops:
            opdef = registry.get(op.type)
            groups = opdef.blocked(op) if opdef.blocked else ()
            grouped = {slot for group in groups for slot in group}
            for slot, names in _slots(op):
                if slot not in grouped:
                    held -= set(names)
            for group in groups:
                names = {n for slot in group for n in (op.inputs.get(slot) or op.outputs.get(slot) or ())}
                if not names <= held:
                    held -= names
        changed = len(held) != before
    return held
