"""Orders over a ``core.Graph`` (pe_cli/compiler/ir_graph.py), as Fluid's graph_helper computes them:
each op's predecessor ops, a topological order of the ops, circles, connected parts. Ties go by
node id, as Fluid's NodeComp orders them, so the same graph gives the same order."""


def build_adjacency_list(graph):
    """{op node: set of the op nodes whose outputs it reads} over every op node (Fluid's
    BuildOperationAdjList)."""
    return {node: {w for v in node.inputs for w in v.inputs} for node in graph.nodes() if node.is_op()}


def _by_id(nodes):
    return sorted(nodes, key=lambda n: n.id())


def _find_circle(adj):
    """True when some op, through its predecessors, reaches itself."""
    state = {}  # node -> 1 on the current path, 2 done
    for start in _by_id(adj):
        if start in state:
            continue
        state[start] = 1
        stack = [(start, iter(_by_id(adj[start])))]
        while stack:
            node, preds = stack[-1]
            for pred in preds:
                if state.get(pred) == 1:
                    return True
                if pred not in state:
                    state[pred] = 1
                    stack.append((pred, iter(_by_id(adj[pred]))))
                    break
            else:
                state[node] = 2
                stack.pop()
    return False


def topology_sort(graph):
    """The graph's op nodes, each after the ops whose outputs it reads: Fluid's TopologySortOperations,
    a depth-first walk of the predecessors from each op in id order. A circle is a RuntimeError."""
    adj = build_adjacency_list(graph)
    if _find_circle(adj):
        raise RuntimeError("topology_sort: the graph has a circle")
    order, visited = [], set()
    for start in _by_id(adj):
        if start in visited:
            continue
        visited.add(start)
        stack = [(start, iter(_by_id(adj[start])))]
        while stack:
            node, preds = stack[-1]
            pred = next((p for p in preds if p not in visited), None)
            if pred is None:
                stack.pop()
                order.append(node)
            else:
                visited.add(pred)
                stack.append((pred, iter(_by_id(adj[pred]))))
    return order


def has_circle(graph):
    """True when following the edges from some op leads back to it."""
    return _find_circle(build_adjacency_list(graph))


def graph_num(graph):
    """The number of connected parts of the graph (edges taken both ways)."""
    seen, parts = set(), 0
    for start in graph.nodes():
        if start in seen:
            continue
        parts += 1
        stack = [start]
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(node.inputs + node.outputs)
    return parts
