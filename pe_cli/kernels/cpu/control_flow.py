"""CPU out-kernels of the control-flow ops that own a block (pe_cli/ops/control_flow.py; meta rules:
shapes/control_flow.py; ``Structured(python=True)``): they run their block through their context's ``block`` (a
BlockRunner: ``env``, ``child``, ``run``) and compute nothing themselves, putting what it wrote (``fresh``); and the
family's kernels by name, the adapters of every out-kernel (the tensor arrays' in control_flow_arrays.py, the
branches' in control_flow_branches.py, recurrent's in recurrent_steps.py), which CUDA's module runs too (HOST_OPS:
values are read on the host only for a condition), given its sums and zeros after the context."""

import operator

import numpy as np

from ...base.errors import PeError
from ...shapes import control_flow as rules
from ..structured import adapter
from . import control_flow_arrays as arrays
from . import control_flow_branches as branches
from . import recurrent_steps as steps
from .block_runs import add, run_backward, run_kept, zeros_like  # noqa: F401 -- (add, zeros_like: the sum and

#     fill_zeros_like kernels of tensor arrays use them from here)
from .control_flow_arrays import _host


def _holds(cond, scalar=True):
    value = _host(cond)
    if not scalar:
        return value.size > 0
    if value.size != 1:
        raise PeError(f"the condition must hold one value, it holds {value.size}")
    return bool(value.reshape(-1)[0])


def while_out(ins, outs, attrs, meta, ctx):
    block = ctx.block
    env = block.env(ins, ctx.lod)
    cond = block.op.input("Condition")[0]
    keep = not attrs["is_test"] and block.output_read("StepScopes")
    writes = block.op.output("Out")
    limit, iterations = attrs["max_iterations"], []
    while _holds(env[cond]):
        if len(iterations) >= limit:
            where = f" built at {block.op.source}" if block.op.source else ""
            raise PeError(
                f"while loop{where} ran {limit} iterations and its condition '{cond}' still holds; "
                f"does the loop update it? (raise the op's max_iterations if it must run longer)"
            )
        if keep:
            iterations.append(run_kept(block, env, writes))
        else:
            block.run(block.child(env))
            iterations.append(None)
    outs["Out"] = [env[n] for n in writes]
    if keep:
        outs["StepScopes"] = iterations


def while_grad_out(ins, outs, attrs, meta, ctx, plus=operator.add, zeros=np.zeros_like):
    block = ctx.block  # the body's grad ops; its parent block is the body
    names = block.op.input("X")
    carried, totals = run_backward(
        block, ins["StepScopes"], dict(zip(names, ins["X"])), ins.get("Out@GRAD") or [], attrs, ctx.lod, plus, zeros
    )
    writes = set(attrs["writes"])
    grads = [carried.get(n) if n in writes else totals.get(n) for n in names]
    outs["X@GRAD"] = [g if g is not None else zeros_like(x, zeros) for g, x in zip(grads, ins["X"])]


def conditional_block_grad_out(ins, outs, attrs, meta, ctx, plus=operator.add, zeros=np.zeros_like):
    """As while_grad over the 0 or 1 runs of the block: when it did not run, the gradients of what
    it would have written pass to their earlier values."""
    block = ctx.block
    names = block.op.input("Input")
    carried, totals = run_backward(
        block,
        ins["Scope"],
        dict(zip(names, ins.get("Input") or [])),
        ins.get("Out@GRAD") or [],
        attrs,
        ctx.lod,
        plus,
        zeros,
    )
    writes = set(attrs["writes"])
    grads = [carried.get(n) if n in writes else totals.get(n) for n in names]
    pre = [carried.get(n) for n in attrs["seeds"] if n not in names]
    outs["Input@GRAD"] = [g if g is not None else zeros_like(x, zeros) for g, x in zip(grads, ins.get("Input") or [])]
    outs["PreOut@GRAD"] = [
        g if g is not None else zeros_like(og, zeros)
        for g, og in zip(pre, [og for n, og in zip(attrs["seeds"], ins["Out@GRAD"]) if n not in names])
    ]


def conditional_block_out(ins, outs, attrs, meta, ctx):
    block = ctx.block
    keep = block.output_read("Scope")
    env = block.env(ins, ctx.lod)
    writes = block.op.output("Out")
    if not all(_holds(c, attrs["is_scalar_condition"]) for c in ins["Cond"]):
        if all(n in env for n in writes):  # (unchanged)
            outs["Out"] = [env[n] for n in writes]
        if keep:
            outs["Scope"] = []
        return
    if not keep:
        block.run(block.child(env))
        outs["Out"] = [env[n] for n in writes]
        return
    run = run_kept(block, env, writes)
    outs["Out"], outs["Scope"] = [env[n] for n in writes], [run]


def pylayer_out(ins, outs, attrs, meta, ctx):
    """The forward block once, in a child scope; Out read back from it."""
    block = ctx.block
    env = block.env(ins, ctx.lod)
    block.run(block.child(env))
    outs["Out"] = block.outputs(env, "Out")
    if block.op.outputs.get("Scope"):
        outs["Scope"] = []


def pylayer_grad_out(ins, outs, attrs, meta, ctx, zeros=np.zeros_like):
    """The backward block once, the gradients of Out under their @GRAD names; Input@GRAD what it wrote
    under the inputs' @GRAD names (zeros for an input it gave none)."""
    block = ctx.block
    env = block.env(ins, ctx.lod)
    for name, grad in zip(attrs["seeds"], ins.get("Out@GRAD") or []):
        env[name] = grad
    scope = block.run(block.child(env))
    outs["Input@GRAD"] = [
        scope.get(n) if scope.get(n) is not None else zeros_like(x, zeros)
        for n, x in zip(attrs["wanted"], ins.get("Input") or [])
    ]


for _out in (
    while_out,
    while_grad_out,
    conditional_block_out,
    conditional_block_grad_out,
    pylayer_out,
    pylayer_grad_out,
):
    _out.takes_context, _out.launches = True, None  # (the block run, the LoDs, the device's sums and zeros)

# the kernels by name (OpDef.kernel's, and those CUDA's HOST_OPS run, given its sums and zeros after the context)
while_loop = adapter(rules.while_meta, while_out, "while_loop")
while_grad = adapter(rules.while_grad_meta, while_grad_out, "while_grad")
conditional_block = adapter(rules.conditional_block_meta, conditional_block_out, "conditional_block")
conditional_block_grad = adapter(
    rules.conditional_block_grad_meta, conditional_block_grad_out, "conditional_block_grad"
)
pylayer = adapter(rules.pylayer_meta, pylayer_out, "pylayer")
pylayer_grad = adapter(rules.pylayer_grad_meta, pylayer_grad_out, "pylayer_grad")
recurrent = adapter(rules.recurrent_meta, steps.recurrent_out, "recurrent")
recurrent_grad = adapter(rules.recurrent_grad_meta, steps.recurrent_grad_out, "recurrent_grad")
create_array = adapter(rules.create_array_meta, arrays.create_array_out, "create_array")
write_to_array = adapter(rules.write_to_array_meta, arrays.write_to_array_out, "write_to_array")
read_from_array = adapter(rules.read_from_array_meta, arrays.read_from_array_out, "read_from_array")
lod_array_length = adapter(rules.lod_array_length_meta, arrays.lod_array_length_out, "lod_array_length")
array_write_grad = adapter(rules.array_write_grad_meta, arrays.array_write_grad_out, "array_write_grad")
array_read_grad = adapter(rules.array_read_grad_meta, arrays.array_read_grad_out, "array_read_grad")
tensor_array_to_tensor = adapter(
    rules.tensor_array_to_tensor_meta, arrays.tensor_array_to_tensor_out, "tensor_array_to_tensor"
)
tensor_array_to_tensor_grad = adapter(
    rules.tensor_array_to_tensor_grad_meta, arrays.tensor_array_to_tensor_grad_out, "tensor_array_to_tensor_grad"
)
split_lod_tensor = adapter(rules.split_lod_tensor_meta, branches.split_lod_tensor_out, "split_lod_tensor")
merge_lod_tensor = adapter(rules.merge_lod_tensor_meta, branches.merge_lod_tensor_out, "merge_lod_tensor")
is_empty = adapter(rules.is_empty_meta, branches.is_empty_out, "is_empty")
get_places = adapter(rules.get_places_meta, branches.get_places_out, "get_places")
select_input = adapter(rules.select_input_meta, branches.select_input_out, "select_input")
select_output = adapter(rules.select_output_meta, branches.select_output_out, "select_output")
select_input_grad = adapter(rules.select_input_grad_meta, branches.select_input_grad_out, "select_input_grad")
select_output_grad = adapter(rules.select_output_grad_meta, branches.select_output_grad_out, "select_output_grad")
