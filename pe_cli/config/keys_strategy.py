"""The run config's ``build_strategy`` and ``exec_strategy`` keys (docs/CONFIG.md): the options of
``fluid.BuildStrategy`` and ``ExecutionStrategy``, read from the classes themselves, with what each does,
and pe's own async mode. keys.py puts them into ``RUN``."""

import enum

from ..compiler import strategy
from .schema import Field, Section

_STRATEGY_DOCS = {
    "reduce_strategy": "AllReduce (every device updates its copy) or Reduce (one owner per parameter)",
    "gradient_scale_strategy": "initial loss gradient: CoeffNumDevice (1/devices), One, or Customized (fed)",
    "debug_graphviz_path": "write the multi-device graph as DOT to <this path>_multi_devices_graph (Fluid's file name)",
    "enable_sequential_execution": "run ops one at a time in program order",
    "sync_batch_norm": "batch_norm statistics over all devices",
    "num_trainers": "trainer processes: K > 1 trains under mpiexec -n K (the mpi extra), each on its share "
    "of every batch; rank 0 alone writes the run directory (docs/DISTRIBUTED.md)",
    "trainer_id": "this trainer's rank (pe train sets it from the MPI rank)",
    "trainers_endpoints": "the trainers' endpoints",
    "fuse_elewise_add_act_ops": "fuse elementwise_add + an activation (and their gradient ops) into one op "
    "(a program pass; numbers unchanged; docs/PARALLEL.md)",
    "fuse_bn_act_ops": "fuse batch_norm + relu (and their gradient ops) into one op",
    "fuse_gemm_epilogue": "a fully connected layer (mul + bias add + relu, and their gradient ops) becomes one "
    "fused_gemm_epilogue op that adds the bias and applies relu to each block of the product "
    "in cache (a program pass; numbers unchanged; docs/PARALLEL.md)",
    "fuse_attention": "an attention's heads, scores, mask, softmax and product by the values (and their gradient "
    "ops) become one scaled_dot_product_attention op, each (sample, head) in cache, no "
    "transposed copies (a program pass; within float32 rounding; docs/PARALLEL.md)",
    "fuse_embedding_seq_pool": "an embedding (lookup_table) summed over each sequence by sequence_pool, and their "
    "gradient ops, become one fused_embedding_seq_pool (_grad) op (pe's own program pass; "
    "numbers unchanged; docs/PARALLEL.md)",
    "memory_optimize": "release each temporary after its last reader (graph pass; see docs/PARALLEL.md)",
    "enable_inplace": "let ops the registry declares write over a dead input (graph pass; docs/PARALLEL.md)",
    "remove_unnecessary_lock": "drop locks the graph proves unneeded",
    "fuse_all_optimizer_ops": "the update ops of one type (sgd, momentum, adam) with the same attributes and "
    "learning rate become one fused op (a program pass under AllReduce; numbers "
    "unchanged; docs/PARALLEL.md)",
    "enable_backward_optimizer_op_deps": "each device runs its optimizer ops after its backward pass, one after "
    "another in the order their gradients became final (a graph pass; "
    "numbers unchanged; docs/PARALLEL.md)",
    "fuse_relu_depthwise_conv": "fold a relu that only a depthwise_conv2d reads into it (forward and gradient; a "
    "program pass; numbers unchanged; docs/PARALLEL.md)",
    "enable_auto_fusion": "runs of consecutive elementwise ops and activations become one fusion_group op (a "
    "program pass; numbers unchanged; docs/PARALLEL.md)",
    "allow_cuda_graph_capture": "on one CUDA device: each step recorded once and replayed as CUDA graphs (as "
    "PE_CUDA_GRAPHS=1; numbers unchanged; docs/CUDA.md)",
    "fuse_all_reduce_ops": "sum the gradients over the devices (and processes) in buckets of up to 32 MiB, one collective each",
    "num_threads": "thread-pool size (0: devices x 4)",
    "num_iteration_per_drop_scope": "drop the per-device local scopes every N iterations",
    "num_iteration_per_run": "iterations per run call",
    "allow_op_delay": "delay communication ops",
}


def _strategy_section(cls_name, doc):
    """The options of fluid.BuildStrategy / ExecutionStrategy, read from the class itself, so the
    YAML accepts exactly what Python does."""
    cls = getattr(strategy, cls_name)
    fields = {}
    for name, (default, _check) in cls._OPTIONS.items():
        value = default() if callable(default) else default
        if isinstance(value, enum.Enum):
            field = Field("str", value.name, choices=tuple(m.name for m in type(value)))
        elif isinstance(value, bool):
            field = Field("bool|null" if name in ("memory_optimize", "enable_inplace") else "bool", value)
        elif isinstance(value, int):
            field = Field("int", value, min=0)
        elif isinstance(value, list):
            field = Field("list[str]", value)
        else:
            field = Field("str", value)
        note = " (accepted; no effect yet)" if name in getattr(cls, "NO_EFFECT_YET", ()) else ""
        if name in getattr(cls, "NOTHING_TO_DO", {}):
            note = " (accepted; nothing to do in pe: see docs/PARALLEL.md)"
        field.doc = _STRATEGY_DOCS.get(name, name.replace("_", " ")) + note
        fields[name] = field
    return Section(fields, doc)


BUILD_STRATEGY = _strategy_section("BuildStrategy", "how the multi-device graph is built (fluid.BuildStrategy)")
EXEC_STRATEGY = _strategy_section("ExecutionStrategy", "how the multi-device graph runs (fluid.ExecutionStrategy)")
# pe's own: AsyncExecutor's Hogwild threads for pe train (seed 004; run/async_epoch.py)
EXEC_STRATEGY.fields["mode"] = Field(
    "str",
    "sync",
    "sync: one step after another; async: thread_num threads train each epoch's batches at once, Hogwild",
    choices=("sync", "async"),
)
EXEC_STRATEGY.fields["thread_num"] = Field("int", 2, "threads of async mode", min=1)
ASYNC_ONLY = ("mode", "thread_num")  # not options of fluid.ExecutionStrategy
