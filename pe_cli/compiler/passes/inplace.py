"""The enable_inplace pass (``BuildStrategy.enable_inplace``): an op declared in the registry as able
to write an output over an input (``register(..., inplace=(output slot, input slot))``: the
activations with a numba loop and their gradients, elementwise_add, scale) does so where that
input is dead afterwards: this op is the only reader of its last version, which an op computed (not
a collective, whose value the devices of one memory may share), and it is not fed, fetched,
persistable, skipped or read from a scope. The marked compute node is a copy (same id)
with ``attrs['inplace']``; at run time the step writes over the input only where its array is the
run's own (no view, no planned step's buffer, sharing memory with no other name:
pe_cli/executor/donation.py), so an aliased value is never overwritten. The arithmetic is the same, so the numbers are bitwise unchanged."""

import copy

from ...ops import registry
from ..ssa_nodes import COMPUTE
from .liveness import pinned_names

NAME = "enable_inplace"


def enable_inplace(graph, fetched=(), skip=()):
    """Graph -> Graph: a copy of the SSA ``graph`` whose in-place-able compute nodes are marked;
    returns (graph, changes)."""
    pinned = pinned_names(graph.program.global_block(), fetched, skip) | set(graph.final_owned)
    g = graph.copy()
    changes = []
    for i, node in enumerate(g.ops):
        name = _dead_input(graph, node, pinned)
        if name is None:
            continue
        marked = copy.copy(node)
        marked.attrs = dict(node.attrs, inplace=True)
        g.ops[i] = marked
        out_slot = registry.get(node.op.type).inplace[0]
        changes.append(f"{node.op.type} on device {node.device} writes {node.op.outputs[out_slot][0]} over {name}")
    return g, changes


def _dead_input(graph, node, pinned):
    """The input ``node`` may write over, or None."""
    if node.kind != COMPUTE or node.attrs.get("inplace"):
        return None
    pair = registry.get(node.op.type).inplace
    if not pair:
        return None
    outs, ins = node.op.outputs.get(pair[0], ()), node.op.inputs.get(pair[1], ())
    if len(outs) != 1 or len(ins) != 1 or ins[0] == outs[0] or ins[0] in pinned:
        return None
    name = ins[0]
    versions = graph.vars.get((node.device, name), ())
    if not versions or any(v.producer is None for v in versions):
        return None
    last = versions[-1]
    if last.consumers != [node] or last not in node.inputs:
        return None
    if last.producer.kind != COMPUTE:  # a collective's value (an all-reduced sum, a broadcast): devices share it
        return None
    if sum(1 for n in node.op.input_arg_names if n == name) != 1:  # read through another slot too
        return None
    return name
