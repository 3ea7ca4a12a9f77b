"""``paddle.autograd.backward_mode``: ``gradients_with_optimizer`` (static mode) and ``backward``
(dygraph only: a one-line refusal)."""

from ...base.errors import unsupported
from ...framework import Parameter, Program, program_guard
from ...layers.checks import check_type
from ...training.backward import input_gradients as gradients
from ...training.optimizer import Optimizer

__all__ = ["backward", "gradients_with_optimizer"]

backward = unsupported(
    "paddle.autograd.backward",
    "a dygraph API (pe runs static graphs only: use paddle.static.append_backward or an optimizer's minimize)",
)


def _ends(program):
    """(variables the program's ops read but never write, variables they write but never read)."""
    read, written = {}, {}
    for block in program.blocks:
        for op in block.ops:
            read.update((n, block.var(n)) for n in op.input_arg_names)
            written.update((n, block.var(n)) for n in op.output_arg_names)
    return ([v for n, v in read.items() if n not in written], [v for n, v in written.items() if n not in read])


def gradients_with_optimizer(program, optimizer, inputs=None, outputs=None):
    """Appends the gradients of ``outputs`` (default: what the program's ops write and none reads)
    with respect to ``inputs`` (default: what they read and none writes) and ``optimizer``'s update of
    the parameters among them; returns (the update ops, [(parameter, gradient)]), as Paddle's."""
    check_type(program, "program", Program, "paddle.static.gradients_with_optimizer")
    check_type(optimizer, "optimizer", Optimizer, "paddle.static.gradients_with_optimizer")
    if inputs is None or outputs is None:
        sources, sinks = _ends(program)
        inputs = sources if inputs is None else inputs
        outputs = sinks if outputs is None else outputs
    with program_guard(program):
        grads = gradients(outputs, inputs)
        param_grads = [(p, g) for p, g in zip(inputs, grads) if isinstance(p, Parameter) and g is not None]
        return optimizer.apply_gradients(param_grads), param_grads
