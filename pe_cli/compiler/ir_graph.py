"""``core.Graph``: Fluid's IR graph of a program's global block, as Paddle's tests and passes see it:
an op node per op, a variable node per value (a variable an op writes gets a new node, so the
graph is in SSA form, as Fluid's), edges between them, and named attributes. As in Fluid, a node
holds its own copy of the op's or variable's desc (a desc of no block: editing the graph leaves the
program as it was), and the graph adds control-dependency variables where one op must wait for
another that reads what it overwrites (``resolve_hazard``). ``to_program`` (ir_graph_program.py)
makes a Program of it again; a CompiledProgram of a graph runs that program."""

from ..base.errors import PeError
from ..framework.op_desc import OpDesc
from ..framework.program_desc import ProgramDesc
from ..framework.var_desc import VarDesc
from ..framework.variable import Variable


class Node:
    class Type:
        Operation, Variable = 0, 1

    def __init__(self, id, name, node_type, desc=None, control=False):
        self._id, self._name, self._type, self._desc, self._control = id, name, node_type, desc, control
        self.inputs, self.outputs = [], []

    def id(self):
        return self._id

    def name(self):
        return self._name

    def node_type(self):
        return self._type

    def is_op(self):
        return self._type == Node.Type.Operation

    def is_var(self):
        return self._type == Node.Type.Variable

    def is_ctrl_var(self):
        return self._control

    def var(self):
        """The VarDesc of a variable node (None for a control-dependency or empty node)."""
        return self._desc if self.is_var() else None

    def op(self):
        """The OpDesc of an op node (None for an empty node)."""
        return self._desc if self.is_op() else None

    def append_input(self, node):
        self.inputs.append(node)

    def append_output(self, node):
        self.outputs.append(node)

    def remove_input(self, node):
        """Drops ``node`` (a node, or a node id) from the inputs."""
        self.inputs = [n for n in self.inputs if not _is(n, node)]

    def remove_output(self, node):
        self.outputs = [n for n in self.outputs if not _is(n, node)]

    def clear_inputs(self):
        self.inputs = []

    def clear_outputs(self):
        self.outputs = []

    def __repr__(self):
        return f"<Node {self._id} {self._name}>"


def _is(node, node_or_id):
    return node.id() == node_or_id if isinstance(node_or_id, int) else node is node_or_id


def copy_var_desc(desc):
    """A VarDesc of a new variable of no block, equal to ``desc``'s."""
    var = desc._var
    copy = Variable(None, name=var.name, **var._copy_fields())
    copy.reader_slots = {k: list(v) for k, v in var.reader_slots.items()}
    return VarDesc(copy)


def copy_op_desc(desc):
    """An OpDesc of a new op of no block, equal to ``desc``'s."""
    return OpDesc(desc._op.clone_into(None))


class Graph:
    """``Graph(program_desc, start_op_index=0, end_op_index=None)``: the ops of the global block
    in that range (all by default), and the block's variables no op names (isolated nodes)."""

    CONTROL_VAR = "__control_var"

    def __init__(self, program_desc, start_op_index=0, end_op_index=None):
        if not isinstance(program_desc, ProgramDesc):
            raise TypeError(
                f"core.Graph takes a ProgramDesc (program.desc or core.ProgramDesc()), "
                f"got {type(program_desc).__name__}"
            )
        self._program_desc = program_desc
        self._nodes, self._next_id, self._attrs = {}, 0, {}
        self.resolve_hazard(
            self._init_from_block(
                program_desc._program.global_block(),
                start_op_index,
                end_op_index,
                start_op_index == 0 and end_op_index is None,
            )
        )

    def _init_from_block(self, block, start, end, whole):
        """Fluid's InitFromProgram: {variable name: its nodes, one per value, in order}."""
        versions, unnamed = {}, dict(block.vars) if whole else {}
        for op in block.ops[start:end]:
            node = self.create_op_node(op.desc)
            for name in _arg_names(op.inputs):
                unnamed.pop(name, None)
                if name not in versions:
                    versions[name] = [self._var_node(block, name)]
                _link(versions[name][-1], node)
            for name in _arg_names(op.outputs):
                unnamed.pop(name, None)
                versions.setdefault(name, []).append(self._var_node(block, name))
                _link(node, versions[name][-1])
        for name, var in unnamed.items():
            versions[name] = [self.create_var_node(var.desc)]
        return versions

    def _var_node(self, block, name):
        var = block._find_var_recursive(name)
        return self.create_empty_node(name, Node.Type.Variable) if var is None else self.create_var_node(var.desc)

    def _add(self, name, node_type, desc=None, control=False):
        node = Node(self._next_id, name, node_type, desc, control)
        self._nodes[node.id()] = node
        self._next_id += 1
        return node

    def origin_program_desc(self):
        return self._program_desc

    @property
    def program(self):
        """The pe Program the graph was built from."""
        return self._program_desc._program

    # -- nodes ---------------------------------------------------------------------------------
    def nodes(self):
        return set(self._nodes.values())

    def sorted_nodes(self):
        """The nodes in the order they were made (by id)."""
        return [self._nodes[i] for i in sorted(self._nodes)]

    def retrieve_node(self, id):
        if id not in self._nodes:
            raise PeError(f"Graph.retrieve_node: the graph has no node {id}")
        return self._nodes[id]

    def create_var_node(self, var_desc):
        """A variable node holding a copy of ``var_desc``."""
        return self._add(var_desc.name(), Node.Type.Variable, copy_var_desc(var_desc))

    def create_op_node(self, op_desc):
        """An op node holding a copy of ``op_desc``."""
        return self._add(op_desc.type(), Node.Type.Operation, copy_op_desc(op_desc))

    def create_empty_node(self, name, node_type):
        return self._add(name, node_type)

    def create_control_dep_var(self):
        return self._add(f"{self.CONTROL_VAR}@{self._next_id}", Node.Type.Variable, control=True)

    def remove_node(self, node):
        self._nodes.pop(node.id(), None)

    def release_nodes(self):
        """Every node, taken out of the graph (which is empty afterwards)."""
        nodes, self._nodes = list(self._nodes.values()), {}
        return nodes

    def clone(self):
        """A copy of the nodes (their descs copied) and edges; the attributes are not copied (Fluid's)."""
        new = Graph.__new__(Graph)
        new._program_desc, new._nodes, new._next_id, new._attrs = self._program_desc, {}, 0, {}
        copies = {}
        for node in self.sorted_nodes():
            if node.is_ctrl_var():
                copies[node] = new.create_control_dep_var()
            elif node._desc is None:
                copies[node] = new.create_empty_node(node.name(), node.node_type())
            elif node.is_var():
                copies[node] = new.create_var_node(node.var())
            else:
                copies[node] = new.create_op_node(node.op())
        for node, copy in copies.items():
            copy.inputs = [copies[n] for n in node.inputs if n in copies]
            copy.outputs = [copies[n] for n in node.outputs if n in copies]
        return new

    def resolve_hazard(self, var_nodes):
        """Control-dependency variables so that an op writing a new value of a variable runs after
        the writer of its last value and after that value's readers (Fluid's ResolveHazard:
        write after write, write after read). ``var_nodes``: name -> the variable's nodes in order."""
        for versions in var_nodes.values():
            for old, new in zip(versions[:-1], versions[1:]):
                if not new.inputs:
                    raise PeError(f"core.Graph: variable '{new.name()}' has a later value that no op writes")
                writer = new.inputs[0]
                upstream = old.inputs[0] if old.inputs else None
                if upstream is not None and upstream is not writer:
                    self._control_dep(upstream, writer)
                for reader in list(old.outputs):
                    if reader is writer or any(v in writer.inputs for v in reader.outputs):
                        continue
                    self._control_dep(reader, writer)

    def _control_dep(self, before, after):
        dep = self.create_control_dep_var()
        _link(before, dep)
        _link(dep, after)

    # -- attributes ----------------------------------------------------------------------------
    def has(self, name):
        return name in self._attrs

    def set(self, name, value):
        self._attrs[name] = value

    set_not_owned = set

    def get(self, name):
        if name not in self._attrs:
            raise PeError(f"Graph: no attribute '{name}'; set it with graph.set(name, value)")
        return self._attrs[name]

    get_int = get_float = get_string = get_marked_nodes = get

    def erase(self, name):
        self.get(name)
        del self._attrs[name]


def _arg_names(slots):
    """An op's argument names slot by slot, the slots in name order (as Fluid's OpDesc keeps them), so
    a node's inputs and outputs come in Fluid's order."""
    return [name for slot in sorted(slots) for name in slots[slot]]


def _link(source, target):
    source.append_output(target)
    target.append_input(source)
