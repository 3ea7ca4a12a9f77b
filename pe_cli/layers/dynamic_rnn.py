"""Fluid's ``DynamicRNN``: a recurrence over the sequences of LoD inputs, the step written as a block,
built as Fluid 1.8.5 builds it, so a program pe saves with one loads in Fluid and the reverse.

    drnn = DynamicRNN()
    with drnn.block():
        word = drnn.step_input(sentence)          # sentence: LoD [tokens, D]; word: [running, D]
        enc = drnn.static_input(encoded)          # one row (or sequence) per sequence of sentence
        prev = drnn.memory(init=h0)               # or memory(shape=[H], value=0.0)
        h = layers.fc([word, prev, enc], H, act="tanh")
        drnn.update_memory(prev, h)
        drnn.output(h)
    out = drnn()                                  # LoD [tokens, H], the sentence's LoD

Fluid's ops: a ``lod_rank_table`` of the first step input (its sequences, longest first),
``max_sequence_len``, each step input cut into a tensor array of time steps (``lod_tensor_to_array``),
a ``while`` over the steps whose block reads step t (``read_from_array``), the memories' arrays
(``write_to_array`` of the init at 0, read and shrunk to the running sequences by
``shrink_rnn_memory``, the update written at t + 1), static inputs reordered by the table
(``reorder_lod_tensor_by_rank``) and shrunk, each output written into an array that
``array_to_lod_tensor`` puts back in the sequences' order. A memory's ``init`` is taken in the
table's order, as Fluid's: ``need_reorder=True`` reorders it from the batch's order. The gradient is
the ``while``'s (docs/CONTROL_FLOW.md). A model file's ``dynamic_rnn`` layer builds pe's one
``dynamic_recurrent`` op instead (pe_cli/layers/dynamic_recurrent.py)."""

import contextlib

from ..base.dtypes import VarType
from ..framework import unique_name
from ..framework.variable import Variable
from .control_flow import While, array_read, array_write, increment
from .creation import fill_constant
from .helper import LayerHelper
from .lod_rank import shrink_memory
from .logic import less_than

__all__ = ["DynamicRNN"]


class DynamicRNN:
    BEFORE_RNN, IN_RNN, AFTER_RNN = 0, 1, 2

    def __init__(self, name=None):
        self.helper = LayerHelper("dynamic_rnn", name=name)
        self.status = DynamicRNN.BEFORE_RNN
        self.lod_rank_table = self.max_seq_len = self.step_idx = self.zero_idx = None
        self.mem_dict, self.mem_link, self.input_array = {}, [], []
        self.output_array, self.outputs = [], []
        self.cond = self.helper.create_variable_for_type_inference("bool")
        self.cond.stop_gradient = False
        self.while_op = While(self.cond)

    def _parent_block(self):
        return self.helper.main_program.current_block().parent_block

    def _assert_in_rnn_block(self, method):
        if self.status != DynamicRNN.IN_RNN:
            raise ValueError(f"{method} can only be invoked inside rnn block.")

    def _parent_var(self, key, var_type=VarType.LOD_TENSOR, dtype="float32", stop_gradient=False):
        return self._parent_block().create_var(
            name=unique_name.generate(key), type=var_type, dtype=dtype, stop_gradient=stop_gradient
        )

    def step_input(self, x, level=0):
        self._assert_in_rnn_block("step_input")
        if not isinstance(x, Variable):
            raise TypeError("step_input() can only take a Variable as its input.")
        parent = self._parent_block()
        if self.lod_rank_table is None:
            self.lod_rank_table = self._parent_var("lod_rank_table", VarType.LOD_RANK_TABLE, "int64", True)
            parent.append_op("lod_rank_table", {"X": [x]}, {"Out": [self.lod_rank_table]}, {"level": level})
            self.max_seq_len = self._parent_var("dynamic_rnn_max_seq_len", dtype="int64")
            parent.append_op("max_sequence_len", {"RankTable": [self.lod_rank_table]}, {"Out": [self.max_seq_len]})
            self.cond.stop_gradient = True
            parent.append_op(
                "less_than", {"X": [self.step_idx], "Y": [self.max_seq_len]}, {"Out": [self.cond]}, {"force_cpu": True}
            )
        input_array = self._parent_var("dynamic_rnn_input_array", VarType.LOD_TENSOR_ARRAY, x.dtype)
        self.input_array.append((input_array, x.dtype))
        parent.append_op("lod_tensor_to_array", {"X": [x], "RankTable": [self.lod_rank_table]}, {"Out": [input_array]})
        return array_read(array=input_array, i=self.step_idx)

    def static_input(self, x):
        self._assert_in_rnn_block("static_input")
        if not isinstance(x, Variable):
            raise TypeError("static_input() can only take a Variable as its input")
        if self.lod_rank_table is None:
            raise RuntimeError("static_input() must be called after step_input().")
        reordered = self._reordered(x, "dynamic_rnn_static_input_reordered")
        return shrink_memory(reordered, self.step_idx, self.lod_rank_table)

    def _reordered(self, x, key):
        out = self._parent_var(key, dtype=x.dtype)
        out.shape, out.lod_level = x.shape, x.lod_level
        self._parent_block().append_op(
            "reorder_lod_tensor_by_rank", {"X": [x], "RankTable": [self.lod_rank_table]}, {"Out": [out]}
        )
        return out

    @contextlib.contextmanager
    def block(self):
        if self.status != DynamicRNN.BEFORE_RNN:
            raise ValueError("rnn.block() can only be invoke once")
        self.step_idx = fill_constant(shape=[1], dtype="int64", value=0, force_cpu=True)
        self.step_idx.stop_gradient = False
        self.status = DynamicRNN.IN_RNN
        with self.while_op.block():
            yield
            increment(x=self.step_idx, value=1.0, in_place=True)
            for new_mem, mem_array in self.mem_link:
                array_write(x=new_mem, i=self.step_idx, array=mem_array)
            less_than(x=self.step_idx, y=self.max_seq_len, force_cpu=True, cond=self.cond)
        self.status = DynamicRNN.AFTER_RNN
        helper = LayerHelper("array_to_lod_tensor")
        for array in self.output_array:
            out = helper.create_variable_for_type_inference(array.dtype)
            helper.append_op("array_to_lod_tensor", {"X": [array], "RankTable": [self.lod_rank_table]}, {"Out": [out]})
            self.outputs.append(out)

    def __call__(self, *args, **kwargs):
        if self.status != DynamicRNN.AFTER_RNN:
            raise ValueError("Output of the dynamic RNN can only be visited outside the rnn block.")
        return self.outputs[0] if len(self.outputs) == 1 else self.outputs

    def memory(self, init=None, shape=None, value=0.0, need_reorder=False, dtype="float32"):
        self._assert_in_rnn_block("memory")
        self._init_zero_idx()
        if init is not None:
            if not isinstance(init, Variable):
                raise TypeError("The input arg `init` of memory() must be a Variable")
            if need_reorder:
                if self.lod_rank_table is None:
                    raise ValueError(
                        "If set need_reorder to True, make sure step_input be invoked before "
                        "memory(init=init, need_reordered=True, ...)."
                    )
                init = self._reordered(init, "dynamic_rnn_mem_init_reordered")
            mem_array = self._parent_var("dynamic_rnn_mem_array", VarType.LOD_TENSOR_ARRAY, init.dtype)
            self._parent_block().append_op("write_to_array", {"X": [init], "I": [self.zero_idx]}, {"Out": [mem_array]})
            mem = shrink_memory(
                x=array_read(array=mem_array, i=self.step_idx), i=self.step_idx, table=self.lod_rank_table
            )
            self.mem_dict[mem.name] = mem_array
            return mem
        if shape is not None and not isinstance(shape, (list, tuple)):
            raise TypeError(f"DynamicRNN.memory: shape must be a list or tuple, got {type(shape).__name__}")
        if not self.input_array:
            raise ValueError("step_input should be invoked before memory(shape=..., value=...)")
        init = self._parent_var("mem_init", dtype=dtype)
        array, array_dtype = self.input_array[0]
        in0 = self._parent_var("in0", dtype=array_dtype)
        parent = self._parent_block()
        parent.append_op("read_from_array", {"X": [array], "I": [self.zero_idx]}, {"Out": [in0]})
        parent.append_op(
            "fill_constant_batch_size_like",
            {"Input": [in0]},
            {"Out": [init]},
            {"shape": [-1] + list(shape), "value": float(value), "dtype": init.dtype},
        )
        return self.memory(init=init)

    def update_memory(self, ex_mem, new_mem):
        self._assert_in_rnn_block("update_memory")
        if not isinstance(ex_mem, Variable):
            raise TypeError("The input arg `ex_mem` of update_memory() must be a Variable")
        if not isinstance(new_mem, Variable):
            raise TypeError("The input arg `new_mem` of update_memory() must be a Variable")
        mem_array = self.mem_dict.get(ex_mem.name)
        if mem_array is None:
            raise ValueError("Please invoke memory before update_memory")
        if self.lod_rank_table is None:
            raise ValueError("Please invoke step_input before update_memory")
        self.mem_link.append((new_mem, mem_array))

    def output(self, *outputs):
        self._assert_in_rnn_block("output")
        for each in outputs:
            array = self._parent_var(
                "_".join([self.helper.name, "output_array", each.name]), VarType.LOD_TENSOR_ARRAY, each.dtype
            )
            array_write(x=each, i=self.step_idx, array=array)
            self.output_array.append(array)

    def _init_zero_idx(self):
        if self.zero_idx is None:
            self.zero_idx = self._parent_var("zero_idx", dtype="int64")
            self._parent_block().append_op(
                "fill_constant",
                {},
                {"Out": [self.zero_idx]},
                {"shape": [1], "dtype": "int64", "value": 0.0, "force_cpu": True},
            )
