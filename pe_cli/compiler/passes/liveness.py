"""Liveness: after which op each variable is read for the last time, and which variables may never
give their memory away (fed, fetched, persistable, the user's skip set, values read from a scope).

Backward ops are ordinary ops of the block by the time a graph is built, each reading exactly the
forward values its gradient needs (the registry's ``grad_reads``, pe_cli/ops/registry.py), so the
last reader of a forward value is found among them like any other reader."""


def pinned_names(block, fetched=(), skip=()):
    """Names whose values must survive the run: persistable variables, fetched ones, the skip set."""
    pinned = {name for name, var in block.vars.items() if var.persistable}
    pinned.update(_names(fetched))
    pinned.update(_names(skip))
    return pinned


def _names(items):
    return {item if isinstance(item, str) else item.name for item in items or ()}


def sequential_frees(ops, pinned):
    """For ops run one after another: ``frees[i]`` lists the names no op after op i reads or writes,
    that op i or an earlier op wrote, and that are not pinned. Names read before any op writes them
    (fed, or from a scope) are never freed."""
    last, written, outside = {}, set(), set()
    for i, op in enumerate(ops):
        for name in op.input_arg_names:
            if name not in written:
                outside.add(name)
            last[name] = i
        for name in op.output_arg_names:
            written.add(name)
            last[name] = i
    frees = [[] for _ in ops]
    for name, i in last.items():
        if name in written and name not in outside and name not in pinned:
            frees[i].append(name)
    return frees
