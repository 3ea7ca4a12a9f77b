"""The memory_optimize pass (``BuildStrategy.memory_optimize``, ``fluid.memory_optimize``,
``fluid.release_memory``): a temporary's value is released as soon as the last op reading it has
run, so its buffer goes back to the device's allocator and the next value of that size takes it.

On the multi-device SSA graph it inserts, per device and per temporary, a ``release`` node that
waits for every reader of the temporary's last version (or for its writer when nothing reads it)
and then drops the value; on a plain program (the sequential Executor) it gives the list of names
to drop after each op. Values never released: fed, fetched, persistable, the skip set, and values
read from a scope. ``reuse_log`` names, for ``print_log``, which released buffer each later value
can take: ``level`` 0 only one of the same shape and dtype, 1 any one at least as large."""

import numpy as np

from ..ssa_nodes import ReleaseNode, VarNode
from .liveness import pinned_names, sequential_frees

NAME = "memory_optimize"


def memory_optimize(graph, fetched=(), skip=()):
    """Graph -> Graph: a copy of the SSA ``graph`` with release nodes; returns (graph, changes)."""
    pinned = pinned_names(graph.program.global_block(), fetched, skip) | set(graph.final_owned)
    g = graph.copy()
    position = {node.id: i for i, node in enumerate(graph.ops)}
    after = {}  # node id -> release nodes to place right after it
    changes = []
    for (device, name), versions in sorted(graph.vars.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        if name in pinned or any(v.producer is None for v in versions) or versions[-1].is_dep:
            continue
        last = versions[-1]
        waits = list(last.consumers) or [last.producer]
        node = ReleaseNode(g._new_id(), device, None, {"var": name})
        for before in waits:
            _wait(g, before, node)
        last_wait = max(waits, key=lambda n: position[n.id])
        after.setdefault(last_wait.id, []).append(node)
        changes.append(f"release {name} on device {device} after {last_wait.label()}")
    ops = []
    for node in graph.ops:
        ops.append(node)
        ops.extend(after.get(node.id, ()))
    g.ops = ops
    return g, changes


def _wait(graph, before, node):
    """``node`` waits for ``before``; ``before`` is left untouched (the graph copied from shares it)."""
    dep = VarNode(graph._new_id(), f"dep{len(graph.deps)}", node.device, 0, producer=before, is_dep=True)
    dep.consumers.append(node)
    node.inputs.append(dep)
    graph.deps.append(dep)


def program_frees(block, fetched=(), skip=()):
    """For the sequential Executor: ``frees[i]``, the names to drop after op i of ``block``."""
    return sequential_frees(block.ops, pinned_names(block, fetched, skip))


def reuse_log(block, frees, level=0):
    """Lines 'op i (type): Y takes the buffer of X' for each value a released buffer can hold."""
    pool, lines = [], []
    for i, op in enumerate(block.ops):
        for name in op.output_arg_names:
            spec = _spec(block, name)
            if spec is None:
                continue
            for k, (old, old_spec) in enumerate(pool):
                if _fits(spec, old_spec, level):
                    lines.append(f"op {i} ({op.type}): {name} takes the buffer of {old}")
                    pool.pop(k)
                    break
        pool.extend((n, s) for n in frees[i] if (s := _spec(block, n)) is not None)
    return lines


def _spec(block, name):
    var = block.vars.get(name)
    if var is None or var.persistable or var.shape is None or any(d is None for d in var.shape):
        return None
    return tuple(abs(int(d)) for d in var.shape), str(var.dtype)


def _fits(spec, old, level):
    if level == 0:
        return spec == old
    size = int(np.prod(spec[0], dtype=np.int64)) * np.dtype(spec[1]).itemsize
    return size <= int(np.prod(old[0], dtype=np.int64)) * np.dtype(old[1]).itemsize
