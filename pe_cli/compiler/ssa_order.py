"""The order of an SSA graph's nodes beyond their values (pe_cli/compiler/ssa_graph.py): one value
per name and device, so no reader may see a later one.

- write after read: the readers of a version run before the writer of the next one;
- write after write: writers run in order;
- devices of one memory (CPU): every device reads the same array of a value it took from the
  scope (a parameter, its optimizer state), so the update of that array on its owner runs after
  every device's readers of it, and may write it in place (pe_cli/executor/plan.py);
- ``enable_sequential_execution``: on each device, nodes run in program order.
"""

from .ssa_nodes import COMPUTE


def order_hazards(graph, shared_memory=False):
    """Adds the write-after-read and write-after-write dependencies of ``graph`` (and, with
    ``shared_memory``, those of one array read by every device)."""
    done = set()

    def depend(before, after):
        if (before.id, after.id) not in done:
            done.add((before.id, after.id))
            graph._depend(before, after)

    for versions in list(graph.vars.values()):
        for old, new in zip(versions, versions[1:]):
            writer = new.producer
            readers = [r for r in old.consumers if r is not writer]
            for before in readers if readers else ([old.producer] if old.producer not in (None, writer) else []):
                depend(before, writer)
    if shared_memory:
        graph.shared_updates = _one_array_updates(graph, depend)


def _one_array_updates(graph, depend):
    """Names whose scope array exactly one device updates (its owner): that update runs after every
    device's readers of the array. Returns them (where several devices update one name, each writes a
    new array, and none of them waits for the others)."""
    updaters = {}
    for (device, name), versions in graph.vars.items():
        if len(versions) > 1 and versions[0].producer is None and versions[1].producer.kind == COMPUTE:
            updaters.setdefault(name, []).append(device)
    names = set()
    for name, devices in updaters.items():
        if len(devices) != 1:
            continue
        writer = graph.vars[(devices[0], name)][1].producer
        for d in range(graph.num_devices):
            first = graph.vars.get((d, name)) if d != devices[0] else None
            if first and first[0].producer is None:
                for reader in first[0].consumers:
                    if reader is not writer:
                        depend(reader, writer)
        names.add(name)
    return names


def sequential(graph):
    """enable_sequential_execution: on each device, nodes run in program order."""
    last = {}
    done = {(d.producer.id, c.id) for d in graph.deps for c in d.consumers}
    for node in list(graph.ops):
        for d in node.devices:
            before = last.get(d)
            if before is not None and (before.id, node.id) not in done:
                done.add((before.id, node.id))
                graph._depend(before, node)
            last[d] = node
