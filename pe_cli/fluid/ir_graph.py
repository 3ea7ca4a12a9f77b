"""``paddle.fluid.framework``'s IrGraph, IrNode, IrVarNode and IrOpNode: Fluid's Python view of a
``core.Graph`` (pe_cli/compiler/ir_graph.py), through which its slim passes rewrite programs
(contrib/slim/quantization/). Two wrappers of one node are equal and hash by the node's id, so the
sets ``all_op_nodes()`` and its kin give their nodes in the same order every run."""

import os
import shutil
import subprocess
from collections.abc import Iterable

from ..compiler.ir_graph import Graph, Node
from ..compiler.ir_graph_order import build_adjacency_list, graph_num, has_circle, topology_sort
from ..compiler.ir_graph_program import graph_to_program
from ..compiler.pass_builder import Pass
from ..framework import Block, Program
from ..framework.op_desc import OpDesc
from ..framework.var_desc import VarDesc
from .core_functions import graph_safe_remove_nodes

__all__ = ["IrGraph", "IrNode", "IrOpNode", "IrVarNode"]


class IrNode:
    def __init__(self, node):
        assert isinstance(node, Node), "node must be the instance of core.Node."
        self.node = node

    def __eq__(self, other):
        return isinstance(other, IrNode) and other.node is self.node

    def __hash__(self):
        return hash(self.node.id())

    def __repr__(self):
        return f"<{type(self).__name__} {self.node.id()} {self.node.name()}>"

    def name(self):
        return self.node.name()

    def node_type(self):
        return self.node.node_type()

    def var(self):
        return self.node.var()

    def op(self):
        return self.node.op()

    def id(self):
        return self.node.id()

    def is_op(self):
        return self.node.is_op()

    def is_var(self):
        return self.node.is_var()

    def is_ctrl_var(self):
        return self.node.is_ctrl_var()

    def clear_inputs(self):
        self.node.clear_inputs()

    def remove_input_by_id(self, node_id):
        self.node.remove_input(node_id)

    def remove_input(self, node):
        self.node.remove_input(node.node)

    def append_input(self, node):
        self.node.append_input(node.node)

    def clear_outputs(self):
        self.node.clear_outputs()

    def remove_output_by_id(self, node_id):
        self.node.remove_output(node_id)

    def remove_output(self, node):
        self.node.remove_output(node.node)

    def append_output(self, node):
        self.node.append_output(node.node)

    @property
    def inputs(self):
        return [IrNode(n) for n in self.node.inputs]

    @property
    def outputs(self):
        return [IrNode(n) for n in self.node.outputs]


class IrVarNode(IrNode):
    def __init__(self, node):
        assert isinstance(node, Node) and node.is_var(), (
            "node must be the instance of core.Node and it must be a variable node."
        )
        super().__init__(node)

    def _desc(self):
        assert self.node.var() is not None, "The node variable description can not be None."
        return self.node.var()

    def set_shape(self, shape):
        self._desc().set_shape(shape)

    def persistable(self):
        return self._desc().persistable()

    def type(self):
        return self._desc().type()

    def dtype(self):
        return self._desc().dtype()

    def shape(self):
        return self._desc().shape()

    @property
    def inputs(self):
        return [IrOpNode(n) for n in self.node.inputs]

    @property
    def outputs(self):
        return [IrOpNode(n) for n in self.node.outputs]


class IrOpNode(IrNode):
    def __init__(self, node):
        assert isinstance(node, Node) and node.is_op(), (
            "node must be the instance of core.Node and it must be a operator node."
        )
        super().__init__(node)

    def _desc(self):
        assert self.node.op() is not None, "The node operator description can not be None."
        return self.node.op()

    def rename_input(self, old_input_name, new_input_name):
        self._desc()._rename_input(old_input_name, new_input_name)

    def rename_output(self, old_output_name, new_output_name):
        self._desc()._rename_output(old_output_name, new_output_name)

    def input(self, name):
        return self._desc().input(name)

    def output(self, name):
        return self._desc().output(name)

    def set_type(self, new_type):
        return self._desc().set_type(new_type)

    def set_attr(self, name, val):
        _set_desc_attr(self._desc(), name, val)

    _update_desc_attr = set_attr

    def input_arg_names(self):
        return self._desc().input_arg_names()

    def output_arg_names(self):
        return self._desc().output_arg_names()

    @property
    def inputs(self):
        return [IrVarNode(n) for n in self.node.inputs]

    @property
    def outputs(self):
        return [IrVarNode(n) for n in self.node.outputs]


def _set_desc_attr(desc, name, val):
    if isinstance(val, Block):
        desc.set_block_attr(name, val.desc)
    elif isinstance(val, list) and val and all(isinstance(v, Block) for v in val):
        desc.set_blocks_attr(name, [v.desc for v in val])
    else:
        desc._set_attr(name, val)


def _as_set(nodes):
    if isinstance(nodes, set):
        return nodes
    return set(nodes) if isinstance(nodes, Iterable) else {nodes}


class IrGraph:
    """A graph view of a program (``IrGraph(core.Graph(program.desc), for_test)``): variables and
    operators are nodes."""

    def __init__(self, graph, for_test=False):
        assert isinstance(graph, Graph), "graph must be the instance of core.Graph."
        self.graph = graph
        self._for_test = for_test

    def clone(self):
        return IrGraph(self.graph.clone(), self._for_test)

    def is_test(self):
        return self._for_test

    def all_nodes(self):
        return {IrNode(node) for node in self.graph.nodes()}

    def all_var_nodes(self):
        return {IrVarNode(node) for node in self.graph.nodes() if node.is_var()}

    def all_persistable_nodes(self):
        return {
            IrVarNode(node)
            for node in self.graph.nodes()
            if node.is_var() and node.var() is not None and node.var().persistable()
        }

    def all_op_nodes(self):
        return {IrOpNode(node) for node in self.graph.nodes() if node.is_op()}

    def _new_var_desc(self, name, var_type, shape, var_dtype):
        desc = VarDesc(name)
        desc.set_type(var_type)
        desc.set_shape(shape)
        desc.set_dtype(var_dtype)
        return desc

    def create_persistable_node(self, name, var_type, shape, var_dtype):
        desc = self._new_var_desc(name, var_type, shape, var_dtype)
        desc.set_persistable(True)
        return IrVarNode(self.graph.create_var_node(desc))

    def create_var_node(self, name, var_type, shape, var_dtype):
        return IrVarNode(self.graph.create_var_node(self._new_var_desc(name, var_type, shape, var_dtype)))

    def create_control_dep_var(self):
        return IrVarNode(self.graph.create_control_dep_var())

    def create_var_node_from_desc(self, var_desc):
        return IrVarNode(self.graph.create_var_node(var_desc))

    def create_op_node(self, op_type, attrs, inputs, outputs):
        desc = OpDesc()
        desc.set_type(op_type)
        for attr, value in attrs.items():
            _set_desc_attr(desc, attr, value)
        for slot, nodes in inputs.items():
            desc.set_input(slot, [n.name() for n in (nodes if isinstance(nodes, list) else [nodes])])
        for slot, nodes in outputs.items():
            desc.set_output(slot, [n.name() for n in (nodes if isinstance(nodes, list) else [nodes])])
        return IrOpNode(self.graph.create_op_node(desc))

    def create_op_node_from_desc(self, op_desc):
        return IrOpNode(self.graph.create_op_node(op_desc))

    def _in_graph(self, *nodes):
        held = self.graph.nodes()
        return all(n.node in held for n in nodes)

    def update_input_link(self, old_input_node, new_input_node, op_node):
        assert self._in_graph(old_input_node, new_input_node, op_node), (
            "The three arguments(old_input_node&new_input_node&op_node) must be in the graph nodes."
        )
        old_input_node.remove_output(op_node)
        op_node.remove_input(old_input_node)
        new_input_node.append_output(op_node)
        op_node.append_input(new_input_node)
        op_node.rename_input(old_input_node.name(), new_input_node.name())

    def update_output_link(self, old_output_node, new_output_node, op_node):
        assert self._in_graph(old_output_node, new_output_node, op_node), (
            "The three arguments(old_output_node &new_output_node &op_node) must be in the graph nodes."
        )
        old_output_node.remove_input(op_node)
        op_node.remove_output(old_output_node)
        new_output_node.append_input(op_node)
        op_node.append_output(new_output_node)
        op_node.rename_output(old_output_node.name(), new_output_node.name())

    def link_to(self, node_in, node_out):
        assert self._in_graph(node_in, node_out), "The two arguments(node_in&node_out) must be in the graph nodes."
        node_in.append_output(node_out)
        node_out.append_input(node_in)

    def safe_remove_nodes(self, remove_nodes):
        graph_safe_remove_nodes(self.graph, {n.node for n in _as_set(remove_nodes)})

    def resolve_hazard(self):
        """Control dependencies for the variables' values in the graph's present order."""
        versions = {}
        for node in topology_sort(self.graph):
            if node.op() is None:
                continue
            for name in node.op().input_arg_names():
                versions.setdefault(name, [self._find_node_by_name(node.inputs, name)])
            for name in node.op().output_arg_names():
                versions.setdefault(name, []).append(self._find_node_by_name(node.outputs, name))
        self.graph.resolve_hazard(versions)

    def has_circle(self):
        return has_circle(self.graph)

    def graph_num(self):
        return graph_num(self.graph)

    def topology_sort(self):
        return [IrNode(n) for n in topology_sort(self.graph)]

    def build_adjacency_list(self):
        return {IrNode(k): {IrNode(n) for n in v} for k, v in build_adjacency_list(self.graph).items()}

    def draw(self, save_path, name, marked_nodes=None, remove_ctr_var=True):
        """Writes the graph as ``save_path/name.dot`` (graphviz's DOT), and as PDF where graphviz's
        ``dot`` is installed; ``marked_nodes`` are filled red; control variables are removed first."""
        removed = set()
        if remove_ctr_var:
            removed = {n for n in self.all_var_nodes() if n.is_ctrl_var()}
            self.safe_remove_nodes(removed)
        print(f"Total ops num = {len(self.all_op_nodes())}.")
        if marked_nodes is not None:
            marked = {n.node for n in _as_set(marked_nodes)} - {n.node for n in removed}
            self.graph.set("__graphviz__marked_node__", marked)
        os.makedirs(save_path, exist_ok=True)
        dot_path = os.path.join(save_path, name) + ".dot"
        viz = Pass("graph_viz_pass")
        viz.set("graph_viz_path", dot_path)
        viz.apply(self.graph)
        if (
            shutil.which("dot") is None
            or subprocess.call(["dot", "-Tpdf", dot_path, "-o", os.path.splitext(dot_path)[0] + ".pdf"]) != 0
        ):
            print("The dot command is needed for creating pdf files.")
            print(f"The {dot_path} is saved as the dot filetype.")

    def to_program(self):
        """A Program of the graph (Fluid's graph_to_program_pass)."""
        return graph_to_program(self.graph, Program())

    def _find_node_by_name(self, nodes, node_name):
        target = None
        for n in nodes:
            if n.name() == node_name:
                target = n
        assert target is not None, "Cannot find the target node in the giving set."
        return target

    def _update_desc_attr(self, desc, name, val):
        _set_desc_attr(desc, name, val)
