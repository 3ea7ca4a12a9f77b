"""From a Program to what runs on several devices: strategies, the multi-device SSA graph, its DOT
drawing, and CompiledProgram. See docs/PARALLEL.md. The strategies load with the package (the config
schema reads them); the graph and CompiledProgram on first use, so that ``pe summary`` loads no pass."""

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


def __getattr__(name):
    if name == "CompiledProgram":
        from .compiled_program import CompiledProgram as value
    elif name == "to_dot" or name == "write_dot":
        from . import graphviz as module

        value = getattr(module, name)
    elif name in ("OpNode", "SSAGraph", "VarNode", "build_ssa_graph"):
        from . import ssa_graph as module

        value = getattr(module, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return value
