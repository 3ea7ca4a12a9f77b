"""A model file drawn as Caffe's draw_net draws a net: one box per YAML layer (its name, type and the
line that declares it), feeds as grey ellipses, and an edge for each value a layer reads from a feed
or an earlier layer, labelled with that value's shape. Parameters stay inside their layer's box."""

from ..framework import Parameter
from .graph import q, _shape


def layer_dot(spec, program, title):
    """The model's layers as DOT, from ``program`` (its forward program) and ``spec`` (the model file)."""
    block = program.global_block()
    by_location = {layer.location: layer.name for layer in spec.layers}  # ops remember where they were built
    producer = {name: name for name in spec.feeds}
    for op in block.ops:
        for out in op.output_arg_names:
            producer.setdefault(out, by_location.get(op.source))
    edges = {}
    for op in block.ops:
        layer = by_location.get(op.source)
        for name in op.input_arg_names:
            source, var = producer.get(name), block.vars.get(name)
            if source and layer and source != layer and not isinstance(var, Parameter):
                edges.setdefault((source, layer), _shape(var))
    out = [
        f"digraph {q(title)} {{",
        "  rankdir=TB;",
        f"  label={q(title)}; labelloc=t; fontname=Helvetica;",
        "  node [fontname=Helvetica, fontsize=10];",
        '  edge [fontname=Helvetica, fontsize=9, color="#555555"];',
    ]
    for name in spec.feeds:
        label = q("\n".join((name, _shape(block.vars.get(name)))))
        out.append(f'  {q(name)} [label={label}, shape=ellipse, style=filled, fillcolor="#dddddd"];')
    for layer in spec.layers:
        label = q("\n".join((layer.name, layer.type, layer.location.split(" ", 1)[0])))
        out.append(
            f'  {q(layer.name)} [label={label}, shape=box, style="rounded,filled", '
            f'fillcolor="#cfe2ff", tooltip={q(layer.location)}];'
        )
    for (source, target), shape in edges.items():
        out.append(f"  {q(source)} -> {q(target)} [label={q(shape)}];")
    out.append("}")
    return "\n".join(out) + "\n"
