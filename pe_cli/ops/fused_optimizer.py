"""The fused update ops the fuse_all_optimizer_ops pass makes (pe_cli/compiler/passes/
fuse_optimizer.py): ``fused_sgd``, ``fused_momentum``, ``fused_adam`` update many parameters in one
op (one node per device instead of one per parameter), as Fluid's fuse_sgd/momentum/adam_op_pass.

Each is made from its update op's definition: every per-parameter slot of the update op (Param,
Grad, the state inputs and every output) is a list here, the i-th entries being the i-th
parameter's; ``LearningRate`` stays one variable shared by all, and the attributes are the update
op's (the pass fuses only updates with equal attributes and one learning-rate variable). The
kernels run the update op's kernel on each parameter in turn (pe_cli/kernels/fused_math.py), so the
numbers are those of the separate updates to the bit (structured kernels: the update op's meta rule on each
parameter's entries, shapes/fused_optimizer.py). No gradient."""

from ..kernels.cpu import fused_optimizer as cpu_fused, momentum as cpu_momentum
from ..shapes.fused_optimizer import fused_update_meta, merged_momentum_meta
from . import momentum, optimizer  # noqa: F401  (register the update ops the fused ones are made from)
from .define import Structured, defined, fmt_shape, register
from .fusion_patterns import FUSABLE_OPTIMIZERS, SHARED, fused_type, per_param_slots


def _infer(base):
    def infer(ctx):
        ins, outs = per_param_slots(defined(base))
        n = ctx.num_inputs("Param")
        for slot in ins[1:] + outs:
            count = ctx.num_inputs(slot) if slot in ins else ctx.num_outputs(slot)
            if count not in (0, n):
                ctx.fail(f"{slot} has {count} variables but Param has {n}; each parameter needs one")
        for i in range(n):
            p = ctx.shape("Param", i)
            g = ctx.shape("Grad", i)
            if len(g) != len(p) or any(a != b and a >= 0 and b >= 0 for a, b in zip(g, p)):
                ctx.fail(f"Grad #{i} {fmt_shape(g)} must have Param #{i}'s shape {fmt_shape(p)}")
            for out in outs:
                source = out[: -len("Out")]
                if ctx.num_outputs(out) and ctx.has_input(source):
                    ctx.set_output(out, ctx.shape(source, i), ctx.dtype(source, i), i=i)

    return infer


for _base in FUSABLE_OPTIMIZERS:
    _def = defined(_base)
    _ins, _outs = per_param_slots(_def)
    register(
        fused_type(_base),
        kernel_module="fused_optimizer",
        structured=Structured(meta=fused_update_meta(_def.structured.meta), cpu=cpu_fused.OUT[fused_type(_base)]),
        inputs=[f"{s}*" for s in _ins] + [SHARED],
        outputs=[f"{s}*" for s in _outs],
        attrs=dict(_def.attrs),
        infer=_infer(_base),
        traits=("selected_rows",) + (("updates_in_place",) if _def.has("updates_in_place") else ()),
        doc=f"{_base} over many parameters: the i-th entry of each list is the i-th parameter's "
        f"({', '.join(_ins)}; one LearningRate). Made by the fuse_all_optimizer_ops pass.",
    )


register(
    "merged_momentum",
    kernel_module="momentum",
    structured=Structured(meta=merged_momentum_meta, cpu=cpu_momentum.MERGED_MOMENTUM),
    inputs=["Param*", "Grad*", "Velocity*", "LearningRate*", "MasterParam*"],
    outputs=["ParamOut*", "VelocityOut*", "MasterParamOut*"],
    attrs=dict(momentum.MOMENTUM_ATTRS, regularization_method=[], regularization_coeff=[]),
    infer=_infer("momentum"),
    traits=("updates_in_place",),
    doc="Paddle 2.x's momentum over lists: the i-th entries of Param, Grad, Velocity (and MasterParam) "
    "are the i-th parameter's; LearningRate is one variable shared by all or one per parameter; "
    "regularization_method / regularization_coeff one entry per parameter, or empty. Each "
    "update is momentum's (pe_cli/kernels/momentum_terms.py).",
)
