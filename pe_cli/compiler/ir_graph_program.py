"""A ``core.Graph`` (ir_graph.py) as a Program again, Fluid's ``graph_to_program_pass``: one variable
per name of the graph's variable nodes (the first node's desc), the op nodes in the topological
order of ir_graph_order.py. The program the graph was built from lends its other blocks (the
sub-blocks of control-flow ops), so a graph of a program with loops runs as the program did.
Variables come back as plain variables (a Parameter's training attributes stay with the program
the graph was made of), as Fluid's do. An op a pass made with some of its attributes gets the
others' defaults, as Fluid's executor fills them when it creates the op."""

from ..framework import Program
from ..framework.program import Block
from ..framework.variable import Variable
from ..ops import registry
from .ir_graph_order import topology_sort


def graph_to_program(graph, program=None):
    """Fills ``program`` (a new Program by default) with the graph's block and returns it."""
    program = Program() if program is None else program
    origin = graph.program
    block = program.global_block()
    block.vars, block.ops = {}, []
    del program.blocks[1:]
    for node in graph.sorted_nodes():
        desc = node.var()
        if desc is not None and desc.name() not in block.vars:
            block.vars[desc.name()] = _variable(block, desc._var)
    registered = set(registry.all_op_types())
    for node in topology_sort(graph):
        if node.op() is None:
            continue
        op = node.op()._op.clone_into(block)
        if op.type in registered:
            for name, value in registry.get(op.type).default_attrs().items():
                op.attrs.setdefault(name, value)
        block.ops.append(op)
        for name in op.output_arg_names:
            if name in block.vars:
                block.vars[name].op = op
    for sub in origin.blocks[1:]:
        copy = Block(program, sub.idx, sub.parent_idx)
        copy.vars = {name: var.clone_into(copy) for name, var in sub.vars.items()}
        copy.ops = [op.clone_into(copy) for op in sub.ops]
        program.blocks.append(copy)
    program.random_seed, program._follows_paddle2 = origin.random_seed, origin._follows_paddle2
    program._op_versions = getattr(origin, "_op_versions", None)
    program._bump()
    return program


def _variable(block, var):
    copy = Variable(block, name=var.name, **var._copy_fields())
    copy.reader_slots = {k: list(v) for k, v in var.reader_slots.items()}
    return copy
