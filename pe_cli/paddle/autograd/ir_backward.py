"""``paddle.autograd.ir_backward``: Paddle 2.6's backward over its PIR programs. pe has one program
representation (``paddle.pir_utils.IrGuard`` gives fresh programs of it), so these build pe's
gradient ops into the program of ``outputs``, as ``paddle.static.gradients`` does."""

from ...training.backward import input_gradients as gradients

__all__ = ["grad", "calc_gradient"]


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    only_inputs=True,
    allow_unused=False,
    no_grad_vars=None,
):
    """The gradients of ``outputs`` (seeded with ``grad_outputs``, ones by default) with respect to
    each of ``inputs``, a list; an input they do not depend on is a ValueError unless
    ``allow_unused`` (then its entry is None). ``retain_graph``, ``create_graph`` and ``only_inputs``
    change nothing in a static program."""
    single = not isinstance(inputs, (list, tuple))
    grads = gradients(outputs, inputs, grad_outputs, no_grad_vars)
    if not allow_unused:
        unused = [v.name for v, g in zip([inputs] if single else inputs, grads) if g is None]
        if unused:
            raise ValueError(
                f"paddle.autograd.ir_backward.grad: {', '.join(unused)} do not reach the outputs "
                f"(pass allow_unused=True to get None for them)"
            )
    return grads


def calc_gradient(outputs, inputs, grad_outputs, no_grad_set):
    """``grad``'s list for ``inputs``, None for an input ``outputs`` do not depend on."""
    return gradients(outputs, inputs, grad_outputs, no_grad_set)
