"""``paddle.fluid.transpiler.collective``: GradAllReduce and LocalSGD rewrite a program for a ring of
trainers with Fluid's ring collective ops, as Fluid's do: the startup program gets ``c_gen_nccl_id``
and ``c_comm_init`` per ring and ``c_broadcast`` of every parameter from rank 0; GradAllReduce scales
the loss gradient by 1/nranks and all-reduces (``c_allreduce_sum``) each gradient after the op that
finishes it; LocalSGD keeps a snapshot of each parameter and all-reduces the parameters' change after
each update. pe's ring ops run within one process (pe_cli/ops/collective.py): a program for several
trainers says so when it runs; pe's own data parallelism across processes is CompiledProgram's and
fleet's (docs/DISTRIBUTED.md)."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has these names

import collections  # noqa: F401
import logging  # noqa: F401
import math  # noqa: F401
import sys  # noqa: F401
from functools import reduce  # noqa: F401

import numpy as np  # noqa: F401

from .details import wait_server_ready
from .. import core, unique_name  # noqa: F401
from ..framework import Program, default_main_program, default_startup_program  # noqa: F401
from ..unsupported import optional_module
from ...base.dtypes import VarType
from ...framework.operator import OpRole

__all__ = ["GradAllReduce", "LocalSGD"]
six = optional_module("six")


class Collective:
    """``transpile(startup_program, main_program, rank, endpoints, current_endpoint, wait_port)``."""

    def __init__(self, nrings):
        self.nrings = nrings
        self.endpoints = self.current_endpoint = self.nranks = self.rank = None
        self.startup_program = self.main_program = None
        self.op_role_key, self.op_role_var_key = "op_role", "op_role_var"

    def transpile(self, startup_program, main_program, rank, endpoints, current_endpoint, wait_port):
        if isinstance(endpoints, str):
            endpoints = endpoints.split(",")
        self.startup_program = startup_program or default_startup_program()
        self.main_program = main_program or default_main_program()
        self.nranks = len(endpoints)
        if self.nranks == 1 and self.mode != "single_process_multi_thread":
            raise ValueError("the number of endpoints must > 1")
        if rank < 0:
            raise ValueError("rank must >= 0")
        if current_endpoint not in endpoints:
            raise ValueError(f"current endpoint {current_endpoint} is not in {endpoints}")
        self.rank, self.endpoints, self.current_endpoint, self.wait_port = rank, endpoints, current_endpoint, wait_port
        self.startup_program._origin_program = self.startup_program.clone()
        self._transpile_startup_program()
        self.main_program._origin_program = self.main_program.clone()
        self._transpile_main_program()

    def _transpile_main_program(self):
        raise NotImplementedError("call the inherited method of subclasses")

    def _transpile_startup_program(self):
        for ring_id in range(self.nrings):
            self._init_communicator(
                self.startup_program, self.current_endpoint, self.endpoints, self.rank, ring_id, self.wait_port
            )
        self._broadcast_params()

    def _init_communicator(self, program, current_endpoint, endpoints, rank, ring_id, wait_port):
        others = [ep for ep in endpoints if ep != current_endpoint]
        if rank == 0 and wait_port:
            wait_server_ready(others)
        block = program.global_block()
        nccl_id = block.create_var(name=unique_name.generate("nccl_id"), persistable=True, type=VarType.RAW)
        block.append_op(
            "c_gen_nccl_id",
            {},
            {"Out": [nccl_id]},
            {"rank": rank, "endpoint": current_endpoint, "other_endpoints": others},
            role=OpRole.Forward,
        )
        block.append_op(
            "c_comm_init",
            {"X": [nccl_id]},
            {},
            {"nranks": len(endpoints), "rank": rank, "ring_id": ring_id},
            role=OpRole.Forward,
        )

    def _params(self, block):
        """The startup block's variables of the main program's parameters (not distributed ones)."""
        names = [
            p.name
            for p in self.main_program.global_block().iter_parameters()
            if not getattr(p, "is_distributed", False)
        ]
        return [block.vars[n] for n in names if n in block.vars]

    def _broadcast_params(self):
        block = self.startup_program.global_block()
        params = self._params(block)
        for i, param in enumerate(params):
            block.append_op(
                "c_broadcast",
                {"X": [param]},
                {"Out": [param]},
                {"ring_id": i % self.nrings, "root": 0},
                role=OpRole.Forward,
            )
        for ring_id in range(self.nrings if params else 0):
            block.append_op(
                "c_sync_comm_stream",
                {"X": [params[-1]]},
                {"Out": [params[-1]]},
                {"ring_id": ring_id},
                role=OpRole.Forward,
            )

    @staticmethod
    def _is_loss_grad_op(op):
        return bool(op.role & OpRole.Backward and op.role & OpRole.Loss)

    @staticmethod
    def _is_backward_op(op):
        return bool(op.role & OpRole.Backward)

    @staticmethod
    def _is_update_op(op):
        return {"Param", "Grad", "LearningRate"} <= set(op.input_names)

    @staticmethod
    def _is_optimizer_op(op):
        return bool(op.role & OpRole.Optimize)


class GradAllReduce(Collective):
    def __init__(self, nrings=2):
        super().__init__(nrings)
        self.mode = "grad_allreduce"

    def _transpile_main_program(self):
        self._insert_scale_loss_grad_ops()
        self._insert_allreduce_ops()

    def _insert_scale_loss_grad_ops(self):
        """The loss gradient divided by the number of trainers, so the learning rate means the same."""
        block = self.main_program.global_block()
        for idx, op in reversed(list(enumerate(block.ops))):
            if self._is_loss_grad_op(op):
                grad = block.vars[op.output_arg_names[0]]
                block._insert_op(
                    idx + 1, "scale", {"X": [grad]}, {"Out": [grad]}, {"scale": 1.0 / self.nranks}, role=OpRole.Backward
                )

    def _param_grads(self, block):
        """(param, grad) of every update op (Fluid reads them from the backward ops' op_role_var)."""
        pairs = [(op.input("Param")[0], op.input("Grad")[0]) for op in block.ops if self._is_update_op(op)]
        return [(block.vars[p], block.vars[g]) for p, g in pairs if not getattr(block.vars[p], "is_distributed", False)]

    def _insert_allreduce_ops(self):
        block = self.main_program.global_block()
        pairs = self._param_grads(block)
        last_writer = {
            g.name: max(
                i for i, op in enumerate(block.ops) if g.name in op.output_arg_names and self._is_backward_op(op)
            )
            for _, g in pairs
        }
        ring_id, done = -1, set()
        for _, grad in sorted(pairs, key=lambda pg: -last_writer[pg[1].name]):
            at = last_writer[grad.name] + 1
            if at not in done:
                block._insert_op(at, "c_sync_calc_stream", {"X": [grad]}, {"Out": [grad]}, {}, role=OpRole.Backward)
                done.add(at)
            ring_id = (ring_id + 1) % self.nrings
            block._insert_op(
                at + 1, "c_allreduce_sum", {"X": [grad]}, {"Out": [grad]}, {"ring_id": ring_id}, role=OpRole.Backward
            )
        first_opt = next((i for i, op in enumerate(block.ops) if self._is_optimizer_op(op)), None)
        if pairs and first_opt is not None:
            grad = min(pairs, key=lambda pg: last_writer[pg[1].name])[1]  # the last one all-reduced
            for ring_id in range(self.nrings):
                block._insert_op(
                    first_opt + ring_id,
                    "c_sync_comm_stream",
                    {"X": [grad]},
                    {"Out": [grad]},
                    {"ring_id": ring_id},
                    role=OpRole.Backward,
                )


class LocalSGD(Collective):
    """Each trainer updates on its own; after each update the parameters' change since the last
    average is all-reduced and averaged, and a snapshot keeps the averaged value."""

    def __init__(self, nrings=2):
        super().__init__(nrings)
        self.snapshot_key = "@SNAPSHOT"
        self.mode = "local_sgd"

    def snapshot_name(self, param_name):
        return param_name + self.snapshot_key

    def _transpile_startup_program(self):
        super()._transpile_startup_program()
        block = self.startup_program.global_block()
        for param in self._params(block):
            snapshot = block.create_var(
                name=self.snapshot_name(param.name),
                shape=param.shape,
                dtype=param.dtype,
                persistable=True,
                stop_gradient=True,
            )
            block.append_op("assign", {"X": [param]}, {"Out": [snapshot]}, role=OpRole.Forward)

    def _transpile_main_program(self):
        block = self.main_program.global_block()
        pairs, ring_id = [], -1
        for idx, op in reversed(list(enumerate(block.ops))):
            if not self._is_update_op(op):
                continue
            param = block.vars[op.input("Param")[0]]
            if getattr(param, "is_distributed", False):
                continue
            snapshot = block.create_var(
                name=self.snapshot_name(param.name),
                shape=param.shape,
                dtype=param.dtype,
                persistable=True,
                stop_gradient=True,
            )
            block._insert_op(
                idx + 1, "elementwise_sub", {"X": [snapshot], "Y": [param]}, {"Out": [param]}, role=OpRole.Optimize
            )
            block._insert_op(idx + 2, "c_sync_calc_stream", {"X": [param]}, {"Out": [param]}, role=OpRole.Optimize)
            ring_id = (ring_id + 1) % self.nrings
            block._insert_op(
                idx + 3, "c_allreduce_sum", {"X": [param]}, {"Out": [param]}, {"ring_id": ring_id}, role=OpRole.Optimize
            )
            pairs.append((param, snapshot))
        for ring_id in range(self.nrings if pairs else 0):
            block.append_op(
                "c_sync_comm_stream",
                {"X": [pairs[-1][0]]},
                {"Out": [pairs[-1][0]]},
                {"ring_id": ring_id},
                role=OpRole.Optimize,
            )
        for param, snapshot in reversed(pairs):
            block.append_op(
                "scale", {"X": [param]}, {"Out": [param]}, {"scale": 1.0 / self.nranks}, role=OpRole.Optimize
            )
            block.append_op("elementwise_sub", {"X": [snapshot], "Y": [param]}, {"Out": [param]}, role=OpRole.Optimize)
            block.append_op("assign", {"X": [param]}, {"Out": [snapshot]}, role=OpRole.Optimize)
