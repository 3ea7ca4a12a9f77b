"""``paddle.static.nn.static_pylayer`` (Paddle 2.6): a piece of a static program whose gradient is built by
Python rather than derived. ``StaticPyLayerBlock(inputs)``: ``with mgr.block(is_backward_block=False):``
builds the forward ops (``mgr.fwd_outputs``: what they give), ``with mgr.block(is_backward_block=True):``
the gradient ops, writing each input's gradient under a name ``mgr.var_old_to_new`` renames to
``<input>@GRAD`` and reading each output's as ``<output>@GRAD``; the ``pylayer`` op runs the forward
block, its gradient op (``pylayer_grad``, pe_cli/ops/control_flow.py) the backward one.
``static_pylayer(forward_fn, inputs, backward_fn)`` builds both blocks from two functions."""

import contextlib

from ....layers import assign
from ....layers.control_flow import block_io, sub_block
from ....layers.helper import LayerHelper
from ....ops.define import grad_var_name
from ....framework.variable import Variable

__all__ = ["StaticPyLayerBlock", "static_pylayer"]


class StaticPyLayerBlock:
    def __init__(self, inputs, name=None, pylayer_context=None):
        self.fwd_inputs = [v for v in inputs if isinstance(v, Variable)]
        self.fwd_outputs = []
        self.context = pylayer_context
        self.helper = LayerHelper("static_pylayer_block", name=name)
        self.var_old_to_new = {}
        self.fwd_op_id = self._forward_block_id = self._backward_block_id = None
        self._op = None

    @property
    def forward_block_index(self):
        return self._forward_block_id

    @property
    def backward_block_index(self):
        return self._backward_block_id

    @property
    def fwd_op_index(self):
        return self.fwd_op_id

    @contextlib.contextmanager
    def block(self, is_backward_block=False):
        """Builds the forward block (then appends the pylayer op) or, after it, the backward block."""
        if is_backward_block and self._op is None:
            raise ValueError("StaticPyLayerBlock: build the forward block first (block(is_backward_block=False))")
        program = self.helper.main_program
        with sub_block(program) as body:
            yield self
        if is_backward_block:
            for old, new in self.var_old_to_new.items():
                if old in body.vars:
                    body.desc._rename_var(old, new)
            self._backward_block_id = body.idx
            self._op.attrs["backward_block"] = body.idx
            return
        self._forward_block_id = body.idx
        reads, _ = block_io(body)
        given = {v.name for v in self.fwd_inputs}
        if any(not v.stop_gradient for v in self.fwd_inputs):
            for out in self.fwd_outputs:
                out.stop_gradient = False
        scope = self.helper.create_variable(name=f"{self.helper.name}.scope_{body.idx}", stop_gradient=True)
        self._op = self.helper.append_op(
            "pylayer",
            {"Input": self.fwd_inputs, "Reads": [n for n in reads if n not in given]},
            {"Out": self.fwd_outputs, "Scope": [scope]},
            {"sub_block": body.idx},
        )
        self.fwd_op_id = self.helper.main_program.current_block().ops.index(self._op)


def static_pylayer(forward_fn, inputs, backward_fn=None, name=None):
    """``forward_fn(*inputs)``'s ops in a pylayer op; with ``backward_fn``, the gradient of each input is
    ``backward_fn(*output gradients)`` (one per input, in order; None: no gradient), built as ops. Without
    one, no gradient flows through (Paddle 2.6's rule: its inputs are expected to stop gradients)."""
    if not callable(forward_fn):
        raise TypeError("static_pylayer: forward_fn must be callable")
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("static_pylayer: inputs must be a list of variables")
    mgr = StaticPyLayerBlock(inputs, name=name)
    block = mgr.helper.main_program.current_block()
    with mgr.block(is_backward_block=False):
        outputs = forward_fn(*inputs)
        flat = [outputs] if isinstance(outputs, Variable) else list(outputs or [])
        outer = [
            block.create_var(
                name=mgr.helper.name + f".out_{i}", shape=o.shape, dtype=o.dtype, stop_gradient=backward_fn is None
            )
            for i, o in enumerate(flat)
        ]
        for inner, out in zip(flat, outer):
            assign(inner, out)
        mgr.fwd_outputs = outer
    if backward_fn is not None:
        with mgr.block(is_backward_block=True):
            program = mgr.helper.main_program
            here = program.current_block()
            dys = [here.create_var(name=grad_var_name(o.name), shape=o.shape, dtype=o.dtype) for o in outer]
            grads = backward_fn(*dys)
            grads = [grads] if isinstance(grads, Variable) or grads is None else list(grads)
            if len(grads) != len(mgr.fwd_inputs):
                raise ValueError(
                    f"static_pylayer: backward_fn returned {len(grads)} gradients for {len(mgr.fwd_inputs)} inputs"
                )
            for x, grad in zip(mgr.fwd_inputs, grads):
                if grad is not None:
                    assign(grad, here.create_var(name=grad_var_name(x.name), shape=x.shape, dtype=x.dtype))
    if isinstance(outputs, Variable):
        return outer[0]
    return outer
