"""Graph passes: what BuildStrategy's options do to a graph. Each pass is a function
``graph -> (graph, changes)`` in a file of its own, returning a new graph and one line per change
(``pe graph --passes`` prints them); the graph given is left unchanged.

They run in this fixed order (``ORDER``), each only when its option is on. First the passes over
the program, run when the graph is built (program.py), so every device runs their result:
  - ``fuse_elewise_add_act_ops`` (fuse_elewise_add_act.py): elementwise_add + an activation (and
    their two gradient ops) become one fused_elemwise_activation (_grad) op.
  - ``fuse_relu_depthwise_conv`` (fuse_relu_depthwise_conv.py, first): relu folded into the
    depthwise_conv2d (and its gradient ops) that alone reads it.
  - ``fuse_bn_act_ops`` (fuse_bn_act.py): batch_norm + relu -> fused_batch_norm_act (_grad).
  - ``fuse_embedding_seq_pool`` (fuse_embedding_seq_pool.py, pe's own option): lookup_table + its
    sequence_pool of type SUM (and their two gradient ops) -> fused_embedding_seq_pool (_grad).
  - ``enable_auto_fusion`` (auto_fusion.py): runs of consecutive elementwise ops and activations
    -> one fusion_group op.
  - ``fuse_all_optimizer_ops`` (fuse_optimizer.py, last): the sgd / momentum / adam updates with
    equal attributes and learning rate -> one fused_sgd / fused_momentum / fused_adam op.
Then the passes over the SSA graph:
  0. ``onednn_blocked_layout`` (blocked_layout.py), with ``fuse_bn_act_ops`` on CPU devices where
     oneDNN is loaded: values between oneDNN's convolutions and fused batch norms stay in oneDNN's
     blocked layout.
  1. ``enable_inplace`` (inplace.py): an op the registry declares able to write an output over an
     input (``register(..., inplace=...)``) does so where that input is dead afterwards.
  2. ``memory_optimize`` (memory_optimize.py): releases each temporary once its last reader has run.
     On by ``BuildStrategy.memory_optimize``, or for one program by ``fluid.memory_optimize(program)``
     / ``fluid.release_memory(program)`` (which also serve the sequential Executor).
  3. ``enable_backward_optimizer_op_deps`` (backward_optimizer_deps.py): control dependencies so
     that each device runs its optimizer ops after its backward pass, one after another in the
     order their gradients became final.

Passes that need to know what is fetched (a fetched value is never released) run when the executor
builds its schedule for a fetch list: ``apply(graph, fetched)``.
"""

from .liveness import pinned_names, sequential_frees  # noqa: F401
from . import blocked_layout
from .backward_optimizer_deps import backward_optimizer_deps
from .inplace import enable_inplace
from .memory_optimize import memory_optimize, program_frees, reuse_log
from .program import PROGRAM_ORDER, check_not_fused_away, program_passes  # noqa: F401

ORDER = PROGRAM_ORDER + (
    "onednn_blocked_layout",
    "enable_inplace",
    "memory_optimize",
    "enable_backward_optimizer_op_deps",
)


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
    the SSA ``graph``. Returns (graph, [(pass name, changes)])."""
    report = list(getattr(graph, "program_passes", ()))
    if build_strategy is not None and build_strategy.fuse_bn_act_ops and blocked_layout.applies(graph.places):
        graph, changes = blocked_layout.blocked_layout(graph, fetched)
        report.append((blocked_layout.NAME, changes))
    if build_strategy is not None and build_strategy.enable_inplace:
        graph, changes = enable_inplace(graph, fetched)
        report.append(("enable_inplace", changes))
    options = memory_options(graph.program, build_strategy)
    if options is not None:
        graph, changes = memory_optimize(graph, fetched, options["skip"])
        report.append(("memory_optimize", changes))
    if build_strategy is not None and build_strategy.enable_backward_optimizer_op_deps:
        graph, changes = backward_optimizer_deps(graph)
        report.append(("enable_backward_optimizer_op_deps", changes))
    return graph, report


__all__ = ["ORDER", "apply", "enable_inplace", "memory_options", "memory_optimize", "program_frees", "reuse_log"]
