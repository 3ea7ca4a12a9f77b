"""Programs as readable text and as Graphviz DOT (written by hand: DOT needs no dependency).

In both, every op shows its role (forward, backward, optimize, lr_sched; the op making the loss is
marked) and where it was built (``lenet.yaml:12 layers[3] fc1``). In DOT, ops are boxes coloured
by role, variables ellipses (parameters gold, feeds grey), edges follow the data.
"""

from ..compiler import passes
from ..compiler.graphviz import to_dot
from ..compiler.ssa_graph import build_ssa_graph
from ..framework import OpRole
from ..base.places import CPUPlace
from .placement import strategies

ROLE_COLORS = {"forward": "#cfe2ff", "backward": "#f8d7da", "optimize": "#d1e7dd", "lr_sched": "#fff3cd"}


def _role(op):
    return OpRole.name(op.role & ~OpRole.Loss)


def _shape(var):
    if var is None or var.shape is None:
        return "?"
    return "[" + ", ".join(str(d) for d in var.shape) + "]"


def program_text(program, title="program"):
    """A program as text: feeds, parameters, then one line per op."""
    block = program.global_block()
    params = [v for v in block.vars.values() if getattr(v, "trainable", None) is not None]
    feeds = [v for v in block.vars.values() if v.is_data]
    lines = [f"{title}: {len(block.ops)} ops, {len(params)} parameters"]
    if feeds:
        lines.append("feeds:")
        width = max(len(v.name) for v in feeds)
        lines += [
            f"  {v.name:<{width}}  {v.dtype}{_shape(v)}" + (f" lod_level={v.lod_level}" if v.lod_level else "")
            for v in feeds
        ]
    if params:
        lines.append("parameters:")
        width = max(len(v.name) for v in params)
        lines += [f"  {v.name:<{width}}  {v.dtype}{_shape(v)}" + ("" if v.trainable else "  (frozen)") for v in params]
    lines.append("ops:")
    lines += _ops_text(block, "  ")
    return "\n".join(lines) + "\n"


def _ops_text(block, indent):
    """One line per op of ``block``; the block an op owns (``sub_block``) follows it, indented."""
    lines = []
    for i, op in enumerate(block.ops):
        outs = ", ".join(f"{n}{_shape(_var(block, n))}" for n in op.output_arg_names)
        ins = ", ".join(f"{slot}={'|'.join(names)}" for slot, names in op.inputs.items() if names)
        attrs = ", ".join(f"{k}={_attr(v)}" for k, v in sorted(op.attrs.items()) if not k.startswith("_"))
        role = _role(op) + ("+loss" if op.role & OpRole.Loss else "")
        where = f"   # {op.source}" if op.source else ""
        lines.append(
            f"{indent}{i:>3} {role:<13} {outs} = {op.type}({ins})" + (f" {{{attrs}}}" if attrs else "") + where
        )
        sub = _sub_block(op)
        if sub is not None:
            lines.append(
                f"{indent}      block {sub.idx} (parent {sub.parent_idx}), run by {op.type}: {len(sub.ops)} ops"
            )
            lines += _ops_text(sub, indent + "      ")
    return lines


def _var(block, name):
    return block._find_var_recursive(name)


def _sub_block(op):
    """The block ``op`` owns (control flow), or None."""
    index = op.attrs.get("sub_block")
    blocks = op.block.program.blocks
    return blocks[index] if isinstance(index, int) and 0 < index < len(blocks) else None


def _sub_block_dot(op, owner_id, depth=1):
    """DOT lines: the block ``op`` owns as a cluster of its ops (nested blocks nested), a dashed
    edge from the owning op to it; variables are shared with the enclosing graph by name."""
    sub = _sub_block(op)
    pad = "  " * (depth + 1)
    out = [
        f"{pad[:-2]}subgraph cluster_block{sub.idx} {{",
        f'{pad}label={q(f"block {sub.idx}: {op.type}")}; fontsize=9; style=rounded; color="#3b6fb6";',
    ]
    for j, inner in enumerate(sub.ops):
        node = f"op:b{sub.idx}:{j}"
        out.append(
            f'{pad}{q(node)} [label="{_esc(inner.type)}", shape=box, style="rounded,filled", '
            f'fillcolor="{ROLE_COLORS.get(_role(inner), "#ffffff")}"];'
        )
        out += [f"{pad}{q('var:' + n)} -> {q(node)};" for n in inner.input_arg_names]
        out += [f"{pad}{q(node)} -> {q('var:' + n)};" for n in inner.output_arg_names]
        if _sub_block(inner) is not None:
            out += _sub_block_dot(inner, node, depth + 1)
    out.append(f"{pad[:-2]}}}")
    if sub.ops:
        out.append(
            f'{pad[:-2]}{q(owner_id)} -> {q(f"op:b{sub.idx}:0")} [style=dashed, color="#3b6fb6", '
            f'label="runs", fontsize=8];'
        )
    return out


def _attr(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def q(text):
    """A DOT double-quoted string."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def program_dot(program, title="program"):
    """A program as a DOT digraph."""
    block = program.global_block()
    out = [
        f"digraph {q(title)} {{",
        "  rankdir=TB;",
        f"  label={q(title)}; labelloc=t; fontname=Helvetica;",
        "  node [fontname=Helvetica, fontsize=10];",
        '  edge [color="#555555", arrowsize=0.6];',
    ]
    used = set()
    for op in block.ops:
        used.update(op.input_arg_names)
        used.update(op.output_arg_names)
    for name in sorted(used):
        var = block.vars.get(name)
        if var is not None and getattr(var, "trainable", None) is not None:
            style = 'shape=ellipse, style=filled, fillcolor="#ffe08a"'
        elif var is not None and var.is_data:
            style = 'shape=ellipse, style=filled, fillcolor="#dddddd"'
        else:
            style = "shape=ellipse"
        out.append(f'  {q("var:" + name)} [label="{_esc(name)}\\n{_esc(_shape(var))}", {style}];')
    clusters = {}  # a layer's backward and update ops: one cluster each, so a training graph reads
    for i, op in enumerate(block.ops):
        role = _role(op)
        color = ROLE_COLORS.get(role, "#ffffff")
        pen = ", penwidth=2.5" if op.role & OpRole.Loss else ""
        tooltip = f"{role}" + (f" | {op.source}" if op.source else "")
        sub = _built_at(op)
        label = _esc(op.type) + (f"\\n{_esc(sub)}" if sub else "")
        node = (
            f'{q(f"op:{i}")} [label="{label}", shape=box, style="rounded,filled", '
            f'fillcolor="{color}", tooltip={q(tooltip)}{pen}];'
        )
        if role in ("backward", "optimize") and sub:
            clusters.setdefault(sub, {}).setdefault(role, []).append(node)
        else:
            out.append("  " + node)
        for name in op.input_arg_names:
            out.append(f"  {q('var:' + name)} -> {q(f'op:{i}')};")
        for name in op.output_arg_names:
            out.append(f"  {q(f'op:{i}')} -> {q('var:' + name)};")
        if _sub_block(op) is not None:
            out += _sub_block_dot(op, f"op:{i}")
    for n, (sub, by_role) in enumerate(clusters.items()):
        what = " and ".join({"backward": "gradient", "optimize": "update"}[r] for r in by_role)
        out.append(f"  subgraph cluster_layer{n} {{")
        out.append(f'    label={q(f"{sub}: {what}")}; fontsize=9; style="rounded,dashed"; color="#999999";')
        out += ["    " + node for nodes in by_role.values() for node in nodes]
        out.append("  }")
    out.append("  subgraph cluster_legend {")
    out.append('    label="op roles"; fontsize=9; style=dashed;')
    for role, color in ROLE_COLORS.items():
        out.append(
            f'    {q("legend:" + role)} [label={q(role)}, shape=box, style="rounded,filled", fillcolor="{color}"];'
        )
    out.append("  }")
    out.append("}")
    return "\n".join(line for line in out if line) + "\n"


def _built_at(op):
    """What an op's box says it belongs to: the model file's layer (``layers[3] fc1``), else the
    Python layer's name (``fc_0``)."""
    if op.source and " " in op.source:
        return op.source.split(" ", 1)[1]
    return op.layer or ""


def _esc(text):
    return str(text).replace("\\", "\\\\").replace('"', '\\"')


def ssa_dot(programs, devices, cfg=None):
    """The multi-device SSA graph of the train program over ``devices`` CPU places, as DOT (the
    graph and its DOT writer come from pe_cli.compiler), with the config's build strategy."""
    strategy = strategies(cfg)[0] if cfg is not None else None
    loss = programs.model.loss
    graph = build_ssa_graph(
        programs.main,
        [CPUPlace(i) for i in range(devices)],
        strategy,
        loss.name if loss is not None else None,
        shared_memory=True,
    )
    name = f"{programs.model.spec.name} on {devices} devices"
    return to_dot(graph, name)


def passes_text(programs, devices, cfg=None):
    """What each graph pass (pe_cli/compiler/passes, in their fixed order) changes in the SSA graph of
    the train program over ``devices`` CPU places with the config's build strategy, fetching the loss."""
    strategy = strategies(cfg)[0] if cfg is not None else None
    loss = programs.model.loss
    fetched = [loss.name] if loss is not None else []
    graph = build_ssa_graph(
        programs.main,
        [CPUPlace(i) for i in range(devices)],
        strategy,
        loss.name if loss is not None else None,
        shared_memory=True,
    ).with_fetches(fetched)
    _, report = passes.apply(graph, fetched, strategy)
    changed = dict(report)
    lines = [f"graph passes of {programs.model.spec.name} on {devices} devices ({len(graph.ops)} nodes), in order:"]
    for name in passes.ORDER:
        if name not in changed:
            lines.append(f"{name}: off (build_strategy.{name})")
            continue
        lines.append(f"{name}: {len(changed[name])} changes")
        lines.extend(f"  {line}" for line in changed[name])
    return "\n".join(lines) + "\n"
