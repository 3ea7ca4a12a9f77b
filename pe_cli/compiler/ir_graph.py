"""``core.Graph``: Fluid's IR graph of a program's global block, as Paddle's tests and passes see it:
an op node per op, a variable node per value (a variable an op writes gets a new node, so the
graph is in SSA form, as Fluid's), edges between them, and named attributes. Nodes hold views
(OpDesc, VarDesc) of the program's ops and variables. pe's executors run Programs; this graph is
for inspecting and editing, and what ``with_data_parallel`` builds is its own (ssa_graph.py)."""
from ..base.errors import PeError
from ..framework.program_desc import ProgramDesc


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
        self.inputs = [n for n in self.inputs if n is not node]

    def remove_output(self, node):
        self.outputs = [n for n in self.outputs if n is not node]

    def clear_inputs(self):
        self.inputs = []

    def clear_outputs(self):
        self.outputs = []

    def __repr__(self):
        return f"<Node {self._id} {self._name}>"


class Graph:
    """``Graph(program_desc, start_op_index=0, end_op_index=None)``: the ops of the global block
    in that range (all by default)."""

    CONTROL_VAR = "__control_var"

    def __init__(self, program_desc, start_op_index=0, end_op_index=None):
        if not isinstance(program_desc, ProgramDesc):
            raise TypeError(f"core.Graph takes a ProgramDesc (program.desc or core.ProgramDesc()), "
                            f"got {type(program_desc).__name__}")
        self._program_desc = program_desc
        self._nodes, self._next_id, self._attrs = {}, 0, {}
        block = program_desc._program.global_block()
        latest = {}      # variable name -> the node of its current value
        for op in block.ops[start_op_index:end_op_index]:
            node = self.create_op_node(op.desc)
            for name in op.input_arg_names:
                if name not in latest:
                    latest[name] = self._var_node(block, name)
                node.append_input(latest[name])
                latest[name].append_output(node)
            for name in op.output_arg_names:
                latest[name] = self._var_node(block, name)
                node.append_output(latest[name])
                latest[name].append_input(node)

    def _var_node(self, block, name):
        var = block._find_var_recursive(name)
        return self._add(name, Node.Type.Variable, None if var is None else var.desc)

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

    def retrieve_node(self, id):
        if id not in self._nodes:
            raise PeError(f"Graph.retrieve_node: the graph has no node {id}")
        return self._nodes[id]

    def create_var_node(self, var_desc):
        return self._add(var_desc.name(), Node.Type.Variable, var_desc)

    def create_op_node(self, op_desc):
        return self._add(op_desc.type(), Node.Type.Operation, op_desc)

    def create_empty_node(self, name, node_type):
        return self._add(name, node_type)

    def create_control_dep_var(self):
        return self._add(f"{self.CONTROL_VAR}@{len(self._nodes)}", Node.Type.Variable, control=True)

    def remove_node(self, node):
        self._nodes.pop(node.id(), None)

    def release_nodes(self):
        """Every node, taken out of the graph (which is empty afterwards)."""
        nodes, self._nodes = list(self._nodes.values()), {}
        return nodes

    def resolve_hazard(self, var_nodes):
        """Nothing to add: pe's schedulers order the readers and writers of a variable themselves."""

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
