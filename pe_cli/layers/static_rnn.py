"""Fluid's ``StaticRNN``: a recurrence over the leading (time) dimension written as a step block,
appended as one ``recurrent`` op (pe_cli/ops/control_flow.py) whose gradient runs the step block's
grad ops backwards over the kept step scopes. Built as Fluid 1.8.5 builds it, so Fluid runs what pe
saves and the reverse: in the step block a step input has its sequence's name, each step output and
each memory's new value are copied (``rnn_memory_helper``) into a variable named as the op's output
(``outputs``) or in its ``states`` attribute, and memories are ``static_rnn_N@mem_K``.

    rnn = StaticRNN()
    with rnn.step():
        x_t = rnn.step_input(x)                  # x: [T, batch, ...]; x_t: [batch, ...]
        h_prev = rnn.memory(init=h0)             # or memory(shape=[-1, 8], batch_ref=x_t)
        h = layers.fc([x_t, h_prev], 8, act="tanh")
        rnn.update_memory(h_prev, h)
        rnn.step_output(h)
    hs = rnn()                                   # [T, batch, 8]
"""

import contextlib

from ..base.dtypes import VarType
from ..base.errors import PeError
from .control_flow import block_io, sub_block
from .creation import fill_constant_batch_size_like
from ..framework import unique_name
from ..framework.variable import position_of
from .helper import LayerHelper

__all__ = ["StaticRNN"]


class StaticRNN:
    def __init__(self, name=None):
        self.helper = LayerHelper("static_rnn", name=name)
        self.inputs, self.step_inputs = [], []  # outer [T, ...] variables, their inner steps
        self.boots, self.memories, self.updates = [], [], []
        self.step_outputs, self.outputs = [], []
        self.block = None
        self.done = False
        self._reverse = False  # layers.rnn(is_reverse=True): steps from the last

    def _inside(self, what):
        if self.block is None or self.done:
            raise PeError(f"StaticRNN.{what} must be called inside `with rnn.step():`")

    @contextlib.contextmanager
    def step(self):
        if self.block is not None:
            raise PeError("StaticRNN.step() can be entered once")
        with sub_block(self.helper.main_program) as block:
            self.block = block
            yield
        self.done = True
        self._append_op()

    def step_input(self, x):
        self._inside("step_input")
        if x.block is self.block:
            raise PeError(
                f"StaticRNN.step_input: '{x.name}' is computed inside the step block; compute the "
                f"whole sequence before `with rnn.step():`"
            )
        if not x.shape or len(x.shape) < 2:
            raise PeError(f"StaticRNN.step_input: '{x.name}' needs a [time, batch, ...] shape, got {x.shape}")
        inner = self.block.create_var(name=x.name, shape=x.shape[1:], dtype=x.dtype, lod_level=0)
        self.inputs.append(x)
        self.step_inputs.append(inner)
        return inner

    def memory(self, init=None, shape=None, batch_ref=None, init_value=0.0, init_batch_dim_idx=0, ref_batch_dim_idx=1):
        self._inside("memory")
        if init is None:
            if shape is None or batch_ref is None:
                raise PeError("StaticRNN.memory: give init=, or shape= and batch_ref=")
            ref, ref_idx = batch_ref, ref_batch_dim_idx
            at = position_of(self.step_inputs, batch_ref)
            if at is not None:  # the step's batch: the outer input's dimension 1
                ref, ref_idx = self.inputs[at], 1
            program = self.helper.main_program
            program.current_block_idx = self.block.parent_idx
            try:
                init = fill_constant_batch_size_like(
                    ref, list(shape), ref.dtype, init_value, ref_idx, init_batch_dim_idx
                )
            finally:
                program.current_block_idx = self.block.idx
        elif init.block is self.block:
            raise PeError(
                f"StaticRNN.memory(init='{init.name}'): the initial value is computed inside the step, "
                f"so it has no value before the first step; build it before `with rnn.step():`"
            )
        pre = self.block.create_var(
            name=unique_name.generate(f"{self.helper.name}@mem"), shape=init.shape, dtype=init.dtype
        )
        self.boots.append(init)
        self.memories.append(pre)
        self.updates.append(None)
        return pre

    def update_memory(self, mem, var):
        self._inside("update_memory")
        at = position_of(self.memories, mem)
        if at is None:
            raise PeError(f"StaticRNN.update_memory: '{mem.name}' is not a memory of this StaticRNN")
        self.updates[at] = var

    def step_output(self, o):
        self._inside("step_output")
        self.step_outputs.append(self._copy(o))

    def _copy(self, var):
        """``var`` copied by an rnn_memory_helper into a new variable of the step block (Fluid's)."""
        out = self.helper.create_variable_for_type_inference(var.dtype)
        self.helper.append_op("rnn_memory_helper", {"X": [var]}, {"Out": [out]}, {"dtype": var.dtype})
        return out

    def output(self, *outputs):
        for o in outputs:
            self.step_output(o)

    def _append_op(self):
        missing = [m.name for m, u in zip(self.memories, self.updates) if u is None]
        if missing:
            raise PeError(f"StaticRNN: memories {missing} are never updated (rnn.update_memory(mem, new))")
        if not self.inputs:
            raise PeError("StaticRNN: no step_input; the number of steps comes from the step inputs")
        program = self.helper.main_program
        program.current_block_idx = self.block.idx
        try:
            states = [self._copy(u) for u in self.updates]
        finally:
            program.current_block_idx = self.block.parent_idx
        reads, _ = block_io(self.block)
        parent = program.block(self.block.parent_idx)
        self.outputs = [parent.create_var(name=o.name, dtype=o.dtype) for o in self.step_outputs]
        scopes = parent.create_var(
            name=unique_name.generate("_generated_var"), stop_gradient=True, type=VarType.STEP_SCOPES
        )
        self.helper.append_op(
            "recurrent",
            {"inputs": self.inputs, "initial_states": self.boots, "parameters": reads},
            {"outputs": self.outputs, "step_scopes": [scopes]},
            {
                "sub_block": self.block.idx,
                "ex_states": [m.name for m in self.memories],
                "states": [u.name for u in states],
                "has_states": bool(states),
                "reverse": self._reverse,
            },
        )

    def __call__(self, *args, **kwargs):
        if not self.done:
            raise PeError("StaticRNN: call rnn() after the `with rnn.step():` block")
        return self.outputs[0] if len(self.outputs) == 1 else self.outputs
