"""From a Program to what runs on several devices: strategies, the multi-device SSA graph, its DOT
drawing, and CompiledProgram. See docs/PARALLEL.md."""

from .compiled_program import CompiledProgram
from .graphviz import to_dot, write_dot
from .ssa_graph import OpNode, SSAGraph, VarNode, build_ssa_graph
from .strategy import BuildStrategy, ExecutionStrategy, GradientScaleStrategy, ReduceStrategy

__all__ = [
    "BuildStrategy",
    "CompiledProgram",
    "ExecutionStrategy",
    "GradientScaleStrategy",
    "OpNode",
    "ReduceStrategy",
    "SSAGraph",
    "VarNode",
    "build_ssa_graph",
    "to_dot",
    "write_dot",
]
