"""``paddle.fluid.net_drawer``: ``draw_graph(startup_program, main_program, filename=...)`` draws the
first block of both programs as DOT, one oval per op (named ``<type>_<n>``), an edge from the op that
made each input (``Feed`` for what no op makes), labelled ``<slot>(<variable>)``, and writes it to
``filename`` (default ``<id>.gv``). (Fluid 1.8.5's own draw_graph fails with a TypeError: it calls
the graphviz package's Graph through its own DOT writer; pe's draws.)"""

from __future__ import print_function  # noqa: F401 -- Fluid's module has these names

import argparse  # noqa: F401
import itertools
import json  # noqa: F401
import logging
from collections import defaultdict  # noqa: F401

from . import core  # noqa: F401
from .graphviz import Graph
from .log_helper import get_logger
from .proto import framework_messages as framework_pb2  # noqa: F401
from ..base.atomic_file import atomic_write

logger = get_logger(__name__, logging.INFO)
OP_STYLE = {"shape": "oval", "color": "#0F9D58", "style": "filled", "fontcolor": "#FFFFFF"}
VAR_STYLE = {}
GRAPH_STYLE = {"rankdir": "TB"}
GRAPH_ID = 0
_ids = itertools.count(1)


def unique_id():
    """A new graph id (1, 2, ...)."""
    return next(_ids)


def draw_node(op):
    """The attributes of an op's node."""
    return dict(OP_STYLE, name=op.type, label=op.type)


def draw_edge(var_parent, op, var, arg):
    """The attributes of the edge into ``op`` for argument ``arg`` of its input slot ``var``."""
    return dict(VAR_STYLE, label=f"{var.parameter}({arg})", head_name=op.type, tail_name=var_parent[arg])


class _Op:
    def __init__(self, op, name):
        self.type, self.op = name, op


class _Slot:
    def __init__(self, parameter):
        self.parameter = parameter


def parse_graph(program, graph, var_dict, **kwargs):
    """Adds the first block's ops of ``program`` to ``graph`` (its nodes by name) and records in
    ``var_dict`` which node made each variable."""
    for block in program.blocks:
        for name in block.vars:
            var_dict.setdefault(name, "Feed")
    nodes = graph.__dict__.setdefault("_pe_nodes", {})  # op node name -> its Node
    for op in program.global_block().ops:
        named = _Op(op, f"{op.type}_{len(nodes)}")
        attrs = draw_node(named)
        nodes[named.type] = graph.node(f'"{attrs.pop("label")}"', prefix=attrs.pop("name"), **attrs)
        for slot, args in op.inputs.items():
            for arg in args:
                if arg in var_dict and var_dict[arg] in nodes:
                    edge = draw_edge(var_dict, named, _Slot(slot), arg)
                    graph.edge(nodes[edge.pop("tail_name")], nodes[edge.pop("head_name")], **edge)
        for args in op.outputs.values():
            for arg in args:
                var_dict[arg] = named.type


def draw_graph(startup_program, main_program, **kwargs):
    """The DOT Graph of both programs' first blocks, written to ``filename`` (default ``<id>.gv``)."""
    style = dict(GRAPH_STYLE, **kwargs.get("graph_attr", {}))
    OP_STYLE.update(kwargs.get("node_attr", {}))
    VAR_STYLE.update(kwargs.get("edge_attr", {}))
    graph_id = unique_id()
    filename = kwargs.get("filename") or f"{graph_id}.gv"
    graph = Graph(str(graph_id), **style)
    var_dict = {}
    parse_graph(startup_program, graph, var_dict)
    parse_graph(main_program, graph, var_dict)
    atomic_write(filename, str(graph))
    return graph
