"""``core.get_grad_op_desc(op_desc, no_grad_set, grad_sub_block)``: the grad op descs the registry's
gradient maker of an op makes, and which forward variable each gradient name stands for.

The maker runs on a scratch copy of the op and the variables it reads and writes, as pe's autodiff
runs it when the op's outputs all have a gradient (``Out@GRAD``) and each float input not in
``no_grad_set`` wants one; the op's own block is left as it was."""

from ..base.dtypes import is_float
from ..framework.program import Program
from ..ops import registry
from ..ops.registry import GRAD_SUFFIX, grad_var_name
from ..training.backward import GradContext, BackwardBuilder as _BackwardBuilder


def _scratch_copy(op):
    """A copy of ``op`` in a new program's block, with copies of the variables it names."""
    block = Program().global_block()
    for name in op.input_arg_names + op.output_arg_names:
        if not block.has_var(name):
            block.vars[name] = op.block.var(name).clone_into(block)
    copy = op.clone_into(block)
    block.ops.append(copy)
    return copy


def get_grad_op_desc(op_desc, no_grad_set, grad_sub_block=()):
    """([grad OpDesc], {gradient name: forward variable name}) of the op ``op_desc`` describes."""
    fwd = _scratch_copy(op_desc._op)
    opdef = registry.get(fwd.type)
    if opdef.grad is None:
        return [], {}
    block = fwd.block
    builder = _BackwardBuilder(block)
    for name in fwd.output_arg_names:
        var = block.var(name)
        block.create_var(name=grad_var_name(name), shape=var.shape, dtype=var.dtype, lod_level=var.lod_level)
        builder.pending[name] = [grad_var_name(name)]
    no_grad = set(no_grad_set or ())
    needed = {
        slot: [n not in no_grad and is_float(block.var(n).dtype) for n in names] for slot, names in fwd.inputs.items()
    }
    start = len(block.ops)
    opdef.grad(GradContext(builder, fwd, needed))
    grad_ops = block.ops[start:]
    # Fluid's map holds the gradients the maker made or read (X@GRAD@GRAD stands for X@GRAD), not the
    # op's own variables that a gradient of a gradient op reads (sqrt_grad_grad's DX, X@GRAD)
    own, to_var = set(fwd.input_arg_names + fwd.output_arg_names), {}
    for op in grad_ops:
        for name in op.input_arg_names + op.output_arg_names:
            if GRAD_SUFFIX in name and name not in own:
                to_var[name] = name[: name.rindex(GRAD_SUFFIX)]
    return [op.desc for op in grad_ops], to_var
