"""``paddle.fluid.graphviz``: a small DOT writer (Graph, Node, Edge, Rank) and GraphPreviewGenerator,
which draws parameters, arguments and ops as styled boxes (fluid.debugger and net_drawer use it).
``compile(path)`` writes the DOT file and, where graphviz's ``dot`` is installed, a PDF next to it."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has these names

import functools  # noqa: F401
import logging
import os
import random  # noqa: F401
import shutil
import subprocess

from .unsupported import optional_module
from ..base.atomic_file import atomic_write

six = optional_module("six")


def crepr(v):
    """A string quoted for DOT; anything else as ``str``."""
    return f'"{v}"' if isinstance(v, str) else str(v)


def _attrs(attrs):
    return ",".join(f"{k}={crepr(v)}" for k, v in attrs.items())


class Rank:
    """Nodes DOT keeps on one rank (``{rank=same;a,b}``)."""

    def __init__(self, kind, name, priority):
        self.kind, self.name, self.priority, self.nodes = kind, name, priority, []

    def __str__(self):
        return "{rank=" + self.kind + ";" + ",".join(n.name for n in self.nodes) + "}" if self.nodes else ""


class Node:
    counter = 1

    def __init__(self, label, prefix, description="", **attrs):
        self.label, self.description, self.attrs = label, description, attrs
        self.name = f"{prefix}_{Node.counter}"
        Node.counter += 1

    def __str__(self):
        return f"{self.name} [label={self.label} {',' + _attrs(self.attrs) if self.attrs else ''} ];"


class Edge:
    def __init__(self, source, target, **attrs):
        self.source, self.target, self.attrs = source, target, attrs

    def __str__(self):
        return f"{self.source.name} -> {self.target.name} {'[' + _attrs(self.attrs) + ']' if self.attrs else ''}"


class Graph:
    rank_counter = 0

    def __init__(self, title, **attrs):
        self.title, self.attrs = title, attrs
        self.nodes, self.edges, self.rank_groups = [], [], {}

    def code(self):
        return str(self)

    def rank_group(self, kind, priority):
        name = f"rankgroup-{Graph.rank_counter}"
        Graph.rank_counter += 1
        self.rank_groups[name] = Rank(kind, name, priority)
        return name

    def node(self, label, prefix, description="", **attrs):
        rank = attrs.pop("rank", None)
        node = Node(label, prefix, description, **attrs)
        if rank is not None:
            self.rank_groups[rank].nodes.append(node)
        self.nodes.append(node)
        return node

    def edge(self, source, target, **attrs):
        edge = Edge(source, target, **attrs)
        self.edges.append(edge)
        return edge

    def compile(self, dot_path):
        """Writes the DOT file; draws ``<path without .dot>.pdf`` with graphviz where it is installed
        (a warning names it, as Fluid's does); returns the PDF's path."""
        atomic_write(dot_path, str(self))
        image_path = dot_path[:-3] + "pdf"
        if shutil.which("dot"):
            subprocess.run(["dot", "-Tpdf", dot_path, "-o", image_path], capture_output=True, check=False)
        logging.warning(f"write block debug graph to {image_path}")
        return image_path

    def show(self, dot_path):
        image = self.compile(dot_path)
        viewer = shutil.which("open") or shutil.which("xdg-open")
        if viewer and os.path.exists(image):
            subprocess.Popen([viewer, image], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def __str__(self):
        lines = ["digraph G {", f"title = {crepr(self.title)}"]
        lines += [f"{k}={crepr(v)};" for k, v in self.attrs.items()]
        ranks = sorted(self.rank_groups.values(), key=lambda r: r.priority)
        lines.append("\n".join(str(r) for r in ranks) + "\n")
        lines += [str(n) for n in self.nodes] + [str(e) for e in self.edges] + ["}"]
        return "\n".join(lines)


def _table(name, data_type):
    return (
        f'<<table cellpadding="5">\n  <tr>\n    <td bgcolor="#2b787e">\n    <b>\n{name}\n    </b>\n'
        f"    </td>\n  </tr>\n  <tr>\n    <td>\n{data_type}\n    </td>  </tr>\n</table>>"
    )


class GraphPreviewGenerator:
    """Builds a drawing of a program: ``add_param``, ``add_arg``, ``add_op``, ``add_edge``; calling
    it writes the DOT (and PDF) to ``path``."""

    def __init__(self, title):
        self.graph = Graph(title, layout="dot", concentrate="true", rankdir="TB")
        self.op_rank = self.graph.rank_group("same", 2)
        self.param_rank = self.graph.rank_group("same", 1)
        self.arg_rank = self.graph.rank_group("same", 0)

    def __call__(self, path="temp.dot", show=False):
        return self.graph.show(path) if show else self.graph.compile(path)

    def add_param(self, name, data_type, highlight=False):
        return self.graph.node(
            _table(name, data_type),
            prefix="param",
            description=name,
            shape="none",
            style="rounded,filled,bold",
            width="1.3",
            color="orange" if highlight else "#148b97",
            fontcolor="#ffffff",
            fontname="Arial",
        )

    def add_op(self, opType, highlight=False, **kwargs):  # noqa: N803 -- Fluid's argument name
        return self.graph.node(
            f"<<B>{opType}</B>>",
            prefix="op",
            description=opType,
            shape="box",
            style="rounded, filled, bold",
            color="orange" if highlight else "#303A3A",
            fontname="Arial",
            fontcolor="#ffffff",
            width="1.3",
            height="0.84",
        )

    def add_arg(self, name, highlight=False):
        return self.graph.node(
            crepr(name),
            prefix="arg",
            description=name,
            shape="box",
            style="rounded,filled,bold",
            fontname="Arial",
            fontcolor="#999999",
            color="orange" if highlight else "#dddddd",
        )

    def add_edge(self, source, target, highlight=False, **kwargs):
        return self.graph.edge(source, target, color="orange" if highlight else "#00000", **kwargs)
