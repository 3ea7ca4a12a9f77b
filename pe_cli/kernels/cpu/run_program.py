"""Kernels of run_program and run_program_grad (pe_cli/ops/run_program.py). They run ops of the block
global_block names through their context's ``block`` (a BlockRunner: ``env``, ``child``, ``run``) and compute
nothing themselves, so the CUDA module serves them too (with the device's zeros). Out-kernels (meta rules:
shapes/block_ops.py), each kernel by name the rule and out-kernel."""

import numpy as np

from ...base.errors import PeError
from ...shapes import block_ops as rules
from ..context import NO_CONTEXT

_GRAD = "@GRAD"
_SEED_FILLS = ("fill_constant", "fill_any_like")


def run_program_out(ins, outs, attrs, meta, ctx):
    """Ops [start_op_index, end_op_index) in a fresh scope over X and Params (by their names): Out, their values
    there, and OutScope, that scope, handed over."""
    block = ctx.block
    start, end = attrs["start_op_index"], attrs["end_op_index"]
    if not 0 <= start <= end <= len(block.steps):
        raise PeError(
            f"run_program: ops [{start}, {end}) are no range of the {len(block.steps)} ops of the block it names"
        )
    scope = block.run(block.child(block.env(ins, ctx.lod)), start=start, stop=end)
    values = []
    for name in block.op.output("Out"):
        if name not in scope:
            raise PeError(f"run_program: its ops [{start}, {end}) write no value of Out '{name}'")
        values.append(scope[name])
    outs["Out"], outs["OutScope"] = values, [scope]


def _seeds(ops, end, count):
    """(the names the block's gradient ops read Out's gradients under, the index of the first of those
    ops): after end_op_index come the ops seeding them, which run_program_grad does not run (Fluid skips
    2 per Out: the shape and fill_constant its gradients() writes; pe's gradients() writes one
    fill_constant or fill_any_like), their names taking the given Out@GRAD."""
    names, i = [], end
    while len(names) < count and i < len(ops):
        op = ops[i]
        fill = ops[i + 1] if op.type == "shape" and i + 1 < len(ops) else op
        feeds_fill = fill is op or set(op.output_arg_names) & set(fill.input_arg_names)
        if fill.type not in _SEED_FILLS or not feeds_fill:
            break
        names += fill.output("Out")
        i += 1 if fill is op else 2
    return names, i


def run_program_grad_out(ins, outs, attrs, meta, ctx, zeros=np.zeros_like):
    """The block's gradient ops in the scope run_program kept, Out@GRAD under the names they read; X@GRAD and
    Params@GRAD handed over (``zeros``: the device's, where the block wrote none)."""
    block = ctx.block
    scopes, grads = ins["OutScope"], ins.get("Out@GRAD") or []
    if not isinstance(scopes, list) or len(scopes) != 1:
        raise PeError(
            "run_program_grad: OutScope holds no scope of a run of run_program; run the run_program "
            "op that writes it first"
        )
    names, start = _seeds(block.block.ops, attrs["end_op_index"], len(grads))
    if len(names) != len(grads):
        raise PeError(
            f"run_program_grad: after end_op_index {attrs['end_op_index']} the block has no op seeding "
            f"the gradient of each of its {len(grads)} Out; append them with fluid.backward.gradients "
            f"of the forward ops' outputs"
        )
    scope = scopes[0]
    for name, grad in zip(names, grads):
        scope[name] = grad
    block.run(scope, start=start)
    for slot in ("X", "Params"):
        given = [scope.get(n + _GRAD) for n in block.op.input(slot)]
        outs[slot + _GRAD] = [g if g is not None else zeros(x) for g, x in zip(given, ins.get(slot) or [])]


run_program_out.takes_context = run_program_grad_out.takes_context = True  # (the block, the LoDs)
run_program_out.launches = run_program_grad_out.launches = None


def run_program(ins, attrs, ctx=NO_CONTEXT):
    """The kernel by name (CUDA's HOST_OPS run it as it is): the meta rule and out-kernel."""
    outs = {}
    run_program_out(ins, outs, attrs, rules.run_program_meta(attrs, ins, ctx), ctx)
    return outs


def run_program_grad(ins, attrs, ctx=NO_CONTEXT, zeros=np.zeros_like):
    """The kernel by name, CUDA's with its device's ``zeros``: the meta rule and out-kernel."""
    outs = {}
    run_program_grad_out(ins, outs, attrs, rules.run_program_grad_meta(attrs, ins, ctx), ctx, zeros)
    return outs
