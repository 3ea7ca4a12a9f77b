"""The enable_backward_optimizer_op_deps pass (``BuildStrategy.enable_backward_optimizer_op_deps``):
control dependencies that make each device run its optimizer ops after its backward pass, one after
another in the order their gradients became final, as Fluid's backward_optimizer_op_deps_pass.

On each device: the optimizer-role compute nodes no other optimizer node leads to (the roots: an
update op, or the first op of a clip or regularization chain feeding one) are sorted by the latest
gradient they read (``graph.param_grads`` order, the order the backward pass finishes them) and
chained, each waiting for the one before; the first waits for the device's last backward node and
for its last gradient aggregation node (the all-reduce of the last gradient). As in Fluid nothing is
added when a device has fewer than two backward nodes or fewer than two roots (one fused update,
fuse_all_optimizer_ops, already reads every gradient). The same nodes run on the same values, so
the numbers are bitwise unchanged; only the order the scheduler may pick among ready nodes is
narrowed. An edge that would close a cycle (a backward node fed by an optimizer node) is left out.

A pass over the SSA graph: Graph -> (a copy with the dependencies, changes); the nodes that gain an
input are copies (same id), and the copy's nodes are put back in a valid sequential order."""

import copy
import heapq

from ...framework.operator import OpRole
from ..ssa_nodes import VarNode

NAME = "enable_backward_optimizer_op_deps"


def backward_optimizer_deps(graph):
    """Graph -> (graph, changes): a copy of the SSA ``graph`` with the control dependencies."""
    position = {node.id: i for i, node in enumerate(graph.ops)}
    grad_order = {grad: k for k, (_, grad) in enumerate(graph.param_grads)}
    grads = set(grad_order)
    g = graph.copy()
    copies, changes = {}, []
    for device in range(graph.num_devices):
        mine = [n for n in graph.ops if device in n.devices]
        backward = [n for n in mine if _role(n) == OpRole.Backward]
        roots = _roots([n for n in mine if _role(n) == OpRole.Optimize])
        if len(backward) < 2 or len(roots) < 2:
            continue
        roots.sort(key=lambda n: (max((grad_order.get(v.name, -1) for v in n.inputs), default=-1), position[n.id]))
        aggregates = [n for n in mine if n.op is None and any(v.name in grads for v in n.outputs)]
        anchors = [backward[-1]] + aggregates[-1:]
        later = _descendants(roots)
        pairs = [(a, roots[0]) for a in anchors if a.id not in later] + list(zip(roots, roots[1:]))
        for before, after in pairs:
            _depend(g, before, after, copies)
            changes.append(f"device {device}: {_name(after)} waits for {_name(before)}")
    if not changes:
        return graph, []
    g.ops = _in_order([copies.get(n.id, n) for n in g.ops])
    return g, changes


def _name(node):
    """'type (its first output)' for change lines."""
    outs = node.op.output_arg_names if node.op is not None else [v.name for v in node.outputs if not v.is_dep]
    return f"{node.label()} ({outs[0]})" if outs else node.label()


def _role(node):
    return None if node.op is None else node.op.role & ~OpRole.Loss


def _children(node):
    return [c for v in node.outputs for c in v.consumers]


def _roots(opt_nodes):
    """The nodes of ``opt_nodes`` (in graph order) that no other node of them leads to."""
    reached, roots = set(), []
    for node in opt_nodes:
        if node.id in reached:
            continue
        roots.append(node)
        reached |= _descendants([node])
    return roots


def _descendants(nodes):
    """Ids of the nodes reachable from ``nodes`` (themselves included)."""
    seen, stack = set(), list(nodes)
    while stack:
        node = stack.pop()
        if node.id not in seen:
            seen.add(node.id)
            stack.extend(_children(node))
    return seen


def _depend(graph, before, after, copies):
    """``after`` (its copy in ``copies``, made here) waits for ``before``; the graph copied from
    is left unchanged."""
    target = copies.get(after.id)
    if target is None:
        target = copies[after.id] = copy.copy(after)
        target.inputs = list(after.inputs)
    dep = VarNode(graph._new_id(), f"dep{len(graph.deps)}", after.device, 0, producer=before, is_dep=True)
    dep.consumers.append(target)
    target.inputs.append(dep)
    graph.deps.append(dep)


def _in_order(nodes):
    """``nodes`` in an order where each runs after the producers of its inputs, otherwise keeping
    their order (the scheduler's longest-path pass needs a valid sequential order)."""
    index = {n.id: i for i, n in enumerate(nodes)}
    waits = [0] * len(nodes)
    succ = [[] for _ in nodes]
    for i, node in enumerate(nodes):
        for var in {v.id: v for v in node.inputs if v.producer is not None}.values():
            waits[i] += 1
            succ[index[var.producer.id]].append(i)
    ready = [i for i, w in enumerate(waits) if w == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        i = heapq.heappop(ready)
        out.append(nodes[i])
        for s in succ[i]:
            waits[s] -= 1
            if waits[s] == 0:
                heapq.heappush(ready, s)
    assert len(out) == len(nodes), "enable_backward_optimizer_op_deps made a cycle"
    return out
