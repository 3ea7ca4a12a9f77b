"""Graph passes: what BuildStrategy's options do to a graph. Each pass is a function
``graph -> (graph, changes)`` in a file of its own, returning a new graph and one line per change
(``pe graph --passes`` prints them); the graph given is left unchanged.

Program passes run first, on a copy of the program, before its multi-device graph is built
(``program_passes``, from ``build_ssa_graph``):
  0. ``fuse_elewise_add_act_ops`` (fuse_elewise_add_act.py): elementwise_add + an activation, and their
     gradients, become one fused op each.
The graph passes run in this fixed order (``ORDER``), each only when its option is on:
  1. ``enable_inplace`` (inplace.py): an op the registry declares able to write an output over an
     input (``register(..., inplace=...)``) does so where that input is dead afterwards.
  2. ``memory_optimize`` (memory_optimize.py): releases each temporary once its last reader has run.
     On by ``BuildStrategy.memory_optimize``, or for one program by ``fluid.memory_optimize(program)``
     / ``fluid.release_memory(program)`` (which also serve the sequential Executor).

Passes that need to know what is fetched (a fetched value is never released) run when the executor
builds its schedule for a fetch list: ``apply(graph, fetched)``.
"""
from .liveness import pinned_names, sequential_frees  # noqa: F401
from .fuse_elewise_add_act import fuse_elewise_add_act
from .inplace import enable_inplace
from .memory_optimize import memory_optimize, program_frees, reuse_log

ORDER = ("fuse_elewise_add_act_ops", "enable_inplace", "memory_optimize")


def program_passes(program, strategy):
    """The program passes ``strategy`` turns on, applied to (a copy of) ``program``: (program,
    [(pass name, changes)])."""
    report = []
    if strategy.fuse_elewise_add_act_ops:
        program, changes = fuse_elewise_add_act(program)
        report.append(("fuse_elewise_add_act_ops", changes))
    return program, report


def memory_options(program, build_strategy=None):
    """The memory_optimize settings for ``program``: {'skip', 'level', 'print_log'} or None (off).
    ``fluid.memory_optimize`` / ``release_memory`` set them on the program; the strategy's
    ``memory_optimize`` turns them on with the defaults."""
    options = getattr(program, "_memory_optimize", None)
    if options is None and build_strategy is not None and build_strategy.memory_optimize:
        options = {"skip": (), "level": 0, "print_log": False}
    return options


def apply(graph, fetched=(), build_strategy=None):
    """The passes the strategy (and the program's own settings) turn on, in ``ORDER``, applied to
    the SSA ``graph``. Returns (graph, [(pass name, changes)]), the program passes' first."""
    report = list(getattr(graph, "program_report", ()))
    if build_strategy is not None and build_strategy.enable_inplace:
        graph, changes = enable_inplace(graph, fetched)
        report.append(("enable_inplace", changes))
    options = memory_options(graph.program, build_strategy)
    if options is not None:
        graph, changes = memory_optimize(graph, fetched, options["skip"])
        report.append(("memory_optimize", changes))
    return graph, report


__all__ = ["ORDER", "apply", "fuse_elewise_add_act", "program_passes", "enable_inplace", "memory_options", "memory_optimize", "program_frees", "reuse_log"]
