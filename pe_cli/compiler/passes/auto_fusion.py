"""The enable_auto_fusion pass (``BuildStrategy.enable_auto_fusion``), after Fluid 1.8's
fusion_group_pass: a run of consecutive elementwise ops and activations (the registry's
``elementwise`` and ``activation`` traits), each reading a value an earlier one of the run wrote,
becomes one ``fusion_group`` op (pe_cli/ops/fused.py) that runs them in order: one node per device
instead of one per op. Its Outs are every value the run wrote (later ops, the gradient ops and
fetches may read any of them), its Inputs every value the run read before writing it.

Fluid generates one CUDA kernel per group that computes the whole chain per element, and skips the
pass on CPUs; pe applies it on both devices and its kernel calls the ops' own kernels in turn
(pe_cli/kernels/fused_math.py fusion_group_kernel), which keeps the numbers bitwise those of the
unfused ops (a generated loop per element would round differently from numpy's vectorised forms) but
still writes every intermediate value. Ops of the backward pass join only when they carry the traits
too (scale); the activations' gradient ops and elementwise_*_grad do not (Fluid groups those as
well). Ops that draw random numbers or read their LoD are left alone.

A pass over the program, like fuse_elewise_add_act.py: Program -> (a new Program, changes)."""

from ...ops import registry
from ...ops.fusion_patterns import FUSION_GROUP
from .rewrite import fused_op, rewritten

NAME = "enable_auto_fusion"
_TRAITS = ("elementwise", "activation")


def auto_fusion(program):
    """Program -> (Program, changes): a clone of ``program`` with each run fused."""
    ops = program.global_block().ops
    runs = fusable_runs(ops)
    if not runs:
        return program, []
    changes = []

    def make(block):
        replace, drop = {}, set()
        for run in runs:
            replace[run[0]] = _group(block, [ops[i] for i in run])
            drop.update(run[1:])
            changes.append(
                f"{' + '.join(ops[i].type for i in run)} -> {FUSION_GROUP} writing "
                f"{', '.join(replace[run[0]].output('Outs'))}"
            )
        return replace, drop

    return rewritten(program, make), changes


def fusable(op):
    """Whether ``op`` may join a fusion group: an elementwise op or activation with one variable
    per slot and one output, no random numbers, no LoD of its own."""
    opdef = registry.get(op.type)
    if not any(opdef.has(t) for t in _TRAITS) or opdef.needs_rng or opdef.needs_lod or opdef.lod != "keep":
        return False
    if any(len(names) != 1 for names in list(op.inputs.values()) + list(op.outputs.values()) if names):
        return False
    return len(op.output_arg_names) == 1 and not op.attrs.get("sub_block")


def fusable_runs(ops):
    """[[indices of consecutive ops fused into one group]], each of 2 ops or more: each op after
    the first reads a value an earlier op of the run wrote and has the first one's role (forward,
    backward, optimize: a group never spans two parts of the program)."""
    runs, run, written = [], [], set()
    for i, op in enumerate(ops):
        if run and fusable(op) and written & set(op.input_arg_names) and op.role == ops[run[0]].role:
            run.append(i)
            written |= set(op.output_arg_names)
            continue
        if len(run) > 1:
            runs.append(run)
        run, written = ([i], set(op.output_arg_names)) if fusable(op) else ([], set())
    if len(run) > 1:
        runs.append(run)
    return runs


def _group(block, members):
    """The fusion_group op running ``members`` (ops, in order), labels being variable names."""
    inputs, outputs, subgraph = [], [], []
    for op in members:
        opdef = registry.get(op.type)
        for name in op.input_arg_names:
            if name not in outputs and name not in inputs:
                inputs.append(name)
        outputs.extend(n for n in op.output_arg_names if n not in outputs)
        attrs = {k: v for k, v in op.attrs.items() if not k.startswith("op_")}
        subgraph.append(
            [
                op.type,
                opdef.kernel_module,
                opdef.kernel_name,
                {s: names[0] for s, names in op.inputs.items() if names},
                {s: names[0] for s, names in op.outputs.items() if names},
                attrs,
            ]
        )
    attrs = {"subgraph": subgraph, "input_names": list(inputs), "output_names": list(outputs)}
    return fused_op(block, FUSION_GROUP, members[-1], {"Inputs": inputs}, {"Outs": outputs}, attrs)
