"""``BuildStrategy._finalize_strategy_and_create_passes()``: the list of Fluid's graph passes a
strategy turns on, as a PassBuilder. The passes of the options are pe's (compiler/passes/, run in
their fixed order), so they come and go with their options, not through the builder; what the
builder adds is Fluid's ``graph_viz_pass``: with ``set("graph_viz_path", path)`` the data-parallel
graph is written there as DOT when it is built. ``debug_graphviz_path`` is a prefix, as Fluid's: the
graph goes to ``<prefix>_multi_devices_graph`` (Fluid 1.8.5 writes that file, and its single-device
``_original_graph`` and ``_fused_graph``, which pe's one graph has no counterpart of)."""

from ..base.atomic_file import atomic_write
from ..base.errors import PeError
from .graphviz import ir_graph_dot
from .ir_graph_program import graph_to_program

# Fluid's suffix of the file its multi_devices_print_pass writes after debug_graphviz_path
MULTI_DEVICES_GRAPH = "_multi_devices_graph"
# BuildStrategy option -> the name of Fluid's pass that the option turns on
OPTION_PASSES = {
    "enable_sequential_execution": "sequential_execution_pass",
    "fuse_relu_depthwise_conv": "fuse_relu_depthwise_conv_pass",
    "fuse_elewise_add_act_ops": "fuse_elewise_add_act_pass",
    "fuse_bn_act_ops": "fuse_bn_act_pass",
    "enable_auto_fusion": "fusion_group_pass",
    "fuse_all_optimizer_ops": "fuse_optimizer_ops_pass",
    "fuse_all_reduce_ops": "fuse_all_reduce_op_pass",
    "enable_inplace": "buffer_shared_inplace_pass",
    "memory_optimize": "buffer_shared_cross_op_memory_reuse_pass",
    "enable_backward_optimizer_op_deps": "backward_optimizer_op_deps_pass",
}
GRAPH_VIZ = "graph_viz_pass"


class Pass:
    """A pass by Fluid's name (``core.get_pass``). ``apply(graph)`` on a ``core.Graph`` runs the two
    that are plain graph work: ``graph_to_program_pass`` (into the ProgramDesc set as ``program``)
    and ``graph_viz_pass`` (DOT text to ``graph_viz_path``); pe's optimization passes run in their
    fixed order when their BuildStrategy option is on, not one by one."""

    def __init__(self, type, option=None):
        self._type, self._option, self._attrs = type, option, {}

    def type(self):
        return self._type

    def set(self, name, value):
        self._attrs[name] = value

    set_str = set_int = set_bool = set

    def has(self, name):
        return name in self._attrs

    def get(self, name):
        return self._attrs[name]

    set_not_owned = set

    def apply(self, graph):
        if self._type == "graph_to_program_pass":
            graph_to_program(graph, self._required("program")._program)
        elif self._type == GRAPH_VIZ:
            marked = graph.get("__graphviz__marked_node__") if graph.has("__graphviz__marked_node__") else ()
            atomic_write(self._required("graph_viz_path"), ir_graph_dot(graph, marked))
        else:
            raise PeError(
                f"Pass.apply: pe applies '{self._type}' through its BuildStrategy option, not on a "
                f"core.Graph; the passes applied one by one are graph_to_program_pass and {GRAPH_VIZ}"
            )
        return graph

    def _required(self, name):
        if name not in self._attrs:
            raise PeError(f"Pass.apply: {self._type} needs its attribute '{name}': pass.set('{name}', ...)")
        return self._attrs[name]


class PassBuilder:
    def __init__(self, strategy):
        self._passes = [Pass(name, option) for option, name in OPTION_PASSES.items() if getattr(strategy, option)]
        if strategy.debug_graphviz_path:
            viz = Pass(GRAPH_VIZ)
            viz.set("graph_viz_path", strategy.debug_graphviz_path + MULTI_DEVICES_GRAPH)
            self._passes.append(viz)
        self._passes.append(Pass("multi_devices_pass"))

    def all_passes(self):
        return list(self._passes)

    def append_pass(self, pass_type):
        return self.insert_pass(len(self._passes), pass_type)

    def insert_pass(self, index, pass_type):
        if pass_type != GRAPH_VIZ:
            raise PeError(
                f"PassBuilder: pe adds no pass '{pass_type}' by name; its passes are turned on by "
                f"BuildStrategy options ({', '.join(sorted(OPTION_PASSES))}); '{GRAPH_VIZ}' can be added"
            )
        new = Pass(pass_type)
        self._passes.insert(index, new)
        return new

    def remove_pass(self, index):
        option = self._passes[index]._option
        if option is not None:
            raise PeError(
                f"PassBuilder: '{self._passes[index].type()}' is the pass of BuildStrategy.{option}: "
                "set that option to False instead"
            )
        if self._passes[index].type() != GRAPH_VIZ:
            raise PeError(f"PassBuilder: '{self._passes[index].type()}' is part of every data-parallel graph")
        del self._passes[index]

    def graph_viz_paths(self):
        """The paths the builder's graph_viz_passes write the graph to."""
        return [p.get("graph_viz_path") for p in self._passes if p.type() == GRAPH_VIZ and p.has("graph_viz_path")]
