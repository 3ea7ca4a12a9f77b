"""pe's one-op DynamicRNN (``DynamicRecurrent``, Fluid's DynamicRNN methods): a recurrence over the
sequences of LoD inputs, the step written as a block. A model file's ``dynamic_rnn`` layer builds it
(pe_cli/layers/rnn_blocks.py; its ONNX export is a Scan); ``fluid.layers.DynamicRNN`` builds Fluid's
``while`` over tensor arrays (pe_cli/layers/dynamic_rnn.py). Programs pe saved before that hold this op.

    drnn = DynamicRecurrent()
    with drnn.block():
        word = drnn.step_input(sentence)          # sentence: LoD [tokens, D]; word: [running, D]
        enc = drnn.static_input(encoded)          # one row per sequence
        prev = drnn.memory(init=h0)               # or memory(shape=[H], value=0.0)
        h = layers.fc([word, prev, enc], H, act="tanh")
        drnn.update_memory(prev, h)
        drnn.output(h)
    out = drnn()                                  # LoD [tokens, H], the sentence's LoD

Appended as one ``dynamic_recurrent`` op (pe_cli/ops/dynamic_rnn.py), plus a ``lod_reset`` per output
where the step input has one LoD level (the op's outputs have its LoD; with more levels, a step
holds sequences and the outputs the LoD the op gives them).
A memory's ``init`` has one row per sequence in the batch's order (Fluid's ``need_reorder=True``)."""

import contextlib

from ..base.errors import PeError
from ..framework.variable import position_of
from .control_flow import block_io, sub_block
from .helper import LayerHelper

__all__ = []  # not a Fluid name: rnn_blocks.py imports the class


class DynamicRecurrent:
    def __init__(self, name=None):
        self.helper = LayerHelper("dynamic_rnn", name=name)
        self.inputs, self.step_inputs, self.statics, self.static_inner = [], [], [], []
        self.boots, self.memories, self.updates = [], [], []
        self.memory_specs = []  # (boot index or -1, shape, value, dtype)
        self.step_outputs, self.outputs = [], []
        self.body, self.done, self.step_idx = None, False, None

    def _inside(self, what):
        if self.body is None or self.done:
            raise PeError(f"DynamicRNN.{what} must be called inside `with drnn.block():`")

    @contextlib.contextmanager
    def block(self):
        if self.body is not None:
            raise PeError("DynamicRNN.block() can be entered once")
        with sub_block(self.helper.main_program) as body:
            self.body = body
            self.step_idx = body.create_var(
                name=f"{self.helper.name}.step_idx", shape=[1], dtype="int64", stop_gradient=True
            )  # the step's index t, set by the op
            yield
        self.done = True
        self._append_op()

    def step_input(self, x, level=0):
        self._inside("step_input")
        if x.lod_level < 1:
            raise PeError(f"DynamicRNN.step_input: '{x.name}' is a plain tensor; give a sequence (lod_level >= 1)")
        inner = self.body.create_var(
            name=f"{self.helper.name}.{x.name}@step",
            shape=[-1] + list(x.shape[1:]),
            dtype=x.dtype,
            lod_level=x.lod_level - 1,
        )  # a step: an element of level 1
        self.inputs.append(x)
        self.step_inputs.append(inner)
        return inner

    def static_input(self, x):
        self._inside("static_input")
        inner = self.body.create_var(
            name=f"{self.helper.name}.{x.name}@static",
            shape=[-1] + list(x.shape[1:]),
            dtype=x.dtype,
            lod_level=x.lod_level,
        )  # its sequences keep their LoD
        self.statics.append(x)
        self.static_inner.append(inner)
        return inner

    def memory(self, init=None, shape=None, value=0.0, need_reorder=False, dtype="float32"):
        self._inside("memory")
        if shape is not None and not isinstance(shape, (list, tuple)):
            raise TypeError(f"DynamicRNN.memory: shape must be a list or tuple, got {type(shape).__name__}")
        if init is None and shape is None:
            raise PeError("DynamicRNN.memory: give init= or shape=")
        if init is not None:
            self.memory_specs.append((len(self.boots), [], 0.0, init.dtype))
            self.boots.append(init)
            shape, dtype = list(init.shape[1:]), init.dtype
        else:
            self.memory_specs.append((-1, list(shape), float(value), dtype))
        pre = self.body.create_var(
            name=f"{self.helper.name}.mem_{len(self.memories)}", shape=[-1] + list(shape), dtype=dtype
        )
        self.memories.append(pre)
        self.updates.append(None)
        return pre

    def update_memory(self, ex_mem, new_mem):
        self._inside("update_memory")
        at = position_of(self.memories, ex_mem)
        if at is None:
            raise PeError(f"DynamicRNN.update_memory: '{ex_mem.name}' is not a memory of this DynamicRNN")
        self.updates[at] = new_mem

    def output(self, *outputs):
        self._inside("output")
        self.step_outputs.extend(outputs)

    def _append_op(self):
        missing = [m.name for m, u in zip(self.memories, self.updates) if u is None]
        if missing:
            raise PeError(f"DynamicRNN: memories {missing} are never updated (drnn.update_memory(mem, new))")
        if not self.inputs:
            raise PeError("DynamicRNN: no step_input; the steps come from the step inputs' sequences")
        reads, writes = block_io(self.body)
        helper = self.helper
        raw = [helper.create_variable_for_type_inference(o.dtype) for o in self.step_outputs]
        scopes = helper.create_variable(name=f"{helper.name}.step_scopes", stop_gradient=True)
        helper.append_op(
            "dynamic_recurrent",
            {"inputs": self.inputs, "initial_states": self.boots, "static_inputs": self.statics, "parameters": reads},
            {"outputs": raw, "step_scopes": [scopes], "writes": writes},
            {
                "sub_block": self.body.idx,
                "step_inputs": [v.name for v in self.step_inputs],
                "static_inputs": [v.name for v in self.static_inner],
                "step_outputs": [v.name for v in self.step_outputs],
                "ex_states": [m.name for m in self.memories],
                "states": [u.name for u in self.updates],
                "step_idx": self.step_idx.name,
                "boots": [s[0] for s in self.memory_specs],
                "memory_dims": [d for s in self.memory_specs for d in s[1]],
                "memory_ranks": [len(s[1]) for s in self.memory_specs],
                "memory_values": [s[2] for s in self.memory_specs],
                "memory_dtypes": [s[3] for s in self.memory_specs],
            },
        )
        if self.inputs[0].lod_level > 1:  # the op gives each output its LoD (elements under the top level)
            self.outputs = raw
            return
        for r in raw:
            out = helper.create_variable_for_type_inference(r.dtype)
            helper.append_op("lod_reset", {"X": [r], "Y": [self.inputs[0]]}, {"Out": [out]})
            self.outputs.append(out)

    def __call__(self, *args, **kwargs):
        if not self.done:
            raise PeError("DynamicRNN: call drnn() after the `with drnn.block():` block")
        return self.outputs[0] if len(self.outputs) == 1 else self.outputs
