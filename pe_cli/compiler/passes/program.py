"""The passes over the program, run before the multi-device graph is built from it (so every
device runs their result): the fusion passes, each on when its BuildStrategy option is."""

from ...base.errors import PeError
from .auto_fusion import auto_fusion
from .fuse_attention import fuse_attention
from .fuse_bn_act import fuse_bn_act
from .fuse_elewise_add_act import fuse_elewise_add_act
from .fuse_embedding_seq_pool import fuse_embedding_seq_pool
from .fuse_gemm_epilogue import fuse_gemm_epilogue
from .fuse_optimizer import fuse_all_optimizer_ops
from .fuse_relu_depthwise_conv import fuse_relu_depthwise_conv
from ..strategy import ReduceStrategy

# fuse_relu_depthwise_conv first, as in Fluid (a relu the others would fuse away stays for it)
# fuse_gemm_epilogue before fuse_elewise_add_act_ops (it takes a layer's bias add and relu with its GEMM)
# fuse_attention before the elementwise fusions (it takes the mask's add with the scores)
# enable_auto_fusion after the pattern fusions (it takes the elementwise ops they leave)
PROGRAM_ORDER = (
    "fuse_relu_depthwise_conv",
    "fuse_bn_act_ops",
    "fuse_gemm_epilogue",
    "fuse_attention",
    "fuse_elewise_add_act_ops",
    "fuse_embedding_seq_pool",
    "enable_auto_fusion",
    "fuse_all_optimizer_ops",
)
_PASSES = {
    "fuse_relu_depthwise_conv": fuse_relu_depthwise_conv,
    "fuse_bn_act_ops": fuse_bn_act,
    "fuse_gemm_epilogue": fuse_gemm_epilogue,
    "fuse_attention": fuse_attention,
    "fuse_elewise_add_act_ops": fuse_elewise_add_act,
    "fuse_embedding_seq_pool": fuse_embedding_seq_pool,
    "enable_auto_fusion": auto_fusion,
    "fuse_all_optimizer_ops": fuse_all_optimizer_ops,
}
# passes that apply only under AllReduce (as in Fluid: under Reduce each parameter has its own device)
_ALL_REDUCE_ONLY = {"fuse_all_optimizer_ops"}


def check_not_fused_away(name, program, fused, report):
    """Raises a one-line PeError when the passes over ``program`` (which made ``fused``; ``report``:
    [(pass name, changes)]) removed the only op writing ``name`` (fuse_bn_act_ops drops the value
    before the activation, fuse_gemm_epilogue a layer's product)."""
    written = {n for op in fused.global_block().ops for n in op.output_arg_names}
    if name not in written and any(name in op.output_arg_names for op in program.global_block().ops):
        options = ", ".join(f"build_strategy.{p}" for p, changes in report if changes)
        raise PeError(
            f"cannot fetch '{name}': the fusion passes ({options}) removed the op writing it; "
            f"fetch the fused op's output, or turn the option off"
        )


def program_passes(program, strategy):
    """(the program after the passes ``strategy`` turns on, [(pass name, changes)])."""
    report = []
    for name in PROGRAM_ORDER:
        if getattr(strategy, name):
            if name in _ALL_REDUCE_ONLY and strategy.reduce_strategy == ReduceStrategy.Reduce:
                report.append((name, []))  # on, with nothing to do under Reduce
                continue
            program, changes = _PASSES[name](program)
            report.append((name, changes))
    return program, report
