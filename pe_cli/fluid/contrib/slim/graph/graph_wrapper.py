"""``paddle.fluid.contrib.slim.graph.graph_wrapper``: GraphWrapper, slim's view of a program with named
inputs and outputs (``in_nodes``, ``out_nodes``: name -> variable name), which the Compressor and its
strategies work on, with VarWrapper and OpWrapper, its views of variables and ops, as Fluid 1.8.5's:
parameters, ops and their neighbours, FLOPs, the parameters' size, an optimized copy, compiling,
saving and loading. ``feeder(place)`` and ``fetch_vars()`` are what pe's Compressor feeds and fetches."""

import copy
import os
from collections import OrderedDict

import numpy as np

from .... import compiler, io
from ....data_feeder import DataFeeder
from ....executor import Executor
from ....framework import Parameter, Program, Variable, program_guard

__all__ = ["GraphWrapper", "VarWrapper", "OpWrapper"]

OPTIMIZER_OPS = [
    "momentum",
    "lars_momentum",
    "adagrad",
    "adam",
    "adamax",
    "dpsgd",
    "decayed_adagrad",
    "adadelta",
    "rmsprop",
]


class VarWrapper:
    def __init__(self, var, graph):
        assert isinstance(var, Variable)
        assert isinstance(graph, GraphWrapper)
        self._var, self._graph = var, graph

    def __eq__(self, v):
        return self._var.name == v._var.name

    __hash__ = None

    def name(self):
        return self._var.name

    def shape(self):
        return self._var.shape

    def set_shape(self, shape):
        self._var.desc.set_shape(shape)

    def inputs(self):
        """The ops that read this variable (Fluid's naming)."""
        return [op for op in self._graph.ops() if self in op.all_inputs()]

    def outputs(self):
        """The ops that write this variable (Fluid's naming)."""
        return [op for op in self._graph.ops() if self in op.all_outputs()]


class OpWrapper:
    def __init__(self, op, graph):
        assert isinstance(graph, GraphWrapper)
        self._op, self._graph = op, graph

    def __eq__(self, op):
        return self.idx() == op.idx()

    __hash__ = None

    def all_inputs(self):
        return [self._graph.var(name) for name in self._op.input_arg_names]

    def all_outputs(self):
        return [self._graph.var(name) for name in self._op.output_arg_names]

    def idx(self):
        return self._op.idx

    def type(self):
        return self._op.type

    def is_bwd_op(self):
        return self.type().endswith("_grad")

    def is_opt_op(self):
        return self.type() in OPTIMIZER_OPS

    def inputs(self, name):
        return [self._graph.var(n) for n in self._op.input(name)]

    def outputs(self, name):
        return [self._graph.var(n) for n in self._op.output(name)]

    def set_attr(self, key, value):
        self._op._set_attr(key, value)

    def attr(self, name):
        return self._op.attr(name)


def _batch_one(shape):
    shape = list(shape)
    if shape and shape[0] == -1:
        shape[0] = 1
    return shape


def _op_flops(op, only_conv):
    """Fluid's FLOPs of one op (conv2d, depthwise_conv2d; and unless ``only_conv`` pool2d, mul, relu,
    sigmoid, batch_norm), 0 for the others."""
    kind = op.type()
    if kind in ("conv2d", "depthwise_conv2d"):
        c_out, c_in, k_h, k_w = op.inputs("Filter")[0].shape()
        _, _, h_out, w_out = op.outputs("Output")[0].shape()
        with_bias = 1 if op._op.input("Bias") else 0
        return 2 * h_out * w_out * c_out * (k_h * k_w * (c_in / op.attr("groups")) + with_bias)
    if only_conv:
        return 0
    if kind == "pool2d":
        _, c_out, h_out, w_out = op.outputs("Out")[0].shape()
        return h_out * w_out * c_out * (op.attr("ksize")[0] ** 2)
    if kind == "mul":
        x_shape, y_shape = _batch_one(op.inputs("X")[0].shape()), op.inputs("Y")[0].shape()
        return 2 * x_shape[0] * x_shape[1] * y_shape[1]
    if kind in ("relu", "sigmoid", "batch_norm"):
        return np.prod(_batch_one(op.inputs("X")[0].shape()))
    return 0


class GraphWrapper:
    """A program with named inputs (``in_nodes``: name -> variable name) and outputs (``out_nodes``)."""

    def __init__(self, program=None, in_nodes=None, out_nodes=None):
        self.program = Program() if program is None else program
        self.persistables = {v.name: v for v in self.program.list_vars() if v.persistable}
        self.teacher_persistables = {}
        self.compiled_graph = None
        self.in_nodes = OrderedDict(in_nodes or [])
        self.out_nodes = OrderedDict(out_nodes or [])
        self._attrs = OrderedDict()

    # -- pe's Compressor -----------------------------------------------------------------------
    def feeder(self, place):
        block = self.program.global_block()
        return DataFeeder([block.var(n) for n in self.in_nodes.values()], place, program=self.program)

    def fetch_vars(self):
        return list(self.out_nodes.values())

    # -- Fluid's views -------------------------------------------------------------------------
    def all_parameters(self):
        return [VarWrapper(p, self) for block in self.program.blocks for p in block.all_parameters()]

    def is_parameter(self, var):
        return isinstance(var._var, Parameter)

    def is_persistable(self, var):
        return var._var.persistable

    def ops(self):
        return [OpWrapper(op, self) for block in self.program.blocks for op in block.ops]

    def vars(self):
        return [VarWrapper(v, self) for v in self.program.list_vars()]

    def var(self, name):
        return VarWrapper(self.program.global_block().var(name), self)

    def pre_ops(self, op):
        """The ops that write one of ``op``'s inputs (once per such input)."""
        return [p for p in self.ops() for v in op.all_inputs() if v in p.all_outputs()]

    def next_ops(self, op):
        """The ops that read one of ``op``'s outputs (once per such output)."""
        return [p for p in self.ops() for v in op.all_outputs() if v in p.all_inputs()]

    def get_param_by_op(self, op):
        assert isinstance(op, OpWrapper)
        params = [v for v in op.all_inputs() if isinstance(v._var, Parameter)]
        assert len(params) > 0
        return params

    def numel_params(self):
        return sum(np.prod(p.shape()) for p in self.all_parameters())

    def flops(self, only_conv=False):
        """The FLOPs of the graph's convolutions (and pools, muls and activations unless ``only_conv``),
        counted as Fluid's slim counts them (a batch of 1)."""
        return sum(_op_flops(op, only_conv) for op in self.ops())

    # -- programs ------------------------------------------------------------------------------
    def compile(self, for_parallel=True, for_test=False, mem_opt=False):
        """``compiled_graph``: the program as a CompiledProgram (data parallel unless ``for_parallel``
        is False), to run after the program changed."""
        if not for_parallel:
            self.compiled_graph = compiler.CompiledProgram(self.program)
            return
        strategy = compiler.BuildStrategy()
        strategy.enable_inplace = strategy.memory_optimize = mem_opt
        strategy.fuse_all_reduce_ops = False
        self.compiled_graph = compiler.CompiledProgram(self.program).with_data_parallel(
            loss_name=None if for_test else self.out_nodes["loss"], build_strategy=strategy
        )

    def clone(self, for_test=False):
        return GraphWrapper(self.program.clone(for_test), copy.deepcopy(self.in_nodes), copy.deepcopy(self.out_nodes))

    def merge(self, graph):
        """Appends ``graph``'s variables (persistable ones as teacher variables) and ops to this graph."""
        block = self.program.global_block()
        for var in graph.program.list_vars():
            if var.persistable:
                self.teacher_persistables[var.name] = var
            if not block.has_var(var.name):
                block.create_var(
                    name=var.name,
                    shape=var.shape,
                    dtype=var.dtype,
                    type=var.type,
                    lod_level=var.lod_level,
                    persistable=var.persistable,
                    stop_gradient=var.stop_gradient,
                )
        for op in graph.ops():
            op = op._op
            block.append_op(
                type=op.type,
                inputs={k: list(v) for k, v in op.inputs.items()},
                outputs={k: list(v) for k, v in op.outputs.items()},
                attrs=op.all_attrs(),
            )

    def get_optimize_graph(self, optimizer, place, scope, no_grad_var_names=[]):
        """A copy of this graph with ``optimizer``'s backward and update ops for its 'loss' (or 'cost')
        output, their state initialized in ``scope``; None without such an output."""
        graph = self.clone()
        target = graph.out_nodes.get("loss", graph.out_nodes.get("cost"))
        if target is None:
            return None
        startup = Program()
        with program_guard(graph.program, startup):
            if isinstance(optimizer._learning_rate, Variable):
                optimizer._learning_rate_map[graph.program] = optimizer._learning_rate
            optimizer.minimize(graph.var(target)._var, no_grad_set=no_grad_var_names)
        Executor(place).run(program=startup, scope=scope)
        return graph

    def update_param_shape(self, scope):
        """Each parameter's shape from its tensor in ``scope`` (after loading pruned parameters)."""
        for param in self.all_parameters():
            param.set_shape(np.array(scope.find_var(param.name()).get_tensor()).shape)

    def infer_shape(self):
        for op in self.ops():
            if op.type() != "conditional_block":
                op._op.desc.infer_shape(op._op.block.desc)

    def update_groups_of_conv(self):
        for op in self.ops():
            if op.type() in ("depthwise_conv2d", "depthwise_conv2d_grad"):
                op.set_attr("groups", op.inputs("Filter")[0].shape()[0])

    # -- files ---------------------------------------------------------------------------------
    def _save(self, path, exe, names, model_filename, program_only=False):
        outs = [self.var(n)._var for n in names[1]]
        ins = list(names[0])
        assert len(ins) > 0 and len(outs) > 0
        io.save_inference_model(
            path,
            ins,
            outs,
            exe.exe,
            model_filename=model_filename,
            params_filename="__params__",
            program_only=program_only,
            main_program=self.program.clone(),
            export_for_deployment=True,
        )

    def save_model(self, path, exe):
        """The inference model of in_nodes -> out_nodes (``__model__``, ``__params__``); ``exe`` a
        SlimGraphExecutor."""
        self._save(path, exe, (self.in_nodes.values(), self.out_nodes.values()), "__model__")

    def save_infer_model(self, path, exe, in_out, program_only=False):
        self._save(path, exe, in_out, "__model__.infer", program_only)

    def _persistable_vars(self, skip_teacher):
        return [
            var
            for name, var in self.persistables.items()
            if "reader" not in name
            and "double_buffer" not in name
            and not (skip_teacher and name in self.teacher_persistables)
        ]

    def save_persistables(self, path, exe):
        for var in self.program.list_vars():
            if var.persistable and var.name not in self.persistables:
                self.persistables[var.name] = var
        io.save_vars(exe.exe, path, vars=self._persistable_vars(True))

    def load_persistables(self, path, exe):
        def if_exist(var):
            return any(os.path.exists(os.path.join(path, var.name + ext)) for ext in ("", ".npy"))

        io.load_vars(exe.exe, path, vars=self._persistable_vars(False), predicate=if_exist)
