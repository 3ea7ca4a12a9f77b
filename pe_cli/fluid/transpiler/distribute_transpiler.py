"""``paddle.fluid.transpiler.distribute_transpiler``: ``DistributeTranspiler`` in collective mode (Fluid's ``nccl2``, here
over MPI between processes) and in parameter-server mode (pe_cli/transpiler/; see
docs/DISTRIBUTED.md), and the placement policies of parameter servers. ``memory_optimize`` and
``release_memory`` turn on the memory_optimize graph pass (pe_cli/compiler/passes).
``InferenceTranspiler`` folds conv2d + batch_norm for inference (pe_cli/transpiler/inference.py).

Endpoints name MPI ranks in order: the i-th endpoint of ``trainers`` is the process mpiexec started
as rank i, and ``current_endpoint`` must be the ``trainer_id``-th. pe takes the trainers' endpoints
as ``trainers="ep0,ep1"`` (Fluid's spelling), a list, or ``workers=`` (seed 004's example)."""

from __future__ import print_function  # noqa: F401 -- one of Fluid's names of this module

import collections  # noqa: F401 -- Fluid's module has these names
import logging  # noqa: F401
import math  # noqa: F401
import os
import sys  # noqa: F401
from functools import reduce  # noqa: F401

import numpy as np  # noqa: F401

from . import collective  # noqa: F401
from .details import UnionFind, VarStruct, VarsDistributed, delete_ops, find_op_by_output_arg  # noqa: F401
from .details import wait_server_ready  # noqa: F401
from .. import core, framework, initializer, unique_name  # noqa: F401
from ..distribute_lookup_table import find_distributed_lookup_table  # noqa: F401
from ..framework import Block, Parameter, grad_var_name  # noqa: F401
from ..unsupported import optional_module
from ... import transpiler as _ps
from ...compiler.passes import program_frees, reuse_log
from ...base.errors import ArgumentTypeError, ArgumentValueError, PeError
from ...base import limits
from ...executor.scope import global_scope
from ...framework import Program, default_main_program, default_startup_program
from ...transpiler import HashName, PSDispatcher, RoundRobin  # noqa: F401 (Fluid's names, here)
from ...transpiler.inference import InferenceTranspiler as _InferenceTranspiler
from ...transpiler.slicing import _numel, slice_variable as _slice

six = optional_module("six")

__all__ = [
    "DistributeTranspiler",
    "DistributeTranspilerConfig",
    "ServerRuntimeConfig",
    "DistributedMode",
    "memory_optimize",
    "release_memory",
    "HashName",
    "RoundRobin",
    "InferenceTranspiler",
]

_COLLECTIVE = ("nccl2", "collective")


class DistributeTranspilerConfig:
    """How ``DistributeTranspiler`` splits a program (the fields of Fluid 1.x)."""

    def __init__(self):
        self.slice_var_up = True
        self.split_method = RoundRobin
        self.min_block_size = 8192
        self.mode = "pserver"
        self.print_log = False
        self.wait_port = True
        self.enable_dc_asgd = False
        self._sync_mode = True
        self._runtime_split_send_recv = False
        self.half_async = False
        self.completely_not_async = False
        self.geo_sgd_mode = False  # geo-SGD: pe does not have it (the fleet says so at minimize)
        self.geo_sgd_need_push_nums = 100
        self.nccl_comm_num = 1
        self.use_hierarchical_allreduce = False
        self.hierarchical_allreduce_inter_nranks = 0
        self.collective_mode = None

    @property
    def sync_mode(self):
        return self._sync_mode

    @sync_mode.setter
    def sync_mode(self, value):
        if not isinstance(value, bool):
            raise ArgumentTypeError(f"DistributeTranspilerConfig.sync_mode must be True or False, got {value!r}")
        if value and self._runtime_split_send_recv:
            raise ArgumentValueError(
                "DistributeTranspilerConfig: sync_mode cannot be True while runtime_split_send_recv "
                "is True; set runtime_split_send_recv to False first"
            )
        self._sync_mode = value

    @property
    def runtime_split_send_recv(self):
        return self._runtime_split_send_recv

    @runtime_split_send_recv.setter
    def runtime_split_send_recv(self, value):
        if not isinstance(value, bool):
            raise ArgumentTypeError(
                f"DistributeTranspilerConfig.runtime_split_send_recv must be True or False, got {value!r}"
            )
        if value and self._sync_mode:
            raise ArgumentValueError(
                "DistributeTranspilerConfig: runtime_split_send_recv can be True only when sync_mode "
                "is False; set sync_mode to False first"
            )
        self._runtime_split_send_recv = value


class DistributedMode:
    """Fluid's names of the parameter-server modes (the communicator's)."""

    SYNC = 0
    ASYNC = 1
    HALF_ASYNC = 2
    GEO = 3


class ServerRuntimeConfig:
    """Fluid's server thread counts (FLAGS_rpc_*_thread_num), kept as given: a pe server is one
    process answering over MPI."""

    def __init__(self):
        self._rpc_send_thread_num = int(os.getenv("FLAGS_rpc_send_thread_num", "12"))
        self._rpc_get_thread_num = int(os.getenv("FLAGS_rpc_get_thread_num", "12"))
        self._rpc_prefetch_thread_num = int(os.getenv("FLAGS_rpc_prefetch_thread_num", "12"))


def _endpoints(trainers, workers):
    value = trainers if workers is None else workers
    if isinstance(value, str):
        value = [e.strip() for e in value.split(",") if e.strip()]
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(e, str) for e in value):
        raise PeError(
            f"DistributeTranspiler.transpile in collective mode: trainers must be the trainers' "
            f"endpoints, 'ip:port,ip:port' (one per MPI rank, in rank order), got {value!r}"
        )
    limits.check("processes", len(value), "DistributeTranspiler.transpile's trainer endpoints")
    if len(set(value)) != len(value):
        raise PeError(f"DistributeTranspiler.transpile: trainers lists an endpoint twice: {','.join(value)}")
    return list(value)


class DistributeTranspiler:
    """Turns a program into a distributed one. Collective mode (``config.mode`` 'nccl2' or
    'collective'): the program is unchanged; it records the trainers, and ``ParallelExecutor``
    (``num_trainers``, ``trainer_id``) or ``CompiledProgram.with_data_parallel`` then sums the
    gradients over the processes and starts them from trainer 0's parameters."""

    def __init__(self, config=None):
        if config is not None and not isinstance(config, DistributeTranspilerConfig):
            raise TypeError(
                f"DistributeTranspiler: config must be a DistributeTranspilerConfig, got {type(config).__name__}"
            )
        self.config = config if config is not None else DistributeTranspilerConfig()
        self._program = None
        self._plan = None

    def transpile(
        self,
        trainer_id,
        program=None,
        pservers="127.0.0.1:6174",
        trainers=1,
        sync_mode=True,
        startup_program=None,
        current_endpoint="127.0.0.1:6174",
        workers=None,
    ):
        mode = self.config.mode
        if mode not in _COLLECTIVE + ("pserver",):
            raise PeError(f"DistributeTranspilerConfig.mode must be 'nccl2', 'collective' or 'pserver', got {mode!r}")
        program = default_main_program() if program is None else program
        startup_program = default_startup_program() if startup_program is None else startup_program
        for what, p in (("program", program), ("startup_program", startup_program)):
            if not isinstance(p, Program):
                raise TypeError(f"DistributeTranspiler.transpile: {what} must be a Program, got {type(p).__name__}")
        if isinstance(trainers, int) and not isinstance(trainers, bool):
            limits.check("processes", trainers, "DistributeTranspiler.transpile's trainers")
        if mode == "pserver":
            self._transpile_pserver(trainer_id, program, pservers, trainers, sync_mode, startup_program)
            return
        endpoints = _endpoints(trainers, workers)
        if not isinstance(trainer_id, int) or not 0 <= trainer_id < len(endpoints):
            raise PeError(
                f"DistributeTranspiler.transpile: trainer_id must be an integer in "
                f"[0, {len(endpoints)}) for {len(endpoints)} trainers, got {trainer_id!r}"
            )
        if current_endpoint != endpoints[trainer_id]:
            raise PeError(
                f"DistributeTranspiler.transpile: current_endpoint {current_endpoint!r} is not "
                f"trainer {trainer_id}'s endpoint {endpoints[trainer_id]!r}: endpoints name the "
                f"MPI ranks in order"
            )
        for p in (program, startup_program):
            p._trainers_endpoints = endpoints
            p._trainer_id = trainer_id
        self._program, self._startup = program, startup_program

    def _transpile_pserver(self, trainer_id, program, pservers, trainers, sync_mode, startup_program):
        """Parameter-server mode: ``program`` and ``startup_program`` become the trainer's, in place
        (as in Fluid); the servers' programs come from the program as it was."""
        self._origin, self._origin_startup = program.clone(), startup_program.clone()
        sync = sync_mode and self.config.sync_mode
        self._plan = _ps.PServerPlan(self._origin, pservers, trainers, trainer_id, sync, self.config)
        self._lr_ops = _ps.lr_ops(self._origin.global_block())
        _ps.rewrite_trainer_program(program, self._plan)
        _ps.rewrite_trainer_startup(startup_program, self._plan)
        self._program, self._startup = program, startup_program

    def get_trainer_program(self, wait_port=True):
        """The program each trainer runs (in collective mode, the transpiled program itself)."""
        if self._program is None:
            raise PeError("DistributeTranspiler: call transpile(...) before get_trainer_program()")
        return self._program

    def _pserver_plan(self, what):
        if self._plan is None:
            raise PeError(
                f"DistributeTranspiler.{what}: call transpile(...) in parameter-server mode first "
                f"(config.mode = 'pserver', the default)"
            )
        return self._plan

    def get_pserver_program(self, endpoint):
        """The program of the server at ``endpoint``: run it with ``exe.run``; it serves until every
        trainer has finished (Executor.close() on the trainers, or their exit)."""
        return _ps.pserver_program(self._pserver_plan("get_pserver_program"), endpoint, self._lr_ops)

    def get_pserver_programs(self, endpoint):
        """(main, startup) of the server at ``endpoint``."""
        main = self.get_pserver_program(endpoint)
        return main, self.get_startup_program(endpoint, main)

    def get_startup_program(self, endpoint=None, pserver_program=None, startup_program=None):
        """The startup program of the server at ``endpoint`` (of ``pserver_program`` when given)."""
        self._pserver_plan("get_startup_program")
        if pserver_program is None:
            pserver_program = self.get_pserver_program(endpoint)
        return _ps.pserver_startup(startup_program or self._origin_startup, pserver_program)


def memory_optimize(input_program, skip_opt_set=None, print_log=False, level=0, skip_grads=True):
    """Turns on the memory_optimize pass for ``input_program`` (pe_cli/compiler/passes): each
    temporary is released once its last reader (backward ops included) has run, on the Executor and
    on every device of a data-parallel run. Fed, fetched, persistable and ``skip_opt_set`` variables
    are never released. ``print_log`` prints which released buffer each later value can take
    (``level`` 0: same shape only, 1: any that is large enough). Numbers never change."""
    if not isinstance(input_program, Program):
        raise TypeError(f"memory_optimize: input_program must be a Program, got {type(input_program).__name__}")
    if level not in (0, 1):
        raise ValueError(f"memory_optimize: level must be 0 or 1, got {level!r}")
    skip = {s if isinstance(s, str) else s.name for s in skip_opt_set or ()}
    input_program._memory_optimize = {"skip": skip, "level": level, "print_log": bool(print_log)}
    if print_log:
        block = input_program.global_block()
        for line in reuse_log(block, program_frees(block, (), skip), level):
            print(f"memory_optimize: {line}")


def release_memory(input_program, skip_opt_set=None):
    """Releases each temporary of ``input_program`` after its last reader (the memory_optimize pass
    without buffer-reuse logging)."""
    memory_optimize(input_program, skip_opt_set)


class InferenceTranspiler(_InferenceTranspiler):
    """Fluid's ``InferenceTranspiler``: ``transpile(program, place, scope=None)``, the global scope by
    default."""

    def transpile(self, program, place, scope=None):
        return super().transpile(program, place, global_scope() if scope is None else scope)


# -- the other names of Fluid's distribute_transpiler module: its constants, its helpers, the names it imports
LOOKUP_TABLE_TYPE = ["lookup_table", "lookup_table_v2"]
LOOKUP_TABLE_GRAD_TYPE = ["lookup_table_grad", "lookup_table_v2_grad"]
OP_NAME_SCOPE = "op_namescope"
CLIP_OP_NAME_SCOPE = "@CLIP"
OP_ROLE_VAR_ATTR_NAME = "op_role_var"
RPC_OP_ROLE_ATTR_NAME = op_role_attr_name = "op_role"
# Fluid's OpRole values: Optimize 2, RPC 3, Dist 4, LRSched 16
OPT_OP_ROLE_ATTR_VALUE, RPC_OP_ROLE_ATTR_VALUE, DIST_OP_ROLE_ATTR_VALUE, LR_SCHED_OP_ROLE_ATTR_VALUE = 2, 3, 4, 16
PRINT_LOG = False


def log(*args):
    if PRINT_LOG:
        print(args)


def same_or_split_var(p_name, var_name):
    """True when ``p_name`` is ``var_name`` or one of its blocks (``var_name.blockN``)."""
    return p_name == var_name or p_name.startswith(var_name + ".block")


class VarBlock:
    """One block of a sliced variable, as Fluid's string ``name:offset:size`` gives it."""

    def __init__(self, varname, offset, size):
        self.varname, self.offset, self.size = varname, offset, size

    def __str__(self):
        return f"{self.varname}:{self.offset}:{self.size}"


def slice_variable(var_list, slice_count, min_block_size):
    """The blocks (``"name:block_id:size"`` strings) each variable of ``var_list`` is cut into for
    ``slice_count`` servers, blocks of at least ``min_block_size`` values and whole rows (pe's slicing,
    pe_cli/transpiler/slicing.py)."""
    return [
        str(VarBlock(var.name, b.index, _numel(b.shape)))
        for var in var_list
        for b in _slice(var.name, var.shape, slice_count, min_block_size)
    ]
