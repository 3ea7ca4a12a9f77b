"""``paddle.fluid.backward``: reverse-mode autodiff on the Program.

``calc_gradient`` is Fluid's older name for ``gradients``; both append grad ops to the targets'
program and return the gradient variables of ``inputs`` (None where an input gets none).
"""

import warnings

from ..training.backward import append_backward, gradients
from ..ops import registry
from ..ops.registry import GRAD_SUFFIX, grad_var_name

__all__ = ["append_backward", "gradients", "calc_gradient"]


def calc_gradient(targets, inputs, target_gradients=None, no_grad_set=None):
    """As ``gradients``, but one input's gradient comes back alone, not in a list (as Fluid's)."""
    grads = gradients(targets, inputs, target_gradients, no_grad_set)
    return (grads[0] if grads else None) if len(grads) <= 1 else grads


def _append_grad_suffix_(name):
    """Fluid's helper: the name of ``name``'s gradient (``name@GRAD``)."""
    return grad_var_name(name)


def _as_list(x):
    """Fluid's helper: None as [], a list or tuple as a list, anything else as [x]."""
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _strip_grad_suffix_(name):
    """Fluid's helper: the forward name of a gradient name (``x@GRAD@RENAME@1`` -> ``x``)."""
    name = name.decode() if isinstance(name, bytes) else name
    pos = name.find(GRAD_SUFFIX)
    return name if pos < 0 else name[:pos]


def _get_stop_gradients_(program):
    """{block index: the gradient names of the block's stop_gradient variables} (Fluid's helper)."""
    return {
        block.idx: {grad_var_name(v.name) for v in block.vars.values() if v.stop_gradient} for block in program.blocks
    }


def _has_grad(op):
    return registry.get(op.type).grad is not None


def _target_names(block, targets):
    """The names of ``targets`` if they are in ``block`` or a block below it (a sub-block's reads
    from ``block`` stand in for them there); none if ``block`` lies below the targets' block."""
    here = targets[0].block if targets else block
    names = {t.name for t in targets}
    while here.idx != block.idx:
        if here.parent_idx < 0:
            return set()  # ``block`` is below the targets' block
        parent, reads = here.program.block(here.parent_idx), set()
        for op in reversed(here.ops):
            if set(op.output_arg_names) & names:
                names.update(op.input_arg_names)
                reads.update(n for n in op.input_arg_names if n not in here.vars and n in parent.vars)
        here, names = parent, reads
    return names


def _find_op_path_(block, outputs, inputs, no_grad_set):
    """The ops of ``block`` that lie between ``inputs`` (all of the block's inputs when empty) and
    ``outputs`` and have a gradient, in block order (Fluid's helper). With ``inputs``, the
    stop_gradient variables the path reads that no input leads to are added to ``no_grad_set``."""
    reach = {v.name for v in inputs}
    wanted = _target_names(block, outputs)
    keep = [True] * len(block.ops)
    if inputs:
        for i, op in enumerate(block.ops):
            keep[i] = bool(set(op.input_arg_names) & reach) and _has_grad(op)
            if keep[i]:
                reach.update(n for n in op.output_arg_names if n not in no_grad_set)
    for i in reversed(range(len(block.ops))):
        op = block.ops[i]
        hit = bool(set(op.output_arg_names) & wanted) and _has_grad(op)
        if hit:
            wanted.update(n for n in op.input_arg_names if n not in no_grad_set)
        keep[i] = keep[i] and hit
    path = [op for op, k in zip(block.ops, keep) if k]
    if inputs:
        no_grad_set.update(
            n for op in path for n in op.input_arg_names if n not in reach and block.vars[n].stop_gradient
        )
    return path


def _find_no_grad_vars(block, op_path, targets, no_grad_set):
    """The outputs of ``op_path``'s ops (those without a sub-block) that nothing on the way to
    ``targets`` reads and that may have a gradient: their gradients are not needed (Fluid's helper)."""
    used, unused = _target_names(block, targets), set()
    for op in reversed(op_path):
        if "sub_block" not in op.attrs:
            unused.update(
                n
                for n in op.output_arg_names
                if n not in used and n not in op.input_arg_names and not block.vars[n].stop_gradient
            )
        used.update(n for n in op.input_arg_names if n not in no_grad_set)
    return unused


def _infer_var_data_type_shape_(grad_var_name, block):
    """Fluid's helper: the gradient variable ``grad_var_name`` of ``block`` takes the dtype and shape of
    its forward variable; with none found, float32, with Fluid's warning."""
    grad_var = block.vars[grad_var_name]
    forward = block._find_var_recursive(_strip_grad_suffix_(grad_var_name))
    if forward is not None:
        grad_var.dtype, grad_var.shape = forward.dtype, forward.shape
        return
    warnings.warn(f"Set grad var: {grad_var_name} dtype to default FP32, since we can't find its related forward var")
    grad_var.dtype = "float32"
