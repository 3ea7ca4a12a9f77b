"""DOT text for an SSA graph (``to_dot``): ops are boxes, variable versions ellipses, control
dependencies dashed edges; nodes of one device are grouped in a cluster. No graphviz needed to
write it; ``dot -Tsvg graph.dot -o graph.svg`` draws it where graphviz is installed."""

from ..base.atomic_file import atomic_write


def _quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(graph, name="ssa_graph"):
    """The graph as DOT text."""
    lines = [
        f"digraph {_quote(name)} {{",
        "  rankdir=TB;",
        '  node [fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    places = graph.places
    by_device = {d: [] for d in range(graph.num_devices)}
    shared = []

    for op in graph.ops:
        line = f"op{op.id} [label={_quote(op.dot_label())}, {op.dot_style}];"
        (by_device[op.device] if op.device is not None else shared).append(line)

    values = [v for versions in graph.vars.values() for v in versions]
    for v in values:
        line = f"var{v.id} [label={_quote(f'{v.name} (v{v.version})')}, shape=ellipse];"
        by_device.setdefault(v.device, []).append(line)

    for d, items in by_device.items():
        if not items:
            continue
        where = places[d] if d is not None and d < len(places) else d
        lines.append(f"  subgraph cluster_dev{d} {{")
        lines.append(f"    label={_quote(f'device {d}: {where}')}; style=dashed; color=gray;")
        lines.extend("    " + item for item in items)
        lines.append("  }")
    lines.extend("  " + item for item in shared)

    for op in graph.ops:
        for v in op.inputs:
            if not v.is_dep:
                lines.append(f"  var{v.id} -> op{op.id};")
        for v in op.outputs:
            if v.is_dep:
                for c in v.consumers:
                    lines.append(f"  op{op.id} -> op{c.id} [style=dashed, color=gray50, arrowhead=empty];")
            else:
                lines.append(f"  op{op.id} -> var{v.id};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_dot(graph, path):
    """Writes ``to_dot(graph)`` to ``path`` (used by BuildStrategy.debug_graphviz_path)."""
    return atomic_write(path, to_dot(graph))


def ir_graph_dot(graph, marked=(), name="ir_graph"):
    """DOT text for a ``core.Graph`` (ir_graph.py), as Fluid's graph_viz_pass draws it: ops are boxes
    (``marked`` ones filled), variables ellipses (persistable ones filled), control-dependency
    variables small dashed circles."""
    lines = [f"digraph {_quote(name)} {{", '  node [fontname="Helvetica", fontsize=10];']
    for node in graph.sorted_nodes():
        if node.is_op():
            style = "shape=box, style=filled, fillcolor=" + ("red" if node in marked else "yellow")
        elif node.is_ctrl_var():
            style = 'shape=circle, style=dashed, label="", width=0.2'
        else:
            var = node.var()
            style = "shape=ellipse" + (
                ", style=filled, fillcolor=lightgray" if var is not None and var.persistable() else ""
            )
        label = "" if node.is_ctrl_var() else f"label={_quote(node.name())}, "
        lines.append(f"  n{node.id()} [{label}{style}];")
    for node in graph.sorted_nodes():
        lines.extend(f"  n{node.id()} -> n{out.id()};" for out in node.outputs)
    lines.append("}")
    return "\n".join(lines) + "\n"
